"""Clients that drop off a TLS connection in every way, interleaved with healthy TLS connections on the same server:
no healthy connection or stream is ever closed. (OpenSSL's error queue is per thread; a failed session's errors
left on an event loop's thread were read by the next healthy connection's `SSL_get_error` as its own.)

Healthy connections are driven with `h2` over Python's `ssl` so that each is one known TCP connection with one open
`Health/Watch` stream; after each round of drops every one of them must answer a PING."""

from __future__ import annotations

import socket
import ssl
import struct

import h2.config
import h2.connection
import h2.events

from conftest import RPC_TIMEOUT, frame

HEALTHY_CONNECTIONS = 8
ROUNDS = 12


class HealthyConnection:
    """One TLS connection with a `grpc.health.v1.Health/Watch` stream that stays open."""

    def __init__(self, server, pb_health_request: bytes):
        self.socket = _tls_socket(server, alpn=["h2"])
        assert self.socket.selected_alpn_protocol() == "h2"
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.h2.initiate_connection()
        self.stream = self.h2.get_next_available_stream_id()
        self.h2.send_headers(self.stream, [
            (":method", "POST"), (":scheme", "https"), (":path", "/grpc.health.v1.Health/Watch"),
            (":authority", server.target), ("content-type", "application/grpc"), ("te", "trailers"),
        ])
        self.h2.send_data(self.stream, frame(pb_health_request), end_stream=True)
        self._flush()
        self._read_until(lambda event: isinstance(event, h2.events.DataReceived), "the first Watch message")
        self.pings = 0

    def check_alive(self, context: str) -> None:
        self.pings += 1
        payload = struct.pack(">Q", self.pings)
        self.h2.ping(payload)
        self._flush()
        self._read_until(
            lambda event: isinstance(event, h2.events.PingAckReceived) and event.ping_data == payload,
            f"a PING ACK {context}",
        )

    def close(self) -> None:
        self.socket.close()

    def _flush(self) -> None:
        self.socket.sendall(self.h2.data_to_send())

    def _read_until(self, done, what: str) -> None:
        while True:
            try:
                data = self.socket.recv(65536)
            except (ConnectionError, ssl.SSLError) as error:
                raise AssertionError(f"healthy connection failed waiting for {what}: {error!r}") from error
            assert data, f"healthy connection closed by the server waiting for {what}"
            for event in self.h2.receive_data(data):
                assert not isinstance(event, (h2.events.ConnectionTerminated, h2.events.StreamReset)), (
                    f"healthy connection or stream ended waiting for {what}: {event}"
                )
                assert not isinstance(event, h2.events.StreamEnded), f"Watch stream ended waiting for {what}"
                if isinstance(event, h2.events.DataReceived):
                    self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                if done(event):
                    self._flush()
                    return
            self._flush()


def _tls_socket(server, alpn: list[str]) -> ssl.SSLSocket:
    context = ssl.create_default_context(cadata=server.tls.pem.decode())
    context.set_alpn_protocols(alpn)
    raw = socket.create_connection((server.host, server.port), timeout=RPC_TIMEOUT)
    return context.wrap_socket(raw, server_hostname="localhost")


def _client_hello(server) -> bytes:
    """The bytes of a genuine ClientHello (made with a memory BIO, never sent as a whole)."""
    context = ssl.create_default_context(cadata=server.tls.pem.decode())
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    session = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        session.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def _without_tls(tls: ssl.SSLSocket) -> socket.socket:
    """The TCP socket under `tls`, which Python then leaves alone (no close_notify)."""
    raw = socket.socket(fileno=tls.detach())
    raw.settimeout(RPC_TIMEOUT)
    return raw


def _reset(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _drop_mid_handshake(server, hello: bytes, rst: bool) -> None:
    raw = socket.create_connection((server.host, server.port), timeout=RPC_TIMEOUT)
    raw.sendall(hello[: len(hello) // 2])
    _reset(raw) if rst else raw.close()


def _drop_after_whole_hello(server, hello: bytes) -> None:
    """The server answers the ClientHello, then the client leaves with the handshake half done."""
    raw = socket.create_connection((server.host, server.port), timeout=RPC_TIMEOUT)
    raw.sendall(hello)
    raw.recv(65536)
    raw.close()


def _drop_without_close_notify(server) -> None:
    _without_tls(_tls_socket(server, alpn=["h2"])).close()


def _drop_with_rst_after_handshake(server) -> None:
    _reset(_without_tls(_tls_socket(server, alpn=["h2"])))


def _drop_after_garbage_record(server) -> None:
    """A record that fails to decrypt: a fatal TLS error on the server's side (bad_record_mac)."""
    raw = _without_tls(_tls_socket(server, alpn=["h2"]))
    raw.sendall(bytes([23, 3, 3, 0, 40]) + bytes(40))
    try:
        raw.recv(1024)
    except ConnectionError:
        pass
    raw.close()


def _drop_with_alert(server) -> None:
    """A client that does not trust the certificate: it sends an alert mid-handshake and leaves."""
    context = ssl.create_default_context()
    raw = socket.create_connection((server.host, server.port), timeout=RPC_TIMEOUT)
    try:
        context.wrap_socket(raw, server_hostname="localhost")
    except ssl.SSLCertVerificationError:
        pass
    else:
        raise AssertionError("the untrusted handshake unexpectedly succeeded")
    finally:
        raw.close()


def test_dropping_clients_never_close_healthy_connections(tls_server, protos):
    health_request = protos.message("grpc.health.v1.HealthCheckRequest")(service="").SerializeToString()
    healthy = [HealthyConnection(tls_server, health_request) for _ in range(HEALTHY_CONNECTIONS)]
    hello = _client_hello(tls_server)
    drops = [
        ("mid-handshake", lambda: _drop_mid_handshake(tls_server, hello, rst=False)),
        ("mid-handshake with RST", lambda: _drop_mid_handshake(tls_server, hello, rst=True)),
        ("after the ClientHello", lambda: _drop_after_whole_hello(tls_server, hello)),
        ("after the handshake without close_notify", lambda: _drop_without_close_notify(tls_server)),
        ("after the handshake with RST", lambda: _drop_with_rst_after_handshake(tls_server)),
        ("after a record that fails to decrypt", lambda: _drop_after_garbage_record(tls_server)),
        ("after a TLS alert", lambda: _drop_with_alert(tls_server)),
    ]
    try:
        for round_number in range(ROUNDS):
            for name, drop in drops:
                # Several of each, so that every event loop sees them between the healthy connections' reads.
                for _ in range(3):
                    drop()
                for connection in healthy:
                    connection.check_alive(f"after round {round_number + 1}'s clients that dropped {name}")
    finally:
        for connection in healthy:
            connection.close()
