"""One client process of Scripts/benchmark-devices: many devices, each on a connection of its own (TCP, then TLS
1.3 with ALPN h2 when asked, then HTTP/2) holding one EntitlementService/StreamStatus, as phones do. Not a script of
its own: the benchmark starts several (one process may hold only so many descriptors) and drives them one phase at a
time, so the server's memory can be read between phases.

Commands arrive one JSON object per line on stdin; each is answered with one JSON line on stdout once every device
of this process is done with it:
  {"cmd": "tcp"}      connect every device (accepted, nothing sent)
  {"cmd": "tls"}      TLS handshakes (resuming the last session each device was given, when it holds one)
  {"cmd": "h2"}       the HTTP/2 preface and SETTINGS, both ways
  {"cmd": "stream"}   one StreamStatus each (after_version = the last version the device saw), until its response
                      headers and, when the server has anything to send, the first event arrived
  {"cmd": "drop"}     every connection closed at once, without GOAWAY or close_notify (a network change)
  {"cmd": "reconnect", "resume": true}  each device on its own: connect, TLS (resuming its session, unless resume
                      is false), HTTP/2, and its stream again from the last version it saw
  {"cmd": "pause"}    stop reading the sockets: what arrives waits in the kernel, stamped with when it arrived
  {"cmd": "resume"}   read what arrived meanwhile, handle it, and go on reading
  {"cmd": "events", "users": [...]}  (and forget) the arrival times of the events each named user's devices received
  {"cmd": "quit"}
Times are when the kernel received the bytes (SO_TIMESTAMPNS), on time.monotonic()'s clock (CLOCK_MONOTONIC, the same
in every process of the machine).
"""
import argparse, asyncio, collections, json, os, socket, ssl, struct, sys, time

import h2.config, h2.connection, h2.events

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Interop"))
from proto_wire import fields, varint  # noqa: E402

PATH = "/entitlements.v1.EntitlementService/StreamStatus"


def event_version(message):
    """StatusEvent{kind = 1, customer = 2: CustomerStatus{version = 3}} → (kind, version)."""
    kind = version = 0
    for number, value in fields(message):
        if number == 1:
            kind = value
        elif number == 2:
            version = next((v for n, v in fields(value) if n == 3), 0)
    return kind, version


# Linux's SO_TIMESTAMPNS (SCM_TIMESTAMPNS): each read of the socket carries when its bytes reached it.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


class TimedConnection:
    """A device's socket, read and written on the event loop directly so each read carries the kernel's receive time
    (SO_TIMESTAMPNS): when the bytes reached the device's socket, however late this process gets to them. With a
    thousand devices told at once, the process is busy parsing the others' events while later ones arrive."""

    def __init__(self, sock):
        self.sock, self.loop = sock, asyncio.get_running_loop()
        self.reads = collections.deque()  # (arrival time, bytes); b"" once the peer has closed
        self.waiter = None
        self.unsent = bytearray()
        self.open, self.reading = True, False
        self.start_reading()

    @classmethod
    async def open(cls, host, port, source):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            sock.bind((source, 0))
            await asyncio.get_running_loop().sock_connect(sock, (host, port))
        except BaseException:
            sock.close()
            raise
        return cls(sock)

    def readable(self):
        """Reads once what has arrived; False when nothing had (or the connection has ended)."""
        if not self.open:
            return False
        try:
            data, ancillary, _, _ = self.sock.recvmsg(1 << 16, socket.CMSG_SPACE(16))
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            data, ancillary = b"", []
        arrived = time.monotonic()
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                seconds, nanoseconds = struct.unpack("qq", value[:16])
                # CLOCK_REALTIME to the monotonic clock every process here shares.
                arrived = seconds + nanoseconds / 1e9 - (time.time() - time.monotonic())
        if not data:
            self.stop_reading()
            self.open = False
        self.reads.append((arrived, data))
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)
        return bool(data)

    def stop_reading(self):
        """What arrives meanwhile waits in the kernel, stamped with its arrival time."""
        if self.reading:
            self.loop.remove_reader(self.sock.fileno())
            self.reading = False

    def start_reading(self):
        """Reads everything that arrived while stopped, then goes on reading as it arrives."""
        while self.readable():
            pass
        if self.open and not self.reading:
            self.loop.add_reader(self.sock.fileno(), self.readable)
            self.reading = True

    async def read(self):
        """(arrival time, bytes) of the next read; b"" once the connection has ended."""
        while not self.reads:
            self.waiter = self.loop.create_future()
            await self.waiter
        return self.reads.popleft()

    def write(self, data):
        if not self.unsent:
            try:
                sent = self.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            data = data[sent:]
            if not data:
                return
            self.loop.add_writer(self.sock.fileno(), self.writable)
        self.unsent += data

    def writable(self):
        try:
            sent = self.sock.send(self.unsent)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            sent = len(self.unsent)  # the reader sees the connection end
        del self.unsent[:sent]
        if not self.unsent:
            self.loop.remove_writer(self.sock.fileno())

    def reset(self):
        """Closed without GOAWAY or close_notify, with a reset (SO_LINGER 0), as when a phone's network goes away."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.stop_reading()
        self.open = False
        self.loop.remove_writer(self.sock.fileno())
        self.sock.close()


class Device:
    def __init__(self, user, options):
        self.user, self.options = user, options
        self.connection = self.tls = None
        self.session, self.resumed = None, False
        self.h2 = None
        self.version = 0
        self.events = []  # (monotonic time, kind, version)
        self.settings = self.response = None  # futures the reading task resolves
        self.pending = bytearray()  # gRPC message bytes not yet framed
        self.task = None  # reads the connection once HTTP/2 has started

    async def connect(self):
        self.connection = await TimedConnection.open(self.options.host, self.options.port, self.options.source)

    async def handshake(self, context):
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(incoming, outgoing, server_hostname=self.options.server_name,
                                    session=self.session)
        self.incoming, self.outgoing = incoming, outgoing
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self.flush()
                _, data = await self.connection.read()
                if not data:
                    raise ConnectionError("closed during the handshake")
                incoming.write(data)
        self.flush()
        self.resumed = self.tls.session_reused

    def flush(self):
        if self.tls is not None and self.outgoing.pending:
            self.connection.write(self.outgoing.read())

    def send(self, data):
        if self.tls is not None:
            self.tls.write(data)
            self.flush()
        else:
            self.connection.write(data)

    def receive(self, data):
        """Network bytes → plaintext (the session's tickets are read along the way)."""
        if self.tls is None:
            return data
        self.incoming.write(data)
        plain = bytearray()
        while True:
            try:
                plain += self.tls.read(1 << 16)
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                break
        self.session = self.tls.session
        return bytes(plain)

    async def start_http2(self):
        loop = asyncio.get_running_loop()
        self.settings, self.response = loop.create_future(), loop.create_future()
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.h2.initiate_connection()
        self.send(self.h2.data_to_send())
        self.task = asyncio.create_task(self.read_forever())
        await self.settings

    async def open_stream(self):
        user = self.user.encode()
        request = b"\x0A" + varint(len(user)) + user
        if self.version:
            request += b"\x10" + varint(self.version)
        stream = self.h2.get_next_available_stream_id()
        scheme = "https" if self.tls is not None else "http"
        self.h2.send_headers(stream, [
            (":method", "POST"), (":scheme", scheme), (":path", PATH), (":authority", self.options.server_name),
            ("content-type", "application/grpc"), ("te", "trailers"),
            ("authorization", f"Bearer {self.options.key}")])
        self.h2.send_data(stream, b"\x00" + len(request).to_bytes(4, "big") + request, end_stream=True)
        self.send(self.h2.data_to_send())
        await self.response

    async def read_forever(self):
        try:
            while True:
                now, data = await self.connection.read()
                if not data:
                    break
                for event in self.h2.receive_data(self.receive(data)):
                    if isinstance(event, h2.events.RemoteSettingsChanged) and not self.settings.done():
                        self.settings.set_result(None)
                    elif isinstance(event, h2.events.ResponseReceived) and not self.response.done():
                        # Resumed up to date, the server has no event to send: its headers say the call is open.
                        if self.version:
                            self.response.set_result(None)
                    elif isinstance(event, h2.events.DataReceived):
                        self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                        self.messages(event.data, now)
                    elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset,
                                            h2.events.ConnectionTerminated)):
                        if not self.response.done():
                            self.response.set_exception(ConnectionError(f"{type(event).__name__} for {self.user}"))
                self.send(self.h2.data_to_send())
        except (ConnectionError, ssl.SSLError, OSError):
            pass
        finally:
            for future in (self.settings, self.response):
                if not future.done():
                    future.set_exception(ConnectionError(f"connection of {self.user} closed"))

    def messages(self, data, now):
        self.pending += data
        while len(self.pending) >= 5:
            length = int.from_bytes(self.pending[1:5], "big")
            if len(self.pending) < 5 + length:
                return
            kind, version = event_version(bytes(self.pending[5:5 + length]))
            del self.pending[:5 + length]
            self.events.append((now, kind, version))
            self.version = max(self.version, version)
            if not self.response.done():
                self.response.set_result(None)

    async def reconnect(self, context, resume):
        if not resume:
            self.session = None
        await self.connect()
        if context is not None:
            await self.handshake(context)
        await self.start_http2()
        await self.open_stream()

    def drop(self):
        if self.connection is not None:
            self.connection.reset()
        if self.task is not None:
            self.task.cancel()
        self.connection = self.tls = self.h2 = None
        self.resumed = False
        self.pending.clear()


async def each(devices, step, concurrency):
    """Runs `step` for every device, `concurrency` at a time; returns (done, first failure text)."""
    gate = asyncio.Semaphore(concurrency)
    failures = []

    async def one(device):
        async with gate:
            try:
                await asyncio.wait_for(step(device), 60)
            except (OSError, ConnectionError, ssl.SSLError, asyncio.TimeoutError) as error:
                failures.append(f"{device.user}: {type(error).__name__} {error}")

    await asyncio.gather(*(one(device) for device in devices))
    return len(devices) - len(failures), failures[:1]


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--source", default="127.0.0.1", help="local address to connect from")
    parser.add_argument("--users", required=True, help="PREFIX:FIRST:COUNT:DEVICES_PER_USER")
    parser.add_argument("--key", required=True, help="the tenant's public key")
    parser.add_argument("--ca", help="PEM file of the CA to trust: TLS when given")
    parser.add_argument("--server-name", default="localhost")
    parser.add_argument("--concurrency", type=int, default=64)
    options = parser.parse_args()
    prefix, first, count, per_user = options.users.rsplit(":", 3)
    devices = [Device(f"{prefix}{first_index}", options)
               for first_index in range(int(first), int(first) + int(count)) for _ in range(int(per_user))]
    context = None
    if options.ca:
        context = ssl.create_default_context(cafile=options.ca)
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.set_alpn_protocols(["h2"])
    steps = {
        "tcp": lambda d: d.connect(),
        "tls": lambda d: d.handshake(context),
        "h2": lambda d: d.start_http2(),
        "stream": lambda d: d.open_stream(),
    }
    loop = asyncio.get_running_loop()
    commands = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(commands), sys.stdin)
    while line := await commands.readline():
        command = json.loads(line)
        name = command["cmd"]
        started = time.monotonic()
        answer = {"cmd": name}
        if name in steps:
            if name == "tls" and context is None:
                answer.update(done=len(devices), failures=[])
            else:
                done, failures = await each(devices, steps[name], options.concurrency)
                answer.update(done=done, failures=failures)
            if name == "tls":
                answer["resumed"] = sum(d.resumed for d in devices)
        elif name == "reconnect":
            resume = command.get("resume", True)
            done, failures = await each(devices, lambda d: d.reconnect(context, resume), options.concurrency)
            answer.update(done=done, failures=failures, resumed=sum(d.resumed for d in devices))
        elif name == "drop":
            for device in devices:
                device.drop()
        elif name == "pause":
            for device in devices:
                if device.connection is not None:
                    device.connection.stop_reading()
        elif name == "resume":
            for device in devices:
                if device.connection is not None:
                    device.connection.start_reading()
            # Until every device has handled what it read: the next command may ask for its events.
            while any(device.connection is not None and device.connection.reads for device in devices):
                await asyncio.sleep(0.005)
        elif name == "events":
            wanted = set(command["users"])
            answer["events"] = {}
            for device in devices:
                if device.user in wanted:
                    answer["events"].setdefault(device.user, []).extend(device.events)
                device.events = []
        elif name == "quit":
            break
        answer["seconds"] = time.monotonic() - started
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
