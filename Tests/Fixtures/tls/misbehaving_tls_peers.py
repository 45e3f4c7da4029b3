"""TLS peers that fail a client's connection on purpose, each in one known way, for the clients' tests of what a
failed session leaves behind (OpenSSL's error queue belongs to a thread, which every connection of an event loop
shares: one session's failure must never be read as another's).

    misbehaving_tls_peers.py --directory DIR --certificate PEM --key PEM --untrusted-certificate PEM
        --untrusted-key PEM [--relay-to PORT] NAME=MODE[,MODE...] ...

Listens on 127.0.0.1 at a free port for each NAME; that port's connections take its MODEs in turn (see MODES).
Once listening it writes DIR/ports.json: {NAME: port, ...}. Creating DIR/stop ends the script, once every
misbehaving connection has finished, with a report on stdout: {"performed": {MODE: count}, "problems": [text]}, a
MODE counted each time a connection reached the point where it misbehaves as intended. It also ends when the
process that started it ends, so a test that dies leaves nothing running.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time

TIMEOUT = 20.0
# A TLS 1.2-framed application-data record of zeros: it cannot decrypt (a fatal bad_record_mac for the client).
UNDECRYPTABLE_RECORD = bytes([23, 3, 3, 0, 40]) + bytes(40)
# A fatal handshake_failure alert (level 2, description 40), in the clear as it is before the handshake ends.
HANDSHAKE_FAILURE_ALERT = bytes([21, 3, 3, 0, 2, 2, 40])
# What the peer that answers before leaving says: a complete response the client may keep the connection after.
KEPT_ALIVE_RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Peers:
    def __init__(self, arguments: argparse.Namespace):
        self.trusted = _server_context(arguments.certificate, arguments.key)
        self.untrusted = _server_context(arguments.untrusted_certificate, arguments.untrusted_key)
        self.relay_port = arguments.relay_to
        self.lock = threading.Lock()
        self.performed: dict[str, int] = {}
        self.problems: list[str] = []
        self.handlers: list[threading.Thread] = []

    def performed_mode(self, mode: str) -> None:
        with self.lock:
            self.performed[mode] = self.performed.get(mode, 0) + 1

    def serve(self, listener: socket.socket, modes: list[str]) -> None:
        for mode in itertools.cycle(modes):
            connection, _ = listener.accept()
            handler = threading.Thread(target=self._handle, args=(connection, mode), daemon=True)
            if mode != "relay":
                # Relayed connections last as long as their client keeps them; the report waits for the others only.
                with self.lock:
                    self.handlers.append(handler)
            handler.start()

    def _handle(self, connection: socket.socket, mode: str) -> None:
        connection.settimeout(TIMEOUT)
        try:
            MODES[mode](self, connection)
        except Exception as error:  # Every surprise goes into the report, for the test to show.
            with self.lock:
                self.problems.append(f"{mode}: {error!r}")
            connection.close()

    def report(self) -> dict:
        deadline = time.monotonic() + 2 * TIMEOUT
        with self.lock:
            handlers = list(self.handlers)
        for handler in handlers:
            handler.join(max(0.0, deadline - time.monotonic()))
        with self.lock:
            unfinished = sum(handler.is_alive() for handler in handlers)
            problems = self.problems + ([f"{unfinished} connections still open at the end"] if unfinished else [])
            return {"performed": dict(self.performed), "problems": problems}


def _server_context(certificate: str, key: str) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    context.set_alpn_protocols(["h2", "http/1.1"])
    return context


def _read_client_hello(raw: socket.socket) -> bytes:
    data = b""
    while len(data) < 5 or len(data) < 5 + int.from_bytes(data[3:5], "big"):
        chunk = raw.recv(65536)
        if not chunk:
            raise ConnectionError("the client left before its whole ClientHello")
        data += chunk
    return data


def _first_flight(peers: Peers, hello: bytes) -> bytes:
    """The server's answer to `hello` (ServerHello to Finished), made with memory BIOs and never sent whole."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    session = peers.trusted.wrap_bio(incoming, outgoing, server_side=True)
    incoming.write(hello)
    try:
        session.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def _handshake_and_read_request(peers: Peers, raw: socket.socket, answer: bytes = b"") -> socket.socket:
    """Completes the handshake, reads the client's first bytes, sends `answer`, and returns the TCP socket under
    TLS, which Python then leaves alone: closing it sends no close_notify."""
    tls = peers.trusted.wrap_socket(raw, server_side=True)
    if not tls.recv(65536):
        raise ConnectionError("the client sent nothing after the handshake")
    if answer:
        tls.sendall(answer)
    plain = socket.socket(fileno=tls.detach())
    plain.settimeout(TIMEOUT)
    return plain


def _close_after_client(raw: socket.socket) -> None:
    """Sends FIN, then waits for the client to close its side (reading what it sends, so that closing cannot
    turn into a reset)."""
    try:
        raw.shutdown(socket.SHUT_WR)
        while raw.recv(65536):
            pass
    except OSError:
        pass  # The client may reset instead of closing: either way it is gone.
    raw.close()


def _reset(raw: socket.socket) -> None:
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    raw.close()


def mid_handshake(peers: Peers, raw: socket.socket) -> None:
    flight = _first_flight(peers, _read_client_hello(raw))
    raw.sendall(flight[: len(flight) // 2])
    peers.performed_mode("mid-handshake")
    _close_after_client(raw)


def mid_handshake_rst(peers: Peers, raw: socket.socket) -> None:
    flight = _first_flight(peers, _read_client_hello(raw))
    raw.sendall(flight[: len(flight) // 2])
    peers.performed_mode("mid-handshake-rst")
    _reset(raw)


def alert(peers: Peers, raw: socket.socket) -> None:
    _read_client_hello(raw)
    peers.performed_mode("alert")
    raw.sendall(HANDSHAKE_FAILURE_ALERT)
    _close_after_client(raw)


def untrusted_certificate(peers: Peers, raw: socket.socket) -> None:
    """Presents a certificate the client does not trust: the client ends the handshake with its own alert."""
    try:
        peers.untrusted.wrap_socket(raw, server_side=True).close()
    except ssl.SSLError as error:
        if "alert" not in str(error):
            raise
        peers.performed_mode("untrusted-certificate")
        raw.close()
    else:
        raise AssertionError("the client accepted a certificate it does not trust")


def no_close_notify(peers: Peers, raw: socket.socket) -> None:
    plain = _handshake_and_read_request(peers, raw)
    peers.performed_mode("no-close-notify")
    _close_after_client(plain)


def answer_then_no_close_notify(peers: Peers, raw: socket.socket) -> None:
    """Answers a kept-alive HTTP/1.1 response, then leaves without close_notify while the client holds the
    connection idle (what many servers do to idle connections)."""
    plain = _handshake_and_read_request(peers, raw, answer=KEPT_ALIVE_RESPONSE)
    peers.performed_mode("answer-then-no-close-notify")
    _close_after_client(plain)


def rst(peers: Peers, raw: socket.socket) -> None:
    plain = _handshake_and_read_request(peers, raw)
    peers.performed_mode("rst")
    _reset(plain)


def bad_record(peers: Peers, raw: socket.socket) -> None:
    plain = _handshake_and_read_request(peers, raw)
    peers.performed_mode("bad-record")
    plain.sendall(UNDECRYPTABLE_RECORD)
    _close_after_client(plain)


def relay(peers: Peers, raw: socket.socket) -> None:
    """Passes the connection through, TLS and all, to the healthy server at --relay-to."""
    if peers.relay_port is None:
        raise ValueError("relay needs --relay-to")
    upstream = socket.create_connection(("127.0.0.1", peers.relay_port), timeout=TIMEOUT)
    # A healthy connection may stay quiet for as long as its client likes.
    raw.settimeout(None)
    upstream.settimeout(None)
    peers.performed_mode("relay")
    back = threading.Thread(target=_pump, args=(upstream, raw), daemon=True)
    back.start()
    _pump(raw, upstream)
    back.join()
    raw.close()
    upstream.close()


def _pump(source: socket.socket, destination: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            destination.sendall(data)
        destination.shutdown(socket.SHUT_WR)
    except OSError:
        # One side broke: end both directions.
        for side in (source, destination):
            try:
                side.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


MODES = {
    "mid-handshake": mid_handshake,
    "mid-handshake-rst": mid_handshake_rst,
    "alert": alert,
    "untrusted-certificate": untrusted_certificate,
    "no-close-notify": no_close_notify,
    "answer-then-no-close-notify": answer_then_no_close_notify,
    "rst": rst,
    "bad-record": bad_record,
    "relay": relay,
}


def _listen() -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return listener


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--directory", required=True)
    parser.add_argument("--certificate", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--untrusted-certificate", required=True)
    parser.add_argument("--untrusted-key", required=True)
    parser.add_argument("--relay-to", type=int)
    parser.add_argument("listeners", nargs="+", metavar="NAME=MODE[,MODE...]")
    arguments = parser.parse_args()
    peers = Peers(arguments)
    parent = os.getppid()

    ports = {}
    for listener_spec in arguments.listeners:
        name, _, modes = listener_spec.partition("=")
        unknown = [mode for mode in modes.split(",") if mode not in MODES]
        if not name or unknown:
            parser.error(f"bad listener {listener_spec!r}: modes are {', '.join(MODES)}")
        listener = _listen()
        ports[name] = listener.getsockname()[1]
        threading.Thread(target=peers.serve, args=(listener, modes.split(",")), daemon=True).start()
    # Written whole, then renamed, so that the test never reads half of it.
    path = os.path.join(arguments.directory, "ports.json")
    with open(path + ".partial", "w") as file:
        json.dump(ports, file)
    os.replace(path + ".partial", path)

    stop = os.path.join(arguments.directory, "stop")
    while not os.path.exists(stop):
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(0.05)
    json.dump(peers.report(), sys.stdout)
    sys.stdout.flush()
    # The relayed connections' threads may still be waiting on their sockets.
    os._exit(0)


if __name__ == "__main__":
    main()
