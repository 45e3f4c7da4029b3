"""gRPC-Web on the gRPC port, over HTTP/1.1 and HTTP/2 (h2c): binary and text framing, trailers in the body,
Trailers-Only errors, limits, CORS and per-tenant origins, the StreamStatus heartbeat, and sonora as an independent
client. Requests are built byte by byte here; the server's answers are parsed exactly, never through our own code."""

from __future__ import annotations

import asyncio
import base64
import signal
import socket
import ssl
import time
from dataclasses import dataclass

import grpc
import pytest

from conftest import RPC_TIMEOUT, SHUTDOWN_TIMEOUT, RawH2Connection, start_server
from entitlement_support import Clients, new_tenant, unique_id, write_tenants

SYNC = "/entitlements.v1.EntitlementService/SyncStatus"
STREAM = "/entitlements.v1.EntitlementService/StreamStatus"
ALLOWED_ORIGIN = "http://app.example.test:8080"
OTHER_ORIGIN = "https://other.example.test"
CONTENT_TYPES = {"binary": "application/grpc-web+proto", "text": "application/grpc-web-text+proto"}
HEARTBEAT_FRAME = bytes([0, 0, 0, 0, 2, 0x08, 0x04])
SNAPSHOT, STATUS_CHANGED, HEARTBEAT = 1, 2, 4

MODES = ["binary", "text"]
HTTP_VERSIONS = ["http1", "http2"]


@pytest.fixture(scope="module")
def web_tenants():
    # "web" lists the page origin; "other" lists a different one, so the union allows both in preflights.
    web = new_tenant("web", web={"allowed_origins": [ALLOWED_ORIGIN]})
    other = new_tenant("other", web={"allowed_origins": [OTHER_ORIGIN]})
    return web, other


@pytest.fixture(scope="module")
def web_server(tenants_server, tmp_path_factory, web_tenants):
    tenants_file = tmp_path_factory.mktemp("grpc-web") / "tenants.json"
    write_tenants(tenants_file, web_tenants)
    # Two streams per customer, so a stream the server failed to cancel would soon refuse the next.
    return tenants_server(tenants_file, {"grpc_web": {"heartbeat_seconds": 1}, "streams": {"max_per_customer": 2}})


@pytest.fixture
def env(web_server, web_tenants, protos):
    clients = Clients(web_server, protos)
    clients.channel()
    web, other = web_tenants
    clients.web = web
    clients.admin = clients.api(web.secret_key)
    clients.app = clients.api(web.public_key)
    yield clients
    clients.close()


def auth(key: str) -> tuple[str, str]:
    return ("authorization", f"Bearer {key}")


# --------------------------------------------------------------------------------------------------
# Framing, written from PROTOCOL-WEB.md


def frame(payload: bytes, flag: int = 0) -> bytes:
    return bytes([flag]) + len(payload).to_bytes(4, "big") + payload


def encode_body(body: bytes, mode: str) -> bytes:
    return base64.b64encode(body) if mode == "text" else body


class FrameReader:
    """Frames of a gRPC-Web body read as it arrives; text mode is decoded one 4-character group at a time, since
    each flush is base64'd on its own (padding may occur mid-body)."""

    def __init__(self, read_more, mode: str):
        self.read_more, self.mode = read_more, mode
        self.pending_text = b""
        self.buffer = b""

    def _fill(self) -> None:
        chunk = self.read_more()
        if chunk is None:
            raise EOFError(f"body ended; {len(self.buffer)} bytes and {self.pending_text!r} left over")
        if self.mode == "binary":
            self.buffer += chunk
            return
        self.pending_text += chunk
        whole = len(self.pending_text) // 4 * 4
        for start in range(0, whole, 4):
            self.buffer += base64.b64decode(self.pending_text[start:start + 4], validate=True)
        self.pending_text = self.pending_text[whole:]

    def next_frame(self) -> tuple[int, bytes, bytes]:
        """(flag, payload, the frame's bytes)."""
        while True:
            if len(self.buffer) >= 5:
                length = int.from_bytes(self.buffer[1:5], "big")
                if len(self.buffer) >= 5 + length:
                    whole, self.buffer = self.buffer[:5 + length], self.buffer[5 + length:]
                    return whole[0], whole[5:], whole
            self._fill()

    def at_end(self) -> bool:
        if self.buffer or self.pending_text:
            return False
        try:
            self._fill()
        except EOFError:
            return True
        return False


def parse_trailers(block: bytes) -> dict[str, str]:
    """`key: value\\r\\n` lines, the last one terminated too; names must already be lower case."""
    assert block.endswith(b"\r\n"), block
    trailers = {}
    for line in block[:-2].split(b"\r\n"):
        name, separator, value = line.partition(b": ")
        assert separator, f"trailer line without ': ': {line!r}"
        assert name == name.lower(), f"trailer name not lower case: {name!r}"
        trailers[name.decode()] = value.decode()
    return trailers


@dataclass
class WebResponse:
    status: int
    headers: dict[str, str]
    reader: FrameReader

    def rest(self) -> tuple[list[bytes], bytes]:
        """The remaining messages and the raw trailers block; the trailers frame must be last."""
        messages = []
        while True:
            flag, payload, _ = self.reader.next_frame()
            if flag == 0x80:
                assert self.reader.at_end(), "bytes after the trailers frame"
                return messages, payload
            assert flag == 0, f"unexpected frame flag {flag:#x}"
            messages.append(payload)


# --------------------------------------------------------------------------------------------------
# HTTP/1.1 and HTTP/2 clients


class Http1:
    """One HTTP/1.1 connection, read incrementally (chunk by chunk); TLS when given a context."""

    def __init__(self, server, tls: ssl.SSLContext | None = None):
        self.sock = socket.create_connection((server.host, server.port), timeout=RPC_TIMEOUT)
        if tls is not None:
            self.sock = tls.wrap_socket(self.sock, server_hostname="localhost")
            assert self.sock.selected_alpn_protocol() in ("http/1.1", None)
        self.stream = self.sock.makefile("rb")
        self.authority = f"{server.host}:{server.port}"

    def close(self) -> None:
        self.stream.close()
        self.sock.close()

    def send(self, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b"") -> None:
        lines = [f"{method} {path} HTTP/1.1", f"host: {self.authority}", f"content-length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    def read_head(self) -> tuple[int, dict[str, str]]:
        status_line = self.stream.readline()
        assert status_line.startswith(b"HTTP/1.1 "), f"not a status line: {status_line!r}"
        headers: dict[str, str] = {}
        while (line := self.stream.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            assert name.lower() not in headers, f"repeated header {name}"
            headers[name.lower()] = value.strip()
        return int(status_line.split()[1]), headers

    def chunk_reader(self):
        def read_more() -> bytes | None:
            size = int(self.stream.readline().split(b";")[0], 16)
            data = self.stream.read(size)
            assert self.stream.read(2) == b"\r\n"
            return data if size else None
        return read_more

    def fixed_reader(self, length: int):
        remaining = [length]

        def read_more() -> bytes | None:
            if remaining[0] == 0:
                return None
            data = self.stream.read(remaining[0])
            remaining[0] = 0
            return data
        return read_more

    def web_call(self, path: str, body: bytes, mode: str, headers=(), *, encoded: bytes | None = None,
                 chunk_size: int | None = None) -> WebResponse:
        self.send("POST", path, [("content-type", CONTENT_TYPES[mode]), ("x-grpc-web", "1"), *headers],
                  encoded if encoded is not None else encode_body(body, mode))
        status, response_headers = self.read_head()
        if response_headers.get("transfer-encoding") == "chunked":
            read_more = self.chunk_reader()
        else:
            read_more = self.fixed_reader(int(response_headers["content-length"]))
        return WebResponse(status, response_headers, FrameReader(read_more, mode))


class TlsRawH2Connection(RawH2Connection):
    """The suite's raw HTTP/2 client over TLS with ALPN `h2`."""

    def __init__(self, host: str, port: int, tls: ssl.SSLContext):
        import h2.config
        import h2.connection

        self.authority, self.timeout = f"{host}:{port}", RPC_TIMEOUT
        self.sock = tls.wrap_socket(socket.create_connection((host, port), timeout=RPC_TIMEOUT), server_hostname="localhost")
        assert self.sock.selected_alpn_protocol() == "h2"
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding=None))
        self.conn.initiate_connection()
        self._flush()
        self.responses = {}


class Http2:
    """gRPC-Web over a raw HTTP/2 connection: h2c, or TLS when given a context."""

    def __init__(self, server, tls: ssl.SSLContext | None = None):
        self.scheme = "https" if tls else "http"
        self.raw = TlsRawH2Connection(server.host, server.port, tls) if tls else RawH2Connection(server.host, server.port)

    def close(self) -> None:
        self.raw.close()

    def request(self, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b"",
                chunk_size: int | None = None):
        """Sends a request; the body in DATA frames of `chunk_size` bytes when given."""
        head = [(":method", method), (":scheme", self.scheme), (":path", path), (":authority", self.raw.authority),
                *headers]
        stream_id = self.raw.start(head, end_stream=not body)
        if body:
            size = chunk_size or len(body)
            for offset in range(0, len(body), size):
                self.raw.send(stream_id, body[offset:offset + size], end_stream=offset + size >= len(body))
        return stream_id

    def headers(self, stream_id: int) -> tuple[int, dict[str, str]]:
        response = self.raw.responses[stream_id]
        while response.headers is None:
            if response.ended:
                raise AssertionError(f"stream ended without headers: {response}")
            self.raw._receive_once()
        headers = {name.decode(): value.decode() for name, value in response.headers}
        return int(headers.pop(":status")), headers

    def web_call(self, path: str, body: bytes, mode: str, headers=(), *, encoded: bytes | None = None,
                 chunk_size: int | None = None) -> WebResponse:
        stream_id = self.request(
            "POST", path, [("content-type", CONTENT_TYPES[mode]), ("x-grpc-web", "1"), *headers],
            encoded if encoded is not None else encode_body(body, mode), chunk_size)
        status, response_headers = self.headers(stream_id)
        self.stream_id = stream_id
        response = self.raw.responses[stream_id]
        offset = [0]

        def read_more() -> bytes | None:
            while len(response.data) == offset[0]:
                if response.ended:
                    assert response.trailers is None, "gRPC-Web must not use HTTP/2 trailers"
                    assert response.reset_code is None, f"stream reset with {response.reset_code}"
                    return None
                self.raw._receive_once()
            chunk = response.data[offset[0]:]
            offset[0] = len(response.data)
            return chunk
        return WebResponse(status, response_headers, FrameReader(read_more, mode))


@pytest.fixture(params=HTTP_VERSIONS)
def connect(request, web_server):
    """Opens connections of the test's HTTP version to the module's server; all are closed after the test."""
    opened = []

    def open_connection():
        connection = (Http1 if request.param == "http1" else Http2)(web_server)
        opened.append(connection)
        return connection

    yield open_connection
    for connection in opened:
        connection.close()


def sync_request(protos, user: str) -> bytes:
    return frame(protos.message("entitlements.v1.SyncStatusRequest")(app_user_id=user).SerializeToString())


def stream_request(protos, user: str) -> bytes:
    return frame(protos.message("entitlements.v1.StreamStatusRequest")(app_user_id=user).SerializeToString())


def status_event(protos, payload: bytes):
    return protos.message("entitlements.v1.StatusEvent").FromString(payload)


def assert_trailers_only(response: WebResponse, code: int) -> dict[str, str]:
    assert response.status == 200
    assert response.headers["grpc-status"] == str(code), response.headers
    assert response.reader.at_end(), "a Trailers-Only response has an empty body"
    return response.headers


# --------------------------------------------------------------------------------------------------
# Unary and streaming calls


@pytest.mark.parametrize("mode", MODES)
def test_unary_sync_status(env, connect, protos, mode):
    user = unique_id()
    env.app.identify(user)
    response = connect().web_call(SYNC, sync_request(protos, user), mode, [auth(env.web.public_key)])
    assert response.status == 200
    assert response.headers["content-type"] == CONTENT_TYPES[mode]
    assert "grpc-status" not in response.headers
    messages, trailers = response.rest()
    assert len(messages) == 1
    reply = protos.message("entitlements.v1.SyncStatusResponse").FromString(messages[0])
    assert reply.customer.app_user_id == user
    # Exactly one lower-case line, terminated, and no final empty line.
    assert trailers == b"grpc-status: 0\r\n"


@pytest.mark.parametrize("mode", MODES)
def test_sync_status_read_from_the_database_is_answered_when_the_read_is_done(env, connect, protos, mode):
    """An ID no customer has is never cached: each SyncStatus for it is read from the database off the connection's
    loop, and the call answered (Trailers-Only NOT_FOUND) once the read is done; the connection serves the next call."""
    connection = connect()
    unknown = connection.web_call(SYNC, sync_request(protos, unique_id()), mode, [auth(env.web.public_key)])
    assert_trailers_only(unknown, grpc.StatusCode.NOT_FOUND.value[0])
    user = unique_id()
    env.app.identify(user)
    messages, trailers = connection.web_call(SYNC, sync_request(protos, user), mode, [auth(env.web.public_key)]).rest()
    assert protos.message("entitlements.v1.SyncStatusResponse").FromString(messages[0]).customer.app_user_id == user
    assert trailers == b"grpc-status: 0\r\n"


@pytest.mark.parametrize("mode", MODES)
def test_stream_status_snapshot_live_event_and_heartbeats(env, connect, protos, mode):
    user = unique_id()
    env.app.identify(user)
    response = connect().web_call(STREAM, stream_request(protos, user), mode, [auth(env.web.public_key)])
    assert response.status == 200 and response.headers["content-type"] == CONTENT_TYPES[mode]
    flag, payload, _ = response.reader.next_frame()
    snapshot = status_event(protos, payload)
    assert flag == 0 and snapshot.kind == SNAPSHOT and snapshot.customer.app_user_id == user

    env.admin.grant(user, "pro")
    events = []
    while not any(event.kind == STATUS_CHANGED for event in events):
        flag, payload, _ = response.reader.next_frame()
        assert flag == 0
        events.append(status_event(protos, payload))
    changed = next(event for event in events if event.kind == STATUS_CHANGED)
    assert [e.id for e in changed.customer.status.entitlements] == ["pro"]

    # Quiet from here on: heartbeats arrive, exactly 00 00 00 00 02 08 04, and decode as HEARTBEAT with no customer.
    flag, payload, whole = response.reader.next_frame()
    assert whole == HEARTBEAT_FRAME
    heartbeat = status_event(protos, payload)
    assert heartbeat.kind == HEARTBEAT and not heartbeat.HasField("customer") and heartbeat.reason == ""


def test_text_request_with_padding_mid_body(env, connect, protos):
    """A client base64-encodes each flush on its own: here the prefix and the message separately, so `=` padding
    sits inside the body; over HTTP/2 the text also arrives in DATA frames of 3 bytes, cutting groups apart."""
    user = unique_id()
    env.app.identify(user)
    body = sync_request(protos, user)
    encoded = base64.b64encode(body[:5]) + base64.b64encode(body[5:])
    assert b"=" in encoded[:-4], encoded
    response = connect().web_call(SYNC, body, "text", [auth(env.web.public_key)], encoded=encoded, chunk_size=3)
    messages, trailers = response.rest()
    assert protos.message("entitlements.v1.SyncStatusResponse").FromString(messages[0]).customer.app_user_id == user
    assert trailers == b"grpc-status: 0\r\n"


def test_unknown_method_is_trailers_only_unimplemented(env, connect, protos):
    response = connect().web_call(
        "/entitlements.v1.EntitlementService/NoSuchMethod", sync_request(protos, "u"), "binary",
        [auth(env.web.public_key)])
    headers = assert_trailers_only(response, grpc.StatusCode.UNIMPLEMENTED.value[0])
    assert "NoSuchMethod" in headers["grpc-message"]


@pytest.mark.parametrize("mode", MODES)
def test_bad_key_is_trailers_only_unauthenticated(env, connect, protos, mode):
    response = connect().web_call(SYNC, sync_request(protos, unique_id()), mode, [auth("pk_" + "0" * 64)])
    assert response.headers["content-type"] == CONTENT_TYPES[mode]
    headers = assert_trailers_only(response, grpc.StatusCode.UNAUTHENTICATED.value[0])
    assert "API key" in headers["grpc-message"]


def test_oversized_message_is_resource_exhausted(env, connect):
    # The prefix alone claims 5 MiB (the limit is 4 MiB): refused before any of it is buffered.
    oversized = bytes([0]) + (5 * 1024 * 1024).to_bytes(4, "big")
    response = connect().web_call(SYNC, oversized, "binary", [auth(env.web.public_key)])
    headers = assert_trailers_only(response, grpc.StatusCode.RESOURCE_EXHAUSTED.value[0])
    assert "exceeds the limit" in headers["grpc-message"]


def test_compressed_message_is_refused(env, connect, protos):
    # gRPC-Web has no per-message compression (no grpc-encoding negotiation): flag 1 is refused as gRPC does it.
    message = protos.message("entitlements.v1.SyncStatusRequest")(app_user_id="u").SerializeToString()
    response = connect().web_call(SYNC, frame(message, flag=1), "binary", [auth(env.web.public_key)])
    assert_trailers_only(response, grpc.StatusCode.INTERNAL.value[0])


@pytest.mark.parametrize("mode", MODES)
def test_grpc_timeout_ends_a_stream_with_deadline_exceeded(env, connect, protos, mode):
    user = unique_id()
    env.app.identify(user)
    response = connect().web_call(
        STREAM, stream_request(protos, user), mode, [auth(env.web.public_key), ("grpc-timeout", "1500m")])
    messages, trailers = response.rest()
    assert status_event(protos, messages[0]).kind == SNAPSHOT
    parsed = parse_trailers(trailers)
    assert parsed["grpc-status"] == str(grpc.StatusCode.DEADLINE_EXCEEDED.value[0]), parsed


@pytest.mark.parametrize("body", [b"AAAAABA", b"AAAA*AAA", b"AA=A"])
def test_malformed_text_body_is_internal(env, connect, body):
    connection = connect()
    headers = [("content-type", CONTENT_TYPES["text"]), auth(env.web.public_key)]
    if isinstance(connection, Http1):
        connection.send("POST", SYNC, headers, body)
        status, response_headers = connection.read_head()
        assert int(response_headers["content-length"]) == 0
    else:
        status, response_headers = connection.headers(connection.request("POST", SYNC, headers, body))
    assert status == 200
    assert response_headers["grpc-status"] == str(grpc.StatusCode.INTERNAL.value[0])
    assert "base64" in response_headers["grpc-message"]


def test_non_post_is_405(env, connect):
    connection = connect()
    headers = [("content-type", CONTENT_TYPES["binary"])]
    if isinstance(connection, Http1):
        connection.send("GET", SYNC, headers)
        status, response_headers = connection.read_head()
    else:
        status, response_headers = connection.headers(connection.request("GET", SYNC, headers))
    assert status == 405 and response_headers["allow"] == "POST"


def plain_request(connection, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b""):
    """(status, headers, body) of a request answered without gRPC-Web framing."""
    if isinstance(connection, Http1):
        connection.send(method, path, headers, body)
        status, response_headers = connection.read_head()
        return status, response_headers, connection.fixed_reader(int(response_headers["content-length"]))() or b""
    stream_id = connection.request(method, path, headers, body)
    status, response_headers = connection.headers(stream_id)
    response = connection.raw.responses[stream_id]
    while not response.ended:
        connection.raw._receive_once()
    return status, response_headers, bytes(response.data)


# application/json is a Connect unary call (test_connect.py); application/xml is nobody's.
@pytest.mark.parametrize("content_type", ["application/grpc-web+json", "application/grpc-web-text+thrift",
                                          "application/xml", "text/plain", "application/connect+thrift"])
def test_a_call_in_a_content_type_not_served_is_415_on_both_versions(env, connect, protos, content_type):
    """gRPC's PROTOCOL-HTTP2 answers a call whose content type is not gRPC's with 415, and a browser behind Envoy
    gets the same (its grpc_web filter passes such a request on unchanged to the gRPC server): HTTP/1.1 once said
    404 here while HTTP/2 said 415."""
    status, headers, body = plain_request(
        connect(), "POST", SYNC, [("content-type", content_type), auth(env.web.public_key)], sync_request(protos, "u"))
    assert status == 415, body
    assert f"'{content_type}'".encode() in body and b"application/grpc-web" in body, body


def test_an_unknown_path_is_404_on_both_versions(env, connect):
    """Only what looks like a call is 415: a page that does not exist is 404 over HTTP/2 too."""
    status, _, body = plain_request(connect(), "GET", "/no/such/page", [])
    assert status == 404, body


def test_error_bodies_never_echo_decoded_control_bytes(env, connect):
    """A percent-encoded NUL, escape or line break in a tenant path (or a header) comes back escaped, never as the
    byte itself: a terminal or log showing the body would act on it."""
    for path in ("/v1/apple/notifications/a%00b%1B%5B31m%0Ac", "/v1/google/notifications/a%00b%1B%5B31m%0Ac",
                 "/v1/stripe/webhooks/a%00b%1B%5B31m%0Ac"):
        status, _, body = plain_request(connect(), "POST", path, [("content-type", "application/json")], b"{}")
        assert status in (400, 401, 404), (path, status, body)
        text = body.decode().removesuffix("\n")
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text), (path, body)
    status, _, body = plain_request(connect(), "POST", SYNC, [("content-type", "application/grpc-web+json\u0085")])
    assert status == 415 and "\u0085".encode() not in body and b"<U+0085>" in body, body


# --------------------------------------------------------------------------------------------------
# CORS


def preflight(connection, origin: str) -> tuple[int, dict[str, str]]:
    headers = [("origin", origin), ("access-control-request-method", "POST"),
               ("access-control-request-headers", "content-type,x-grpc-web,authorization")]
    if isinstance(connection, Http1):
        connection.send("OPTIONS", SYNC, headers)
        status, response_headers = connection.read_head()
        body = connection.fixed_reader(int(response_headers.get("content-length", "0")))()
        assert status == 204 or body is not None
        return status, response_headers
    stream_id = connection.request("OPTIONS", SYNC, headers)
    status, response_headers = connection.headers(stream_id)
    connection.raw.wait(stream_id)
    return status, response_headers


@pytest.mark.parametrize("origin", [ALLOWED_ORIGIN, OTHER_ORIGIN])
def test_preflight_for_any_tenants_origin(env, connect, origin):
    status, headers = preflight(connect(), origin)
    assert status == 204
    assert headers["access-control-allow-origin"] == origin
    assert headers["vary"] == "Origin"
    assert headers["access-control-allow-credentials"] == "true"
    assert headers["access-control-allow-methods"] == "GET, POST, OPTIONS"
    allowed = {name.strip() for name in headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "x-grpc-web", "x-user-agent", "grpc-timeout", "authorization",
            "entitlements-user-token"} <= allowed
    assert headers["access-control-max-age"] == "600"


def test_preflight_for_an_unlisted_origin_is_forbidden(env, connect):
    status, headers = preflight(connect(), "https://evil.example.test")
    assert status == 403
    assert not any(name.startswith("access-control-") for name in headers), headers


def test_actual_responses_expose_the_status_headers(env, connect, protos):
    connection = connect()
    user = unique_id()
    env.app.identify(user)
    ok = connection.web_call(SYNC, sync_request(protos, user), "binary", [auth(env.web.public_key), ("origin", ALLOWED_ORIGIN)])
    ok.rest()
    error = connection.web_call(SYNC, sync_request(protos, user), "binary", [auth("pk_" + "1" * 64), ("origin", ALLOWED_ORIGIN)])
    assert_trailers_only(error, grpc.StatusCode.UNAUTHENTICATED.value[0])
    for response in (ok, error):
        assert response.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
        assert response.headers["access-control-allow-credentials"] == "true"
        assert response.headers["access-control-expose-headers"] == "grpc-status, grpc-message, grpc-status-details-bin"


def test_origin_the_tenant_does_not_list_is_permission_denied(env, connect, protos):
    # OTHER_ORIGIN passes the preflight (another tenant lists it), but the key's tenant does not list it.
    user = unique_id()
    env.app.identify(user)
    response = connect().web_call(
        SYNC, sync_request(protos, user), "binary", [auth(env.web.public_key), ("origin", OTHER_ORIGIN)])
    headers = assert_trailers_only(response, grpc.StatusCode.PERMISSION_DENIED.value[0])
    assert headers["grpc-message"] == (
        f"origin '{OTHER_ORIGIN}' is not allowed for this tenant; list it in the tenant's web.allowed_origins")


# --------------------------------------------------------------------------------------------------
# HTTP/1.1 connections


def test_http1_connection_is_kept_alive_after_calls(env, web_server, protos):
    user = unique_id()
    env.app.identify(user)
    connection = Http1(web_server)
    try:
        status, _ = preflight(connection, ALLOWED_ORIGIN)
        assert status == 204
        for mode in MODES:
            response = connection.web_call(SYNC, sync_request(protos, user), mode, [auth(env.web.public_key)])
            assert "connection" not in response.headers
            assert response.rest()[1] == b"grpc-status: 0\r\n"
        error = connection.web_call(SYNC, sync_request(protos, user), "binary", [auth("pk_" + "2" * 64)])
        assert_trailers_only(error, grpc.StatusCode.UNAUTHENTICATED.value[0])
        assert connection.web_call(SYNC, sync_request(protos, user), "binary", [auth(env.web.public_key)]).rest()[0]
    finally:
        connection.close()


def open_status_stream(web_server, env, protos, user: str) -> tuple[Http1, WebResponse]:
    """A StreamStatus call on a new HTTP/1.1 connection, retried while the customer's two stream slots are taken:
    the server frees a slot once it notices a closed connection, which it does on its own loop, soon after."""
    deadline = time.monotonic() + RPC_TIMEOUT
    while True:
        connection = Http1(web_server)
        response = connection.web_call(STREAM, stream_request(protos, user), "binary", [auth(env.web.public_key)])
        if "grpc-status" not in response.headers:
            return connection, response
        assert response.headers["grpc-status"] == str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]), response.headers
        connection.close()
        assert time.monotonic() < deadline, "closed streams were never cancelled: their slots stay taken"
        time.sleep(0.05)


def test_http1_client_closing_mid_stream(env, web_server, protos):
    user = unique_id()
    env.app.identify(user)
    # Five streams closed by the client, one after the other, with two slots per customer: each must be cancelled.
    for _ in range(5):
        connection, response = open_status_stream(web_server, env, protos, user)
        assert status_event(protos, response.reader.next_frame()[1]).kind == SNAPSHOT
        connection.close()
    env.admin.grant(user, "pro")
    follow_up = Http1(web_server)
    try:
        messages, trailers = follow_up.web_call(SYNC, sync_request(protos, user), "binary", [auth(env.web.public_key)]).rest()
        reply = protos.message("entitlements.v1.SyncStatusResponse").FromString(messages[0])
        assert [e.id for e in reply.customer.status.entitlements] == ["pro"]
    finally:
        follow_up.close()
    assert env.app.sync(user).app_user_id == user


# --------------------------------------------------------------------------------------------------
# Native gRPC and an independent gRPC-Web client


def test_native_grpc_streams_unchanged_and_without_heartbeats(env):
    user = unique_id()
    env.app.identify(user)
    stream = env.app.stream(user)
    assert stream.next().kind == SNAPSHOT
    # The heartbeat interval is 1 s: a gRPC stream stays quiet (HTTP/2 keepalive covers it).
    stream.expect_quiet(2.5)
    env.admin.grant(user, "pro")
    assert stream.next().kind == STATUS_CHANGED


def test_sonora_unary_and_errors(env, web_server, protos):
    import sonora.client
    import sonora.protocol

    user = unique_id()
    env.app.identify(user)
    request_class = protos.message("entitlements.v1.SyncStatusRequest")
    response_class = protos.message("entitlements.v1.SyncStatusResponse")
    with sonora.client.insecure_web_channel(f"http://{web_server.host}:{web_server.port}") as channel:
        sync = channel.unary_unary(SYNC, request_serializer=request_class.SerializeToString,
                                   response_deserializer=response_class.FromString)
        reply = sync(request_class(app_user_id=user), metadata=[auth(env.web.public_key)], timeout=RPC_TIMEOUT)
        assert reply.customer.app_user_id == user
        with pytest.raises(sonora.protocol.WebRpcError) as refused:
            sync(request_class(app_user_id=user), metadata=[auth("pk_" + "3" * 64)], timeout=RPC_TIMEOUT)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(sonora.protocol.WebRpcError) as unknown:
            channel.unary_unary("/entitlements.v1.EntitlementService/Nope", request_serializer=request_class.SerializeToString,
                                response_deserializer=response_class.FromString)(request_class(), timeout=RPC_TIMEOUT)
        assert unknown.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_sonora_stream_status(env, web_server, protos):
    """sonora's asyncio client: its blocking client reads the body 16 KiB at a time (an io.BufferedReader over
    urllib3), so it sees a quiet stream's events only when the call ends."""
    import sonora.aio

    user = unique_id()
    env.app.identify(user)
    request_class = protos.message("entitlements.v1.StreamStatusRequest")
    event_class = protos.message("entitlements.v1.StatusEvent")

    async def watch() -> list:
        async with sonora.aio.insecure_web_channel(f"http://{web_server.host}:{web_server.port}") as channel:
            stream = channel.unary_stream(STREAM, request_serializer=request_class.SerializeToString,
                                          response_deserializer=event_class.FromString)
            events = []
            async for event in stream(request_class(app_user_id=user), metadata=[auth(env.web.public_key)],
                                      timeout=RPC_TIMEOUT):
                events.append(event)
                if event.kind == SNAPSHOT:
                    env.admin.grant(user, "pro")
                if event.kind == STATUS_CHANGED:
                    return events
            raise AssertionError(f"stream ended after {events}")

    events = asyncio.run(watch())
    assert events[0].kind == SNAPSHOT and events[0].customer.app_user_id == user
    assert {event.kind for event in events[1:-1]} <= {HEARTBEAT}
    assert [e.id for e in events[-1].customer.status.entitlements] == ["pro"]


@pytest.mark.parametrize("alpn", ["h2", "http/1.1"])
@pytest.mark.parametrize("mode", MODES)
def test_over_tls_with_alpn(tls_server, certificate, pb, alpn, mode):
    tls = ssl.create_default_context(cafile=str(certificate.certificate))
    tls.set_alpn_protocols([alpn])
    connection = (Http2 if alpn == "h2" else Http1)(tls_server, tls)
    try:
        # The interop service's EmptyCall needs no key: an empty message, then the trailers frame.
        response = connection.web_call("/entitlementd.testing.InteropTestService/EmptyCall", frame(b""), mode)
        assert response.headers["content-type"] == CONTENT_TYPES[mode]
        assert response.rest() == ([b""], b"grpc-status: 0\r\n")
        refused = connection.web_call(SYNC, frame(b""), mode, [auth("pk_" + "4" * 64)])
        assert_trailers_only(refused, grpc.StatusCode.UNAUTHENTICATED.value[0])
    finally:
        connection.close()


def test_http1_stream_ends_with_unavailable_at_shutdown(tmp_path, web_tenants, protos):
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, web_tenants)
    server = start_server(tmp_path / "server", tenants_file)
    try:
        clients = Clients(server, protos)
        clients.channel()
        user = unique_id()
        clients.api(web_tenants[0].public_key).identify(user)
        connection = Http1(server)
        response = connection.web_call(STREAM, stream_request(protos, user), "binary", [auth(web_tenants[0].public_key)])
        assert status_event(protos, response.reader.next_frame()[1]).kind == SNAPSHOT
        clients.close()
        server.process.send_signal(signal.SIGTERM)
        # A status stream never ends on its own: at shutdown it ends at once, so the page reconnects elsewhere.
        messages, trailers = response.rest()
        assert all(status_event(protos, m).kind == HEARTBEAT for m in messages)
        assert parse_trailers(trailers)["grpc-status"] == str(grpc.StatusCode.UNAVAILABLE.value[0])
        assert connection.stream.read() == b"", "the connection closes after the call at shutdown"
        connection.close()
        assert server.process.wait(timeout=SHUTDOWN_TIMEOUT) == 0
    finally:
        server.kill()
