"""The Connect protocol on the gRPC port: unary calls in binary and JSON (POST, and GET for side-effect-free methods),
server streams with their end-of-stream message, errors with Connect's HTTP codes, deadlines, compression, CORS and
metrics. Python's `connectrpc` (the Connect project's runtime) and `curl` are the clients; answers are compared with
what gRPC gives for the same call."""

from __future__ import annotations

import base64
import gzip
import json
import socket
import subprocess
import threading
import time
import urllib.parse

import grpc

import pytest
import requests
from connectrpc.client import ConnectClientSync
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from google.protobuf import json_format
from pyqwest import HTTPVersion, SyncClient, SyncHTTPTransport

from conftest import RPC_TIMEOUT, CancellationProbe, start_server
from entitlement_support import Clients, new_tenant, unique_id, write_tenants

SERVICE = "entitlements.v1.EntitlementService"
ADMIN = "entitlements.v1.AdminService"
ALLOWED_ORIGIN = "http://app.example.test:8080"
HTTP_VERSIONS = ["http1", "http2"]


@pytest.fixture(scope="module")
def tenant():
    return new_tenant("connect", web={"allowed_origins": [ALLOWED_ORIGIN]})


@pytest.fixture(scope="module")
def connect_server(tenants_server, tmp_path_factory, tenant):
    tenants_file = tmp_path_factory.mktemp("connect") / "tenants.json"
    write_tenants(tenants_file, [tenant, new_tenant("other")])
    return tenants_server(tenants_file, {"grpc_web": {"heartbeat_seconds": 1}})


@pytest.fixture
def env(connect_server, tenant, protos):
    clients = Clients(connect_server, protos)
    clients.channel()
    clients.admin = clients.api(tenant.secret_keys[0])
    clients.app = clients.api(tenant.public_keys[0])
    clients.url = f"http://{connect_server.target}"
    yield clients
    clients.close()


def cancellation_probe(server, stubs) -> CancellationProbe:
    """What the interop test service's handlers saw, asked over a gRPC channel of the probe's own."""
    stub = stubs.interop_pb2_grpc.InteropTestServiceStub(grpc.insecure_channel(server.target))
    return CancellationProbe(stub, stubs.interop_pb2)


def write_empty_tenants(directory):
    path = directory / "tenants.json"
    write_tenants(path, [new_tenant("connect-empty")])
    return path


def auth(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


class ProtoCodec:
    """connectrpc's codec interface over Google's protobuf runtime (its own codecs expect another one)."""

    def __init__(self, json_mapping: bool):
        self.json = json_mapping

    def name(self) -> str:
        return "json" if self.json else "proto"

    def encode(self, message) -> bytes:
        return json_format.MessageToJson(message).encode() if self.json else message.SerializeToString()

    def decode(self, data, message_class):
        message = message_class()
        if self.json:
            json_format.Parse(bytes(data), message, ignore_unknown_fields=True)
        else:
            message.ParseFromString(bytes(data))
        return message


def method(protos, service: str, name: str, request: str, response: str, stream: bool = False,
           no_side_effects: bool = False) -> MethodInfo:
    return MethodInfo(
        name=name, service_name=service,
        input=protos.message(f"entitlements.v1.{request}"), output=protos.message(f"entitlements.v1.{response}"),
        idempotency_level=IdempotencyLevel.NO_SIDE_EFFECTS if no_side_effects else IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if stream else StreamType.UNARY,
    )


def connect_client(env, codec: str, http: str, **kwargs) -> ConnectClientSync:
    version = HTTPVersion.HTTP2 if http == "http2" else HTTPVersion.HTTP1
    http_client = SyncClient(SyncHTTPTransport(http_version=version, timeout=RPC_TIMEOUT))
    return ConnectClientSync(env.url, codec=ProtoCodec(codec == "json"), http_client=http_client, **kwargs)


def sync_method(protos) -> MethodInfo:
    return method(protos, SERVICE, "SyncStatus", "SyncStatusRequest", "SyncStatusResponse", no_side_effects=True)


def granted_user(env) -> str:
    user = unique_id("connect")
    env.app.identify(user)
    env.admin.grant(user, "pro", duration=3600)
    return user


# --------------------------------------------------------------------------------------------------
# Unary, through connectrpc


@pytest.mark.parametrize("http", HTTP_VERSIONS)
@pytest.mark.parametrize("codec", ["proto", "json"])
@pytest.mark.parametrize("use_get", [False, True])
def test_sync_status_through_connect_equals_grpc(env, protos, codec, http, use_get):
    user = granted_user(env)
    expected = env.app.call("SyncStatus", app_user_id=user)
    request = protos.message("entitlements.v1.SyncStatusRequest")(app_user_id=user)
    with connect_client(env, codec, http) as client:
        answer = client.execute_unary(
            request=request, method=sync_method(protos), headers=auth(env.app.key), use_get=use_get)
    # The server time differs between two calls; everything else is the same status.
    answer.customer.server_time.Clear()
    expected.customer.server_time.Clear()
    assert answer == expected
    assert [item.id for item in answer.customer.status.entitlements] == ["pro"]


@pytest.mark.parametrize("codec", ["proto", "json"])
def test_an_admin_call_through_connect_writes_what_grpc_reads(env, protos, codec):
    user = unique_id("connect-admin")
    env.app.identify(user)
    grant = method(protos, ADMIN, "GrantEntitlement", "GrantEntitlementRequest", "Grant")
    request = env.admin.grant_request(user, "premium", duration=600, reason="connect")
    with connect_client(env, codec, "http2") as client:
        answer = client.execute_unary(request=request, method=grant, headers=auth(env.admin.key))
    assert answer.entitlement_id == "premium" and answer.reason == "connect"
    customer = env.admin.customer(user)
    assert [g.grant_id for g in customer.grants] == [answer.grant_id]


@pytest.mark.parametrize("http", HTTP_VERSIONS)
@pytest.mark.parametrize("codec", ["proto", "json"])
def test_errors_carry_connect_codes(env, protos, codec, http):
    request = protos.message("entitlements.v1.SyncStatusRequest")(app_user_id=unique_id("nobody"))
    with connect_client(env, codec, http) as client:
        with pytest.raises(ConnectError) as unknown:
            client.execute_unary(request=request, method=sync_method(protos), headers=auth(env.app.key))
        assert unknown.value.code.name == "NOT_FOUND", unknown.value
        assert "call Identify first" in unknown.value.message
        with pytest.raises(ConnectError) as unauthenticated:
            client.execute_unary(request=request, method=sync_method(protos), headers=auth("pk_nope"))
        assert unauthenticated.value.code.name == "UNAUTHENTICATED"


# --------------------------------------------------------------------------------------------------
# Unary, on the wire: what curl or a browser's fetch sees


def post(env, name: str, body: bytes, content_type: str = "application/json", headers=None, service=SERVICE):
    return requests.post(
        f"{env.url}/{service}/{name}", data=body,
        headers={"content-type": content_type, **auth(env.app.key), **(headers or {})}, timeout=RPC_TIMEOUT)


def test_json_unary_is_protobuf_json_with_a_200(env):
    user = granted_user(env)
    response = post(env, "SyncStatus", json.dumps({"app_user_id": user}).encode(), headers={"x-request-id": "rq-connect-1"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-request-id"] == "rq-connect-1"
    body = response.json()
    # lowerCamelCase names, 64-bit integers as strings, timestamps in RFC 3339.
    customer = body["customer"]
    assert customer["appUserId"] == user
    assert isinstance(customer["version"], str) and int(customer["version"]) >= 1
    assert customer["serverTime"].endswith("Z")
    assert [item["id"] for item in customer["status"]["entitlements"]] == ["pro"]


@pytest.mark.parametrize(
    "body, code, status",
    [
        (b"{not json", "invalid_argument", 400),
        (json.dumps({"app_user_id": 5}).encode(), "invalid_argument", 400),
        (json.dumps({"app_user_id": ""}).encode(), "invalid_argument", 400),
    ],
)
def test_bad_json_is_an_invalid_argument_body(env, body, code, status):
    response = post(env, "SyncStatus", body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()
    assert error["code"] == code and error["message"]


def test_unknown_json_fields_are_ignored(env):
    user = granted_user(env)
    response = post(env, "SyncStatus", json.dumps({"appUserId": user, "fieldFromTheFuture": 1}).encode())
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "headers, status, code",
    [
        ({"authorization": "Bearer pk_wrong"}, 401, "unauthenticated"),
        ({"connect-protocol-version": "2"}, 400, "invalid_argument"),
        ({"connect-timeout-ms": "12345678901"}, 400, "invalid_argument"),
        ({"content-encoding": "br"}, 501, "unimplemented"),
    ],
)
def test_protocol_errors(env, headers, status, code):
    response = post(env, "SyncStatus", b"{}", headers=headers)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code


def test_a_gzip_body_is_read(env):
    user = granted_user(env)
    body = gzip.compress(json.dumps({"appUserId": user}).encode())
    response = post(env, "SyncStatus", body, headers={"content-encoding": "gzip"})
    assert response.status_code == 200, response.text
    assert response.json()["customer"]["appUserId"] == user


def test_unknown_methods_are_404_and_streams_415(env):
    assert post(env, "NoSuchMethod", b"{}").status_code == 404
    response = post(env, "StreamStatus", b"{}")
    assert response.status_code == 415, response.text


def test_get_only_for_methods_without_side_effects(env, protos):
    user = granted_user(env)
    query = urllib.parse.urlencode({"encoding": "json", "message": json.dumps({"appUserId": user}), "connect": "v1"})
    response = requests.get(f"{env.url}/{SERVICE}/SyncStatus?{query}", headers=auth(env.app.key), timeout=RPC_TIMEOUT)
    assert response.status_code == 200, response.text
    assert response.json()["customer"]["appUserId"] == user
    binary = protos.message("entitlements.v1.SyncStatusRequest")(app_user_id=user).SerializeToString()
    query = urllib.parse.urlencode(
        {"encoding": "proto", "base64": "1", "message": base64.urlsafe_b64encode(binary).rstrip(b"=").decode()})
    response = requests.get(f"{env.url}/{SERVICE}/SyncStatus?{query}", headers=auth(env.app.key), timeout=RPC_TIMEOUT)
    assert response.status_code == 200 and response.headers["content-type"] == "application/proto"
    answer = protos.message("entitlements.v1.SyncStatusResponse")()
    answer.ParseFromString(response.content)
    assert answer.customer.app_user_id == user
    # Identify writes: no GET.
    response = requests.get(
        f"{env.url}/{SERVICE}/Identify?encoding=json&message=%7B%7D", headers=auth(env.app.key), timeout=RPC_TIMEOUT)
    assert response.status_code == 405 and response.headers["allow"] == "POST"


def test_curl_calls_json_unary_over_both_http_versions(env):
    user = granted_user(env)
    for version in ["--http1.1", "--http2-prior-knowledge"]:
        result = subprocess.run(
            ["curl", "-sS", version, "-H", "content-type: application/json", "-H", f"authorization: Bearer {env.app.key}",
             "-d", json.dumps({"appUserId": user}), f"{env.url}/{SERVICE}/SyncStatus"],
            capture_output=True, text=True, timeout=RPC_TIMEOUT, check=True)
        assert json.loads(result.stdout)["customer"]["appUserId"] == user


def test_cors_for_allowed_origins(env):
    user = granted_user(env)
    response = post(env, "SyncStatus", json.dumps({"appUserId": user}).encode(), headers={"origin": ALLOWED_ORIGIN})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    preflight = requests.options(
        f"{env.url}/{SERVICE}/SyncStatus", timeout=RPC_TIMEOUT,
        headers={"origin": ALLOWED_ORIGIN, "access-control-request-method": "POST",
                 "access-control-request-headers": "content-type,connect-protocol-version,connect-timeout-ms"})
    assert preflight.status_code == 204
    allowed = preflight.headers["access-control-allow-headers"]
    for header in ["content-type", "connect-protocol-version", "connect-timeout-ms", "authorization"]:
        assert header in allowed


# --------------------------------------------------------------------------------------------------
# Server streaming


def stream_method(protos) -> MethodInfo:
    return method(protos, SERVICE, "StreamStatus", "StreamStatusRequest", "StatusEvent", stream=True)


@pytest.mark.parametrize("http", HTTP_VERSIONS)
@pytest.mark.parametrize("codec", ["proto", "json"])
def test_stream_status_pushes_changes(env, protos, codec, http):
    user = unique_id("connect-stream")
    env.app.identify(user)
    request = protos.message("entitlements.v1.StreamStatusRequest")(app_user_id=user)
    events = []
    with connect_client(env, codec, http) as client:
        stream = client.execute_server_stream(request=request, method=stream_method(protos), headers=auth(env.app.key))
        first = next(stream)
        events.append(first)
        granted = threading.Event()

        def grant():
            env.admin.grant(user, "pro", duration=600)
            granted.set()

        threading.Thread(target=grant).start()
        for event in stream:
            events.append(event)
            if any(item.id == "pro" for item in event.customer.status.entitlements):
                break
        stream.close()
    assert granted.wait(RPC_TIMEOUT)
    assert events[0].customer.app_user_id == user and not events[0].customer.status.entitlements
    assert [item.id for item in events[-1].customer.status.entitlements] == ["pro"]


@pytest.mark.parametrize("codec", ["proto", "json"])
def test_a_stream_error_arrives_in_the_end_of_stream_message(env, codec):
    request = json.dumps({"appUserId": unique_id("nobody")}).encode()
    if codec == "proto":
        request = b"\x0a" + bytes([len(json.loads(request)["appUserId"])]) + json.loads(request)["appUserId"].encode()
    envelope = b"\x00" + len(request).to_bytes(4, "big") + request
    response = post(env, "StreamStatus", envelope, content_type=f"application/connect+{codec}")
    assert response.status_code == 200
    assert response.headers["content-type"] == f"application/connect+{codec}"
    body = response.content
    assert body[0] == 0x02, body
    length = int.from_bytes(body[1:5], "big")
    assert len(body) == 5 + length
    end = json.loads(body[5:])
    assert end["error"]["code"] == "not_found"


def test_a_stream_deadline_ends_it_with_deadline_exceeded(env, protos):
    user = unique_id("connect-deadline")
    env.app.identify(user)
    request = protos.message("entitlements.v1.StreamStatusRequest")(app_user_id=user)
    with connect_client(env, "proto", "http2") as client:
        stream = client.execute_server_stream(
            request=request, method=stream_method(protos), headers=auth(env.app.key), timeout_ms=1500)
        with pytest.raises(ConnectError) as error:
            for _ in stream:
                pass
    assert error.value.code.name == "DEADLINE_EXCEEDED"


# --------------------------------------------------------------------------------------------------
# Metrics


def test_connect_calls_are_counted_with_their_protocol(env):
    user = granted_user(env)

    def count() -> float:
        text = requests.get(f"{env.url}/metrics", timeout=RPC_TIMEOUT).text
        for line in text.splitlines():
            if (line.startswith("grpc_server_handled_total{") and 'grpc_method="SyncStatus"' in line
                    and 'protocol="connect"' in line and 'grpc_code="OK"' in line):
                return float(line.rsplit(" ", 1)[1])
        pytest.fail("no connect series for SyncStatus")

    before = count()
    assert post(env, "SyncStatus", json.dumps({"appUserId": user}).encode()).status_code == 200
    assert count() == before + 1


# --------------------------------------------------------------------------------------------------
# The interop server's test service: handlers that sleep and report whether they were cancelled


INTEROP = "/entitlementd.testing.InteropTestService/"


def connect_headers(connection, path: str, content_type: str, extra=()) -> list[tuple[str, str]]:
    return [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", connection.authority),
            ("content-type", content_type), *extra]


@pytest.mark.parametrize("leave", ["http1 close", "http2 reset", "http2 close"])
def test_a_unary_handler_is_cancelled_when_its_client_leaves(h2c_server, raw_h2, stubs, pb, leave):
    """A client that goes away frees its handler (else each reset call would run on, past every limit)."""
    probe = cancellation_probe(h2c_server, stubs)
    token = unique_id("leave")
    body = pb.SleepRequest(milliseconds=8000, cancellation_token=token).SerializeToString()
    if leave == "http1 close":
        with socket.create_connection((h2c_server.host, h2c_server.port)) as sock:
            sock.sendall(f"POST {INTEROP}Sleep HTTP/1.1\r\nhost: x\r\ncontent-type: application/proto\r\n"
                         f"content-length: {len(body)}\r\n\r\n".encode() + body)
            assert not probe.wait_started(token).cancelled
    else:
        connection = raw_h2()
        stream_id = connection.start(connect_headers(connection, INTEROP + "Sleep", "application/proto"))
        connection.send(stream_id, body, end_stream=True)
        assert not probe.wait_started(token).cancelled
        if leave == "http2 reset":
            connection.conn.reset_stream(stream_id)
            connection._flush()
        else:
            connection.close()
    deadline = time.monotonic() + 5
    while not probe.report(token).cancelled:
        assert time.monotonic() < deadline, "the handler was not cancelled"
        time.sleep(0.05)


def test_graceful_shutdown_answers_a_running_unary_call_unavailable(tmp_path, stubs, pb):
    server = start_server(tmp_path, write_empty_tenants(tmp_path), {"server": {"shutdown_grace_period_seconds": 1}})
    token = unique_id("shutdown")
    body = pb.SleepRequest(milliseconds=20000, cancellation_token=token).SerializeToString()
    results = {}

    def call():
        results["response"] = requests.post(
            f"http://{server.target}{INTEROP}Sleep", data=body, headers={"content-type": "application/proto"},
            timeout=RPC_TIMEOUT)

    caller = threading.Thread(target=call)
    caller.start()
    cancellation_probe(server, stubs).wait_started(token)
    assert server.terminate() == 0
    caller.join(RPC_TIMEOUT)
    response = results["response"]
    assert response.status_code == 503 and response.json()["code"] == "unavailable", response.text


def test_an_empty_compressed_body_is_not_decompressed(h2c_server):
    response = requests.post(f"http://{h2c_server.target}/grpc.testing.TestService/EmptyCall", data=b"",
                             headers={"content-type": "application/proto", "content-encoding": "gzip"}, timeout=RPC_TIMEOUT)
    assert response.status_code == 200 and response.content == b"", response.text


@pytest.mark.parametrize("method, path, content_type, query", [
    ("GET", "/entitlements.v1.EntitlementService/SyncStatus", None, "encoding=xml&message=x"),
    # The interop server's methods are not in the schema the server reads JSON with.
    ("POST", "/grpc.testing.TestService/UnaryCall", "application/json", ""),
    ("POST", "/grpc.testing.TestService/StreamingOutputCall", "application/connect+json", ""),
    # A unary method in a streaming content type.
    ("POST", "/grpc.testing.TestService/UnaryCall", "application/connect+proto", ""),
])
def test_codecs_the_method_cannot_take_are_415(h2c_server, method, path, content_type, query):
    url = f"http://{h2c_server.target}{path}" + (f"?{query}" if query else "")
    headers = {"content-type": content_type} if content_type else {}
    response = requests.request(method, url, data=b"\x00\x00\x00\x00\x00" if method == "POST" else None,
                                headers=headers, timeout=RPC_TIMEOUT)
    assert response.status_code == 415, (response.status_code, response.text)


def test_a_body_over_the_message_limit_is_resource_exhausted_over_http2(h2c_server, raw_h2):
    import h2.exceptions

    connection = raw_h2()
    stream_id = connection.start(connect_headers(connection, "/grpc.testing.TestService/UnaryCall", "application/proto"))
    body = b"\x0a" + b"\xff" * 5 * 1024 * 1024
    response = connection.responses[stream_id]
    offset = 0
    # Sent as the window allows, until the server answers (and closes the stream) before the end of the body.
    while offset < len(body) and not response.ended:
        try:
            if connection.conn.local_flow_control_window(stream_id) < 16384:
                connection._receive_once()
                continue
            connection.conn.send_data(stream_id, body[offset:offset + 16384])
            connection._flush()
        except h2.exceptions.StreamClosedError:
            break
        offset += 16384
    response = connection.wait(stream_id)
    headers = dict(response.headers)
    assert headers[b":status"] == b"429", response
    assert json.loads(response.data)["code"] == "resource_exhausted"
    assert headers[b"content-type"] == b"application/json" and b"x-request-id" in headers


def test_a_deadline_spent_on_the_way_in_runs_no_handler(h2c_server, stubs, pb):
    probe = cancellation_probe(h2c_server, stubs)
    token = unique_id("spent")
    response = requests.post(
        f"http://{h2c_server.target}{INTEROP}Sleep",
        data=pb.SleepRequest(milliseconds=10, cancellation_token=token).SerializeToString(),
        headers={"content-type": "application/proto", "connect-timeout-ms": "0"}, timeout=RPC_TIMEOUT)
    assert response.status_code == 504 and response.json()["code"] == "deadline_exceeded", response.text
    time.sleep(0.2)
    assert probe.report(token) is None, "the handler ran"
