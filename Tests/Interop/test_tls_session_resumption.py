"""TLS session resumption by tickets through the real server, with Python's `ssl` (OpenSSL) as the client, in TLS 1.3
and TLS 1.2: a client that holds a session resumes it (no certificate, no signature) on the same server, on another
instance given the same `[tls] session_ticket_secret_file`, and on a server restarted with it; a server with another
secret, or without one after a restart, makes a full handshake instead, never an error. A gRPC call works on every
connection, and `entitlementd_tls_handshakes_total` counts each handshake as full or resumed.

A ticket of a period rotated out is ignored like one of another secret (its key name is unknown); the schedule itself
is tested in Swift (SessionTicketKeysTests) at times of its choosing, as the server's clock cannot be moved here.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import RPC_TIMEOUT, STARTUP_TIMEOUT, RawH2Connection, ServerProcess, frame, free_port, server_binary, write_config
from test_metrics import Samples, scrape

HEALTH_CHECK = "/grpc.health.v1.Health/Check"
VERSIONS = {"tls1.3": ssl.TLSVersion.TLSv1_3, "tls1.2": ssl.TLSVersion.TLSv1_2}


@pytest.fixture(params=list(VERSIONS))
def client(request, certificate) -> ssl.SSLContext:
    """A client of one TLS version. (Python resumes a session only with the context that made it.)"""
    context = ssl.create_default_context(cadata=certificate.pem.decode())
    context.set_alpn_protocols(["h2"])
    context.minimum_version = context.maximum_version = VERSIONS[request.param]
    return context


def new_secret(path: Path) -> Path:
    """A secret file as the README says to make one: `openssl rand -base64 48 > FILE`."""
    with open(path, "wb") as file:
        subprocess.run(["openssl", "rand", "-base64", "48"], stdout=file, check=True, timeout=30)
    return path


@pytest.fixture
def tls_server(configured_server, certificate):
    """Starts TLS servers of the test's own with `[tls]` settings, `/metrics` on a port of their own (plain HTTP, as
    the main port is TLS only)."""

    def start(**tls_settings) -> ServerProcess:
        return configured_server({"tls": tls_settings, "metrics": {"listen": f"127.0.0.1:{free_port()}"}}, tls=certificate)

    return start


def handshakes(server: ServerProcess) -> dict[str, float]:
    samples = Samples(scrape(server, int(server.metrics_listen.rsplit(":", 1)[1])))
    return {kind: samples["entitlementd_tls_handshakes_total", {"kind": kind}] for kind in ("full", "resumed")}


def stop(server: ServerProcess) -> None:
    code = server.terminate()
    assert code == 0, f"server exited with {code} after SIGTERM:\n{server.describe()}"


@dataclass
class Connection:
    resumed: bool
    session: ssl.SSLSession


def connect_and_call(server, client: ssl.SSLContext, protos, session: ssl.SSLSession | None = None) -> Connection:
    """One TLS connection offering `session`, with a Health Check over HTTP/2 on it. When its answer has been read, so
    has every ticket the server sent (TLS 1.3 sends them after the handshake, before any data)."""
    raw = socket.create_connection((server.host, server.port), timeout=RPC_TIMEOUT)
    tls = client.wrap_socket(raw, server_hostname="localhost", session=session)
    assert tls.selected_alpn_protocol() == "h2"
    with RawH2Connection(server.host, server.port, sock=tls) as connection:
        request = protos.message("grpc.health.v1.HealthCheckRequest")(service="")
        response = connection.request(connection.grpc_headers(HEALTH_CHECK), frame(request.SerializeToString()))
        assert response.grpc_status == 0, f"headers={response.headers} trailers={response.trailers}"
        [message] = response.messages()
        assert protos.message("grpc.health.v1.HealthCheckResponse").FromString(message).status == 1  # SERVING
        return Connection(tls.session_reused, tls.session)


def test_a_returning_client_resumes_its_session(tls_server, client, protos, tmp_path):
    server = tls_server(session_ticket_secret_file=str(new_secret(tmp_path / "secret")))
    first = connect_and_call(server, client, protos)
    assert not first.resumed
    assert first.session.has_ticket
    # One period, the lifetime the keys guarantee (the default rotation).
    assert first.session.ticket_lifetime_hint == 43_200
    second = connect_and_call(server, client, protos, first.session)
    assert second.resumed
    # The session of a resumed connection (a new TLS 1.3 ticket, the same TLS 1.2 one) resumes in turn.
    third = connect_and_call(server, client, protos, second.session)
    assert third.resumed
    assert handshakes(server) == {"full": 1, "resumed": 2}


def test_instances_given_the_same_secret_resume_each_others_sessions(tls_server, client, protos, tmp_path):
    secret = str(new_secret(tmp_path / "secret"))
    one, two = tls_server(session_ticket_secret_file=secret), tls_server(session_ticket_secret_file=secret)
    session = connect_and_call(one, client, protos).session
    assert connect_and_call(two, client, protos, session).resumed
    assert handshakes(two) == {"full": 0, "resumed": 1}


def test_a_server_restarted_with_the_same_secret_resumes_the_sessions_of_the_one_before(
    tls_server, client, protos, tmp_path
):
    secret = str(new_secret(tmp_path / "secret"))
    before = tls_server(session_ticket_secret_file=secret)
    session = connect_and_call(before, client, protos).session
    stop(before)
    after = tls_server(session_ticket_secret_file=secret)
    assert connect_and_call(after, client, protos, session).resumed
    assert handshakes(after) == {"full": 0, "resumed": 1}


def test_a_server_with_another_secret_makes_a_full_handshake_and_a_ticket_of_its_own(
    tls_server, client, protos, tmp_path
):
    one = tls_server(session_ticket_secret_file=str(new_secret(tmp_path / "one")))
    other = tls_server(session_ticket_secret_file=str(new_secret(tmp_path / "other")))
    session = connect_and_call(one, client, protos).session
    refused = connect_and_call(other, client, protos, session)
    assert not refused.resumed
    assert connect_and_call(other, client, protos, refused.session).resumed
    assert handshakes(other) == {"full": 1, "resumed": 1}


def test_without_a_secret_file_sessions_resume_until_the_process_ends(tls_server, client, protos):
    before = tls_server()
    first = connect_and_call(before, client, protos)
    assert connect_and_call(before, client, protos, first.session).resumed
    stop(before)
    after = tls_server()
    assert not connect_and_call(after, client, protos, first.session).resumed
    assert handshakes(after) == {"full": 1, "resumed": 0}


def test_with_resumption_off_no_ticket_is_sent_and_no_session_resumes(tls_server, client, protos):
    """No ticket, and no session ID either: were OpenSSL's session cache on, a TLS 1.2 client would resume by ID."""
    server = tls_server(session_resumption=False)
    first = connect_and_call(server, client, protos)
    assert not first.session.has_ticket
    assert not connect_and_call(server, client, protos, first.session).resumed
    assert handshakes(server) == {"full": 2, "resumed": 0}


def test_a_resumed_tls13_handshake_still_agrees_a_new_key(tls_server, certificate, tmp_path):
    """psk_dhe_ke, not psk_ke (RFC 8446 §4.2.9): offered both, the server answers a resumption with a key_share, so the
    connection's keys do not follow from the ticket alone (forward secrecy should the ticket secret leak)."""
    server = tls_server(session_ticket_secret_file=str(new_secret(tmp_path / "secret")))
    session = tmp_path / "session.pem"

    def s_client(until: str, *options: str) -> str:
        """`openssl s_client -trace` output up to the line containing `until`, then to its end (its standard input
        closed, s_client quits)."""
        process = subprocess.Popen(
            ["openssl", "s_client", "-connect", server.target, "-servername", "localhost", "-CAfile",
             str(certificate.certificate), "-alpn", "h2", "-tls1_3", "-trace", *options],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        watchdog = threading.Timer(RPC_TIMEOUT, process.kill)
        watchdog.start()
        try:
            lines = []
            for line in process.stdout:
                lines.append(line)
                if until in line:
                    break
            process.stdin.close()
            lines += process.stdout.readlines()
            process.wait()
        finally:
            watchdog.cancel()
        return "".join(lines)

    # The ticket arrives after the handshake: s_client has written it to the file once it has read it.
    s_client("NewSessionTicket", "-sess_out", str(session))
    trace = s_client("Reused, TLSv1.3", "-sess_in", str(session), "-allow_no_dhe_kex")
    assert "Reused, TLSv1.3" in trace, trace
    client_hello, _, server_hello = trace.partition("ServerHello")
    assert "psk_ke (0)" in client_hello and "psk_dhe_ke (1)" in client_hello, trace
    server_hello = server_hello.split("EncryptedExtensions")[0]
    assert "extension_type=psk(41)" in server_hello and "extension_type=key_share(51)" in server_hello, trace


def test_a_secret_too_short_stops_the_server_at_start_naming_the_file(tmp_path, certificate):
    secret = tmp_path / "secret"
    secret.write_text("only twenty bytes!!!\n")
    config = write_config(tmp_path, certificate, {"tls": {"session_ticket_secret_file": str(secret)}})
    finished = subprocess.run(
        [str(server_binary()), "--config", str(config)], capture_output=True, timeout=STARTUP_TIMEOUT, cwd=tmp_path)
    error = finished.stderr.decode()
    assert finished.returncode == 1, error
    assert f"cannot start: the session ticket secret '{secret}' holds 20 bytes; it needs 32 to 4096" in error
    assert "only twenty" not in error + finished.stdout.decode()
