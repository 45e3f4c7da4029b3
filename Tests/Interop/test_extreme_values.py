"""The extremes of the integer, Timestamp and Duration fields of the requests, through the real server with stock
clients: each value out of range is INVALID_ARGUMENT naming the field and what it may hold (or is served, where the
field takes any value), and the server goes on serving afterwards.

CheckAppStoreSetup's `wait` once overflowed `seconds * 1000` before its range check: any secret key, a read-only one
included, took the process down (SIGILL) for every tenant. `grpc-timeout` is taken at its extremes too: `1n` is spent
before the handler starts and ends the call with DEADLINE_EXCEEDED; `99999999H`, the largest the spec allows, is a
deadline like any other."""

from __future__ import annotations

import urllib.parse

import grpc
import pytest

from conftest import RawH2Connection, RawResponse
from entitlement_support import ADMIN_SERVICE, ENTITLEMENT_SERVICE, SNAPSHOT, Clients, make_key, new_tenant, unique_id, write_tenants
from test_grpc_web import Http1, Http2, frame

Code = grpc.StatusCode
INT64_MAX, INT64_MIN, UINT64_MAX = 2**63 - 1, -2**63, 2**64 - 1
INT32_MAX, INT32_MIN = 2**31 - 1, -2**31
READER = make_key("sk")[0]

CHECK = f"/{ADMIN_SERVICE}/CheckAppStoreSetup"
DESCRIBE = f"/{ADMIN_SERVICE}/DescribeKey"
SYNC = f"/{ENTITLEMENT_SERVICE}/SyncStatus"


@pytest.fixture(scope="module")
def tenant():
    # No App Store settings: the range check comes before anything the tenant would need.
    return new_tenant("extremes", named_secret_keys=[{"key": READER, "name": "viewer", "scope": "read"}])


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenant):
    tenants_file = tmp_path_factory.mktemp("extremes") / "tenants.json"
    write_tenants(tenants_file, [tenant])
    return tenants_server(tenants_file)


@pytest.fixture
def clients(server, protos):
    made = Clients(server, protos)
    made.channel()
    yield made
    made.close()  # fails the test when the server died


def described(value: dict) -> str:
    return ",".join(f"{key}={number}" for key, number in value.items()) or "unset"


# --------------------------------------------------------------------------------------------------
# CheckAppStoreSetup's wait, with a read-only key, over gRPC and gRPC-Web

BAD_WAITS = [
    {"seconds": 10_000_000_000_000_000},  # the report's: seconds * 1000 overflowed Int64
    {"seconds": INT64_MAX, "nanos": 999_999_999},
    {"seconds": INT64_MIN},
    {"seconds": INT64_MAX // 1000 + 1},
    {"seconds": -1},
    {"seconds": 61},
    {"seconds": 60, "nanos": 1_000_000},
    {"nanos": 1_000_000_000},
    {"nanos": INT32_MAX},
    {"nanos": INT32_MIN},
    {"seconds": 1, "nanos": -1},
]


def check_request(protos, wait: dict):
    request = protos.message("entitlements.v1.CheckAppStoreSetupRequest")()
    request.wait.seconds, request.wait.nanos = wait.get("seconds", 0), wait.get("nanos", 0)
    return request


def assert_names_the_wait(details: str, wait: dict) -> None:
    assert "wait must be 0 to 60 seconds" in details, details
    assert f"got seconds {wait.get('seconds', 0)}, nanos {wait.get('nanos', 0)}" in details, details


@pytest.mark.parametrize("wait", BAD_WAITS, ids=described)
def test_a_wait_out_of_range_is_invalid_argument_and_the_server_lives_on_grpc(clients, protos, wait):
    reader = clients.api(READER)
    error = reader.error("CheckAppStoreSetup", check_request(protos, wait))
    assert error.code() == Code.INVALID_ARGUMENT, error
    assert_names_the_wait(error.details(), wait)
    assert reader.call("DescribeKey").key_name == "viewer"


@pytest.mark.parametrize("http", ["http1", "http2"])
@pytest.mark.parametrize("wait", BAD_WAITS, ids=described)
def test_a_wait_out_of_range_is_invalid_argument_and_the_server_lives_on_grpc_web(server, protos, http, wait):
    connection = (Http1 if http == "http1" else Http2)(server)
    try:
        bearer = [("authorization", f"Bearer {READER}")]
        response = connection.web_call(CHECK, frame(check_request(protos, wait).SerializeToString()), "binary", bearer)
        assert response.status == 200 and response.reader.at_end(), "a Trailers-Only answer"
        assert response.headers["grpc-status"] == str(Code.INVALID_ARGUMENT.value[0]), response.headers
        assert_names_the_wait(urllib.parse.unquote(response.headers["grpc-message"]), wait)
        # The same connection still serves.
        described_key = connection.web_call(DESCRIBE, frame(b""), "binary", bearer)
        messages, trailers = described_key.rest()
        assert trailers == b"grpc-status: 0\r\n"
        assert protos.message("entitlements.v1.KeyDescription").FromString(messages[0]).key_name == "viewer"
    finally:
        connection.close()
    assert server.process.poll() is None, server.describe()


def test_a_wait_in_range_passes_the_check(clients, protos):
    """0 to 60 s is taken: the call goes on to what this tenant lacks (App Store settings)."""
    error = clients.api(READER).error("CheckAppStoreSetup", check_request(protos, {"seconds": 60}))
    assert error.code() != Code.INVALID_ARGUMENT and "wait" not in error.details(), error


# --------------------------------------------------------------------------------------------------
# The other integer, Timestamp and Duration fields

WRITE, READ = "write", "read"
RANGE = "must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z"
GRANT = {"app_user_id": "u-extreme", "entitlement_id": "pro"}

# (method, key scope, fields, code, what the message says)
REFUSED = [
    ("GrantEntitlement", WRITE, {**GRANT, "duration": {"seconds": INT64_MAX}}, "duration must be 0.001 to 315576000000 seconds"),
    ("GrantEntitlement", WRITE, {**GRANT, "duration": {"seconds": 10_000_000_000_000_000}}, "duration must be 0.001"),
    ("GrantEntitlement", WRITE, {**GRANT, "duration": {"seconds": INT64_MIN, "nanos": -999_999_999}}, "duration must be"),
    ("GrantEntitlement", WRITE, {**GRANT, "duration": {"nanos": 999_999}}, "got seconds 0, nanos 999999"),
    ("GrantEntitlement", WRITE, {**GRANT, "duration": {"seconds": 1, "nanos": -1}}, "duration must be"),
    ("GrantEntitlement", WRITE, {**GRANT, "duration": {"nanos": INT32_MAX}}, "duration must be"),
    ("GrantEntitlement", WRITE, {**GRANT, "expires_at": {"seconds": INT64_MAX}}, "expires_at " + RANGE),
    ("GrantEntitlement", WRITE, {**GRANT, "expires_at": {"seconds": INT64_MIN}}, "expires_at " + RANGE),
    ("GrantEntitlement", WRITE, {**GRANT, "expires_at": {"seconds": 4_000_000_000, "nanos": INT32_MIN}}, "expires_at " + RANGE),
    ("ListCustomers", READ, {"changed_since": {"seconds": INT64_MAX // 1000 + 1}}, "changed_since " + RANGE),
    ("ListCustomers", READ, {"page_size": INT32_MAX}, "page_size must be 0"),
    ("ListCustomers", READ, {"page_size": INT32_MIN}, "page_size must be 0"),
    ("ListCustomers", READ, {"store": INT32_MAX}, f"store {INT32_MAX} is not a Store"),
    ("ListWebhookDeliveries", READ, {"created_after": {"seconds": INT64_MIN}}, "created_after " + RANGE),
    ("ListWebhookDeliveries", READ, {"created_before": {"nanos": INT32_MAX}}, "created_before " + RANGE),
    ("ListWebhookDeliveries", READ, {"state": INT32_MIN}, f"state {INT32_MIN} is not a WebhookDeliveryState"),
    ("RedeliverWebhooks", WRITE, {"created_before": {"seconds": 10_000_000_000_000_000}}, "created_before " + RANGE),
    ("RedeliverWebhooks", WRITE, {"delivery_id": INT64_MIN}, "delivery_id must not be negative"),
    ("ReconcileAppStore", WRITE, {"start_time": {"seconds": INT64_MAX}}, "start_time " + RANGE),
    ("ReconcileAppStore", WRITE, {"end_time": {"seconds": 0, "nanos": -1}}, "end_time " + RANGE),
    ("ExtendSubscription", WRITE, {"original_transaction_id": "1000", "extend_by_days": INT32_MAX}, "extend_by_days must be 1 to 90"),
    ("ExtendSubscription", WRITE, {"original_transaction_id": "1000", "extend_by_days": INT32_MIN}, "extend_by_days must be 1 to 90"),
    ("SendConsumptionInfo", WRITE,
     {"transaction_id": "1000", "customer_consented": True, "consumption_percentage": INT32_MAX}, "consumption_percentage"),
    ("SendConsumptionInfo", WRITE,
     {"transaction_id": "1000", "customer_consented": True, "consumption_percentage": INT32_MIN}, "consumption_percentage"),
    ("SendConsumptionInfo", WRITE,
     {"transaction_id": "1000", "customer_consented": True, "delivery_status": INT32_MAX}, f"delivery_status {INT32_MAX}"),
]


def key_of(tenant, scope: str) -> str:
    return READER if scope == READ else tenant.secret_key


@pytest.mark.parametrize("method, scope, fields, needle", REFUSED,
                         ids=[f"{m}-{described({k: v for k, v in f.items() if k not in GRANT})}" for m, _, f, _ in REFUSED])
def test_an_extreme_request_value_is_invalid_argument_naming_the_field(clients, tenant, method, scope, fields, needle):
    api = clients.api(key_of(tenant, scope))
    error = api.error(method, **fields)
    assert error.code() == Code.INVALID_ARGUMENT, error
    assert needle in error.details(), error.details()
    assert api.call("DescribeKey").tenant_id == tenant.id


def test_fields_that_take_any_value_are_served_at_their_extremes(clients, tenant):
    admin, user = clients.api(tenant.secret_key), unique_id()
    admin.grant(user, "pro", duration=60)
    for size in (INT32_MAX, INT32_MIN):
        assert admin.events_page(user, page_size=size).events, size
    error = admin.error("RedeliverWebhooks", delivery_id=INT64_MAX)
    assert error.code() == Code.NOT_FOUND and str(INT64_MAX) in error.details(), error
    # A version the customer never had: the stream starts from a snapshot.
    assert clients.api(tenant.public_key).stream(user, after_version=UINT64_MAX).next().kind == SNAPSHOT


# --------------------------------------------------------------------------------------------------
# grpc-timeout at its extremes

def raw_call(server, path: str, key: str, body: bytes, timeout: str, web: bool = False) -> tuple[int | None, str]:
    """(grpc-status, grpc-message) of one call over a raw HTTP/2 connection sending `grpc-timeout` as it is, its
    HEADERS and DATA in one write (so they arrive together and the handler may start in the same turn of the loop)."""
    with RawH2Connection(server.host, server.port) as connection:
        content_type = "application/grpc-web+proto" if web else "application/grpc"
        headers = connection.grpc_headers(
            path, content_type, extra=[("authorization", f"Bearer {key}"), ("grpc-timeout", timeout)])
        stream_id = connection.conn.get_next_available_stream_id()
        connection.responses[stream_id] = RawResponse()
        connection.conn.send_headers(stream_id, headers)
        connection.conn.send_data(stream_id, frame(body), end_stream=True)
        connection._flush()
        response = connection.wait(stream_id)
        status = response.grpc_status
        message = response.grpc("grpc-message")
        if web and status is None:  # the trailers frame ends the body
            trailers = response.data[response.data.rindex(b"\x80") + 5:].decode()
            fields = dict(line.split(": ", 1) for line in trailers.strip().split("\r\n"))
            status, message = int(fields["grpc-status"]), fields.get("grpc-message", "").encode()
        return status, urllib.parse.unquote((message or b"").decode())


def sync_body(protos) -> bytes:
    return protos.message("entitlements.v1.SyncStatusRequest")(app_user_id="u-timeout").SerializeToString()


CALLS = [(SYNC, "public"), (DESCRIBE, "secret")]
CALL_IDS = ["SyncStatus-synchronous", "DescribeKey-task"]


@pytest.mark.parametrize("web", [False, True], ids=["grpc", "grpc-web"])
@pytest.mark.parametrize("path, scope", CALLS, ids=CALL_IDS)
def test_a_one_nanosecond_timeout_is_deadline_exceeded(server, tenant, protos, path, scope, web):
    """Spent before the handler starts, whichever way the handler runs: DEADLINE_EXCEEDED, never an answer."""
    key = tenant.public_key if scope == "public" else tenant.secret_key
    body = sync_body(protos) if path == SYNC else b""
    assert raw_call(server, path, key, body, "1n", web) == (Code.DEADLINE_EXCEEDED.value[0], "Deadline exceeded.")
    assert raw_call(server, DESCRIBE, tenant.secret_key, b"", "99999999H", web)[0] == Code.OK.value[0]


@pytest.mark.parametrize("path, scope", CALLS, ids=CALL_IDS)
def test_a_one_nanosecond_timeout_is_deadline_exceeded_over_http1(server, tenant, protos, path, scope):
    connection = Http1(server)
    try:
        key = tenant.public_key if scope == "public" else tenant.secret_key
        bearer = [("authorization", f"Bearer {key}")]
        body = frame(sync_body(protos) if path == SYNC else b"")
        expired = connection.web_call(path, body, "binary", [*bearer, ("grpc-timeout", "1n")])
        assert expired.headers.get("grpc-status") == str(Code.DEADLINE_EXCEEDED.value[0]), expired.headers
        assert expired.reader.at_end()
        secret = [("authorization", f"Bearer {tenant.secret_key}")]
        largest = connection.web_call(DESCRIBE, frame(b""), "binary", [*secret, ("grpc-timeout", "99999999H")])
        assert largest.rest()[1] == b"grpc-status: 0\r\n"
    finally:
        connection.close()


@pytest.mark.parametrize("timeout", ["99999999H", "99999999M", "99999999S", "99999999m", "99999999u"])
def test_the_largest_timeout_of_each_unit_is_a_deadline_like_any_other(server, tenant, timeout):
    assert raw_call(server, DESCRIBE, tenant.secret_key, b"", timeout)[0] == Code.OK.value[0]
