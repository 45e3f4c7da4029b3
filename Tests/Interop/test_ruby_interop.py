"""grpc's own Ruby interop client against `grpc.testing.TestService` in interop-server, over h2c and TLS.

The client is `src/ruby/pb/test/client.rb` with its generated messages, as Debian's ruby-grpc package (grpc 1.51)
installs them; Scripts/setup installs the package. Each case is one run of the client, which exits 0 only when
every assertion of the case's description (grpc's doc/interop-test-descriptions.md) held.

Over TLS the client trusts nothing but grpc's test CA (`--use_test_ca=true` reads the ca.pem installed beside it),
so that server presents grpc's test certificate, copied into Tests/Interop/ruby/ (see the README there), and the
client verifies it against a host name the certificate covers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import TRANSPORTS, Certificate, serve_for_session

RUBY_DIR = Path(__file__).resolve().parent / "ruby"
GRPC_TEST_CERTIFICATE = Certificate(RUBY_DIR / "server1.pem", RUBY_DIR / "server1.key")
# server1.pem is issued for *.test.google.fr (among others), the name grpc's own interop runs override with.
TLS_HOST_OVERRIDE = "foo.test.google.fr"

# Every case of client.rb that needs neither cloud credentials nor compression.
CASES = [
    "empty_unary",
    "large_unary",
    "client_streaming",
    "server_streaming",
    "ping_pong",
    "empty_stream",
    "timeout_on_sleeping_server",
    "cancel_after_begin",
    "cancel_after_first_response",
    "status_code_and_message",
    "custom_metadata",
    "unimplemented_method",
    "unimplemented_service",
]

# One case takes about a second; this only bounds a hung client.
CLIENT_TIMEOUT = 60.0


@pytest.fixture(scope="session")
def ruby_client() -> list[str]:
    """The command that runs Debian's client.rb."""
    ruby = shutil.which("ruby")
    if ruby is None:
        pytest.fail("ruby is not installed: run `Scripts/setup --deps-only`, which installs ruby-grpc")
    found = subprocess.run(
        [ruby, "-e", 'print Gem::Specification.find_by_name("grpc").gem_dir'],
        capture_output=True, text=True, timeout=30,
    )
    if found.returncode != 0:
        pytest.fail(f"the grpc gem is missing: run `Scripts/setup --deps-only` (it installs ruby-grpc)\n{found.stderr}")
    client = Path(found.stdout) / "src" / "ruby" / "pb" / "test" / "client.rb"
    if not client.is_file():
        pytest.fail(f"{client} not found: this grpc gem does not ship grpc's Ruby interop client")
    return [ruby, str(client)]


@pytest.fixture(scope="session")
def grpc_test_ca_server(tmp_path_factory):
    """A TLS server presenting grpc's test certificate, which the Ruby client's test CA signed."""
    yield from serve_for_session(tmp_path_factory, GRPC_TEST_CERTIFICATE)


def _client_environment() -> dict[str, str]:
    """This environment without proxy settings: grpc's core would send the client's loopback calls through them."""
    proxies = {"http_proxy", "https_proxy", "grpc_proxy", "all_proxy"}
    return {key: value for key, value in os.environ.items() if key.lower() not in proxies}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("case", CASES)
def test_ruby_interop_client(request, ruby_client, case, transport):
    server = request.getfixturevalue("grpc_test_ca_server" if transport == "tls" else "h2c_server")
    command = [*ruby_client, f"--server_host={server.host}", f"--server_port={server.port}", f"--test_case={case}"]
    if transport == "tls":
        command += ["--use_tls=true", "--use_test_ca=true", f"--server_host_override={TLS_HOST_OVERRIDE}"]
    try:
        result = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CLIENT_TIMEOUT,
            env=_client_environment(),
        )
    except subprocess.TimeoutExpired as timeout:
        # Output captured before a timeout is bytes, whatever `text` says.
        stdout, stderr = ((output or b"").decode(errors="replace") for output in (timeout.stdout, timeout.stderr))
        pytest.fail(
            f"{case} over {transport} did not finish within {CLIENT_TIMEOUT}s\n$ {' '.join(command)}\n"
            f"stdout:\n{stdout}\nstderr:\n{stderr}\nserver log (tail):\n{server.log()[-3000:]}"
        )
    assert result.returncode == 0, (
        f"{case} over {transport}: the Ruby client exited with {result.returncode}\n$ {' '.join(command)}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}\nserver log (tail):\n{server.log()[-3000:]}"
    )
