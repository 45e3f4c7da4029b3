"""Clients cannot hold connections by trickling a request head ([limits] request_head_timeout_seconds), nor take
every connection ([limits] max_connections, max_connections_per_address).

The idle timeout restarts on every byte, so a head sent one byte at a time used to keep its connection forever.
Here heads trickle one byte every 0.3 s, well inside the idle timeout, and the server must still close them once
the head deadline passes, while connections that finished their heads stay open."""

from __future__ import annotations

import socket
import struct
import threading
import time

import h2.config
import h2.connection
import h2.events

from test_metrics import Samples, scrape
from test_tls_dropping_clients import HealthyConnection, _client_hello

HEAD_TIMEOUT = 2
IDLE_TIMEOUT = 3
TRICKLE_INTERVAL = 0.3
# Far beyond the head deadline: a connection still open by then was never cut off.
GIVE_UP_AFTER = 20

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SLOW_SETTINGS = {
    "limits": {"request_head_timeout_seconds": HEAD_TIMEOUT},
    "server": {"idle_timeout_seconds": IDLE_TIMEOUT},
}


class Trickler:
    """Sends `data` to a fresh connection one byte at a time, collecting what the server answers, until the server
    closes the connection or `GIVE_UP_AFTER` seconds pass."""

    def __init__(self, server, data: bytes, prefix: bytes = b""):
        self.received = b""
        self.closed_after: float | None = None
        self.sock = socket.create_connection((server.host, server.port), timeout=GIVE_UP_AFTER)
        if prefix:
            self.sock.sendall(prefix)
        self._data = data
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        start = time.monotonic()
        self.sock.settimeout(TRICKLE_INTERVAL)
        index = 0
        while time.monotonic() - start < GIVE_UP_AFTER:
            if index < len(self._data):
                try:
                    self.sock.send(self._data[index:index + 1])
                except OSError:
                    break
                index += 1
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                break
            if not chunk:
                break
            self.received += chunk
        else:
            return
        self.closed_after = time.monotonic() - start

    def join(self) -> None:
        self._thread.join(GIVE_UP_AFTER + 5)
        self.sock.close()


def _assert_cut_off(tricklers: list[Trickler], what: str) -> None:
    for trickler in tricklers:
        trickler.join()
    still_open = [t for t in tricklers if t.closed_after is None]
    assert not still_open, f"{len(still_open)} of {len(tricklers)} connections {what} were still open after {GIVE_UP_AFTER} s"


def _request_head_timeouts(server, protocol: str) -> float:
    return Samples(scrape(server))["entitlementd_request_head_timeouts_total", {"protocol": protocol}]


def test_http1_heads_trickled_byte_by_byte_get_408_and_are_closed(configured_server):
    server = configured_server(SLOW_SETTINGS)
    head = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + b"X-Slow: " + b"a" * 200 + b"\r\n\r\n"
    tricklers = [Trickler(server, head) for _ in range(20)]
    # Meanwhile a client that sends whole requests, with pauses shorter than the idle timeout, is served throughout.
    with socket.create_connection((server.host, server.port), timeout=10) as healthy:
        for _ in range(4):
            healthy.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert healthy.recv(4096).startswith(b"HTTP/1.1 200 ")
            time.sleep(HEAD_TIMEOUT * 0.75)
    _assert_cut_off(tricklers, "trickling an HTTP/1.1 head")
    for trickler in tricklers:
        assert trickler.received.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), trickler.received[:200]
        assert b"connection: close" in trickler.received.lower()
    assert _request_head_timeouts(server, "http1") == len(tricklers)


def test_http1_later_head_on_a_kept_alive_connection_is_timed_too(configured_server):
    server = configured_server(SLOW_SETTINGS)
    first = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
    trickler = Trickler(server, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + b"X: " + b"b" * 200, prefix=first)
    _assert_cut_off([trickler], "trickling a second HTTP/1.1 head")
    assert trickler.received.startswith(b"HTTP/1.1 200 ")
    assert b"HTTP/1.1 408 Request Timeout\r\n" in trickler.received


def test_http2_preface_trickled_byte_by_byte_is_closed(configured_server):
    server = configured_server(SLOW_SETTINGS)
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    preface_and_settings = client.data_to_send()
    tricklers = [Trickler(server, preface_and_settings) for _ in range(10)]
    # Clients that connect and say nothing are cut off by the same deadline, before the protocol is known.
    silent = [Trickler(server, b"") for _ in range(3)]
    _assert_cut_off(tricklers + silent, "trickling the HTTP/2 preface or silent")
    assert _request_head_timeouts(server, "http2") == len(tricklers)
    assert _request_head_timeouts(server, "handshake") == len(silent)


def _goaway(received: bytes) -> tuple[int, bytes] | None:
    """The error code and debug data of the first GOAWAY among the server's frames."""
    offset = 0
    while offset + 9 <= len(received):
        length = int.from_bytes(received[offset:offset + 3], "big")
        kind = received[offset + 3]
        payload = received[offset + 9:offset + 9 + length]
        if kind == 7 and len(payload) >= 8:
            return struct.unpack(">I", payload[4:8])[0], payload[8:]
        offset += 9 + length
    return None


def test_http2_header_block_trickled_across_continuations_is_closed_with_goaway(configured_server):
    server = configured_server(SLOW_SETTINGS)
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    prefix = client.data_to_send()
    # HEADERS without END_HEADERS, then CONTINUATION frames, all sent a byte at a time.
    block = client.encoder.encode([
        (":method", "POST"), (":scheme", "http"), (":path", "/grpc.health.v1.Health/Check"),
        (":authority", server.target), ("content-type", "application/grpc"), ("te", "trailers"),
        ("x-padding", "p" * 100),
    ])
    headers = struct.pack(">I", len(block[:10]))[1:] + bytes([1, 0]) + struct.pack(">I", 1) + block[:10]
    continuation = struct.pack(">I", len(block[10:]))[1:] + bytes([9, 0]) + struct.pack(">I", 1) + block[10:]
    trickler = Trickler(server, headers + continuation[:-1], prefix=prefix)
    _assert_cut_off([trickler], "trickling an HTTP/2 header block")
    goaway = _goaway(trickler.received)
    assert goaway is not None, f"no GOAWAY in {trickler.received!r}"
    assert goaway == (0xB, b"request head timeout"), goaway  # ENHANCE_YOUR_CALM


def test_tls_handshake_trickled_byte_by_byte_is_closed(configured_server, certificate):
    # Cleartext allowed beside TLS only so that the test can read /metrics over plain HTTP.
    server = configured_server({
        **SLOW_SETTINGS,
        "tls": {
            "certificate": str(certificate.certificate), "private_key": str(certificate.private_key),
            "allow_cleartext": True,
        },
    })
    server.tls = certificate
    hello = _client_hello(server)
    tricklers = [Trickler(server, hello) for _ in range(10)]
    _assert_cut_off(tricklers, "trickling a TLS ClientHello")
    assert _request_head_timeouts(server, "handshake") == len(tricklers)


def test_connections_that_finished_their_heads_stay_open_past_the_deadline(configured_server, certificate, protos):
    server = configured_server({
        **SLOW_SETTINGS,
        "tls": {"certificate": str(certificate.certificate), "private_key": str(certificate.private_key)},
    })
    server.tls = certificate
    request = protos.message("grpc.health.v1.HealthCheckRequest")(service="").SerializeToString()
    watching = [HealthyConnection(server, request) for _ in range(3)]
    time.sleep(HEAD_TIMEOUT * 2.5)
    for connection in watching:
        connection.check_alive("well after the request-head deadline")
        connection.close()


def _open_h2(server) -> socket.socket:
    """A connection that completed its preface, so only a limit can end it."""
    sock = socket.create_connection((server.host, server.port), timeout=10)
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    sock.sendall(client.data_to_send())
    assert sock.recv(65536), "the server closed a connection it should have kept"
    return sock


def _refused(server) -> bool:
    """Whether a new connection is closed by the server before it says anything."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        try:
            sock.sendall(PREFACE)
            return sock.recv(65536) == b""
        except (ConnectionResetError, BrokenPipeError):
            return True


def test_connections_per_address_are_limited(configured_server):
    server = configured_server({"limits": {"max_connections_per_address": 5}})
    held = [_open_h2(server) for _ in range(5)]
    assert all(_refused(server) for _ in range(3))
    held.pop().close()
    time.sleep(0.5)
    held.append(_open_h2(server))  # a freed slot is taken again
    for sock in held:
        sock.close()
    time.sleep(0.5)
    samples = Samples(scrape(server))
    assert samples["entitlementd_connections_refused_total", {"reason": "max_connections_per_address"}] == 3
    assert samples["entitlementd_connections_refused_total", {"reason": "max_connections"}] == 0
    assert "refusing connections: [limits] max_connections_per_address = 5 reached" in server.log()


def test_connections_from_trusted_proxies_are_not_limited_per_address(configured_server):
    server = configured_server({
        "limits": {"max_connections_per_address": 2},
        "server": {"trusted_proxies": "127.0.0.1"},
    })
    held = [_open_h2(server) for _ in range(6)]
    for sock in held:
        sock.close()
    assert "refusing connections" not in server.log()


def test_connections_in_all_are_limited(configured_server):
    server = configured_server({"limits": {"max_connections": 4, "max_connections_per_address": 0}})
    held = [_open_h2(server) for _ in range(4)]
    assert _refused(server)
    for sock in held:
        sock.close()
    time.sleep(0.5)
    samples = Samples(scrape(server))
    assert samples["entitlementd_connections_refused_total", {"reason": "max_connections"}] == 1
    # The scrape's own connection is the one open now.
    assert samples["entitlementd_connections_open"] == 1
