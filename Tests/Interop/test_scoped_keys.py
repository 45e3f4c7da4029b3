"""Named, scoped secret keys through the real server: a key listed as {"hash", "name", "scope": "read"} may look
customers, their events and webhook deliveries up, count and list them and stream their status, but every call that
would change something is PERMISSION_DENIED and changes nothing; each event a call commits records the name of the
key that made it (the configured name, or the start of the hash string for a key listed without one), as does the
call's log line, which never holds the key."""

from __future__ import annotations

import grpc
import pytest

from entitlement_support import SNAPSHOT, Clients, key_hash, make_key, new_tenant, unique_id, write_tenants

READER, _ = make_key("sk")
SUPPORT, _ = make_key("sk")


@pytest.fixture(scope="module")
def tenant():
    return new_tenant("scoped-a", named_secret_keys=[
        {"key": READER, "name": "viewer.ana", "scope": "read"},
        {"key": SUPPORT, "name": "support-bo"}])


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenant):
    tenants_file = tmp_path_factory.mktemp("scoped-tenants") / "tenants.json"
    write_tenants(tenants_file, [tenant])
    return tenants_server(tenants_file)


@pytest.fixture
def clients(server, protos):
    made = Clients(server, protos)
    made.channel()
    yield made
    made.close()


def test_a_read_only_key_reads_everything(clients, tenant):
    user = unique_id()
    clients.api(tenant.secret_key).grant(user, "pro", duration=3600)
    reader = clients.api(READER)
    assert reader.customer(user).customer.app_user_id == user
    assert [event.cause for event in reader.all_events(user)]
    assert reader.call("CountCustomers").active_customers >= 1
    assert reader.call("ListCustomers", page_size=5).customers
    reader.call("ListWebhookDeliveries")
    reader.call("GetMetrics", metric=1, start_date="2026-01-01", end_date="2026-12-31")
    reader.call("ListMetricRows", metric=1, start_date="2026-01-01", end_date="2026-12-31")
    assert [e.id for e in reader.sync(user).status.entitlements] == ["pro"]
    assert reader.stream(user).next().kind == SNAPSHOT


@pytest.mark.parametrize("method, fields", [
    ("GrantEntitlement", {"app_user_id": "u-read-only", "entitlement_id": "pro"}),
    ("RevokeGrant", {"grant_id": "g_0123456789abcdef", "reason": "nope"}),
    ("RedeliverWebhooks", {"delivery_id": 1}),
    ("SendTestWebhook", {"endpoint_id": "backend"}),
    ("ExtendSubscription", {}),
    ("Identify", {"app_user_id": "u-read-only"}),
])
def test_a_read_only_key_may_change_nothing(clients, tenant, method, fields):
    error = clients.api(READER).error(method, **fields)
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "'viewer.ana' is read-only" in error.details() and "\"scope\": \"write\"" in error.details()
    assert READER not in error.details()
    # Nothing was created on the way.
    assert clients.api(tenant.secret_key).error("GetCustomer", app_user_id="u-read-only").code() \
        == grpc.StatusCode.NOT_FOUND


def test_events_record_the_name_of_the_key_that_acted(clients, tenant):
    user = unique_id()
    granted = clients.api(SUPPORT).grant(user, "pro", duration=3600, reason="make-good month")
    clients.api(tenant.secret_key).revoke(granted.grant_id, reason="granted in error")
    clients.api(tenant.public_key).identify(user)  # changes nothing: records nothing
    newest_first = clients.api(READER).all_events(user)
    unnamed = key_hash(tenant.secret_key)[:len("sk_sha256:") + 8]
    assert [(event.reason, event.key_name) for event in reversed(newest_first)] == [
        ("Created by GrantEntitlement.", "support-bo"), ("make-good month", "support-bo"),
        ("granted in error", unnamed)]


def test_the_log_line_names_the_key_never_the_key_itself(clients, server, tenant):
    user = unique_id()
    clients.api(SUPPORT).grant(user, "pro", duration=60)
    clients.api(READER).error("GrantEntitlement", app_user_id=user, entitlement_id="pro")
    log = server.log()
    assert "key=support-bo" in log and "key=viewer.ana" in log
    for key in (READER, SUPPORT, tenant.secret_key, tenant.public_key):
        assert key not in log


def test_describe_key_says_what_the_calling_key_may_do(clients, tenant):
    reader = clients.api(READER).call("DescribeKey")
    assert (reader.tenant_id, reader.key_name, reader.scope) == (tenant.id, "viewer.ana", 1)
    assert list(reader.entitlements) == ["premium", "pro"] and not reader.allows_undeclared_entitlements
    support = clients.api(SUPPORT).call("DescribeKey")
    assert (support.key_name, support.scope) == ("support-bo", 2)
    unnamed = clients.api(tenant.secret_key).call("DescribeKey")
    assert unnamed.key_name == key_hash(tenant.secret_key)[:len("sk_sha256:") + 8] and unnamed.scope == 2
    assert clients.api(tenant.public_key).error("DescribeKey").code() == grpc.StatusCode.PERMISSION_DENIED
