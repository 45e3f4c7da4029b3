"""Structured logs through the real server with `log_format = "json"`: every line is one JSON object with the stable
fields; a `Purchase` sent with `x-request-id` gets it back in its response headers, and the request ID is on every
line the call causes (the rpc line, the status change it pushed, the webhook attempt it queued, which runs later on
another task); a call without one gets a new ID back; plain HTTP requests echo theirs too; a refused call says why;
and no line holds an API key, a webhook secret or the signed transaction."""

from __future__ import annotations

import json
import time
import urllib.request

import grpc
import pytest

from appstore_support import MONTHLY, PRODUCTS, SigningCA, app_store_settings
from conftest import RawH2Connection, frame
from entitlement_support import SNAPSHOT, STATUS_CHANGED, Clients, new_tenant, unique_id, write_tenants
from appstore_support import StoreApi
from webhook_receiver import Receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
PACKAGE = "entitlements.v1"
PURCHASE = f"/{PACKAGE}.EntitlementService/Purchase"
STREAM = f"/{PACKAGE}.EntitlementService/StreamStatus"


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("logs-ca") / "ca")


@pytest.fixture(scope="module")
def receiver():
    made = Receiver(secrets=[SECRET])
    yield made
    made.close()


@pytest.fixture(scope="module")
def tenant(ca, receiver):
    return new_tenant("logs-a", products=dict(PRODUCTS), app_store=app_store_settings(ca.root, "transfer"),
                      webhooks=[{"id": "backend", "url": receiver.url, "secrets": [SECRET]}])


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenant):
    tenants_file = tmp_path_factory.mktemp("logs-tenants") / "tenants.json"
    write_tenants(tenants_file, [tenant])
    return tenants_server(tenants_file, {"server": {"log_format": "json", "log_level": "debug"}})


@pytest.fixture
def clients(server, protos):
    made = Clients(server, protos)
    made.api_class = StoreApi
    made.channel()
    yield made
    made.close()


def log_lines(server) -> list[dict]:
    """Every line of the server's standard error, each of which must be one JSON object."""
    lines = []
    for line in server.log().splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        assert isinstance(record, dict), line
        lines.append(record)
    return lines


def lines_with(server, request_id: str, *, until, timeout: float = 15.0) -> list[dict]:
    """The lines carrying `request_id`, once `until(lines)` holds (the logger flushes every 50 ms)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in log_lines(server) if line.get("request_id") == request_id]
        if until(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def purchase(clients, tenant, user: str, token: str, metadata=()):
    api = clients.api(tenant.public_key)
    request = api.purchase_request(user, token)
    callable_ = api.channel.unary_unary(
        PURCHASE, request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=clients.protos.message(f"{PACKAGE}.PurchaseResponse").FromString)
    return callable_.with_call(
        request, timeout=30, metadata=[("authorization", f"Bearer {tenant.public_key}"), *metadata])


def test_lines_are_json_with_the_stable_fields(clients, server, tenant):
    clients.api(tenant.public_key).identify(unique_id())
    # The logger flushes every 50 ms, so the call's line may still be on its way.
    deadline = time.monotonic() + 15
    lines = log_lines(server)
    while not any(line["msg"] == "rpc" for line in lines) and time.monotonic() < deadline:
        time.sleep(0.05)
        lines = log_lines(server)
    assert lines, "the server logged nothing"
    assert any(line["msg"] == "rpc" for line in lines), "no rpc line for the Identify call"
    for line in lines:
        assert {"time", "level", "logger", "msg"} <= line.keys(), line
        assert line["level"] in {"debug", "info", "warn", "error"}, line
        assert line["time"].endswith("Z") and "T" in line["time"], line
        assert all(isinstance(value, str) for value in line.values()), line
    loaded = [line for line in lines if line["msg"] == "loaded"]
    assert loaded and loaded[0]["tenants"] == "1"


def test_a_purchase_carries_its_request_id_to_the_push_and_the_webhook(clients, server, tenant, ca, receiver):
    user = unique_id()
    api = clients.api(tenant.public_key)
    api.identify(user)
    stream = clients.api(tenant.public_key, clients.channel()).stream(user)
    assert stream.next().kind == SNAPSHOT
    delivered = len(receiver.deliveries)
    token = ca.sign(MONTHLY, "--signed-date", "-1m")
    request_id = f"checkout-{unique_id()[:20]}"
    response, call = purchase(clients, tenant, user, token, [("x-request-id", request_id)])
    assert response.customer.status.entitlements
    assert dict(call.initial_metadata()).get("x-request-id") == request_id
    assert stream.next().kind == STATUS_CHANGED

    def complete(lines):
        messages = {line["msg"] for line in lines}
        return {"rpc", "change", "webhook attempt"} <= messages

    lines = lines_with(server, request_id, until=complete)
    messages = [line["msg"] for line in lines]
    assert complete(lines), messages
    rpc = next(line for line in lines if line["msg"] == "rpc")
    assert rpc["method"] == PURCHASE and rpc["code"] == "OK" and rpc["tenant"] == tenant.id
    assert any(line["msg"] == "rpc started" and line["level"] == "debug" for line in lines), messages
    attempt = next(line for line in lines if line["msg"] == "webhook attempt")
    assert attempt["delivered"] == "yes" and attempt["tenant"] == tenant.id
    assert len(receiver.deliveries) > delivered
    # Nothing else carries it: the stream's own call has an ID of its own.
    stream_lines = [line for line in log_lines(server) if line.get("method", "").endswith("/StreamStatus")]
    assert all(line.get("request_id") != request_id for line in stream_lines)

    log = server.log()
    for secret in [tenant.public_key, tenant.secret_key, SECRET, token, token.split(".")[1]]:
        assert secret not in log, "a key, secret or signed payload reached the log"


def test_a_stream_its_deadline_ended_is_logged_as_the_client_saw_it(clients, server, tenant):
    """The transport ends a call whose deadline passes with DEADLINE_EXCEEDED and cancels its handler: the log says
    DEADLINE_EXCEEDED too, not CANCELLED (the handler's view)."""
    user = unique_id()
    api = clients.api(tenant.public_key)
    api.identify(user)
    request_id = f"deadline-{unique_id()[:20]}"
    # A raw client: it never cancels at the deadline itself (grpcio would race the server's timer with a reset).
    request = api.message("StreamStatusRequest", app_user_id=user).SerializeToString()
    with RawH2Connection(server.host, server.port) as connection:
        response = connection.request(
            connection.grpc_headers(STREAM, extra=[("authorization", f"Bearer {tenant.public_key}"),
                                                   ("x-request-id", request_id), ("grpc-timeout", "1S")]),
            frame(request))
    assert response.grpc_status == grpc.StatusCode.DEADLINE_EXCEEDED.value[0] and len(response.messages()) == 1
    lines = lines_with(server, request_id, until=lambda lines: any(line["msg"] == "rpc" for line in lines))
    rpc = next(line for line in lines if line["msg"] == "rpc")
    assert (rpc["method"], rpc["code"]) == (STREAM, "DEADLINE_EXCEEDED"), rpc


def test_a_call_without_an_id_gets_a_new_one_and_unsafe_ids_are_replaced(clients, server, tenant, ca):
    user = unique_id()
    clients.api(tenant.public_key).identify(user)
    _, call = purchase(clients, tenant, user, ca.sign(MONTHLY))
    generated = dict(call.initial_metadata()).get("x-request-id")
    assert generated and len(generated) == 15
    _, forged = purchase(clients, tenant, user, ca.sign(MONTHLY), [("x-request-id", 'x" level=error')])
    replaced = dict(forged.initial_metadata()).get("x-request-id")
    assert replaced and replaced != 'x" level=error' and len(replaced) == 15
    lines = lines_with(server, generated, until=lambda lines: any(line["msg"] == "rpc" for line in lines))
    assert any(line["msg"] == "rpc" for line in lines)


def test_a_sync_status_served_on_the_event_loop_carries_its_request_id(clients, server, tenant):
    """SyncStatus and Health/Check run synchronously on a connection's thread, the ID bound to the thread, not a task."""
    user = unique_id()
    api = clients.api(tenant.public_key)
    api.identify(user)
    request_id = "sync-" + unique_id()[:20]
    callable_ = api.channel.unary_unary(
        f"/{PACKAGE}.EntitlementService/SyncStatus", request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=clients.protos.message(f"{PACKAGE}.SyncStatusResponse").FromString)
    _, call = callable_.with_call(
        api.request("SyncStatus", app_user_id=user), timeout=30,
        metadata=[("authorization", f"Bearer {tenant.public_key}"), ("x-request-id", request_id)])
    assert dict(call.initial_metadata()).get("x-request-id") == request_id
    lines = lines_with(server, request_id, until=lambda lines: any(line["msg"] == "rpc" for line in lines))
    rpc = [line for line in lines if line["msg"] == "rpc"]
    assert len(rpc) == 1 and rpc[0]["method"].endswith("/SyncStatus") and rpc[0]["user"] == user, lines
    # The next call on the same connection, without an ID, gets its own: nothing of the first stays bound.
    _, next_call = callable_.with_call(
        api.request("SyncStatus", app_user_id=user), timeout=30,
        metadata=[("authorization", f"Bearer {tenant.public_key}")])
    generated = dict(next_call.initial_metadata()).get("x-request-id")
    assert generated and generated != request_id
    assert lines_with(server, generated, until=lambda lines: any(line["msg"] == "rpc" for line in lines))


def test_refused_calls_say_why_without_the_key(clients, server, tenant):
    wrong = "pk_" + "0" * 64
    api = clients.api(wrong)
    with pytest.raises(grpc.RpcError) as refused:
        api.sync(unique_id())
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # A public key where a secret key is needed.
    admin = clients.api(tenant.public_key)
    with pytest.raises(grpc.RpcError) as denied:
        admin.customer(unique_id())
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    deadline = time.monotonic() + 10
    while True:
        failed = [line for line in log_lines(server) if line["msg"] == "rpc" and line["code"] in
                  {"UNAUTHENTICATED", "PERMISSION_DENIED"}]
        if len(failed) >= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    codes = {line["code"]: line for line in failed}
    assert "UNAUTHENTICATED" in codes and "PERMISSION_DENIED" in codes, failed
    for line in codes.values():
        assert line["error"], line
    assert wrong not in server.log() and tenant.public_key not in server.log()


def test_plain_http_requests_echo_their_request_id(server):
    host_port = server.target
    request = urllib.request.Request(f"http://{host_port}/healthz", headers={"x-request-id": "probe-7"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.headers["x-request-id"] == "probe-7"
    with urllib.request.urlopen(f"http://{host_port}/readyz", timeout=10) as response:
        assert len(response.headers["x-request-id"]) == 15
