"""Helpers shared by the benchmark scripts (Scripts/benchmark, Scripts/benchmark-webhooks). Not a script."""
import os, platform, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H2LOAD_SETTINGS = ["-c10", "-m10", "-t1"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nothing is listening on port {port}")


def h2load(url, requests, extra=()):
    """Runs h2load; returns (requests per second, p99 latency in ms, succeeded count)."""
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        out = subprocess.run(
            ["h2load", *H2LOAD_SETTINGS, "-n", str(requests), f"--log-file={log.name}", *extra, url],
            capture_output=True, text=True, check=True).stdout
        latencies = sorted(int(line.split("\t")[2]) for line in open(log.name) if line.strip())
    rate = next(float(l.split(",")[1].split()[0]) for l in out.splitlines() if l.startswith("finished in"))
    succeeded = next(int(l.split(",")[3].split()[0]) for l in out.splitlines() if l.startswith("requests:"))
    p99 = latencies[int(len(latencies) * 0.99) - 1] / 1000 if latencies else float("nan")
    return rate, p99, succeeded


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown CPU")
    mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")) / 1024 / 1024
    return f"{os.cpu_count()} cores, {cpu}, {mem:.0f} GiB, {platform.system()} {platform.release()}"


def build_release(*products):
    for product in products:
        subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)


def build_grpc_cpp_reference():
    """Scripts/reference/grpc_cpp_server.cc against Debian's libgrpc++ (protoc and grpc_cpp_plugin generate the
    messages and services from Protos/); returns the binary's path. Rebuilt only when the source is newer."""
    out = os.path.join(ROOT, ".build", "reference")
    binary = os.path.join(out, "grpc-cpp-server")
    source = os.path.join(ROOT, "Scripts", "reference", "grpc_cpp_server.cc")
    if os.path.exists(binary) and os.path.getmtime(binary) > os.path.getmtime(source):
        return binary
    os.makedirs(out, exist_ok=True)
    protos = ["entitlements/v1/entitlement_service.proto", "entitlements/v1/status.proto", "grpc/health/v1/health.proto"]
    # grpc_cpp_plugin copies rpc comments into its output through a printer that reads `$name` as a variable (and
    # aborts on the contract's `$email`): it compiles copies whose comments have no `$`.
    sources = os.path.join(out, "protos")
    for proto in protos:
        os.makedirs(os.path.dirname(os.path.join(sources, proto)), exist_ok=True)
        with open(os.path.join(ROOT, "Protos", proto)) as original, open(os.path.join(sources, proto), "w") as copy:
            copy.writelines(line.replace("$", "") if line.lstrip().startswith("//") else line for line in original)
    plugin = subprocess.run(["which", "grpc_cpp_plugin"], capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["protoc", "-I", sources, f"--cpp_out={out}", f"--grpc_out={out}",
                    f"--plugin=protoc-gen-grpc={plugin}", *protos], check=True)
    generated = [os.path.join(out, p.removesuffix(".proto") + suffix) for p in protos
                 for suffix in (".pb.cc", ".grpc.pb.cc")]
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "grpc++", "protobuf"], capture_output=True,
                           text=True, check=True).stdout.split()
    subprocess.run(["g++", "-O2", "-std=c++17", "-I", out, source, *generated, "-o", binary, *flags], check=True)
    return binary


GATE_MARKER = "<!-- regression gate: figure | script | recorded | spread | better -->"


def check_regressions(script, figures):
    """Compares this run's `figures` (name -> value) with the regression gate table in BENCHMARKS.md: the rows of
    `script` whose figure this run measured. A figure worse than recorded by more than its documented run-to-run
    spread fails the run (exit 1), after every figure has been printed; a gated figure the run did not produce fails
    too, so a renamed figure cannot slip out of the gate."""
    lines = open(os.path.join(ROOT, "BENCHMARKS.md")).read().splitlines()
    if GATE_MARKER not in lines:
        sys.exit("BENCHMARKS.md has no regression gate table")
    rows = []
    for line in lines[lines.index(GATE_MARKER) + 1:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        if cells[0] in ("figure", "") or set(cells[0]) <= set("-"):
            continue
        figure, row_script, recorded, spread, better = cells
        if row_script == script:
            rows.append((figure, float(recorded.replace(",", "")), float(spread.replace(",", "")), better))
    failures = []
    for figure, recorded, spread, better in rows:
        value = figures.get(figure)
        if value is None:
            failures.append(f"{figure}: not measured by this run")
            continue
        limit = recorded - spread if better == "higher" else recorded + spread
        worse = value < limit if better == "higher" else value > limit
        print(f"gate {figure}: {value:.2f} (recorded {recorded:g}, {better} is better, limit {limit:g})"
              f"{'  REGRESSION' if worse else ''}")
        if worse:
            failures.append(f"{figure}: {value:.2f}, worse than the recorded {recorded:g} by more than {spread:g}")
    if failures:
        sys.exit("REGRESSION against BENCHMARKS.md:\n  " + "\n  ".join(failures))
    print(f"regression gate: {len(rows)} figures of {script} within their recorded spread")
