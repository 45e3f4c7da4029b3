"""Protocol abuse over h2c and plaintext HTTP/1.1: floods, oversized and malformed input, slow peers and timers.

Every test starts its own `interop-server` (`configured_server`, ~30 ms) with the limits or short timers it needs,
so one crash cannot cascade. Frames are built by hand (hyperframe, hpack, or raw bytes for frames no library will
serialize) on a plain socket. Each test ends with `assert_serving`: the process is still running and a grpcio
Health Check on a separate connection answers SERVING.
"""

from __future__ import annotations

import copy
import re
import select
import socket
import threading
import time
from dataclasses import dataclass, field

import grpc
import hpack
import hyperframe.frame as hf
import pytest

from conftest import MIB, SERVICE, CancellationProbe, call_unary, frame, new_token

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
EMPTY = f"/{SERVICE}/EmptyCall"
SLEEP = f"/{SERVICE}/Sleep"
STREAMING_OUTPUT = f"/{SERVICE}/StreamingOutputCall"

# HTTP/2 error codes (RFC 9113 §7).
NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR = 0x0, 0x1, 0x2, 0x3
FRAME_SIZE_ERROR, REFUSED_STREAM, CANCEL, COMPRESSION_ERROR, ENHANCE_YOUR_CALM = 0x6, 0x7, 0x8, 0x9, 0xB
ERROR_NAMES = {
    0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR", 0x5: "STREAM_CLOSED",
    0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM", 0x8: "CANCEL", 0x9: "COMPRESSION_ERROR", 0xB: "ENHANCE_YOUR_CALM",
}
# SETTINGS identifiers.
SETTINGS_INITIAL_WINDOW_SIZE = 0x4
# Frame types and flags, for frames built from raw bytes.
DATA, HEADERS, SETTINGS, PING, WINDOW_UPDATE, CONTINUATION = 0x0, 0x1, 0x4, 0x6, 0x8, 0x9
END_STREAM, END_HEADERS = 0x1, 0x4

# Bounds for every wait in this file.
SHORT = 3.0
IO_TIMEOUT = 5.0


def error_name(code: int | None) -> str:
    return "none" if code is None else f"{ERROR_NAMES.get(code, 'unknown')} (0x{code:x})"


# --------------------------------------------------------------------------------------------------
# Server health


def server_state(server) -> str:
    """`running`, or the exit code with the interesting part of the server's stderr (the crash reason, not the
    backtrace's address lines)."""
    code = server.process.poll()
    if code is None:
        return "running"
    lines = []
    for line in server.log().split("Registers:")[0].splitlines():
        if line.strip() and not re.match(r"\s*(0x|\d+\s|\.\.\.|Thread )", line):
            lines.append(line)
    return f"EXITED with code {code}; stderr without backtrace addresses:\n" + "\n".join(lines[:20])


def assert_serving(server, protos, what: str = "") -> None:
    """The process is alive and a grpcio Health Check on a fresh connection answers SERVING."""
    context = f" after {what}" if what else ""
    assert server.process.poll() is None, f"server died{context}: {server_state(server)}"
    request = protos.message("grpc.health.v1.HealthCheckRequest")(service="")
    response_class = protos.message("grpc.health.v1.HealthCheckResponse")
    with server.channel() as channel:
        try:
            response = call_unary(channel, HEALTH_CHECK, request, response_class, timeout=IO_TIMEOUT)
        except grpc.RpcError as error:
            pytest.fail(f"Health Check failed{context}: {error.code()} {error.details()}; server {server_state(server)}")
    assert response.status == 1, f"Health Check answered {response.status}{context}"


def rss_kib(server) -> int:
    with open(f"/proc/{server.process.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/<pid>/status")


# --------------------------------------------------------------------------------------------------
# A raw HTTP/2 client: frames built by hand, received frames parsed with hyperframe


def raw_frame(frame_type: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
    """Any frame, valid or not: 9-byte header + payload."""
    return len(payload).to_bytes(3, "big") + bytes([frame_type, flags]) + stream_id.to_bytes(4, "big") + payload


def settings_frame(settings: dict[int, int] | None = None) -> bytes:
    return hf.SettingsFrame(0, settings=settings or {}).serialize()


def header_frames(stream_id: int, block: bytes, end_stream: bool = False) -> bytes:
    """HEADERS, then CONTINUATION frames as needed (16 384-byte frames, the default SETTINGS_MAX_FRAME_SIZE)."""
    chunks = [block[i:i + 16_384] for i in range(0, len(block), 16_384)] or [b""]
    wire = bytearray()
    for index, chunk in enumerate(chunks):
        flags = (END_HEADERS if index == len(chunks) - 1 else 0) | (END_STREAM if end_stream and index == 0 else 0)
        wire += raw_frame(HEADERS if index == 0 else CONTINUATION, flags, stream_id, chunk)
    return bytes(wire)


def rst_stream(stream_id: int, code: int = CANCEL) -> bytes:
    return hf.RstStreamFrame(stream_id, error_code=code).serialize()


def ping(data: bytes = b"abuse-01") -> bytes:
    return hf.PingFrame(0, opaque_data=data).serialize()


@dataclass
class StreamState:
    headers: list[tuple[bytes, bytes]] | None = None
    trailers: list[tuple[bytes, bytes]] | None = None
    data: bytearray = field(default_factory=bytearray)
    reset: int | None = None
    ended: bool = False

    @staticmethod
    def _find(block, name: bytes) -> bytes | None:
        return next((value for key, value in block or [] if key == name), None)

    @property
    def status(self) -> int | None:
        value = self._find(self.headers, b":status")
        return int(value) if value is not None else None

    @property
    def grpc_status(self) -> int | None:
        value = self._find(self.trailers, b"grpc-status") or self._find(self.headers, b"grpc-status")
        return int(value) if value is not None else None

    def describe(self) -> str:
        return (f"headers={self.headers} trailers={self.trailers} data={len(self.data)}B "
                f"reset={error_name(self.reset)} ended={self.ended}")


class FrameConnection:
    """One h2c connection. Sends whatever bytes it is given; `pump` parses what the server sent.

    By default it sends the preface and a SETTINGS frame, acknowledges the server's SETTINGS and PINGs, and returns
    flow-control credit for DATA it receives. A thread drains the socket as bytes arrive (`read=False`: nothing ever
    reads it), so a GOAWAY followed by a TCP reset is still seen: Linux discards unread received data on a reset."""

    def __init__(self, server, settings: dict[int, int] | None = None, *, preface: bool = True,
                 ack_pings: bool = True, receive_buffer: int | None = None, read: bool = True):
        self.authority = server.target
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(IO_TIMEOUT)
        self.sock.connect((server.host, server.port))
        self.encoder = hpack.Encoder()
        self.decoder = hpack.Decoder()
        self.ack_pings = ack_pings
        self.streams: dict[int, StreamState] = {}
        self.frames: list = []
        self.pings: list[bytes] = []
        self.ping_acks: list[bytes] = []
        self.server_settings_seen = False
        self.goaway: hf.GoAwayFrame | None = None
        self.closed = False  # the server's EOF (or reset) has been reached, after every byte before it was handled
        self.send_failed = False
        self.bytes_sent = 0
        self._buffer = bytearray()
        self._block: tuple[int, bytearray, bool] | None = None
        self._received = bytearray()
        self._eof = False
        self._arrived = threading.Condition()
        if read:
            threading.Thread(target=self._read, daemon=True).start()
        if preface:
            self.send(PREFACE + settings_frame(settings))

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                continue
            except OSError:
                data = b""
            with self._arrived:
                if data:
                    self._received += data
                else:
                    self._eof = True
                self._arrived.notify_all()
            if not data:
                return

    # Sending

    def send(self, data: bytes) -> bool:
        """False (and `closed`) when the server has closed or reset the connection."""
        if self.closed or self.send_failed:
            return False
        try:
            self.sock.sendall(data)
        except OSError:  # BrokenPipe, ConnectionReset, timeout because the server stopped reading
            self.send_failed = True
            return False
        self.bytes_sent += len(data)
        return True

    def header_block(self, headers) -> bytes:
        return self.encoder.encode(headers)

    def request_headers(self, path: str, extra=()) -> list[tuple[str, str]]:
        return [
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", self.authority),
            ("content-type", "application/grpc"), ("te", "trailers"), *extra,
        ]

    def headers_frame(self, stream_id: int, headers, end_stream: bool = False) -> bytes:
        flags = END_HEADERS | (END_STREAM if end_stream else 0)
        self.streams.setdefault(stream_id, StreamState())
        return raw_frame(HEADERS, flags, stream_id, self.header_block(headers))

    def grpc_call(self, stream_id: int, path: str, message: bytes, extra=()) -> bytes:
        """HEADERS + one DATA frame with the length-prefixed message and END_STREAM."""
        return (self.headers_frame(stream_id, self.request_headers(path, extra))
                + raw_frame(DATA, END_STREAM, stream_id, frame(message)))

    # Receiving

    def pump(self, timeout: float) -> None:
        """Waits up to `timeout` for bytes, then handles every complete frame received."""
        if self.closed:
            return
        with self._arrived:
            self._arrived.wait_for(lambda: self._received or self._eof, max(timeout, 0))
            data, eof = bytes(self._received), self._eof
            self._received.clear()
        self._buffer += data
        while len(self._buffer) >= 9:
            length = int.from_bytes(self._buffer[:3], "big")
            if len(self._buffer) < 9 + length:
                break
            parsed, _ = hf.Frame.parse_frame_header(memoryview(bytes(self._buffer[:9])))
            parsed.parse_body(memoryview(bytes(self._buffer[9:9 + length])))
            del self._buffer[:9 + length]
            self._handle(parsed)
        if eof:
            self.closed = True

    def wait_for(self, condition, timeout: float = SHORT) -> bool:
        """Pumps until `condition()` holds, the connection closes, or `timeout` passes; returns `condition()`."""
        deadline = time.monotonic() + timeout
        while not condition() and not self.closed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self.pump(min(remaining, 0.1))
        return bool(condition())

    def wait_closed(self, timeout: float = SHORT) -> bool:
        self.wait_for(lambda: self.closed, timeout)
        return self.closed

    def handshake(self) -> None:
        assert self.wait_for(lambda: self.server_settings_seen), "the server sent no SETTINGS"

    def _handle(self, parsed) -> None:
        self.frames.append(parsed)
        flags = parsed.flags
        if isinstance(parsed, hf.SettingsFrame):
            if "ACK" not in flags:
                self.server_settings_seen = True
                self.send(hf.SettingsFrame(0, flags=["ACK"]).serialize())
        elif isinstance(parsed, hf.PingFrame):
            if "ACK" in flags:
                self.ping_acks.append(parsed.opaque_data)
            else:
                self.pings.append(parsed.opaque_data)
                if self.ack_pings:
                    self.send(hf.PingFrame(0, flags=["ACK"], opaque_data=parsed.opaque_data).serialize())
        elif isinstance(parsed, hf.GoAwayFrame):
            self.goaway = parsed
        elif isinstance(parsed, (hf.HeadersFrame, hf.ContinuationFrame)):
            if isinstance(parsed, hf.HeadersFrame):
                self._block = (parsed.stream_id, bytearray(), "END_STREAM" in flags)
            stream_id, block, end_stream = self._block
            block += parsed.data
            if "END_HEADERS" in flags:
                self._block = None
                fields = self.decoder.decode(bytes(block), raw=True)
                stream = self.streams.setdefault(stream_id, StreamState())
                if stream.headers is None:
                    stream.headers = fields
                else:
                    stream.trailers = fields
                if end_stream:
                    stream.ended = True
        elif isinstance(parsed, hf.DataFrame):
            stream = self.streams.setdefault(parsed.stream_id, StreamState())
            stream.data += parsed.data
            if parsed.flow_controlled_length:
                credit = hf.WindowUpdateFrame(0, window_increment=parsed.flow_controlled_length).serialize()
                if "END_STREAM" not in flags:
                    credit += hf.WindowUpdateFrame(
                        parsed.stream_id, window_increment=parsed.flow_controlled_length).serialize()
                self.send(credit)
            if "END_STREAM" in flags:
                stream.ended = True
        elif isinstance(parsed, hf.RstStreamFrame):
            stream = self.streams.setdefault(parsed.stream_id, StreamState())
            stream.reset = parsed.error_code
            stream.ended = True

    def describe(self) -> str:
        goaway = (f"GOAWAY {error_name(self.goaway.error_code)} last_stream_id={self.goaway.last_stream_id} "
                  f"debug={self.goaway.additional_data!r}" if self.goaway else "no GOAWAY")
        kinds = [type(f).__name__.replace("Frame", "") for f in self.frames[-12:]]
        return f"{goaway}; closed={self.closed}; send failed={self.send_failed}; last frames received: {kinds}"


@pytest.fixture
def connect():
    connections: list[FrameConnection] = []

    def open_connection(server, *args, **kwargs) -> FrameConnection:
        connection = FrameConnection(server, *args, **kwargs)
        connections.append(connection)
        return connection

    yield open_connection
    for connection in connections:
        connection.close()


def empty_call_succeeds(connection: FrameConnection, stream_id: int) -> StreamState:
    connection.send(connection.grpc_call(stream_id, EMPTY, b""))
    stream = connection.streams[stream_id]
    connection.wait_for(lambda: stream.ended)
    return stream


# --------------------------------------------------------------------------------------------------
# 1. Rapid Reset (CVE-2023-44487)


def test_rapid_reset_flood_gets_goaway_while_others_are_served(configured_server, connect, protos, pb):
    server = configured_server()  # stream_reset_burst = 1000, stream_reset_rate_per_second = 33 (defaults)
    burst, rate = 1000, 33
    attacker = connect(server)
    attacker.handshake()

    stop = threading.Event()
    health: list[str] = []

    def check_health() -> None:
        request = protos.message("grpc.health.v1.HealthCheckRequest")(service="")
        response_class = protos.message("grpc.health.v1.HealthCheckResponse")
        with server.channel() as channel:
            for _ in range(50):
                if stop.is_set():
                    return
                try:
                    health.append(str(call_unary(channel, HEALTH_CHECK, request, response_class, timeout=IO_TIMEOUT).status))
                except grpc.RpcError as error:
                    health.append(f"{error.code()}: {error.details()}")
                time.sleep(0.05)

    checker = threading.Thread(target=check_health, daemon=True)
    checker.start()
    deadline = time.monotonic() + IO_TIMEOUT
    while not health and time.monotonic() < deadline:  # the checker's channel is up before the flood starts
        time.sleep(0.01)
    request = frame(pb.SleepRequest(milliseconds=10_000).SerializeToString())
    pairs, stream_id, start = 0, 1, time.monotonic()
    try:
        # Up to 10 000 HEADERS + RST_STREAM(CANCEL) pairs in batches of 250, for at most 15 s.
        while (pairs < 10_000 and time.monotonic() - start < 15 and attacker.goaway is None
               and not attacker.closed and not attacker.send_failed):
            batch = bytearray()
            for _ in range(250):
                batch += attacker.headers_frame(stream_id, attacker.request_headers(SLEEP))
                batch += raw_frame(DATA, 0, stream_id, request)
                batch += rst_stream(stream_id)
                stream_id += 2
                pairs += 1
            attacker.send(bytes(batch))
            attacker.pump(0)
        attacker.wait_for(lambda: attacker.goaway is not None, SHORT)
        elapsed = time.monotonic() - start
    finally:
        stop.set()
        checker.join(IO_TIMEOUT + 1)

    assert attacker.goaway is not None, (
        f"no GOAWAY after {pairs} HEADERS+RST_STREAM pairs in {elapsed:.1f}s; {attacker.describe()}; "
        f"server {server_state(server)}")
    assert attacker.goaway.error_code != NO_ERROR, f"Rapid Reset GOAWAY with NO_ERROR: {attacker.describe()}"
    # The limiter stops processing new streams after the burst plus what refilled meanwhile.
    allowed = burst + rate * elapsed + 50
    assert attacker.goaway.last_stream_id <= 2 * allowed + 1, (
        f"GOAWAY only after stream {attacker.goaway.last_stream_id} (> {allowed:.0f} resets allowed)")
    assert attacker.wait_closed(IO_TIMEOUT), f"connection still open after the Rapid Reset GOAWAY: {attacker.describe()}"
    assert health and all(status == "1" for status in health), f"Health Checks during the flood: {health}"
    assert_serving(server, protos, "a Rapid Reset flood")


# --------------------------------------------------------------------------------------------------
# 2. CONTINUATION flood


@pytest.mark.parametrize("payload", [b"", hpack.Encoder().encode([("x-flood", "f" * 90)])], ids=["empty", "headers"])
def test_continuation_flood_closes_connection(configured_server, connect, protos, payload):
    server = configured_server()
    attacker = connect(server)
    attacker.handshake()
    first = attacker.header_block(attacker.request_headers(EMPTY))
    attacker.send(raw_frame(HEADERS, 0, 1, first))  # no END_HEADERS: CONTINUATION frames must follow
    continuation = raw_frame(CONTINUATION, 0, 1, payload)
    sent, start = 0, time.monotonic()
    while (sent < 20_000 and time.monotonic() - start < 10 and attacker.goaway is None
           and not attacker.closed and not attacker.send_failed):
        if attacker.send(continuation * 500):
            sent += 500
        attacker.pump(0.01)
    attacker.wait_closed(SHORT)
    assert attacker.closed or attacker.goaway is not None, (
        f"connection neither closed nor GOAWAY after {sent} CONTINUATION frames ({attacker.bytes_sent} bytes) "
        f"in {time.monotonic() - start:.1f}s; {attacker.describe()}")
    assert attacker.streams.get(1, StreamState()).headers is None, "the flooded request was answered"
    if attacker.goaway is not None:
        assert attacker.goaway.error_code != NO_ERROR, attacker.describe()
    assert_serving(server, protos, "a CONTINUATION flood")


# --------------------------------------------------------------------------------------------------
# 3. Header list over max_header_list_bytes


@pytest.mark.parametrize(
    "extra",
    [
        [("x-big", "b" * 5000)],
        [(f"x-small-{i:03d}", "s" * 40) for i in range(60)],
        [(f"x-huge-{i}", "h" * 15_000) for i in range(4)],  # 60 KB: HEADERS + CONTINUATION frames
    ],
    ids=["one-5KB-field", "60-small-fields", "60KB-with-continuations"],
)
def test_header_list_over_limit_is_refused(configured_server, connect, protos, pb, extra):
    server = configured_server({"limits": {"max_header_list_bytes": 4096}})
    connection = connect(server)
    connection.handshake()
    token = new_token()
    block = connection.header_block(connection.request_headers(SLEEP, extra))
    message = frame(pb.SleepRequest(milliseconds=0, cancellation_token=token).SerializeToString())
    connection.streams[1] = StreamState()
    connection.send(header_frames(1, block) + raw_frame(DATA, END_STREAM, 1, message))
    stream = connection.streams[1]
    connection.wait_for(lambda: stream.ended or connection.goaway is not None)
    refused = stream.status == 431 or stream.reset is not None or connection.goaway is not None or (
        stream.grpc_status not in (None, 0))
    assert refused, f"oversized header list not refused: {stream.describe()}; {connection.describe()}"
    assert not (stream.status == 200 and stream.grpc_status == 0), f"oversized request served: {stream.describe()}"
    with server.channel() as channel:
        probe = CancellationProbe(stubs_for(channel, pb), pb)
        assert probe.report(token) is None, "the handler ran for a request whose headers exceeded the limit"
    if connection.goaway is None and not connection.closed:
        follow_up = empty_call_succeeds(connection, 3)
        assert follow_up.grpc_status == 0, f"connection unusable after a 431: {follow_up.describe()}"
    assert_serving(server, protos, "an oversized header list")


def test_header_list_under_limit_is_served(configured_server, connect, protos, pb):
    server = configured_server({"limits": {"max_header_list_bytes": 4096}})
    connection = connect(server)
    connection.handshake()
    stream_id = 1
    connection.send(connection.grpc_call(stream_id, EMPTY, b"", extra=[("x-big", "b" * 3000)]))
    stream = connection.streams[stream_id]
    assert connection.wait_for(lambda: stream.ended), f"no answer: {stream.describe()}; {connection.describe()}"
    assert stream.status == 200 and stream.grpc_status == 0, f"3 KB of headers refused under a 4 KB limit: {stream.describe()}"


def test_hpack_bomb_is_refused_quickly(configured_server, connect, protos, pb):
    """One 4 KB field in the HPACK dynamic table, then 16 000 one-byte references to it: 16 KB on the wire that
    decode to 64 MB of header list. The server must refuse it (431, reset or GOAWAY) promptly and stay healthy."""
    server = configured_server({"limits": {"max_header_list_bytes": 4096}})
    connection = connect(server)
    connection.handshake()
    token = new_token()
    headers = connection.request_headers(SLEEP)
    block = connection.header_block(headers) + connection.header_block([("x-bomb", "b" * 4000)])
    # The encoder put x-bomb at dynamic index 62 (it evicted the others): 0x80 | 62 is an indexed field.
    assert connection.encoder.header_table.dynamic_entries[0][0] == b"x-bomb"
    block += bytes([0x80 | 62]) * 16_000
    connection.streams[1] = StreamState()
    start = time.monotonic()
    connection.send(header_frames(1, block) + raw_frame(
        DATA, END_STREAM, 1, frame(pb.SleepRequest(milliseconds=0, cancellation_token=token).SerializeToString())))
    stream = connection.streams[1]
    connection.wait_for(lambda: stream.ended or connection.goaway is not None, IO_TIMEOUT)
    elapsed = time.monotonic() - start
    assert stream.ended or connection.goaway is not None or connection.closed, (
        f"no answer {elapsed:.1f}s after an HPACK bomb; {connection.describe()}; server {server_state(server)}")
    assert not (stream.status == 200 and stream.grpc_status == 0), f"HPACK bomb served: {stream.describe()}"
    if connection.goaway is not None:
        assert connection.goaway.error_code != FRAME_SIZE_ERROR, f"the test sent an oversized frame: {connection.describe()}"
    with server.channel() as channel:
        assert CancellationProbe(stubs_for(channel, pb), pb).report(token) is None, "the handler ran for an HPACK bomb"
    assert_serving(server, protos, "an HPACK bomb")


def stubs_for(channel, pb):
    import interop_pb2_grpc  # generated by the session's `stubs` fixture, which `pb` depends on

    return interop_pb2_grpc.InteropTestServiceStub(channel)


# --------------------------------------------------------------------------------------------------
# 4. max_concurrent_streams


def test_streams_beyond_limit_sent_before_settings_are_refused(configured_server, connect, protos, pb):
    """A client that opens streams before it has seen SETTINGS_MAX_CONCURRENT_STREAMS gets REFUSED_STREAM for the
    extra ones (RFC 9113 §5.1.2, §8.7: safe to retry) and the first four complete."""
    server = configured_server({"limits": {"max_concurrent_streams": 4}})
    connection = connect(server, preface=False)
    tokens = {stream_id: new_token() for stream_id in range(1, 21, 2)}
    wire = PREFACE + settings_frame()
    for stream_id, token in tokens.items():
        message = pb.SleepRequest(milliseconds=300, cancellation_token=token).SerializeToString()
        wire += connection.grpc_call(stream_id, SLEEP, message)
    connection.send(wire)  # all in one write, before reading the server's SETTINGS
    connection.wait_for(lambda: all(connection.streams[s].ended for s in tokens), IO_TIMEOUT)
    first, extra = list(tokens)[:4], list(tokens)[4:]
    for stream_id in first:
        stream = connection.streams[stream_id]
        assert stream.status == 200 and stream.grpc_status == 0, (
            f"stream {stream_id} (within the limit) did not complete: {stream.describe()}; {connection.describe()}")
    for stream_id in extra:
        stream = connection.streams[stream_id]
        assert stream.headers is None and stream.reset == REFUSED_STREAM, (
            f"stream {stream_id} (beyond the limit of 4) was not refused: {stream.describe()}; {connection.describe()}")
    with server.channel() as channel:
        probe = CancellationProbe(stubs_for(channel, pb), pb)
        ran = [stream_id for stream_id in extra if probe.report(tokens[stream_id]) is not None]
    assert not ran, f"handlers ran for refused streams {ran}"
    assert_serving(server, protos, "refused streams")


def test_streams_beyond_acknowledged_limit_are_never_served(configured_server, connect, protos, pb):
    """After acknowledging the limit, opening more streams is a protocol violation: the extra streams are reset or the
    connection is closed with PROTOCOL_ERROR (RFC 9113 §5.1.2, §5.4.1); none of them is served."""
    server = configured_server({"limits": {"max_concurrent_streams": 4}})
    connection = connect(server)
    connection.handshake()
    connection.send(ping(b"settled!"))  # the server has our SETTINGS ACK once it answers this PING
    assert connection.wait_for(lambda: connection.ping_acks), "no PING ACK"
    wire = b"".join(
        connection.grpc_call(stream_id, SLEEP, pb.SleepRequest(milliseconds=300).SerializeToString())
        for stream_id in range(1, 21, 2))
    connection.send(wire)
    connection.wait_for(lambda: all(connection.streams[s].ended for s in range(1, 21, 2)), IO_TIMEOUT)
    served = [s for s in range(9, 21, 2) if connection.streams[s].headers is not None]
    assert not served, f"streams beyond the limit were served: {served}; {connection.describe()}"
    for stream_id in range(9, 21, 2):
        stream = connection.streams[stream_id]
        handled = stream.reset in (REFUSED_STREAM, PROTOCOL_ERROR) or (
            connection.goaway is not None and connection.goaway.error_code == PROTOCOL_ERROR
            and connection.goaway.last_stream_id < stream_id)
        assert handled, f"stream {stream_id}: {stream.describe()}; {connection.describe()}"
    assert_serving(server, protos, "a max_concurrent_streams violation")


def test_grpc_client_sees_the_concurrent_stream_limit(configured_server, protos, pb):
    """grpcio honours SETTINGS_MAX_CONCURRENT_STREAMS = 4: ten 400 ms calls on one channel run in three waves."""
    server = configured_server({"limits": {"max_concurrent_streams": 4}})
    with server.channel() as channel:
        grpc.channel_ready_future(channel).result(timeout=IO_TIMEOUT)
        stub = stubs_for(channel, pb)
        start = time.monotonic()
        futures = [stub.Sleep.future(pb.SleepRequest(milliseconds=400), timeout=IO_TIMEOUT * 2) for _ in range(10)]
        results = []
        for future in futures:
            try:
                future.result()
                results.append("OK")
            except grpc.RpcError as error:
                results.append(f"{error.code()}: {error.details()}")
        elapsed = time.monotonic() - start
    assert results == ["OK"] * 10, f"calls beyond the limit failed instead of waiting: {results}"
    assert elapsed >= 1.1, f"10 x 400 ms calls took {elapsed:.2f}s: more than 4 ran at once"
    assert_serving(server, protos)


# --------------------------------------------------------------------------------------------------
# 5. Keepalive

KEEPALIVE = {"keepalive": {"interval_seconds": 1, "timeout_seconds": 1}}


def test_keepalive_pings_an_idle_connection(configured_server, connect, protos):
    server = configured_server(KEEPALIVE)
    connection = connect(server, ack_pings=False)
    connection.handshake()
    start = time.monotonic()
    got_ping = connection.wait_for(lambda: connection.pings, 1 + SHORT)
    assert got_ping, (
        f"no keepalive PING within {time.monotonic() - start:.1f}s of idleness (interval 1s); {connection.describe()}; "
        f"server {server_state(server)}")
    assert_serving(server, protos, "a keepalive PING")


def test_unanswered_keepalive_ping_closes_the_connection(configured_server, connect, protos):
    server = configured_server(KEEPALIVE)
    connection = connect(server, ack_pings=False)
    connection.handshake()
    start = time.monotonic()
    connection.wait_closed(1 + 1 + SHORT)
    elapsed = time.monotonic() - start
    assert connection.closed, f"connection still open {elapsed:.1f}s after an unanswered PING; {connection.describe()}"
    assert connection.pings, (
        f"connection closed after {elapsed:.1f}s without a keepalive PING first; {connection.describe()}; "
        f"server {server_state(server)}")
    assert_serving(server, protos, "closing a connection whose keepalive PING went unanswered")


def test_answered_keepalive_pings_keep_the_connection(configured_server, connect, protos):
    server = configured_server(KEEPALIVE)
    connection = connect(server, ack_pings=True)
    connection.handshake()
    connection.wait_for(lambda: False, 3.5)
    assert not connection.closed, f"connection answering PINGs was closed; {connection.describe()}; server {server_state(server)}"
    assert 1 <= len(connection.pings) <= 6, f"{len(connection.pings)} keepalive PINGs in 3.5s with a 1s interval"
    stream = empty_call_succeeds(connection, 1)
    assert stream.grpc_status == 0, stream.describe()
    assert_serving(server, protos, "keepalive PINGs")


# --------------------------------------------------------------------------------------------------
# 6. Client PING flood


def test_ping_flood_without_calls_gets_too_many_pings(configured_server, connect, protos):
    server = configured_server()  # min_client_ping_interval_seconds = 300
    connection = connect(server)
    connection.handshake()
    connection.send(b"".join(ping(f"flood-{i:02d}".encode()) for i in range(10)))
    connection.wait_for(lambda: connection.goaway is not None)
    goaway = connection.goaway
    assert goaway is not None, f"no GOAWAY after 10 PINGs in a burst; {connection.describe()}"
    assert goaway.error_code == ENHANCE_YOUR_CALM, f"GOAWAY {error_name(goaway.error_code)}, not ENHANCE_YOUR_CALM"
    assert goaway.additional_data == b"too_many_pings", f"GOAWAY debug data {goaway.additional_data!r}"
    assert connection.wait_closed(), f"connection open after GOAWAY too_many_pings; {connection.describe()}"
    assert_serving(server, protos, "a PING flood")


def test_pings_during_a_call_are_allowed(configured_server, connect, protos, pb):
    server = configured_server()
    connection = connect(server)
    connection.handshake()
    connection.send(connection.grpc_call(1, SLEEP, pb.SleepRequest(milliseconds=1500).SerializeToString()))
    connection.pump(0.1)
    for i in range(10):
        connection.send(ping(f"during{i:02d}".encode()))
        connection.pump(0.05)
    stream = connection.streams[1]
    connection.wait_for(lambda: stream.ended and len(connection.ping_acks) == 10, IO_TIMEOUT)
    assert connection.goaway is None, f"PINGs during an active call got {connection.describe()}"
    assert len(connection.ping_acks) == 10, f"{len(connection.ping_acks)} of 10 PINGs acknowledged"
    assert stream.grpc_status == 0, f"the call did not complete: {stream.describe()}"
    assert_serving(server, protos)


# --------------------------------------------------------------------------------------------------
# 7. Slowloris: idle_timeout_seconds applies to HTTP/1.1 and unfinished handshakes


def wait_for_eof(sock: socket.socket, timeout: float) -> tuple[bool, float, bytes]:
    """Reads until EOF (or a reset) or `timeout`; (closed, seconds waited, bytes received)."""
    start, received = time.monotonic(), b""
    deadline = start + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([sock], [], [], remaining)
        if not readable:
            break
        try:
            chunk = sock.recv(65536)
        except OSError:
            return True, time.monotonic() - start, received
        if not chunk:
            return True, time.monotonic() - start, received
        received += chunk
    return False, time.monotonic() - start, received


@pytest.mark.parametrize(
    "opening",
    [b"GET /healthz HT", b"", b"PRI * HTTP/2.0\r\n"],
    ids=["partial-request-line", "nothing", "partial-h2-preface"],
)
def test_stalled_connection_is_closed_after_idle_timeout(configured_server, protos, opening):
    idle = 1
    server = configured_server({"server": {"idle_timeout_seconds": idle}})
    with socket.create_connection((server.host, server.port), timeout=IO_TIMEOUT) as sock:
        if opening:
            sock.sendall(opening)
        closed, waited, received = wait_for_eof(sock, idle + SHORT)
    assert closed, (f"connection that sent {opening!r} and stalled still open after {waited:.1f}s "
                    f"(idle_timeout_seconds = {idle}); received {received[:80]!r}")
    assert waited >= idle * 0.5, f"closed after {waited:.2f}s, before the idle timeout; received {received[:200]!r}"
    assert_serving(server, protos, f"closing an idle connection that sent {opening!r}")


# --------------------------------------------------------------------------------------------------
# 8. Slow reader


@pytest.mark.parametrize(
    "window", ["tiny-window", "huge-window-unread-socket"],
)
def test_slow_reader_memory_stays_bounded(configured_server, connect, protos, pb, window):
    server = configured_server()
    assert_serving(server, protos)  # warm up before measuring
    baseline = rss_kib(server)
    if window == "tiny-window":
        reader = connect(server, {SETTINGS_INITIAL_WINDOW_SIZE: 1024}, read=False)
    else:
        reader = connect(server, {SETTINGS_INITIAL_WINDOW_SIZE: 2**31 - 1}, receive_buffer=16 * 1024, read=False)
        reader.send(hf.WindowUpdateFrame(0, window_increment=2**31 - 1 - 65_535).serialize())
    token = new_token()
    request = pb.StreamingOutputCallRequest(
        response_parameters=[pb.ResponseParameters(size=MIB) for _ in range(200)], cancellation_token=token)
    reader.send(reader.grpc_call(1, STREAMING_OUTPUT, request.SerializeToString()))
    # The reader never reads its socket and never sends WINDOW_UPDATE from here on.
    with server.channel() as channel:
        probe = CancellationProbe(stubs_for(channel, pb), pb)
        probe.wait_started(token)
        peak = baseline
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            peak = max(peak, rss_kib(server))
            time.sleep(0.2)
        growth_mib = (peak - baseline) / 1024
        assert growth_mib < 64, f"server RSS grew by {growth_mib:.0f} MiB for one slow reader ({window})"
        report = probe.report(token)
        assert not report.finished, "the handler wrote 200 MiB to a reader that reads nothing: responses were buffered"
        assert_serving(server, protos, "3 s of a slow reader")
        reader.send(rst_stream(1, CANCEL))
        report = probe.wait_finished(token)
    assert report.cancelled, f"the handler did not observe the reset: {report}"
    assert_serving(server, protos, "resetting the slow reader's stream")


def test_http1_pipelining_client_that_never_reads_is_bounded(configured_server, protos):
    """Pipelined HTTP/1.1 requests from a client that reads no response: the server must stop reading (or close)
    instead of buffering every request and response in memory."""
    server = configured_server()
    assert_serving(server, protos)
    baseline = rss_kib(server)
    request = b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"
    chunk = request * (MIB // len(request))
    sent, start = 0, time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
        sock.settimeout(1.0)
        sock.connect((server.host, server.port))
        try:
            while sent < 64 * MIB and time.monotonic() - start < 5:
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the server stopped reading (backpressure) or closed the connection
        time.sleep(0.5)
        growth_mib = (rss_kib(server) - baseline) / 1024
    assert growth_mib < 32, (
        f"server RSS grew by {growth_mib:.0f} MiB: it read all {sent / MIB:.0f} MiB of pipelined requests from a "
        f"client that read no response")
    assert_serving(server, protos, "an HTTP/1.1 pipelining flood")


# --------------------------------------------------------------------------------------------------
# 9. Malformed HTTP/1.1 on the gRPC port


MALFORMED_HTTP1 = {
    "content-length-and-chunked": (b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    "obs-fold": (b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n", 400),
    "bare-lf": (b"GET /healthz HTTP/1.1\nHost: a\n\n", 400),
    "header-section-over-limit": (b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Pad: " + b"p" * 9000 + b"\r\n\r\n", 431),
    "missing-host": (b"GET /healthz HTTP/1.1\r\nUser-Agent: x\r\n\r\n", 400),
    "two-hosts": (b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    "space-before-colon": (b"GET /healthz HTTP/1.1\r\nHost : a\r\n\r\n", 400),
    "conflicting-content-length": (b"POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", 400),
    "negative-content-length": (b"POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
    "gzip-transfer-coding": (b"POST /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    "chunked-not-last": (b"POST /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
    "bad-chunk-size": (b"POST /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    "nul-in-value": (b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Nul: a\x00b\r\n\r\n", 400),
    "http-version-3": (b"GET /healthz HTTP/3.0\r\nHost: a\r\n\r\n", 505),
    "target-too-long": (b"GET /" + b"t" * 5000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414),
    "body-over-limit": (b"POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", 413),
}


@pytest.mark.parametrize("name", list(MALFORMED_HTTP1))
def test_malformed_http1_gets_4xx_and_close(configured_server, protos, name):
    request, expected = MALFORMED_HTTP1[name]
    server = configured_server()
    with socket.create_connection((server.host, server.port), timeout=IO_TIMEOUT) as sock:
        sock.sendall(request)
        closed, waited, received = wait_for_eof(sock, SHORT)
    head, _, _ = received.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status_line = lines[0].decode("latin-1")
    headers = {line.partition(b":")[0].strip().lower(): line.partition(b":")[2].strip().lower() for line in lines[1:]}
    assert status_line.startswith(f"HTTP/1.1 {expected} "), f"{name}: expected {expected}, got {received[:300]!r}"
    assert headers.get(b"connection") == b"close", f"{name}: no `connection: close` in {head!r}"
    assert closed, f"{name}: connection still open {waited:.1f}s after the {expected}"
    assert_serving(server, protos, f"malformed HTTP/1.1 ({name})")


# --------------------------------------------------------------------------------------------------
# 10. Invalid HTTP/2


CONNECTION_ERRORS = {
    # name: (bytes after a complete handshake, expected GOAWAY codes)
    "data-on-stream-0": (raw_frame(DATA, 0, 0, b"hello"), {PROTOCOL_ERROR}),
    "headers-on-stream-0": (None, {PROTOCOL_ERROR}),
    "headers-on-even-stream": (None, {PROTOCOL_ERROR}),
    "data-on-idle-stream": (raw_frame(DATA, 0, 5, b"hello"), {PROTOCOL_ERROR}),
    "ping-of-7-bytes": (raw_frame(PING, 0, 0, b"1234567"), {FRAME_SIZE_ERROR}),
    "ping-on-stream-1": (raw_frame(PING, 0, 1, b"12345678"), {PROTOCOL_ERROR}),
    "settings-enable-push-2": (raw_frame(SETTINGS, 0, 0, b"\x00\x02\x00\x00\x00\x02"), {PROTOCOL_ERROR}),
    "settings-window-2^31": (raw_frame(SETTINGS, 0, 0, b"\x00\x04\x80\x00\x00\x00"), {FLOW_CONTROL_ERROR}),
    "settings-length-5": (raw_frame(SETTINGS, 0, 0, b"\x00\x04\x00\x00\x01"), {FRAME_SIZE_ERROR}),
    "window-update-0-on-connection": (raw_frame(WINDOW_UPDATE, 0, 0, b"\x00\x00\x00\x00"), {PROTOCOL_ERROR}),
    "window-overflow-on-connection": (
        raw_frame(WINDOW_UPDATE, 0, 0, (2**31 - 1).to_bytes(4, "big")) * 2, {FLOW_CONTROL_ERROR}),
    "continuation-without-headers": (raw_frame(CONTINUATION, END_HEADERS, 1, b""), {PROTOCOL_ERROR}),
    "frame-over-max-frame-size": (None, {FRAME_SIZE_ERROR}),
}


@pytest.mark.parametrize("name", list(CONNECTION_ERRORS))
def test_invalid_http2_frame_is_a_connection_error(configured_server, connect, protos, name):
    wire, expected = CONNECTION_ERRORS[name]
    server = configured_server()
    connection = connect(server)
    connection.handshake()
    if name == "headers-on-stream-0":
        wire = raw_frame(HEADERS, END_HEADERS | END_STREAM, 0, connection.header_block(connection.request_headers(EMPTY)))
    elif name == "headers-on-even-stream":
        wire = raw_frame(HEADERS, END_HEADERS | END_STREAM, 2, connection.header_block(connection.request_headers(EMPTY)))
    elif name == "frame-over-max-frame-size":
        wire = (connection.headers_frame(1, connection.request_headers(EMPTY))
                + raw_frame(DATA, END_STREAM, 1, b"\0" * 16_385))
    connection.send(wire)
    connection.wait_for(lambda: connection.goaway is not None)
    assert connection.goaway is not None, f"{name}: no GOAWAY; {connection.describe()}"
    assert connection.goaway.error_code in expected, (
        f"{name}: GOAWAY {error_name(connection.goaway.error_code)}, expected "
        f"{' or '.join(error_name(code) for code in expected)}")
    assert connection.wait_closed(), f"{name}: connection open after GOAWAY; {connection.describe()}"
    assert_serving(server, protos, f"invalid HTTP/2 ({name})")


@pytest.mark.parametrize(
    "opening", [b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + settings_frame(), PREFACE + ping()],
    ids=["bad-preface", "first-frame-not-settings"],
)
def test_bad_http2_opening_closes_the_connection(configured_server, connect, protos, opening):
    server = configured_server()
    connection = connect(server, preface=False)
    connection.send(opening)
    assert connection.wait_closed(), f"connection open after {opening!r}; {connection.describe()}"
    if connection.goaway is not None:
        assert connection.goaway.error_code == PROTOCOL_ERROR, connection.describe()
    assert_serving(server, protos, f"an HTTP/2 opening of {opening!r}")


def _without(headers, name):
    return [(k, v) for k, v in headers if k != name]


MALFORMED_REQUESTS = {
    # name: function(request headers) -> malformed headers (RFC 9113 §8.1.1, §8.2, §8.3)
    "uppercase-field-name": lambda h: h + [("X-Upper", "1")],
    "missing-path": lambda h: _without(h, ":path"),
    "missing-method": lambda h: _without(h, ":method"),
    "missing-scheme": lambda h: _without(h, ":scheme"),
    "empty-path": lambda h: [(k, "" if k == ":path" else v) for k, v in h],
    "duplicate-path": lambda h: h[:3] + [(":path", EMPTY)] + h[3:],
    "unknown-pseudo-header": lambda h: h[:4] + [(":foo", "bar")] + h[4:],
    "pseudo-header-after-regular": lambda h: _without(h, ":authority") + [(":authority", "a")],
    "response-pseudo-header": lambda h: h[:4] + [(":status", "200")] + h[4:],
    "connection-header": lambda h: h + [("connection", "keep-alive")],
    "transfer-encoding-header": lambda h: h + [("transfer-encoding", "chunked")],
    "te-not-trailers": lambda h: _without(h, "te") + [("te", "gzip")],
    "space-in-field-name": lambda h: h + [("x bad", "1")],
    "colon-in-field-name": lambda h: h + [("x:bad", "1")],
    "nul-in-field-value": lambda h: h + [("x-nul", "a\x00b")],
    "crlf-in-field-value": lambda h: h + [("x-crlf", "a\r\nx-injected: 1")],
    "leading-space-in-field-value": lambda h: h + [("x-space", " a")],
    "content-length-without-body": lambda h: h + [("content-length", "5")],
}


@pytest.mark.parametrize("name", list(MALFORMED_REQUESTS))
def test_malformed_request_is_a_stream_error(configured_server, connect, protos, name):
    """A malformed request is never served: RST_STREAM PROTOCOL_ERROR (or a connection error); after a stream error
    the connection goes on serving."""
    server = configured_server()
    connection = connect(server)
    connection.handshake()
    headers = MALFORMED_REQUESTS[name](connection.request_headers(EMPTY))
    connection.send(connection.headers_frame(1, headers, end_stream=True))
    stream = connection.streams[1]
    connection.wait_for(lambda: stream.ended or connection.goaway is not None)
    assert stream.headers is None or (stream.status or 0) >= 400, f"{name}: malformed request served: {stream.describe()}"
    if connection.goaway is not None:
        assert connection.goaway.error_code == PROTOCOL_ERROR, f"{name}: {connection.describe()}"
    else:
        assert stream.reset == PROTOCOL_ERROR, (
            f"{name}: expected RST_STREAM PROTOCOL_ERROR, got {stream.describe()}; {connection.describe()}")
        follow_up = empty_call_succeeds(connection, 3)
        assert follow_up.grpc_status == 0, f"{name}: connection unusable after a stream error: {follow_up.describe()}"
    assert_serving(server, protos, f"a malformed request ({name})")


def test_content_length_mismatch_is_a_stream_error(configured_server, connect, protos):
    server = configured_server()
    connection = connect(server)
    connection.handshake()
    body = frame(b"")
    connection.send(
        connection.headers_frame(1, connection.request_headers(EMPTY, [("content-length", str(len(body) + 10))]))
        + raw_frame(DATA, END_STREAM, 1, body))
    stream = connection.streams[1]
    connection.wait_for(lambda: stream.ended or connection.goaway is not None)
    assert stream.grpc_status != 0, f"request with a wrong content-length served: {stream.describe()}"
    assert stream.reset == PROTOCOL_ERROR or (connection.goaway and connection.goaway.error_code == PROTOCOL_ERROR), (
        f"content-length mismatch: {stream.describe()}; {connection.describe()}")
    assert_serving(server, protos, "a content-length mismatch")


# A request whose body or trailers break RFC 9113 §8.1: name -> frames after the head (which has no END_STREAM).
MALFORMED_BODIES = {
    "body-longer-than-content-length": lambda c: [
        raw_frame(DATA, 0, 1, frame(b"")), raw_frame(DATA, END_STREAM, 1, b"\x00" * 10)],
    "trailers-without-end-stream": lambda c: [
        raw_frame(DATA, 0, 1, frame(b"")), c.headers_frame(1, [("x-trailer", "1")], end_stream=False)],
    "pseudo-header-in-trailers": lambda c: [
        raw_frame(DATA, 0, 1, frame(b"")), c.headers_frame(1, [(":path", EMPTY)], end_stream=True)],
    "content-length-in-trailers": lambda c: [
        raw_frame(DATA, 0, 1, frame(b"")), c.headers_frame(1, [("content-length", "5")], end_stream=True)],
    "host-in-trailers": lambda c: [
        raw_frame(DATA, 0, 1, frame(b"")), c.headers_frame(1, [("host", "example.com")], end_stream=True)],
}


@pytest.mark.parametrize("name", list(MALFORMED_BODIES))
def test_malformed_body_or_trailers_is_a_stream_error(configured_server, connect, protos, name):
    """What follows a valid head is held to the same rules: RST_STREAM PROTOCOL_ERROR, never an answer, and the
    connection goes on serving."""
    server = configured_server()
    connection = connect(server)
    connection.handshake()
    extra = [("content-length", str(len(frame(b""))))] if name == "body-longer-than-content-length" else []
    connection.send(connection.headers_frame(1, connection.request_headers(EMPTY, extra)))
    for part in MALFORMED_BODIES[name](connection):
        connection.send(part)
    stream = connection.streams[1]
    connection.wait_for(lambda: stream.ended or connection.goaway is not None)
    assert stream.grpc_status is None, f"{name}: malformed request answered: {stream.describe()}"
    assert stream.reset == PROTOCOL_ERROR, f"{name}: {stream.describe()}; {connection.describe()}"
    follow_up = empty_call_succeeds(connection, 3)
    assert follow_up.grpc_status == 0, f"{name}: connection unusable after a stream error: {follow_up.describe()}"
    assert_serving(server, protos, f"a malformed body ({name})")


def test_malformed_field_in_a_continuation_frame_is_a_stream_error(configured_server, connect, protos):
    """A field refused in a CONTINUATION frame resets the stream; the rest of the block is still decoded (HPACK state
    stays in step), so the connection's next request is served."""
    server = configured_server()
    connection = connect(server)
    connection.handshake()
    valid = connection.request_headers(EMPTY) + [("x-before", "1")]
    # The valid fields' encoding is the block's start (HPACK is deterministic given the table): X-Upper and the
    # field after it go in the CONTINUATION frame.
    split = len(copy.deepcopy(connection.encoder).encode(valid))
    block = connection.header_block(valid + [("X-Upper", "1"), ("x-after", "1")])
    connection.send(raw_frame(HEADERS, END_STREAM, 1, block[:split]) + raw_frame(CONTINUATION, END_HEADERS, 1, block[split:]))
    stream = connection.streams.setdefault(1, StreamState())
    connection.wait_for(lambda: stream.ended or connection.goaway is not None)
    assert stream.grpc_status is None and stream.reset == PROTOCOL_ERROR, f"{stream.describe()}; {connection.describe()}"
    follow_up = empty_call_succeeds(connection, 3)
    assert follow_up.grpc_status == 0, f"connection unusable after the reset: {follow_up.describe()}"
    assert_serving(server, protos, "a malformed field in a CONTINUATION frame")
