"""HTTP/1.1 probes served on the gRPC port: the server tells HTTP/1.1 from the HTTP/2 preface on the same socket."""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass

import pytest

from conftest import RPC_TIMEOUT


@dataclass
class Http1Response:
    status: int
    headers: dict[str, str]
    body: bytes


def _read_response(stream) -> Http1Response:
    status_line = stream.readline(65537)
    assert status_line, "connection closed before a response"
    parts = status_line.decode("latin-1").split(" ", 2)
    assert len(parts) >= 2 and parts[0] == "HTTP/1.1", f"not an HTTP/1.1 status line: {status_line!r}"
    status = parts[1]
    headers: dict[str, str] = {}
    while True:
        line = stream.readline(65537).decode("latin-1")
        assert line, "connection closed inside the headers"
        if line in ("\r\n", "\n"):
            break
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int(stream.readline().split(b";")[0], 16)
            chunk = stream.read(size + 2)[:size]
            if size == 0:
                break
            body += chunk
    elif "content-length" in headers:
        body = stream.read(int(headers["content-length"]))
    else:
        assert headers.get("connection", "").lower() == "close", f"unframed body without close: {headers}"
        body = stream.read()
    return Http1Response(int(status), headers, body)


def _request(stream_socket, stream, path: str, host: str) -> Http1Response:
    stream_socket.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: interop-tests\r\n\r\n".encode())
    return _read_response(stream)


@pytest.fixture
def http1(h2c_server):
    sock = socket.create_connection((h2c_server.host, h2c_server.port), timeout=RPC_TIMEOUT)
    stream = sock.makefile("rb")

    def get(path: str) -> Http1Response:
        return _request(sock, stream, path, h2c_server.target)

    yield get
    stream.close()
    sock.close()


def test_healthz(http1):
    assert http1("/healthz").status == 200


def test_readyz(http1):
    assert http1("/readyz").status == 200


def test_unknown_path_is_404(http1):
    assert http1("/no/such/path").status == 404


def test_keep_alive_two_requests_on_one_connection(http1):
    first = http1("/healthz")
    assert first.status == 200
    assert first.headers.get("connection", "").lower() != "close"
    second = http1("/readyz")
    assert second.status == 200


def test_http1_over_tls_with_alpn(tls_server, certificate):
    context = ssl.create_default_context(cafile=str(certificate.certificate))
    context.set_alpn_protocols(["http/1.1"])
    with socket.create_connection((tls_server.host, tls_server.port), timeout=RPC_TIMEOUT) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as sock:
            assert sock.selected_alpn_protocol() in ("http/1.1", None)
            with sock.makefile("rb") as stream:
                response = _request(sock, stream, "/healthz", tls_server.target)
    assert response.status == 200


@pytest.mark.parametrize("first_bytes", [b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"])
def test_tls_server_refuses_cleartext_by_default(tls_server, first_bytes):
    """With TLS configured and allow_cleartext unset, a client that does not start a handshake is cut off."""
    with socket.create_connection((tls_server.host, tls_server.port), timeout=RPC_TIMEOUT) as sock:
        sock.sendall(first_bytes)
        try:
            answer = sock.recv(1024)
        except ConnectionResetError:
            answer = b""
    assert answer == b"", f"a cleartext client got an answer from the TLS-only server: {answer!r}"
