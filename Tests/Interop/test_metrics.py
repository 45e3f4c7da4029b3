"""`GET /metrics` through the real server: after a known sequence of calls (unary calls that succeed and fail,
status streams opened, resumed and closed, App Store notifications accepted and rejected, a webhook delivered and one
failed, a Google Play call retried) every counter moved by exactly what the calls did; the output passes Debian's
`promtool check metrics`; `[metrics] listen` moves the endpoint to a port of its own.

Counters are compared between two scrapes around each step, so what the fixtures did before does not matter.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request

import grpc
import pytest

from appstore_support import PRODUCTS as APP_STORE_PRODUCTS, SigningCA, app_store_settings
from conftest import free_port, start_server, stop_and_check
from entitlement_support import SNAPSHOT, STATUS_CHANGED, new_tenant, unique_id, write_tenants
from fake_google import FakeGoogle, new_purchase_token
from play_support import APP, PRODUCTS as PLAY_PRODUCTS, SERVER_SETTINGS, SUB, PlayEnv, api_path, play_settings
from test_notifications import body_of, notification, post_body
from webhook_receiver import Receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SERVICE = "entitlements.v1.EntitlementService"
ADMIN = "entitlements.v1.AdminService"
APPLE_ROUTE = "/v1/apple/notifications/{tenant_id}"

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(server, port: int | None = None) -> str:
    host, default_port = server.target.rsplit(":", 1)
    with urllib.request.urlopen(f"http://{host}:{port or default_port}/metrics", timeout=10) as response:
        assert response.status == 200
        assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
        return response.read().decode()


class Samples:
    """One scrape's samples: `samples["name", {"label": "value"}]`, 0 for a series that is not there."""

    def __init__(self, text: str):
        self.values: dict[tuple[str, frozenset], float] = {}
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            match = _SAMPLE.match(line)
            assert match, f"not a sample line: {line!r}"
            labels = frozenset(_LABEL.findall(match.group(2) or ""))
            self.values[(match.group(1), labels)] = float(match.group(3))

    def __getitem__(self, key) -> float:
        name, labels = key if isinstance(key, tuple) else (key, {})
        return self.values.get((name, frozenset(labels.items())), 0.0)

    def has(self, name: str, labels: dict) -> bool:
        return (name, frozenset(labels.items())) in self.values


def grpc_labels(service: str, method: str, kind: str = "unary", protocol: str = "grpc") -> dict:
    return {"grpc_service": service, "grpc_method": method, "grpc_type": kind, "protocol": protocol}


def handled(service: str, method: str, code: str, kind: str = "unary", protocol: str = "grpc") -> tuple[str, dict]:
    return "grpc_server_handled_total", {"grpc_code": code, **grpc_labels(service, method, kind, protocol)}


class Delta:
    """Scrapes before and after a step; `delta[key]` is how much the series moved."""

    def __init__(self, server):
        self.server = server
        self.before = Samples(scrape(server))
        self.after = self.before

    def rescrape(self) -> "Delta":
        self.after = Samples(scrape(self.server))
        return self

    def __getitem__(self, key) -> float:
        return self.after[key] - self.before[key]


def wait_for(predicate, what: str, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("metrics-ca") / "ca")


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def receivers():
    made = {"ok": Receiver(secrets=[SECRET]), "down": Receiver(secrets=[SECRET], default_status=500)}
    yield made
    for receiver in made.values():
        receiver.close()


@pytest.fixture(scope="module")
def tenants(ca, fake, receivers, tmp_path_factory):
    key = fake.write_service_account(tmp_path_factory.mktemp("metrics-play") / "service-account.json")
    a = new_tenant("metrics-a", entitlements=["pro", "premium"], products={**APP_STORE_PRODUCTS, **PLAY_PRODUCTS},
                   app_store=app_store_settings(ca.root, "transfer"),
                   webhooks=[{"id": "ok", "url": receivers["ok"].url, "secrets": [SECRET]}])
    a.play_store = play_settings(fake, key, "metrics-a")
    down = new_tenant("metrics-down", webhooks=[{"id": "down", "url": receivers["down"].url, "secrets": [SECRET]}])
    return {"a": a, "down": down}


@pytest.fixture(scope="module")
def metrics_server(tenants_server, tmp_path_factory, tenants):
    tenants_file = tmp_path_factory.mktemp("metrics-tenants") / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    # A failed delivery waits an hour for its retry, so each one is attempted exactly once during the test.
    return tenants_server(tenants_file, {**SERVER_SETTINGS, "webhooks": {"retry_delays": "1h"}})


@pytest.fixture
def env(metrics_server, fake, tenants, protos):
    environment = PlayEnv(metrics_server, fake, tenants, protos)
    yield environment
    fake.clear_faults()
    environment.close()


# --------------------------------------------------------------------------------------------------
# gRPC server metrics


def test_every_method_and_code_series_exists_from_the_start(env):
    samples = Samples(scrape(env.server))
    for code in ["OK", "Canceled", "InvalidArgument", "NotFound", "Unauthenticated", "Unavailable", "Unknown"]:
        assert samples.has(*handled(SERVICE, "SyncStatus", code)), code
        assert samples.has(*handled(ADMIN, "GrantEntitlement", code)), code
    assert samples.has(*handled(SERVICE, "StreamStatus", "OK", "server_stream"))
    assert samples.has("grpc_server_handling_seconds_count", grpc_labels(SERVICE, "SyncStatus"))
    # Streams live for hours: no handling-time histogram for them, as in the grpc-ecosystem middleware.
    assert not samples.has("grpc_server_handling_seconds_count", grpc_labels(SERVICE, "StreamStatus", "server_stream"))


def test_unary_calls_count_by_method_and_code(env):
    delta = Delta(env.server)
    users = [unique_id(), unique_id()]
    for user in users:
        env.a.identify(user)
    for _ in range(3):
        env.a.sync(users[0])
    unauthenticated = env.a.with_key(None)
    with pytest.raises(grpc.RpcError) as refused:
        unauthenticated.sync(users[0])
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as invalid:
        env.a.sync("")
    assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    delta.rescrape()

    identify = grpc_labels(SERVICE, "Identify")
    sync = grpc_labels(SERVICE, "SyncStatus")
    assert delta["grpc_server_started_total", identify] == 2
    assert delta[handled(SERVICE, "Identify", "OK")] == 2
    assert delta["grpc_server_started_total", sync] == 5
    assert delta[handled(SERVICE, "SyncStatus", "OK")] == 3
    assert delta[handled(SERVICE, "SyncStatus", "Unauthenticated")] == 1
    assert delta[handled(SERVICE, "SyncStatus", "InvalidArgument")] == 1
    assert delta[handled(SERVICE, "SyncStatus", "NotFound")] == 0
    assert delta["grpc_server_msg_received_total", sync] == 5
    # The middleware counts a unary call's response whatever its outcome once the handler ran.
    assert delta["grpc_server_msg_sent_total", sync] == 5
    assert delta["grpc_server_handling_seconds_count", sync] == 5
    assert delta["grpc_server_handling_seconds_bucket", {**sync, "le": "+Inf"}] == 5
    assert delta["grpc_server_handling_seconds_sum", sync] > 0
    # Two customers created: two status changes caused by creation, neither changing entitlements.
    assert delta["entitlementd_status_changes_total", {"cause": "created", "change": "customer_info_changed"}] == 2


def test_streams_opened_resumed_and_closed(env):
    user = unique_id()
    env.a.identify(user)
    stream_labels = grpc_labels(SERVICE, "StreamStatus", "server_stream")
    delta = Delta(env.server)
    stream = env.a.stream(user)
    assert stream.next().kind == SNAPSHOT
    assert delta.rescrape()["entitlementd_open_streams", stream_labels] == 1
    grant = env.a_admin.grant(user, "pro", duration=3600)
    assert stream.next().kind == STATUS_CHANGED
    version = env.a.sync(user).version
    # Resumed from the log (one version back), and with a snapshot (a version this customer never had).
    resumed = env.a.stream(user, after_version=version - 1)
    assert resumed.next().kind == STATUS_CHANGED
    fallback = env.a.stream(user, after_version=version + 1000)
    assert fallback.next().kind == SNAPSHOT
    for call in (stream, resumed, fallback):
        call.cancel()
    wait_for(lambda: delta.rescrape()["entitlementd_open_streams", stream_labels] == 0, "the streams to close")

    assert delta["grpc_server_started_total", stream_labels] == 3
    assert delta[handled(SERVICE, "StreamStatus", "Canceled", "server_stream")] == 3
    # Snapshot + change on the first, one replayed change, one snapshot.
    assert delta["grpc_server_msg_sent_total", stream_labels] == 4
    assert delta["entitlementd_stream_starts_total", {"kind": "new"}] == 1
    assert delta["entitlementd_stream_starts_total", {"kind": "resumed_from_log"}] == 1
    assert delta["entitlementd_stream_starts_total", {"kind": "resumed_with_snapshot"}] == 1
    assert delta["entitlementd_stream_messages_total", {"kind": "snapshot"}] == 2
    assert delta["entitlementd_stream_messages_total", {"kind": "replayed"}] == 1
    assert delta["entitlementd_stream_messages_total", {"kind": "live"}] == 1
    # The grant's push is in the latency histogram, well under its top bucket.
    assert delta["entitlementd_push_latency_seconds_count"] == 1
    assert delta["entitlementd_push_latency_seconds_bucket", {"le": "10"}] == 1
    assert delta["entitlementd_status_changes_total", {"cause": "grant", "change": "status_changed"}] == 1
    assert delta[handled(ADMIN, "GrantEntitlement", "OK")] == 1
    assert grant.grant_id


# --------------------------------------------------------------------------------------------------
# Store notifications, webhooks, Google


def test_notifications_by_outcome_with_their_lag(env, ca):
    delta = Delta(env.server)
    token = notification(ca, "TEST")
    tenant_id = env.tenants["a"].id
    assert post_body(env.server, tenant_id, body_of(token))[0] == 200
    assert post_body(env.server, tenant_id, body_of(token))[0] == 200
    assert post_body(env.server, tenant_id, b'{"signedPayload": "not.a.jws"}')[0] == 400
    assert post_body(env.server, tenant_id, b"[1, 2")[0] == 400
    assert post_body(env.server, "no-such-tenant", body_of(token))[0] == 404
    delta.rescrape()

    def outcome(name: str) -> float:
        return delta["entitlementd_store_notifications_total", {"store": "app_store", "outcome": name}]

    assert (outcome("recorded"), outcome("duplicate"), outcome("invalid"), outcome("unknown_tenant")) == (1, 1, 2, 1)
    assert outcome("applied") == 0
    assert delta["entitlementd_store_notifications_total", {"store": "play_store", "outcome": "invalid"}] == 0
    # Only the recorded one has a lag (signed just now: under a minute).
    lag = {"store": "app_store"}
    assert delta["entitlementd_store_notification_lag_seconds_count", lag] == 1
    assert delta["entitlementd_store_notification_lag_seconds_bucket", {**lag, "le": "60"}] == 1
    requests = "entitlementd_http_requests_total"
    assert delta[requests, {"route": APPLE_ROUTE, "code": "200"}] == 2
    assert delta[requests, {"route": APPLE_ROUTE, "code": "400"}] == 2
    assert delta[requests, {"route": APPLE_ROUTE, "code": "404"}] == 1


def test_webhook_deliveries_by_outcome_and_the_outbox_backlog(env, receivers):
    delta = Delta(env.server)
    delivered_before = len(receivers["ok"].deliveries)
    failed_before = len(receivers["down"].deliveries)
    env.a_admin.grant(unique_id(), "pro", duration=3600)
    env.down_admin.grant(unique_id(), "pro", duration=3600)
    # Each grant to a new customer is two events (created, then the grant): two deliveries per endpoint. The failing
    # endpoint is tried once: the first delivery waits an hour for its retry, the second waits behind it (a
    # customer's events arrive in order).
    wait_for(lambda: len(receivers["ok"].deliveries) - delivered_before == 2, "two deliveries")
    wait_for(lambda: len(receivers["down"].deliveries) - failed_before == 1, "a failed attempt")
    attempts = "entitlementd_outbound_attempts_total"
    # The receivers record a request before they answer it; the server counts it once it has the answer.
    # Both of the failing endpoint's deliveries wait in the outbox; a delivery is counted as attempted when its answer
    # arrives, and leaves the outbox when that is recorded, a write later (seen on PostgreSQL under load).
    wait_for(lambda: delta.rescrape()[attempts, {"target": "webhook", "outcome": "2xx"}] == 2
             and delta[attempts, {"target": "webhook", "outcome": "5xx"}] == 1
             and delta["entitlementd_webhook_outbox_pending"] == 2, "the attempts counted and the outbox settled")
    assert delta["entitlementd_outbound_retries_total", {"target": "webhook"}] == 0
    assert delta.after["entitlementd_webhook_outbox_oldest_pending_seconds"] >= 0
    assert delta.after["entitlementd_storage_scrape_ok"] == 1


def test_a_google_call_retried_counts_each_attempt(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB)
    env.fake.fail_next("GET", api_path(token), 500, count=2)
    delta = Delta(env.server)
    env.a.play_purchase(user, SUB, token)
    delta.rescrape()
    play = "google_play_api"
    assert delta["entitlementd_outbound_attempts_total", {"target": play, "outcome": "5xx"}] == 2
    assert delta["entitlementd_outbound_attempts_total", {"target": play, "outcome": "2xx"}] >= 1
    assert delta["entitlementd_outbound_retries_total", {"target": play}] == 2
    assert delta["entitlementd_outbound_unreadable_answers_total", {"target": play}] == 0
    assert delta.after["entitlementd_active_subscribers", {"tenant": env.tenants["a"].id, "entitlement": "pro"}] >= 1


# --------------------------------------------------------------------------------------------------
# The format, and where it is served


def test_each_event_loop_times_a_timer_every_second(env):
    def ticks() -> float:
        return Samples(scrape(env.server))["entitlementd_event_loop_lag_seconds_count"]
    first = ticks()
    wait_for(lambda: ticks() >= first + 2, "two more event-loop lag observations", timeout=30)
    samples = Samples(scrape(env.server))
    # Every observation is in the +Inf bucket, and an idle loop is never a whole second late.
    count = samples["entitlementd_event_loop_lag_seconds_count"]
    assert samples["entitlementd_event_loop_lag_seconds_bucket", {"le": "+Inf"}] == count
    assert samples["entitlementd_event_loop_lag_seconds_sum"] < count


def test_promtool_accepts_the_output(env):
    promtool = shutil.which("promtool")
    assert promtool, "promtool (Debian's prometheus package) is not installed: run Scripts/setup"
    text = scrape(env.server)
    assert "process_resident_memory_bytes" in text and "process_open_fds" in text
    checked = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True, timeout=60)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    # No lint complaints either (promtool prints them and still exits 0 for some).
    assert checked.stdout.decode().strip() == "" and checked.stderr.decode().strip() == "", checked


def test_a_separate_metrics_listener(tmp_path, tenants):
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [tenants["down"]])
    port = free_port()
    server = start_server(tmp_path / "server", tenants_file, {"metrics": {"listen": f"127.0.0.1:{port}"}})
    try:
        text = scrape(server, port)
        assert "grpc_server_handled_total" in text
        with pytest.raises(urllib.error.HTTPError) as missing:
            scrape(server)
        assert missing.value.code == 404
    finally:
        stop_and_check(server)
