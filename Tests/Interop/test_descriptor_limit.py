"""The file-descriptor limit at start (issue 39): every connected device holds a descriptor, so the server raises its
soft limit to the hard one (capped at the kernel's `fs.nr_open`) before it sizes its connection limit, and logs
what it did."""
import resource
import time
from pathlib import Path


def open_files_limits(pid: int) -> tuple[int, int]:
    """The soft and hard `Max open files` of a running process."""
    line = next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines()
                if line.startswith("Max open files"))
    soft, hard = line.split()[3:5]
    return int(soft), int(hard)


def test_a_low_soft_limit_is_raised_to_the_hard_limit_and_logged(configured_server):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = min(hard, int(Path("/proc/sys/fs/nr_open").read_text()))
    # The server inherits the limits of the process that starts it: this one's, lowered for the start.
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))
    try:
        server = configured_server()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert ceiling > 512
    assert open_files_limits(server.process.pid) == (ceiling, ceiling)
    deadline = time.monotonic() + 10
    while "file descriptors" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.05)
    line = next(line for line in server.log().splitlines() if "file descriptors" in line)
    assert f" limit={ceiling} " in f"{line} " and " raised_from=512" in line, line
