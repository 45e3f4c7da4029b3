"""Fixtures for the interop suite: generated stubs, certificates, running servers and raw clients.

The server under test is the `interop-server` executable (entitlementd plus the test-only
`entitlementd.testing.InteropTestService`). Point `ENTITLEMENTD_INTEROP_SERVER` at a binary, or build
`.build/debug/interop-server` (`swift build --product interop-server`).

Stubs are generated at session start with grpc_tools.protoc into a temporary directory:
- Tests/Interop/protos/interop.proto as ordinary Python modules (interop_pb2, interop_pb2_grpc);
- every .proto under Protos/ as one descriptor set loaded into a private descriptor pool (see `ProtoSet`),
  because their Python module paths (`grpc/health/v1/...`) would shadow the `grpc` package itself.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import queue
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1].parent
INTEROP_PROTO_DIR = Path(__file__).resolve().parent / "protos"
PROTOS_DIR = REPO_ROOT / "Protos"

SERVICE = "entitlementd.testing.InteropTestService"
CANCELLATION_TOKEN_KEY = "x-interop-cancellation-token"

MIB = 1024 * 1024
# Every blocking call in the suite is bounded by one of these.
RPC_TIMEOUT = 20.0
STARTUP_TIMEOUT = 30.0
SHUTDOWN_TIMEOUT = 20.0

CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", 16 * MIB),
    ("grpc.max_receive_message_length", 16 * MIB),
    ("grpc.enable_retries", 0),
    ("grpc.enable_http_proxy", 0),
]

TRANSPORTS = ["h2c", "tls"]


# --------------------------------------------------------------------------------------------------
# Stubs


def _protoc(args: list[str]) -> None:
    from grpc_tools import protoc

    include = str(Path(importlib.import_module("grpc_tools").__file__).parent / "_proto")
    argv = ["grpc_tools.protoc", f"-I{include}", *args]
    if protoc.main(argv) != 0:
        raise RuntimeError("protoc failed: " + " ".join(argv))


class ProtoSet:
    """Message classes for the protos under Protos/, from a descriptor set in a private pool."""

    def __init__(self, descriptor_set: bytes):
        from google.protobuf import descriptor_pb2, descriptor_pool

        self.files = {}
        self.pool = descriptor_pool.DescriptorPool()
        for file in descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file:
            self.files[file.name] = file
            self.pool.AddSerializedFile(file.SerializeToString())

    def message(self, full_name: str):
        from google.protobuf import message_factory

        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(full_name))

    def service_names(self) -> set[str]:
        return {
            f"{file.package}.{service.name}" if file.package else service.name
            for file in self.files.values()
            for service in file.service
        }

    def file_of_service(self, full_name: str):
        for file in self.files.values():
            for service in file.service:
                if f"{file.package}.{service.name}" == full_name:
                    return file
        return None


@dataclass
class Stubs:
    interop_pb2: object
    interop_pb2_grpc: object
    protos: ProtoSet


@pytest.fixture(scope="session")
def stubs(tmp_path_factory) -> Stubs:
    out = tmp_path_factory.mktemp("stubs")
    _protoc([
        f"-I{INTEROP_PROTO_DIR}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        str(INTEROP_PROTO_DIR / "interop.proto"),
    ])
    proto_files = sorted(str(p.relative_to(PROTOS_DIR)) for p in PROTOS_DIR.rglob("*.proto"))
    assert proto_files, f"no .proto files under {PROTOS_DIR}"
    descriptor_set = out / "protos.pb"
    _protoc([
        f"-I{PROTOS_DIR}",
        "--include_imports",
        f"--descriptor_set_out={descriptor_set}",
        *proto_files,
    ])
    sys.path.insert(0, str(out))
    return Stubs(
        interop_pb2=importlib.import_module("interop_pb2"),
        interop_pb2_grpc=importlib.import_module("interop_pb2_grpc"),
        protos=ProtoSet(descriptor_set.read_bytes()),
    )


@pytest.fixture(scope="session")
def pb(stubs):
    """The generated interop_pb2 module."""
    return stubs.interop_pb2


@pytest.fixture(scope="session")
def protos(stubs) -> ProtoSet:
    return stubs.protos


# --------------------------------------------------------------------------------------------------
# Certificates and configuration


@dataclass
class Certificate:
    certificate: Path
    private_key: Path

    @property
    def pem(self) -> bytes:
        return self.certificate.read_bytes()


@pytest.fixture(scope="session")
def certificate(tmp_path_factory) -> Certificate:
    """A self-signed certificate for localhost and 127.0.0.1 (as subjectAltNames, which clients check)."""
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "server.crt", directory / "server.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True, capture_output=True, timeout=30,
    )
    return Certificate(cert, key)


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _toml_string(str(value))


# ENTITLEMENTD_TEST_STORE=postgres runs every server on PostgreSQL (ENTITLEMENTD_TEST_POSTGRES, as Scripts/test sets
# both for its second run): each database path stands for a schema of its own, so a restarted server finds its data.
ON_POSTGRES = os.environ.get("ENTITLEMENTD_TEST_STORE") == "postgres"
SQLITE_ONLY = pytest.mark.skipif(ON_POSTGRES, reason="reads or locks the SQLite file itself")


def postgres_schema(database: Path) -> str:
    """The PostgreSQL schema that stands for the SQLite file `database` when the tests run on PostgreSQL."""
    return "t_" + hashlib.sha256(str(database).encode()).hexdigest()[:24]


def query_database(directory: Path, sql: str) -> list[tuple[str, ...]]:
    """The rows of `sql` on the database of the server started on `directory` (its SQLite file, or its PostgreSQL
    schema), read behind its back as an analyst would; every value as text, NULL as ''."""
    database = directory / "entitlements.db"
    if ON_POSTGRES:
        conninfo = f"{os.environ['ENTITLEMENTD_TEST_POSTGRES']} options=-csearch_path={postgres_schema(database)}"
        out = subprocess.run(["psql", conninfo, "-qAt", "-F", "\t", "-c", sql], check=True, capture_output=True,
                             text=True, timeout=60).stdout
        return [tuple(line.split("\t")) for line in out.splitlines()]
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as connection:
        return [tuple("" if value is None else str(value) for value in row) for row in connection.execute(sql)]


def postgres_storage(database: Path) -> list[str]:
    """`[storage]` lines that keep `database`'s data in a PostgreSQL schema named after it (created here)."""
    base = os.environ["ENTITLEMENTD_TEST_POSTGRES"]
    schema = postgres_schema(database)
    subprocess.run(["psql", base, "-qc", f"CREATE SCHEMA IF NOT EXISTS {schema}"], check=True, timeout=60)
    return ['backend = "postgres"', f"postgres_url = {_toml_string(f'{base} options=-csearch_path={schema}')}"]


def write_config(directory: Path, tls: Certificate | None, settings: dict[str, dict[str, object]] | None = None) -> Path:
    """A configuration listening on a free loopback port with a throwaway database.

    `settings` adds keys, by section: `{"limits": {"max_concurrent_streams": 4}}`."""
    extra = {section: dict(values) for section, values in (settings or {}).items()}
    # No drain delay unless a test asks for one: every test server stops on SIGTERM, and waiting would only slow them.
    extra.setdefault("server", {}).setdefault("shutdown_drain_delay_seconds", 0)

    def keys(section: str) -> list[str]:
        return [f"{key} = {_toml_value(value)}" for key, value in extra.pop(section, {}).items()]

    # A test may restart a server on the port it had (`{"server": {"listen": "127.0.0.1:PORT"}}`).
    listen = extra["server"].pop("listen", "127.0.0.1:0")
    lines = [
        "[server]",
        f"listen = {_toml_string(listen)}",
        *keys("server"),
        "",
        "[storage]",
        # A test that names its own backend (several instances on one PostgreSQL schema) keeps it.
        *([] if "backend" in extra.get("storage", {})
          else postgres_storage(directory / "entitlements.db") if ON_POSTGRES
          else [f"database = {_toml_string(str(directory / 'entitlements.db'))}"]),
        *keys("storage"),
        "",
    ]
    if tls is not None:
        lines += [
            "[tls]",
            f"certificate = {_toml_string(str(tls.certificate))}",
            f"private_key = {_toml_string(str(tls.private_key))}",
            *keys("tls"),
            "",
        ]
    for section in list(extra):
        lines += [f"[{section}]", *keys(section), ""]
    path = directory / "interop.toml"
    path.write_text("\n".join(lines))
    return path


# --------------------------------------------------------------------------------------------------
# Server process


def server_binary() -> Path:
    configured = os.environ.get("ENTITLEMENTD_INTEROP_SERVER")
    path = Path(configured) if configured else REPO_ROOT / ".build" / "debug" / "interop-server"
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not path.exists():
        pytest.fail(
            f"interop server binary {path} not found: run `swift build --product interop-server` "
            "or set ENTITLEMENTD_INTEROP_SERVER"
        )
    return path


def entitlementd_binary() -> Path:
    """The `entitlementd` built next to the interop server under test, for tests of the shipped binary itself."""
    path = server_binary().parent / "entitlementd"
    if not path.exists():
        pytest.fail(f"entitlementd binary {path} not found: run `swift build --product entitlementd`")
    return path


LISTENING = re.compile(r"entitlementd listening on (\S+)")


class ServerProcess:
    """One interop-server process; stdout is drained by a thread, stderr goes to a log file."""

    def __init__(self, directory: Path, tls: Certificate | None, settings: dict[str, dict[str, object]] | None = None):
        self.tls = tls
        # Where `/metrics` is served when `[metrics] listen` moves it off the main port ("HOST:PORT"), else None.
        self.metrics_listen = (settings or {}).get("metrics", {}).get("listen")
        self.config = write_config(directory, tls, settings)
        self.log_path = directory / "server.log"
        self._log = open(self.log_path, "wb")
        self.stdout_lines: list[str] = []
        self._listening: "queue.Queue[str | None]" = queue.Queue()
        self.process = subprocess.Popen(
            [str(server_binary()), "--config", str(self.config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log,
            cwd=directory,
        )
        threading.Thread(target=self._drain_stdout, daemon=True).start()
        try:
            line = self._listening.get(timeout=STARTUP_TIMEOUT)
        except queue.Empty:
            line = None
        if line is None:
            self.kill()
            pytest.fail(f"server did not report `entitlementd listening on HOST:PORT`:\n{self.describe()}")
        address = LISTENING.search(line).group(1)
        host, _, port = address.rpartition(":")
        self.host = host.strip("[]")
        self.port = int(port)

    def _drain_stdout(self) -> None:
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.stdout_lines.append(line)
            if LISTENING.search(line):
                self._listening.put(line)
        self._listening.put(None)

    @property
    def target(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def transport(self) -> str:
        return "tls" if self.tls else "h2c"

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def describe(self) -> str:
        return (
            f"exit code: {self.process.poll()}\nstdout:\n" + "\n".join(self.stdout_lines)
            + f"\nstderr (last 4000 chars):\n{self.log()[-4000:]}"
        )

    def channel(self, options=()) -> grpc.Channel:
        opts = CHANNEL_OPTIONS + list(options)
        if self.tls is None:
            return grpc.insecure_channel(self.target, options=opts)
        credentials = grpc.ssl_channel_credentials(root_certificates=self.tls.pem)
        return grpc.secure_channel(self.target, credentials, options=opts)

    def terminate(self) -> int:
        """Sends SIGTERM and waits; the exit code (killing and failing if it does not exit in time)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=SHUTDOWN_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"server did not exit within {SHUTDOWN_TIMEOUT}s of SIGTERM:\n{self.describe()}")
        finally:
            self._log.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def start_server(
    directory: Path, tenants_file: Path, settings: dict[str, dict[str, object]] | None = None
) -> ServerProcess:
    """An h2c server whose database is `directory/entitlements.db` and whose `[storage] tenants` is `tenants_file`,
    with `settings` as in `write_config`. Starting another one on the same directory reuses the same database."""
    directory.mkdir(parents=True, exist_ok=True)
    settings = dict(settings or {})
    settings["storage"] = {**settings.get("storage", {}), "tenants": str(tenants_file)}
    return ServerProcess(directory, None, settings)


def stop_and_check(server: ServerProcess) -> None:
    """Ends a server a fixture shares between tests: it must still be running, and exit 0 on SIGTERM."""
    if server.process.poll() is not None:
        pytest.fail(f"server exited during the tests:\n{server.describe()}")
    code = server.terminate()
    assert code == 0, f"server exited with {code} after SIGTERM:\n{server.describe()}"


def serve_for_session(tmp_path_factory, tls: Certificate | None):
    """Body of a session fixture: a server without tenants for the whole session."""
    server = ServerProcess(tmp_path_factory.mktemp("server-tls" if tls else "server-h2c"), tls)
    yield server
    stop_and_check(server)


@pytest.fixture(scope="session")
def h2c_server(tmp_path_factory):
    yield from serve_for_session(tmp_path_factory, None)


@pytest.fixture(scope="session")
def tls_server(tmp_path_factory, certificate):
    yield from serve_for_session(tmp_path_factory, certificate)


@pytest.fixture(params=TRANSPORTS)
def server(request) -> ServerProcess:
    """The running server, once over plaintext h2c and once over TLS."""
    return request.getfixturevalue(f"{request.param}_server")


@pytest.fixture
def channel(server):
    with server.channel() as channel:
        grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT)
        yield channel


@pytest.fixture
def stub(channel, stubs):
    return stubs.interop_pb2_grpc.InteropTestServiceStub(channel)


@pytest.fixture
def configured_server(tmp_path):
    """Starts h2c servers of the test's own (TLS ones given `tls`) with extra configuration keys, by section
    (`configured_server({"keepalive": {"interval_seconds": 1}})`); each is killed after the test."""
    started: list[ServerProcess] = []

    def start(settings: dict[str, dict[str, object]] | None = None, tls: Certificate | None = None) -> ServerProcess:
        directory = tmp_path / f"server-{len(started)}"
        directory.mkdir()
        server = ServerProcess(directory, tls, settings)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


@pytest.fixture
def fresh_server(configured_server) -> ServerProcess:
    """A server of the test's own (h2c), for tests that stop it."""
    return configured_server()


@pytest.fixture(scope="module")
def tenants_server(tmp_path_factory):
    """Starts h2c servers for the rest of the module, each with its own database, `[storage] tenants` the file given
    and any more settings by section: `tenants_server(path)`, `tenants_server(path, {"limits": {...}})`. Tests share
    them, so at the end of the module each must still be running and exit 0 on SIGTERM."""
    started: list[ServerProcess] = []

    def start(tenants_file: Path, settings: dict[str, dict[str, object]] | None = None) -> ServerProcess:
        server = start_server(tmp_path_factory.mktemp("server-tenants"), tenants_file, settings)
        started.append(server)
        return server

    yield start
    try:
        for server in started:
            stop_and_check(server)
    finally:
        for server in started:
            server.kill()


DEMO_TENANTS_FILE = REPO_ROOT / "Config" / "tenants.demo.json"
DEMO_PUBLIC_KEY = "pk_demo_public_key_for_local_testing_only"
DEMO_SECRET_KEY = "sk_demo_secret_key_for_local_testing_only"


def demo_tenants() -> dict:
    """Config/tenants.demo.json with every file it names made absolute (they are relative to it), for a changed copy
    written elsewhere."""
    tenants = json.loads(DEMO_TENANTS_FILE.read_text())
    config = DEMO_TENANTS_FILE.parent
    for tenant in tenants["tenants"]:
        store = tenant["app_store"]
        store["root_certificates"] = [str(config / path) for path in store["root_certificates"]]
        store["server_api"]["key_file"] = str(config / store["server_api"]["key_file"])
        play = tenant["play_store"]
        play["service_account_key_file"] = str(config / play["service_account_key_file"])
        play["notifications"]["jwks_file"] = str(config / play["notifications"]["jwks_file"])
        for key in tenant.get("signed_status", {}).get("keys", []):
            key["key_file"] = str(config / key["key_file"])
    return tenants


@pytest.fixture(scope="session")
def demo_tenants_server(tmp_path_factory) -> ServerProcess:
    """A server whose tenants file is Config/tenants.demo.json, so the README's demo keys (DEMO_PUBLIC_KEY,
    DEMO_SECRET_KEY) authenticate. The other session servers have no tenants file and refuse every entitlement call.
    One for the session (not `tenants_server`, one a module): test_startup reads its log, which the server flushes on
    a timer, so a server started for that module alone may not have written the line yet."""
    server = start_server(tmp_path_factory.mktemp("server-demo-tenants"), DEMO_TENANTS_FILE)
    yield server
    stop_and_check(server)


# --------------------------------------------------------------------------------------------------
# Helpers shared by the tests


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def new_token() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def cancellation(stub, pb):
    """Queries the server's record of what the handler running under a token observed."""
    return CancellationProbe(stub, pb)


class CancellationProbe:
    def __init__(self, stub, pb):
        self.stub, self.pb = stub, pb

    def report(self, token: str):
        """The report, or None while no handler has run under `token` (NOT_FOUND)."""
        try:
            return self.stub.GetCancellation(self.pb.CancellationQuery(token=token), timeout=RPC_TIMEOUT)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise

    def wait_started(self, token: str, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            report = self.report(token)
            if report is not None:
                return report
            time.sleep(0.02)
        pytest.fail(f"no handler registered under token {token} within {timeout}s")

    def wait_finished(self, token: str, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        report = None
        while time.monotonic() < deadline:
            report = self.report(token)
            if report is not None and report.finished:
                return report
            time.sleep(0.02)
        pytest.fail(f"handler under token {token} did not finish within {timeout}s (last report: {report})")


def call_unary(channel, path: str, request, response_class, **kwargs):
    """Calls a unary method by path with dynamic (ProtoSet) message classes."""
    method = channel.unary_unary(
        path, request_serializer=lambda m: m.SerializeToString(), response_deserializer=response_class.FromString
    )
    return method(request, timeout=kwargs.pop("timeout", RPC_TIMEOUT), **kwargs)


def call_server_streaming(channel, path: str, request, response_class, **kwargs):
    method = channel.unary_stream(
        path, request_serializer=lambda m: m.SerializeToString(), response_deserializer=response_class.FromString
    )
    return method(request, timeout=kwargs.pop("timeout", RPC_TIMEOUT), **kwargs)


def call_bidirectional(channel, path: str, requests, response_class, **kwargs):
    method = channel.stream_stream(
        path, request_serializer=lambda m: m.SerializeToString(), response_deserializer=response_class.FromString
    )
    return method(requests, timeout=kwargs.pop("timeout", RPC_TIMEOUT), **kwargs)


class RequestQueue:
    """A request iterator fed from the test thread: put() a message, close() to half-close."""

    _END = object()

    def __init__(self):
        self._queue: "queue.Queue[object]" = queue.Queue()

    def put(self, message) -> None:
        self._queue.put(message)

    def close(self) -> None:
        self._queue.put(self._END)

    def __iter__(self):
        while True:
            try:
                item = self._queue.get(timeout=RPC_TIMEOUT)
            except queue.Empty:
                return
            if item is self._END:
                return
            yield item


# --------------------------------------------------------------------------------------------------
# Raw HTTP/2 (h2c) client


@dataclass
class RawResponse:
    headers: list[tuple[bytes, bytes]] | None = None
    headers_ended_stream: bool = False
    data: bytes = b""
    data_frames: int = 0
    trailers: list[tuple[bytes, bytes]] | None = None
    reset_code: int | None = None
    ended: bool = False
    events: list = field(default_factory=list)

    @staticmethod
    def _get(block, name: bytes):
        for key, value in block or []:
            if key == name:
                return value
        return None

    def header(self, name: str) -> bytes | None:
        return self._get(self.headers, name.encode())

    def trailer(self, name: str) -> bytes | None:
        return self._get(self.trailers, name.encode())

    @property
    def status(self) -> int | None:
        value = self.header(":status")
        return int(value) if value is not None else None

    def grpc(self, name: str) -> bytes | None:
        """A gRPC status field from the trailers, or from the headers of a Trailers-Only response."""
        value = self.trailer(name)
        return value if value is not None else self.header(name)

    @property
    def grpc_status(self) -> int | None:
        value = self.grpc("grpc-status")
        return int(value) if value is not None else None

    def messages(self) -> list[bytes]:
        """The length-prefixed messages of the DATA payload (asserting they are uncompressed and complete)."""
        out, data = [], self.data
        while data:
            assert len(data) >= 5, f"truncated message prefix: {data!r}"
            flag, length = data[0], int.from_bytes(data[1:5], "big")
            assert flag == 0, "response message unexpectedly compressed"
            assert len(data) >= 5 + length, "truncated message"
            out.append(data[5:5 + length])
            data = data[5 + length:]
        return out


class RawH2Connection:
    """A minimal HTTP/2 client over a plain socket, for requests grpcio would never send; or over `sock`, a socket
    connected already (a TLS one whose session the test looks at)."""

    def __init__(self, host: str, port: int, timeout: float = RPC_TIMEOUT, sock: socket.socket | None = None):
        import h2.config
        import h2.connection

        self.authority = f"{host}:{port}"
        self.timeout = timeout
        self.sock = sock or socket.create_connection((host, port), timeout=timeout)
        self.conn = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=True, header_encoding=None)
        )
        self.conn.initiate_connection()
        self._flush()
        self.responses: dict[int, RawResponse] = {}

    def close(self) -> None:
        try:
            self.conn.close_connection()
            self._flush()
        except Exception:
            pass
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _flush(self) -> None:
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def grpc_headers(self, path: str, content_type: str = "application/grpc", extra=()) -> list[tuple[str, str]]:
        return [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", path),
            (":authority", self.authority),
            ("content-type", content_type),
            ("te", "trailers"),
            *extra,
        ]

    def start(self, headers, end_stream: bool = False) -> int:
        stream_id = self.conn.get_next_available_stream_id()
        self.responses[stream_id] = RawResponse()
        self.conn.send_headers(stream_id, headers, end_stream=end_stream)
        self._flush()
        return stream_id

    def send(self, stream_id: int, data: bytes, end_stream: bool = False) -> None:
        """Sends `data` as one DATA frame, waiting for flow-control window when needed."""
        deadline = time.monotonic() + self.timeout
        while self.conn.local_flow_control_window(stream_id) < len(data):
            if time.monotonic() > deadline:
                raise TimeoutError("no flow-control window to send request data")
            self._receive_once()
        self.conn.send_data(stream_id, data, end_stream=end_stream)
        self._flush()

    def end(self, stream_id: int) -> None:
        self.conn.end_stream(stream_id)
        self._flush()

    def request(self, headers, body: bytes = b"", chunk_size: int | None = None) -> RawResponse:
        """One whole request: headers, body (optionally in DATA frames of `chunk_size`), END_STREAM; the response."""
        stream_id = self.start(headers, end_stream=False)
        if chunk_size:
            for offset in range(0, len(body), chunk_size):
                self.send(stream_id, body[offset:offset + chunk_size])
            self.end(stream_id)
        else:
            self.send(stream_id, body, end_stream=True)
        return self.wait(stream_id)

    def wait(self, stream_id: int) -> RawResponse:
        response = self.responses[stream_id]
        deadline = time.monotonic() + self.timeout
        while not response.ended:
            if time.monotonic() > deadline:
                raise TimeoutError(f"stream {stream_id} did not end; got so far: {response}")
            self._receive_once()
        return response

    def _receive_once(self) -> None:
        import h2.events

        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("server closed the connection")
        for event in self.conn.receive_data(data):
            stream_id = getattr(event, "stream_id", None)
            response = self.responses.get(stream_id)
            if response is None:
                continue
            response.events.append(event)
            if isinstance(event, h2.events.ResponseReceived):
                response.headers = list(event.headers)
                response.headers_ended_stream = event.stream_ended is not None
            elif isinstance(event, h2.events.DataReceived):
                response.data += event.data
                response.data_frames += 1
                self.conn.acknowledge_received_data(event.flow_controlled_length, stream_id)
            elif isinstance(event, h2.events.TrailersReceived):
                response.trailers = list(event.headers)
            elif isinstance(event, h2.events.StreamEnded):
                response.ended = True
            elif isinstance(event, h2.events.StreamReset):
                response.reset_code = event.error_code
                response.ended = True
        self._flush()


@pytest.fixture
def raw_h2(h2c_server):
    """Opens raw HTTP/2 connections to the h2c server; all are closed after the test."""
    connections = []

    def connect() -> RawH2Connection:
        connection = RawH2Connection(h2c_server.host, h2c_server.port)
        connections.append(connection)
        return connection

    yield connect
    for connection in connections:
        connection.close()


def frame(message: bytes, compressed: bool = False) -> bytes:
    """A gRPC length-prefixed message."""
    return bytes([1 if compressed else 0]) + len(message).to_bytes(4, "big") + message
