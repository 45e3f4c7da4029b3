"""EntitlementService and AdminService through the real interop-server, with grpcio.

One server for the module, configured with a tenants file of two tenants (A and B) whose pk_/sk_ keys are
generated for this run. Every test works on fresh app user IDs, so tests do not see each other's customers.
"""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from conftest import RPC_TIMEOUT, call_bidirectional
from entitlement_support import (
    ACTIVE, ADMIN_METHODS, ADMIN_SERVICE, CAUSE, CUSTOMER_INFO_CHANGED, ENTITLEMENT_METHODS, ENTITLEMENT_SERVICE,
    INACTIVE, METHODS, SNAPSHOT, STATUS_CHANGED, STORE_GRANT, Api, Clients, active_ids, anon_id, describe_event,
    key_hash, make_key, new_tenant, rpc_error, ts_millis, ts_seconds, unique_id, write_tenants,
)

Code = grpc.StatusCode

STREAMS_PER_CUSTOMER = 16


# --------------------------------------------------------------------------------------------------
# Fixtures


class Env(Clients):
    """Tenants A and B on one server. `a`/`b` hold public keys, `a_admin`/`b_admin` secret keys."""

    def __init__(self, server, tenant_a, tenant_b, protos):
        super().__init__(server, protos)
        self.tenant_a, self.tenant_b = tenant_a, tenant_b
        channel = self.channel()
        self.a = self.api(tenant_a.public_key, channel)
        self.a_admin = self.api(tenant_a.secret_key, channel)
        self.b = self.api(tenant_b.public_key, channel)
        self.b_admin = self.api(tenant_b.secret_key, channel)


@pytest.fixture(scope="module")
def tenants():
    tenant_a = new_tenant(
        "tenant-a", public_keys=2, entitlements=["pro", "premium"],
        products={"com.example.a.pro.monthly": ["pro"], "com.example.a.family": ["pro", "family"]},
    )
    tenant_b = new_tenant(
        "tenant_b", entitlements=["pro", "premium", "b_only"], products={"com.example.b.pro": ["pro"]},
    )
    return tenant_a, tenant_b


@pytest.fixture(scope="module")
def entitlement_server(tenants_server, tmp_path_factory, tenants):
    tenants_file = tmp_path_factory.mktemp("entitlements") / "tenants.json"
    write_tenants(tenants_file, tenants)
    return tenants_server(tenants_file)


@pytest.fixture
def ent(entitlement_server, tenants, protos):
    env = Env(entitlement_server, *tenants, protos)
    yield env
    env.close()


def sample_request(api: Api, method: str, app_user_id: str):
    """A well-formed request for `method` (about `app_user_id`)."""
    fields = {
        "Identify": {"app_user_id": app_user_id},
        "SyncStatus": {"app_user_id": app_user_id},
        "StreamStatus": {"app_user_id": app_user_id},
        "GrantEntitlement": {"app_user_id": app_user_id, "entitlement_id": "pro"},
        "RevokeGrant": {"grant_id": "gr_000000000000000000000000"},
        "GetCustomer": {"app_user_id": app_user_id},
        "SetAttributes": {"app_user_id": app_user_id, "unset_keys": ["$email"]},
        "SetCustomerAttributes": {"app_user_id": app_user_id, "unset_keys": ["plan"]},
        "ExportCustomer": {"app_user_id": app_user_id},
        "DeleteCustomer": {"app_user_id": app_user_id, "confirm_app_user_id": app_user_id},
        "ListAuditEvents": {},
        "ListCustomerEvents": {"app_user_id": app_user_id},
        "SendTestWebhook": {"endpoint_id": "backend"},
        "ListWebhookDeliveries": {"app_user_id": app_user_id},
        "RedeliverWebhooks": {"delivery_id": 1},
        "ListCustomers": {"page_size": 10},
        "CountCustomers": {},
        "FindCustomers": {"query": app_user_id},
        "DescribeKey": {},
        "DescribeTrust": {},
        "ReconcileAppStore": {"only_failures": True},
        "LookUpOrder": {"order_id": "MK5TTTVWJH"},
        "ExtendSubscription": {"original_transaction_id": "2000000000000001", "extend_by_days": 1},
        "SendConsumptionInfo": {"transaction_id": "2000000000000001", "customer_consented": True},
        "RequestTestNotification": {},
        "GetTestNotificationStatus": {"test_notification_token": "token"},
        "CheckAppStoreSetup": {},
        "GetMetrics": {"metric": 1, "start_date": "2026-01-01", "end_date": "2026-01-31"},
        "ListMetricRows": {"metric": 1, "start_date": "2026-01-01", "end_date": "2026-01-31"},
    }[method]
    return api.request(method, **fields)


def assert_not_found(api: Api, app_user_id: str) -> None:
    """GetCustomer says the customer does not exist."""
    error = rpc_error(lambda: api.customer(app_user_id))
    assert error.code() == Code.NOT_FOUND, (error.code(), error.details())


def assert_code(error: grpc.RpcError, code: grpc.StatusCode) -> None:
    assert error.code() == code, f"expected {code}, got {error.code()}: {error.details()}"


# --------------------------------------------------------------------------------------------------
# Authentication


@pytest.mark.parametrize("method", list(METHODS))
def test_missing_authorization_is_unauthenticated(ent, method):
    user = unique_id()
    anonymous = ent.api(None)
    assert_code(anonymous.error(method, sample_request(anonymous, method, user)), Code.UNAUTHENTICATED)
    # Nothing was written on the refused call.
    assert_not_found(ent.a_admin, user)


MALFORMED = ["Basic x", "Bearer", "bearer", "Token {pk}", "{pk}", "Bearer{pk}", "Basic {pk}"]


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("value", MALFORMED)
def test_malformed_authorization_is_unauthenticated(ent, method, value):
    api = ent.api(None)
    header = value.format(pk=ent.tenant_a.public_key if method in ENTITLEMENT_METHODS else ent.tenant_a.secret_key)
    error = api.error(method, sample_request(api, method, unique_id()), metadata=[("authorization", header)])
    assert_code(error, Code.UNAUTHENTICATED)


def _unknown_keys(ent) -> dict[str, str]:
    pk = ent.tenant_a.public_key
    return {
        "random pk": make_key("pk")[0],
        "random sk": make_key("sk")[0],
        "hash string as key": key_hash(pk),
        "pk with last digit changed": pk[:-1] + ("0" if pk[-1] != "0" else "1"),
        "pk truncated": pk[:-1],
        "pk with extra digit": pk + "0",
        "pk upper-cased hex": "pk_" + pk[3:].upper(),
        "no prefix": pk[3:],
        "sk prefix on a pk's digits": "sk_" + pk[3:],
        "plain word": "hello",
    }


@pytest.mark.parametrize("method", list(METHODS))
def test_unknown_key_is_unauthenticated(ent, method):
    for name, key in _unknown_keys(ent).items():
        api = ent.api(key)
        error = api.error(method, sample_request(api, method, unique_id()))
        assert error.code() == Code.UNAUTHENTICATED, (name, error.code(), error.details())


@pytest.mark.parametrize("method", ADMIN_METHODS)
def test_public_key_on_admin_service_is_permission_denied(ent, method):
    user = unique_id()
    for key in ent.tenant_a.public_keys + ent.tenant_b.public_keys:
        api = ent.api(key)
        assert_code(api.error(method, sample_request(api, method, user)), Code.PERMISSION_DENIED)
    # A refused grant granted nothing and created nobody.
    assert ent.a.is_unknown(user)
    assert_not_found(ent.a_admin, user)


def test_public_key_cannot_revoke_an_existing_grant(ent):
    user = unique_id()
    grant = ent.a_admin.grant(user, "pro")
    assert_code(ent.a.error("RevokeGrant", grant_id=grant.grant_id), Code.PERMISSION_DENIED)
    assert active_ids(ent.a.sync(user)) == ["pro"]
    assert not ent.a_admin.customer(user).grants[0].HasField("revoked_at")


def test_secret_key_may_call_entitlement_service(ent):
    user = unique_id()
    identified = ent.a_admin.identify(user)
    assert identified.created and identified.customer.app_user_id == user
    assert ent.a_admin.sync(user).version == 1
    stream = ent.a_admin.stream(user)
    first = stream.next()
    assert first.kind == SNAPSHOT and first.customer.app_user_id == user
    # And the customer is the same one the tenant's public key sees.
    assert ent.a.sync(user).version == 1


def test_every_public_key_of_a_tenant_works_and_lowercase_scheme_is_accepted(ent):
    user = unique_id()
    first, second = ent.tenant_a.public_keys
    assert ent.api(first).identify(user).created
    assert not ent.api(second).identify(user).created
    response = ent.a.call("SyncStatus", app_user_id=user, metadata=[("authorization", f"bearer {second}")])
    assert response.customer.version == 1


# --------------------------------------------------------------------------------------------------
# App user IDs


INVALID_IDS = {
    "empty": "",
    "null": "null",
    "NULL": "NULL",
    "undefined": "undefined",
    "nil": "nil",
    "zero": "0",
    "anonymous": "anonymous",
    "(null)": "(null)",
    "newline": "user\nname",
    "tab": "user\tname",
    "NUL": "user\x00name",
    "DEL": "user\x7f",
    "C1 control": "user\u0085name",
    "line separator": "user\u2028name",
    "leading space": " user",
    "trailing space": "user ",
    "257 ASCII bytes": "x" * 257,
    "257 bytes in 129 characters": "é" * 128 + "x",
    "260 bytes of emoji": "😀" * 65,
    "bare anonymous prefix": "$anon:",
    "anonymous placeholder": "$anon:null",
    "upper-case anonymous prefix": "$ANON:abc",
}

VALID_IDS = {
    "256 ASCII bytes": "u" * 256,
    "256 bytes of 2-byte characters": "é" * 128,
    "256 bytes of emoji": "😀" * 64,
    "mixed scripts": "用户-ü-😀-Ω",
    "inner space": "john doe",
    "anonymous": "$anon:550e8400-e29b-41d4-a716-446655440000",
    "looks like a number": "00",
}


@pytest.mark.parametrize("method", ["SyncStatus", "Identify", "StreamStatus"])
@pytest.mark.parametrize("name", list(INVALID_IDS))
def test_invalid_app_user_id_is_invalid_argument(ent, method, name):
    app_user_id = INVALID_IDS[name]
    assert_code(ent.a.error(method, ent.a.request(method, app_user_id=app_user_id)), Code.INVALID_ARGUMENT)


@pytest.mark.parametrize("method", ["GrantEntitlement", "GetCustomer", "ListCustomerEvents"])
@pytest.mark.parametrize("name", ["empty", "null", "newline", "257 ASCII bytes", "bare anonymous prefix"])
def test_invalid_app_user_id_is_invalid_argument_on_admin_service(ent, method, name):
    request = sample_request(ent.a_admin, method, INVALID_IDS[name])
    assert_code(ent.a_admin.error(method, request), Code.INVALID_ARGUMENT)


@pytest.mark.parametrize("name", list(VALID_IDS))
def test_valid_app_user_ids_round_trip(ent, name):
    # These IDs have exact byte lengths, so no unique suffix: the module's server (and database) is new per run and
    # no other test uses them; tenant B keeps them apart from tenant A's tests.
    app_user_id = VALID_IDS[name]
    api, admin = ent.b, ent.b_admin
    assert api.is_unknown(app_user_id)
    identified = api.identify(app_user_id)
    assert identified.customer.app_user_id == app_user_id
    assert identified.created
    grant = admin.grant(app_user_id, "pro")
    assert grant.app_user_id == app_user_id
    status = api.sync(app_user_id)
    assert status.app_user_id == app_user_id and active_ids(status) == ["pro"]
    assert admin.customer(app_user_id).customer.app_user_id == app_user_id


def test_ids_differing_only_in_case_are_different_customers(ent):
    base = unique_id("Case")
    ent.a_admin.grant(base, "pro")
    assert ent.a.is_unknown(base.lower())
    assert ent.a.is_unknown(base.upper())
    assert ent.a.sync(base).app_user_id == base


def test_canonically_equivalent_ids_are_different_customers(ent):
    """IDs are compared byte for byte (AppUserID: "no Unicode normalization"): "café" written with U+00E9 and
    "cafe" + U+0301 are two users. The database agrees (GetCustomer is NOT_FOUND), so every read must too."""
    suffix = unique_id()
    composed, decomposed = f"caf\u00e9-{suffix}", f"cafe\u0301-{suffix}"
    assert composed.encode() != decomposed.encode()
    ent.a_admin.grant(composed, "pro")
    assert active_ids(ent.a.sync(composed)) == ["pro"]  # now in the server's read cache
    assert_not_found(ent.a_admin, decomposed)
    assert ent.a.is_unknown(decomposed), \
        "SyncStatus of an unknown ID returned another customer whose ID is only canonically equivalent"
    assert_code(ent.a.error("StreamStatus", app_user_id=decomposed), Code.NOT_FOUND)


def test_canonically_equivalent_ids_do_not_overwrite_each_other(ent):
    suffix = unique_id()
    composed, decomposed = f"\u00c5ngstr\u00f6m-{suffix}", f"A\u030angstro\u0308m-{suffix}"
    ent.a_admin.grant(composed, "pro")
    created = ent.a.identify(decomposed)
    assert created.created and created.customer.app_user_id == decomposed
    assert created.customer.status.state == INACTIVE
    first = ent.a.sync(composed)
    assert (first.app_user_id, active_ids(first)) == (composed, ["pro"])
    second = ent.a.sync(decomposed)
    assert (second.app_user_id, active_ids(second)) == (decomposed, [])


def wire_fields(data: bytes) -> list[tuple[int, bytes | int]]:
    """The (field number, value) pairs of one message, in wire order; values of length-delimited fields raw."""
    def varint(index: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            byte = data[index]
            value |= (byte & 0x7F) << shift
            index, shift = index + 1, shift + 7
            if byte < 0x80:
                return value, index

    fields, index = [], 0
    while index < len(data):
        key, index = varint(index)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, index = varint(index)
        elif wire_type == 2:
            length, index = varint(index)
            value, index = data[index:index + length], index + length
        else:
            raise AssertionError(f"unexpected wire type {wire_type}")
        fields.append((number, value))
    return fields


def test_sync_status_answer_holds_each_field_once_and_fresh_server_time(ent):
    # Parsers that do not merge repeated message fields (protobuf.js, google-protobuf) must read the same answer.
    user = unique_id()
    ent.a_admin.grant(user, "pro")
    callable_ = ent.a.channel.unary_unary(
        f"/{ENTITLEMENT_SERVICE}/SyncStatus", request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=lambda raw: raw)
    request = ent.a.request("SyncStatus", app_user_id=user)
    times = []
    for _ in range(2):
        raw = callable_(request, timeout=RPC_TIMEOUT, metadata=ent.a._metadata(None))
        top = wire_fields(raw)
        assert [number for number, _ in top] == [1], top
        customer = wire_fields(top[0][1])
        numbers = [number for number, _ in customer]
        assert sorted(numbers) == sorted(set(numbers)) == [1, 2, 3, 4], numbers
        times.append(dict(customer)[4])
        time.sleep(0.01)
    assert times[0] != times[1], "server_time must be the time of each call"
    assert ent.a.sync(user).app_user_id == user


# --------------------------------------------------------------------------------------------------
# SyncStatus of unknown users


def test_sync_status_of_never_seen_user_is_not_found_like_every_read_and_creates_nothing(ent):
    """SyncStatus answers NOT_FOUND for an ID no customer has, as StreamStatus, GetCustomer and ListCustomerEvents do:
    a CustomerStatus is a customer's (its version grows by one with each change; none has version 0), and an SDK
    that gets NOT_FOUND identifies again instead of keeping a status the server no longer holds."""
    user = unique_id()
    for _ in range(2):
        error = ent.a.error("SyncStatus", app_user_id=user)
        assert_code(error, Code.NOT_FOUND)
        assert user in error.details() and "call Identify first" in error.details()
    assert_not_found(ent.a_admin, user)
    assert_code(ent.a_admin.error("ListCustomerEvents", app_user_id=user), Code.NOT_FOUND)
    assert_code(ent.a.error("StreamStatus", app_user_id=user), Code.NOT_FOUND)
    # Neither the stream attempt nor the reads created the customer.
    assert_not_found(ent.a_admin, user)
    assert ent.a.identify(user).created


# --------------------------------------------------------------------------------------------------
# Identify


def test_identify_creates_then_resolves(ent):
    user = unique_id()
    first = ent.a.identify(user)
    assert first.created and not first.merged
    assert first.customer.app_user_id == user
    assert first.customer.version == 1
    assert first.customer.status.state == INACTIVE
    second = ent.a.identify(user)
    assert not second.created and not second.merged
    assert second.customer.version == 1 and second.customer.app_user_id == user
    events = ent.a_admin.all_events(user)
    assert [(e.version, e.cause) for e in events] == [(1, CAUSE["CREATED"])]


def test_anonymous_customer_with_history_is_merged_into_new_identified_user(ent):
    anonymous, alice = anon_id(), unique_id("alice")
    grant = ent.a_admin.grant(anonymous, "pro")
    assert grant.app_user_id == anonymous
    anonymous_version = ent.a.sync(anonymous).version

    merged = ent.a.identify(alice, anonymous_id=anonymous)
    assert merged.merged, merged
    assert not merged.created
    assert merged.customer.app_user_id == alice
    assert active_ids(merged.customer) == ["pro"]
    assert merged.customer.version == anonymous_version + 1

    # The anonymous ID is now an alias: every RPC resolves it to alice and returns alice.
    via_alias = ent.a.sync(anonymous)
    assert via_alias.app_user_id == alice and active_ids(via_alias) == ["pro"]
    assert via_alias.version == merged.customer.version
    customer = ent.a_admin.customer(alice)
    assert list(customer.aliases) == [anonymous]
    assert [g.grant_id for g in customer.grants] == [grant.grant_id]
    assert customer.grants[0].app_user_id == alice
    assert ent.a_admin.customer(anonymous).customer.app_user_id == alice
    assert ent.a.identify(anonymous).customer.app_user_id == alice
    newest = ent.a_admin.events_page(alice, page_size=1).events[0]
    assert newest.cause == CAUSE["MERGED"] and newest.related_app_user_id == anonymous

    # Again: nothing more to merge.
    again = ent.a.identify(alice, anonymous_id=anonymous)
    assert not again.merged and not again.created
    assert again.customer.version == merged.customer.version

    # An identified customer is never merged into another: bob does not get alice's alias or grant.
    bob = unique_id("bob")
    taken = ent.a.identify(bob, anonymous_id=anonymous)
    assert not taken.merged
    assert taken.customer.app_user_id == bob
    assert taken.customer.status.state == INACTIVE
    still = ent.a.sync(anonymous)
    assert still.app_user_id == alice and active_ids(still) == ["pro"]
    assert list(ent.a_admin.customer(alice).aliases) == [anonymous]
    assert list(ent.a_admin.customer(bob).aliases) == []
    # The same with a bob who already exists and has history.
    ent.a_admin.grant(bob, "premium")
    retaken = ent.a.identify(bob, anonymous_id=anonymous)
    assert not retaken.merged and active_ids(retaken.customer) == ["premium"]
    assert ent.a.sync(anonymous).app_user_id == alice


def test_anonymous_customer_with_history_is_merged_into_existing_identified_user(ent):
    dave, anonymous = unique_id("dave"), anon_id()
    ent.a.identify(dave)
    dave_grant = ent.a_admin.grant(dave, "pro")
    anonymous_grant = ent.a_admin.grant(anonymous, "premium")
    dave_version = ent.a.sync(dave).version

    merged = ent.a.identify(dave, anonymous_id=anonymous)
    assert merged.merged and not merged.created
    assert merged.customer.app_user_id == dave
    assert active_ids(merged.customer) == ["premium", "pro"]
    assert merged.customer.version == dave_version + 1

    assert ent.a.sync(anonymous).app_user_id == dave
    customer = ent.a_admin.customer(dave)
    assert list(customer.aliases) == [anonymous]
    assert sorted(g.grant_id for g in customer.grants) == sorted([dave_grant.grant_id, anonymous_grant.grant_id])
    newest = ent.a_admin.events_page(dave, page_size=1).events[0]
    assert newest.cause == CAUSE["MERGED"]
    assert newest.change == STATUS_CHANGED
    assert newest.related_app_user_id == anonymous
    # The moved grant now belongs to dave.
    revoked = ent.a_admin.revoke(anonymous_grant.grant_id)
    assert revoked.app_user_id == dave
    assert active_ids(ent.a.sync(dave)) == ["pro"]


def test_anonymous_customer_without_history_is_not_merged_into_existing_user(ent):
    frank, anonymous = unique_id("frank"), anon_id()
    ent.a.identify(frank)
    assert ent.a.identify(anonymous).created
    result = ent.a.identify(frank, anonymous_id=anonymous)
    assert not result.merged and result.customer.app_user_id == frank
    assert ent.a.sync(anonymous).app_user_id == anonymous


def test_two_anonymous_ids_are_never_merged(ent):
    first, second = anon_id(), anon_id()
    ent.a_admin.grant(second, "pro")
    result = ent.a.identify(first, anonymous_id=second)
    assert not result.merged
    assert result.customer.app_user_id == first
    assert result.customer.status.state == INACTIVE
    assert ent.a.sync(second).app_user_id == second


@pytest.mark.parametrize("anonymous_id", ["bob", "null", "$anon:", "$ANON:x", "anon:x", "$anon:undefined", " $anon:x"])
def test_identify_with_a_non_anonymous_anonymous_id_is_invalid_argument(ent, anonymous_id):
    user = unique_id()
    ent.a.identify("bob-" + user)
    error = ent.a.error("Identify", app_user_id=user, anonymous_id=anonymous_id)
    assert_code(error, Code.INVALID_ARGUMENT)
    assert ent.a.is_unknown(user)


# --------------------------------------------------------------------------------------------------
# Grants


def test_grant_with_duration(ent):
    user = unique_id()
    before = time.time()
    grant = ent.a_admin.grant(user, "pro", duration=3600, reason="support ticket 42")
    after = time.time()
    assert grant.grant_id
    assert grant.app_user_id == user
    assert grant.entitlement_id == "pro"
    assert grant.reason == "support ticket 42"
    assert not grant.HasField("revoked_at") and grant.revocation_reason == ""
    assert before - 2 <= ts_seconds(grant.starts_at) <= after + 2
    assert ts_millis(grant.expires_at) - ts_millis(grant.starts_at) == 3_600_000

    status = ent.a.sync(user)
    assert status.status.state == ACTIVE
    assert len(status.status.entitlements) == 1
    entitlement = status.status.entitlements[0]
    assert entitlement.id == "pro"
    assert entitlement.source == STORE_GRANT
    assert entitlement.product_id == ""
    assert ts_millis(entitlement.expires_at) == ts_millis(grant.expires_at)

    customer = ent.a_admin.customer(user)
    assert [g.grant_id for g in customer.grants] == [grant.grant_id]
    assert ts_millis(customer.grants[0].expires_at) == ts_millis(grant.expires_at)
    assert customer.grants[0].reason == "support ticket 42"
    assert customer.customer.version == status.version


def test_grant_with_expires_at(ent):
    user = unique_id()
    expires = round(time.time() + 7200.25, 3)
    grant = ent.a_admin.grant(user, "premium", expires_at=expires)
    assert ts_millis(grant.expires_at) == round(expires * 1000)
    status = ent.a.sync(user)
    assert active_ids(status) == ["premium"]
    assert ts_millis(status.status.entitlements[0].expires_at) == round(expires * 1000)


def test_grant_without_expiry_is_lifetime(ent):
    user = unique_id()
    grant = ent.a_admin.grant(user, "pro")
    assert not grant.HasField("expires_at")
    status = ent.a.sync(user)
    assert active_ids(status) == ["pro"]
    assert not status.status.entitlements[0].HasField("expires_at")


def test_entitlement_declared_only_by_a_product_may_be_granted(ent):
    user = unique_id()
    ent.a_admin.grant(user, "family")
    assert active_ids(ent.a.sync(user)) == ["family"]


def test_several_entitlements_are_listed_by_id(ent):
    user = unique_id()
    for entitlement in ["pro", "premium", "family"]:
        ent.a_admin.grant(user, entitlement, duration=600)
    assert active_ids(ent.a.sync(user)) == ["family", "premium", "pro"]


INVALID_GRANTS = {
    "both expires_at and duration": dict(entitlement_id="pro", duration=60, expires_at=time.time() + 3600),
    "undeclared entitlement": dict(entitlement_id="gold"),
    "other tenant's entitlement": dict(entitlement_id="b_only"),
    "empty entitlement": dict(entitlement_id=""),
    "expires_at in the past": dict(entitlement_id="pro", expires_at=time.time() - 60),
    "zero duration": dict(entitlement_id="pro", duration=0),
    "negative duration": dict(entitlement_id="pro", duration=-5),
}


@pytest.mark.parametrize("name", list(INVALID_GRANTS))
def test_invalid_grant_is_invalid_argument_and_writes_nothing(ent, name):
    user = unique_id()
    spec = dict(INVALID_GRANTS[name])
    entitlement = spec.pop("entitlement_id")
    request = ent.a_admin.grant_request(user, entitlement, **spec)
    if name == "zero duration":
        # A zero Duration message is still set (HasField): the server must see "duration: 0s", not "no duration".
        request.duration.SetInParent()
    assert_code(ent.a_admin.error("GrantEntitlement", request), Code.INVALID_ARGUMENT)
    assert_not_found(ent.a_admin, user)


def test_invalid_grant_to_existing_customer_changes_nothing(ent):
    user = unique_id()
    ent.a.identify(user)
    assert_code(ent.a_admin.error("GrantEntitlement", ent.a_admin.grant_request(user, "gold")), Code.INVALID_ARGUMENT)
    assert ent.a.sync(user).version == 1
    assert list(ent.a_admin.customer(user).grants) == []


def test_grant_to_undeclared_entitlement_allowed_in_other_tenant(ent):
    user = unique_id()
    assert ent.b_admin.grant(user, "b_only").entitlement_id == "b_only"
    assert active_ids(ent.b.sync(user)) == ["b_only"]


def test_idempotency_key_retry_returns_the_same_grant(ent):
    user, key = unique_id(), unique_id("idem")
    first = ent.a_admin.grant(user, "pro", duration=600, idempotency_key=key)
    version = ent.a.sync(user).version
    events = len(ent.a_admin.all_events(user))
    time.sleep(0.05)
    second = ent.a_admin.grant(user, "pro", duration=600, idempotency_key=key)
    assert second.grant_id == first.grant_id
    assert ts_millis(second.starts_at) == ts_millis(first.starts_at)
    assert ts_millis(second.expires_at) == ts_millis(first.expires_at)
    assert ent.a.sync(user).version == version
    assert len(ent.a_admin.all_events(user)) == events
    assert len(ent.a_admin.customer(user).grants) == 1
    # A different key is a different grant.
    third = ent.a_admin.grant(user, "pro", duration=600, idempotency_key=key + "-2")
    assert third.grant_id != first.grant_id
    assert ent.a.sync(user).version == version + 1


def test_idempotency_key_reused_for_a_different_grant_is_failed_precondition(ent):
    user, other, key = unique_id(), unique_id(), unique_id("idem")
    first = ent.a_admin.grant(user, "pro", idempotency_key=key)
    version = ent.a.sync(user).version
    error = ent.a_admin.error("GrantEntitlement", ent.a_admin.grant_request(user, "premium", idempotency_key=key))
    assert_code(error, Code.FAILED_PRECONDITION)
    error = ent.a_admin.error("GrantEntitlement", ent.a_admin.grant_request(other, "pro", idempotency_key=key))
    assert_code(error, Code.FAILED_PRECONDITION)
    assert_not_found(ent.a_admin, other)
    assert ent.a.sync(user).version == version
    assert [g.grant_id for g in ent.a_admin.customer(user).grants] == [first.grant_id]


def test_idempotent_retry_through_an_alias_returns_the_grant_under_the_canonical_id(ent):
    anonymous, alice, key = anon_id(), unique_id("alice"), unique_id("idem")
    first = ent.a_admin.grant(anonymous, "pro", idempotency_key=key)
    assert ent.a.identify(alice, anonymous_id=anonymous).merged
    retry = ent.a_admin.grant(anonymous, "pro", idempotency_key=key)
    assert retry.grant_id == first.grant_id
    assert retry.app_user_id == alice
    assert len(ent.a_admin.customer(alice).grants) == 1


def test_revoke_grant(ent):
    user = unique_id()
    grant = ent.a_admin.grant(user, "pro")
    version = ent.a.sync(user).version
    before = time.time()
    revoked = ent.a_admin.revoke(grant.grant_id, reason="refund")
    assert revoked.grant_id == grant.grant_id
    assert revoked.app_user_id == user
    assert revoked.HasField("revoked_at")
    assert before - 2 <= ts_seconds(revoked.revoked_at) <= time.time() + 2
    assert revoked.revocation_reason == "refund"
    status = ent.a.sync(user)
    assert status.status.state == INACTIVE and list(status.status.entitlements) == []
    assert status.version == version + 1
    stored = ent.a_admin.customer(user).grants[0]
    assert ts_millis(stored.revoked_at) == ts_millis(revoked.revoked_at)
    assert stored.revocation_reason == "refund"

    # Twice: the same grant, unchanged, and no new event.
    again = ent.a_admin.revoke(grant.grant_id, reason="another reason")
    assert again.grant_id == grant.grant_id
    assert ts_millis(again.revoked_at) == ts_millis(revoked.revoked_at)
    assert again.revocation_reason == "refund"
    assert ent.a.sync(user).version == version + 1


def test_revoke_unknown_or_empty_grant(ent):
    assert_code(ent.a_admin.error("RevokeGrant", grant_id="gr_doesnotexist000000000000"), Code.NOT_FOUND)
    assert_code(ent.a_admin.error("RevokeGrant", grant_id=""), Code.INVALID_ARGUMENT)


def test_longest_lasting_source_is_reported(ent):
    user = unique_id()
    hour = ent.a_admin.grant(user, "pro", duration=3600)
    lifetime = ent.a_admin.grant(user, "pro")
    day = ent.a_admin.grant(user, "pro", duration=86400)
    status = ent.a.sync(user)
    assert active_ids(status) == ["pro"]
    assert not status.status.entitlements[0].HasField("expires_at")
    ent.a_admin.revoke(lifetime.grant_id)
    assert ts_millis(ent.a.sync(user).status.entitlements[0].expires_at) == ts_millis(day.expires_at)
    ent.a_admin.revoke(day.grant_id)
    assert ts_millis(ent.a.sync(user).status.entitlements[0].expires_at) == ts_millis(hour.expires_at)


# --------------------------------------------------------------------------------------------------
# Versions and events


def test_versions_and_events(ent):
    user = unique_id()
    admin = ent.a_admin
    expected = []  # (version, cause, change or None, reference, reason or None)

    def check_version(version):
        assert ent.a.sync(user).version == version
        assert admin.customer(user).customer.version == version

    ent.a.identify(user)
    check_version(1)
    expected.append((1, "CREATED", None, "", None))

    hour = admin.grant(user, "pro", duration=3600, reason="r-hour")
    check_version(2)
    expected.append((2, "GRANT", STATUS_CHANGED, hour.grant_id, "r-hour"))

    two_hours = admin.grant(user, "pro", duration=7200, reason="r-two-hours")
    check_version(3)
    expected.append((3, "GRANT", CUSTOMER_INFO_CHANGED, two_hours.grant_id, "r-two-hours"))

    premium = admin.grant(user, "premium", reason="r-premium")
    check_version(4)
    expected.append((4, "GRANT", STATUS_CHANGED, premium.grant_id, "r-premium"))

    admin.revoke(premium.grant_id, reason="r-revoke-premium")
    check_version(5)
    expected.append((5, "REVOKE", STATUS_CHANGED, premium.grant_id, "r-revoke-premium"))

    admin.revoke(two_hours.grant_id, reason="r-revoke-two-hours")
    check_version(6)
    expected.append((6, "REVOKE", CUSTOMER_INFO_CHANGED, two_hours.grant_id, "r-revoke-two-hours"))

    admin.revoke(hour.grant_id, reason="r-revoke-hour")
    check_version(7)
    expected.append((7, "REVOKE", STATUS_CHANGED, hour.grant_id, "r-revoke-hour"))

    # Paging with page_size=2, newest first.
    pages, token = [], ""
    for _ in range(10):
        page = admin.events_page(user, page_size=2, page_token=token)
        pages.append([event.version for event in page.events])
        token = page.next_page_token
        if not token:
            break
    assert pages == [[7, 6], [5, 4], [3, 2], [1]]

    events = admin.events_page(user).events
    assert [event.version for event in events] == [7, 6, 5, 4, 3, 2, 1]
    by_version = {event.version: event for event in events}
    for version, cause, change, reference, reason in expected:
        event = by_version[version]
        assert event.cause == CAUSE[cause], (version, event)
        if change is not None:
            assert event.change == change, (version, event)
        assert event.reference_id == reference, (version, event)
        if reason is not None:
            assert event.reason == reason, (version, event)
        assert event.HasField("occurred_at")
    occurred = [ts_millis(by_version[v].occurred_at) for v in range(1, 8)]
    assert occurred == sorted(occurred)
    # The status each event records.
    assert [e.id for e in by_version[4].status.entitlements] == ["premium", "pro"]
    assert by_version[4].status.state == ACTIVE
    assert ts_millis(by_version[3].status.entitlements[0].expires_at) == ts_millis(two_hours.expires_at)
    assert ts_millis(by_version[6].status.entitlements[0].expires_at) == ts_millis(hour.expires_at)
    assert by_version[7].status.state == INACTIVE and list(by_version[7].status.entitlements) == []


def test_list_events_page_size_larger_than_history(ent):
    user = unique_id()
    ent.a_admin.grant(user, "pro")
    page = ent.a_admin.events_page(user, page_size=100_000)
    assert [event.version for event in page.events] == [2, 1]
    assert page.next_page_token == ""


@pytest.mark.parametrize("token", ["garbage", "v0", "v", "v-1", "vabc", "12", "v99999999999999999999999"])
def test_list_events_bad_page_token_is_invalid_argument(ent, token):
    user = unique_id()
    ent.a_admin.grant(user, "pro")
    error = ent.a_admin.error("ListCustomerEvents", app_user_id=user, page_size=2, page_token=token)
    assert_code(error, Code.INVALID_ARGUMENT)


@pytest.mark.parametrize("page_size", [-1, -100, -(2**31)])
def test_list_events_page_size_zero_or_less_means_the_default(ent, page_size):
    # admin_service.proto: "0 or less means the server default" (50 events).
    user = unique_id()
    for _ in range(55):
        ent.a_admin.grant(user, "pro", duration=3600)
    default = ent.a_admin.events_page(user, page_size=0)
    page = ent.a_admin.events_page(user, page_size=page_size)
    assert len(page.events) == len(default.events) == 50
    assert [event.version for event in page.events] == [event.version for event in default.events]
    assert page.next_page_token == default.next_page_token != ""


# --------------------------------------------------------------------------------------------------
# Times outside protobuf's range, and error messages that quote long input

MAX_TIMESTAMP_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z
MIN_TIMESTAMP_SECONDS = -62_135_596_800  # 0001-01-01T00:00:00Z
MAX_DURATION_SECONDS = 315_576_000_000  # 10,000 years


def _raw_grant(ent, user, *, expires=None, duration=None):
    request = ent.a_admin.request("GrantEntitlement", app_user_id=user, entitlement_id="pro")
    if expires is not None:
        request.expires_at.seconds, request.expires_at.nanos = expires
    if duration is not None:
        request.duration.seconds, request.duration.nanos = duration
    return request


OUT_OF_RANGE_GRANTS = {
    "largest legal duration": dict(duration=(MAX_DURATION_SECONDS, 999_999_999), field="duration"),
    "duration beyond 10,000 years": dict(duration=(MAX_DURATION_SECONDS + 1, 0), field="duration"),
    "duration with nanos of the other sign": dict(duration=(60, -5), field="duration"),
    "duration nanos out of range": dict(duration=(60, 1_000_000_000), field="duration"),
    "duration ending just past 9999": dict(duration=None, field="duration"),  # computed from now below
    "expires_at in year 10000": dict(expires=(MAX_TIMESTAMP_SECONDS + 1, 0), field="expires_at"),
    "expires_at nanos out of range": dict(expires=(2_000_000_000, 1_000_000_000), field="expires_at"),
    "expires_at negative nanos": dict(expires=(2_000_000_000, -1), field="expires_at"),
    "expires_at before year 1": dict(expires=(MIN_TIMESTAMP_SECONDS - 1, 0), field="expires_at"),
    "expires_at largest int64": dict(expires=(2**63 - 1, 0), field="expires_at"),
}


@pytest.mark.parametrize("name", list(OUT_OF_RANGE_GRANTS))
def test_times_outside_protobuf_range_are_invalid_argument_and_change_nothing(ent, name):
    spec = dict(OUT_OF_RANGE_GRANTS[name])
    field = spec.pop("field")
    if name == "duration ending just past 9999":
        spec["duration"] = (MAX_TIMESTAMP_SECONDS - int(time.time()) + 60, 0)
    user = unique_id()
    ent.a.identify(user)
    error = ent.a_admin.error("GrantEntitlement", _raw_grant(ent, user, **spec))
    assert_code(error, Code.INVALID_ARGUMENT)
    assert field in error.details()
    assert ent.a.sync(user).version == 1
    assert list(ent.a_admin.customer(user).grants) == []


def test_the_latest_representable_expiry_is_accepted_and_served(ent):
    user = unique_id()
    grant = ent.a_admin.call("GrantEntitlement", _raw_grant(ent, user, expires=(MAX_TIMESTAMP_SECONDS, 999_000_000)))
    assert grant.expires_at.seconds == MAX_TIMESTAMP_SECONDS
    status = ent.a.sync(user)
    assert status.status.entitlements[0].expires_at.ToDatetime().year == 9999
    # A duration that ends a minute before the limit is fine too.
    other = unique_id()
    seconds = MAX_TIMESTAMP_SECONDS - int(time.time()) - 60
    ent.a_admin.call("GrantEntitlement", _raw_grant(ent, other, duration=(seconds, 0)))
    assert ent.a.sync(other).status.entitlements[0].expires_at.ToDatetime().year == 9999


LONG_INPUTS = {
    "RevokeGrant grant_id 100,000 bytes": ("RevokeGrant", dict(grant_id="g" * 100_000)),
    "RevokeGrant grant_id 9 KB": ("RevokeGrant", dict(grant_id="g" * 9_000)),
    "ListCustomerEvents page_token 100 KB": ("ListCustomerEvents", dict(app_user_id="someone", page_token="v" + "9" * 100_000)),
    "GetCustomer app_user_id 100 KB": ("GetCustomer", dict(app_user_id="u" * 100_000)),
    "GrantEntitlement entitlement_id 100 KB": ("GrantEntitlement", dict(app_user_id="someone", entitlement_id="e" * 100_000)),
    "GrantEntitlement idempotency_key 100 KB": (
        "GrantEntitlement", dict(app_user_id="someone", entitlement_id="pro", idempotency_key="k" * 100_000)),
}


@pytest.mark.parametrize("name", list(LONG_INPUTS))
def test_long_input_gets_a_bounded_message_within_the_deadline(ent, name):
    # grpc C-core and grpc-java refuse trailers over 8 KiB (RESOURCE_EXHAUSTED): the message must stay small, and
    # the call must end long before its deadline.
    method, fields = LONG_INPUTS[name]
    started = time.monotonic()
    error = ent.a_admin.error(method, timeout=5, **fields)
    assert time.monotonic() - started < 4
    assert error.code() == Code.INVALID_ARGUMENT, error.details()
    assert len(error.details().encode()) <= 1024


def test_concurrent_grants_get_consecutive_versions(ent):
    user, count = unique_id(), 24
    ent.a.identify(user)
    stream = ent.a.stream(user)
    assert stream.next().kind == SNAPSHOT
    errors: list[BaseException] = []

    def grant(index):
        try:
            ent.a_admin.grant(user, "pro", duration=3600 + index)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=grant, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=RPC_TIMEOUT)
    assert not errors, errors
    final = count + 1
    assert ent.a.sync(user).version == final
    assert sorted(e.version for e in ent.a_admin.all_events(user)) == list(range(1, final + 1))
    # The stream sees the versions in order (slow readers may get coalesced updates), ending at the final one.
    seen = []
    while not seen or seen[-1] < final:
        seen.append(stream.next().customer.version)
    assert seen == sorted(set(seen)), seen


# --------------------------------------------------------------------------------------------------
# StreamStatus


def test_stream_snapshot_then_grant_then_expiry_then_info_change(ent):
    user = unique_id()
    ent.a.identify(user)
    stream = ent.a.stream(user)
    snapshot = stream.next()
    assert snapshot.kind == SNAPSHOT
    assert snapshot.customer.app_user_id == user
    assert snapshot.customer.version == 1
    assert snapshot.customer.status.state == INACTIVE

    # A grant made on another connection.
    admin = ent.api(ent.tenant_a.secret_key, ent.channel())
    grant = admin.grant(user, "pro", duration=2, reason="two seconds")
    returned = time.time()
    arrived, event = stream.next_timed()
    assert event.kind == STATUS_CHANGED, describe_event(event)
    assert event.customer.version == 2
    assert event.customer.app_user_id == user
    assert active_ids(event.customer) == ["pro"]
    assert ts_millis(event.customer.status.entitlements[0].expires_at) == ts_millis(grant.expires_at)
    assert arrived - returned < 1.0, f"push took {arrived - returned:.3f}s after GrantEntitlement returned"

    # Expiry by time alone, with no call: within about a second of expires_at.
    expires = ts_seconds(grant.expires_at)
    arrived, event = stream.next_timed(timeout=max(0.0, expires - time.time()) + 5)
    assert event.kind == STATUS_CHANGED, describe_event(event)
    assert event.customer.version == 3
    assert event.customer.status.state == INACTIVE and list(event.customer.status.entitlements) == []
    assert arrived - expires <= 1.0, f"expiry pushed {arrived - expires:.3f}s after expires_at"
    assert ts_millis(event.customer.server_time) >= ts_millis(grant.expires_at)
    assert arrived >= expires - 0.05, f"expiry pushed {expires - arrived:.3f}s before expires_at"
    newest = ent.a_admin.events_page(user, page_size=1).events[0]
    assert newest.version == 3 and newest.cause == CAUSE["EXPIRY"] and newest.change == STATUS_CHANGED

    # A grant, then a second one of the same entitlement that moves the expiry: the set stays {pro}.
    hour = admin.grant(user, "pro", duration=3600)
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.version == 4
    assert ts_millis(event.customer.status.entitlements[0].expires_at) == ts_millis(hour.expires_at)
    day = admin.grant(user, "pro", duration=86400)
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, describe_event(event)
    assert event.customer.version == 5
    assert active_ids(event.customer) == ["pro"]
    assert ts_millis(event.customer.status.entitlements[0].expires_at) == ts_millis(day.expires_at)
    stream.expect_quiet(0.3)


def test_expiry_without_streams_is_recorded_and_read(ent):
    user = unique_id()
    grant = ent.a_admin.grant(user, "pro", duration=1)
    assert active_ids(ent.a.sync(user)) == ["pro"]
    time.sleep(max(0.0, ts_seconds(grant.expires_at) - time.time()) + 0.05)
    status = ent.a.sync(user)
    assert status.status.state == INACTIVE, "SyncStatus must recompute status at read time"
    deadline = time.time() + 5
    while time.time() < deadline:
        newest = ent.a_admin.events_page(user, page_size=1).events[0]
        if newest.cause == CAUSE["EXPIRY"]:
            break
        time.sleep(0.05)
    assert newest.cause == CAUSE["EXPIRY"] and newest.version == 3
    assert ent.a.sync(user).version == 3


def test_stream_pushes_to_every_stream_on_every_connection(ent):
    user = unique_id()
    ent.a.identify(user)
    streams = [ent.a.stream(user), ent.api(ent.tenant_a.public_key, ent.channel()).stream(user),
               ent.api(ent.tenant_a.public_keys[1], ent.channel()).stream(user)]
    for stream in streams:
        assert stream.next().kind == SNAPSHOT
    ent.a_admin.grant(user, "premium")
    for stream in streams:
        event = stream.next()
        assert event.kind == STATUS_CHANGED and event.customer.version == 2


def test_stream_opened_under_an_alias_gets_the_canonical_customers_events(ent):
    anonymous, carol = anon_id(), unique_id("carol")
    ent.a_admin.grant(anonymous, "pro")
    assert ent.a.identify(carol, anonymous_id=anonymous).merged
    stream = ent.a.stream(anonymous)
    snapshot = stream.next()
    assert snapshot.kind == SNAPSHOT
    assert snapshot.customer.app_user_id == carol
    assert active_ids(snapshot.customer) == ["pro"]
    version = snapshot.customer.version

    ent.a_admin.grant(carol, "premium")
    event = stream.next()
    assert event.kind == STATUS_CHANGED
    assert event.customer.app_user_id == carol
    assert event.customer.version == version + 1
    assert active_ids(event.customer) == ["premium", "pro"]

    ent.a_admin.grant(anonymous, "family")
    event = stream.next()
    assert event.customer.app_user_id == carol and event.customer.version == version + 2


def test_stream_of_an_anonymous_customer_follows_it_into_a_merge(ent):
    dave, anonymous = unique_id("dave"), anon_id()
    ent.a.identify(dave)
    ent.a_admin.grant(dave, "pro")
    ent.a_admin.grant(anonymous, "premium")
    anonymous_stream = ent.a.stream(anonymous)
    first = anonymous_stream.next()
    assert first.kind == SNAPSHOT and first.customer.app_user_id == anonymous
    dave_stream = ent.a.stream(dave)
    assert dave_stream.next().kind == SNAPSHOT

    merged = ent.a.identify(dave, anonymous_id=anonymous)
    assert merged.merged
    event = dave_stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.version == merged.customer.version
    assert active_ids(event.customer) == ["premium", "pro"]

    # The anonymous stream now follows dave. The entitlements were never lost, so the stream must not report the
    # anonymous customer as INACTIVE on the way.
    event = anonymous_stream.next()
    assert event.customer.app_user_id == dave, (
        f"first event after the merge on the anonymous ID's stream is {describe_event(event)}; "
        "expected the canonical customer (dave) with premium and pro"
    )
    assert active_ids(event.customer) == ["premium", "pro"]
    ent.a_admin.grant(dave, "family")
    event = anonymous_stream.next()
    assert event.customer.app_user_id == dave
    assert active_ids(event.customer) == ["family", "premium", "pro"]


def _customer_with_history(ent) -> tuple[str, list]:
    """A customer at version 6 with a mix of changes; its events oldest first."""
    user = unique_id()
    ent.a.identify(user)
    hour = ent.a_admin.grant(user, "pro", duration=3600)
    ent.a_admin.grant(user, "pro", duration=7200)
    premium = ent.a_admin.grant(user, "premium")
    ent.a_admin.revoke(premium.grant_id)
    ent.a_admin.revoke(hour.grant_id)
    events = list(reversed(ent.a_admin.all_events(user)))
    assert [e.version for e in events] == [1, 2, 3, 4, 5, 6]
    return user, events


@pytest.mark.parametrize("after_version", [1, 2, 4, 5])
def test_stream_resume_replays_exactly_the_events_after_the_version(ent, after_version):
    user, events = _customer_with_history(ent)
    stream = ent.a.stream(user, after_version=after_version)
    for recorded in events[after_version:]:
        event = stream.next()
        assert event.kind == recorded.change, (describe_event(event), recorded)
        assert event.customer.version == recorded.version
        assert event.customer.app_user_id == user
        assert [e.id for e in event.customer.status.entitlements] == [e.id for e in recorded.status.entitlements]
        # The status as it was then, stamped with when it was: not the time of the replay.
        assert event.customer.server_time == recorded.occurred_at, (describe_event(event), recorded)
    stream.expect_quiet(0.3)
    ent.a_admin.grant(user, "family")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.version == 7


def test_stream_resume_at_current_version_sends_nothing_stale(ent):
    user, _ = _customer_with_history(ent)
    stream = ent.a.stream(user, after_version=6)
    ent.a_admin.grant(user, "family")
    event = stream.next()
    if event.kind == SNAPSHOT:  # a snapshot of the current state is allowed first (see StreamStatusRequest)
        assert event.customer.version in (6, 7)
        if event.customer.version == 6:
            event = stream.next()
    if event.kind != SNAPSHOT:
        assert event.kind == STATUS_CHANGED and event.customer.version == 7, describe_event(event)
    stream.expect_quiet(0.3)


def test_stream_resumed_up_to_date_answers_its_headers_at_once(ent):
    """Nothing to replay and nothing changing: the response headers come all the same, so a device that reconnected
    knows its stream is subscribed without waiting for the next change."""
    user, _ = _customer_with_history(ent)
    stream = ent.a.stream(user, after_version=6)
    headers = []
    reader = threading.Thread(target=lambda: headers.append(stream.call.initial_metadata()), daemon=True)
    reader.start()
    reader.join(timeout=5)
    assert headers, "no response headers within 5 s of a resume with nothing to send"
    stream.expect_quiet(0.3)


def test_stream_resume_under_an_alias_reports_the_canonical_id(ent):
    anonymous, erin = anon_id(), unique_id("erin")
    ent.a_admin.grant(anonymous, "pro")  # v1 created, v2 grant
    assert ent.a.identify(erin, anonymous_id=anonymous).merged  # v3
    stream = ent.a.stream(anonymous, after_version=1)
    versions = []
    for _ in range(2):
        event = stream.next()
        assert event.customer.app_user_id == erin, describe_event(event)
        versions.append(event.customer.version)
    assert versions == [2, 3]


@pytest.mark.parametrize("after_version", [0, 100, 2**64 - 1])
def test_stream_without_replay_starts_with_a_snapshot(ent, after_version):
    user, _ = _customer_with_history(ent)
    stream = ent.a.stream(user, after_version=after_version)
    event = stream.next()
    assert event.kind == SNAPSHOT
    assert event.customer.version == 6
    stream.expect_quiet(0.3)


def test_stream_of_unknown_user_is_not_found(ent):
    assert_code(ent.a.error("StreamStatus", app_user_id=unique_id()), Code.NOT_FOUND)
    assert_code(ent.a.error("StreamStatus", app_user_id=anon_id()), Code.NOT_FOUND)


def test_stream_limit_per_customer(ent):
    user = unique_id()
    ent.a.identify(user)
    apis = [ent.api(ent.tenant_a.public_key, ent.channel()) for _ in range(2)]
    streams = []
    for index in range(STREAMS_PER_CUSTOMER):
        stream = apis[index % 2].stream(user)
        assert stream.next().kind == SNAPSHOT, f"stream {index + 1} of {STREAMS_PER_CUSTOMER}"
        streams.append(stream)
    assert_code(ent.a.error("StreamStatus", app_user_id=user), Code.RESOURCE_EXHAUSTED)
    # Other customers are unaffected.
    other = unique_id()
    ent.a.identify(other)
    assert ent.a.stream(other).next().kind == SNAPSHOT
    # The open streams still work.
    ent.a_admin.grant(user, "pro")
    for stream in streams:
        assert stream.next().kind == STATUS_CHANGED
    # Closing one frees its slot.
    streams[0].cancel()
    deadline = time.monotonic() + 5
    while True:
        replacement = ent.a.stream(user)
        try:
            _, item = replacement._queue.get(timeout=RPC_TIMEOUT)
        except Exception:  # noqa: BLE001
            pytest.fail("replacement stream neither failed nor sent anything")
        if not isinstance(item, grpc.RpcError):
            assert item.kind == SNAPSHOT
            break
        assert_code(item, Code.RESOURCE_EXHAUSTED)
        assert time.monotonic() < deadline, "a cancelled stream's slot was not freed within 5s"
        time.sleep(0.1)


def test_stream_limit_counts_streams_opened_under_aliases(ent):
    anonymous, gina = anon_id(), unique_id("gina")
    ent.a_admin.grant(anonymous, "pro")
    assert ent.a.identify(gina, anonymous_id=anonymous).merged
    api = ent.api(ent.tenant_a.public_key, ent.channel())
    for index in range(STREAMS_PER_CUSTOMER):
        assert api.stream(gina if index % 2 else anonymous).next().kind == SNAPSHOT
    assert_code(ent.a.error("StreamStatus", app_user_id=anonymous), Code.RESOURCE_EXHAUSTED)
    assert_code(ent.a.error("StreamStatus", app_user_id=gina), Code.RESOURCE_EXHAUSTED)


# --------------------------------------------------------------------------------------------------
# Tenant isolation


def test_same_app_user_id_in_two_tenants_is_two_customers(ent):
    user = unique_id()
    assert ent.b.identify(user).created
    b_grant = ent.b_admin.grant(user, "pro", reason="tenant b")
    assert active_ids(ent.b.sync(user)) == ["pro"]  # B's status is now cached too

    # A has never seen the user.
    assert ent.a.is_unknown(user)
    assert_not_found(ent.a_admin, user)
    assert_code(ent.a_admin.error("ListCustomerEvents", app_user_id=user), Code.NOT_FOUND)
    assert_code(ent.a.error("StreamStatus", app_user_id=user), Code.NOT_FOUND)

    # A's customer with the same ID is a new one, and what happens in B never reaches it.
    identified = ent.a.identify(user)
    assert identified.created and identified.customer.version == 1
    assert identified.customer.status.state == INACTIVE
    a_stream = ent.a.stream(user)
    assert a_stream.next().customer.version == 1
    b_stream = ent.b.stream(user)
    assert b_stream.next().customer.version == 2
    ent.b_admin.grant(user, "premium")
    assert b_stream.next().customer.version == 3
    a_stream.expect_quiet(0.5)
    assert ent.a.sync(user).status.state == INACTIVE
    customer = ent.a_admin.customer(user)
    assert list(customer.grants) == [] and customer.customer.version == 1
    assert [e.version for e in ent.a_admin.all_events(user)] == [1]

    # And the other way round.
    ent.a_admin.grant(user, "family")
    assert a_stream.next().customer.version == 2
    b_stream.expect_quiet(0.5)
    assert active_ids(ent.b.sync(user)) == ["premium", "pro"]
    assert [g.grant_id for g in ent.b_admin.customer(user).grants][0] == b_grant.grant_id


def test_revoke_of_another_tenants_grant_is_not_found(ent):
    user = unique_id()
    b_grant = ent.b_admin.grant(user, "pro")
    ent.a_admin.grant(user, "pro")
    assert_code(ent.a_admin.error("RevokeGrant", grant_id=b_grant.grant_id), Code.NOT_FOUND)
    assert active_ids(ent.b.sync(user)) == ["pro"]
    assert not ent.b_admin.customer(user).grants[0].HasField("revoked_at")
    assert ent.b.sync(user).version == 2
    assert active_ids(ent.a.sync(user)) == ["pro"]


def test_idempotency_keys_are_per_tenant(ent):
    user, key = unique_id(), unique_id("idem")
    b_grant = ent.b_admin.grant(user, "b_only", idempotency_key=key)
    a_grant = ent.a_admin.grant(user, "pro", idempotency_key=key)
    assert a_grant.grant_id != b_grant.grant_id
    assert a_grant.entitlement_id == "pro"
    assert active_ids(ent.a.sync(user)) == ["pro"]
    assert active_ids(ent.b.sync(user)) == ["b_only"]
    # A different user in A may use a key that B used for someone else.
    other, other_key = unique_id(), unique_id("idem")
    ent.b_admin.grant(user, "pro", idempotency_key=other_key)
    assert ent.a_admin.grant(other, "pro", idempotency_key=other_key).app_user_id == other


def test_identify_never_merges_or_resolves_across_tenants(ent):
    anonymous, bob_b, alice_a = anon_id(), unique_id("bob"), unique_id("alice")
    ent.b_admin.grant(anonymous, "pro")
    assert ent.b.identify(bob_b, anonymous_id=anonymous).merged
    # In A, the anonymous ID is unknown: not an alias of B's bob.
    assert ent.a.is_unknown(anonymous)
    result = ent.a.identify(alice_a, anonymous_id=anonymous)
    assert not result.merged and result.created
    assert result.customer.status.state == INACTIVE
    # B is unchanged.
    assert ent.b.sync(anonymous).app_user_id == bob_b
    assert active_ids(ent.b.sync(bob_b)) == ["pro"]
    # An anonymous customer with history in B is not merged by an Identify in A either.
    anonymous2 = anon_id()
    ent.b_admin.grant(anonymous2, "premium")
    ent.a.identify(alice_a, anonymous_id=anonymous2)
    assert ent.b.sync(anonymous2).app_user_id == anonymous2
    assert active_ids(ent.b.sync(anonymous2)) == ["premium"]
    assert ent.a.sync(alice_a).status.state == INACTIVE


def test_keys_of_one_tenant_only_reach_that_tenant(ent):
    user = unique_id()
    ent.b_admin.grant(user, "b_only")
    # B's entitlement is not declared in A, whatever customer is named.
    assert_code(ent.a_admin.error("GrantEntitlement", ent.a_admin.grant_request(user, "b_only")), Code.INVALID_ARGUMENT)
    # B's public key reads B, A's reads A.
    assert active_ids(ent.b.sync(user)) == ["b_only"]
    assert ent.a.is_unknown(user)


# --------------------------------------------------------------------------------------------------
# Reflection


def test_reflection_lists_entitlement_services(ent, protos):
    package = "grpc.reflection.v1"
    Request = protos.message(f"{package}.ServerReflectionRequest")
    Response = protos.message(f"{package}.ServerReflectionResponse")
    call = call_bidirectional(
        ent.server.channel(), f"/{package}.ServerReflection/ServerReflectionInfo",
        iter([Request(list_services=""), Request(file_containing_symbol=ADMIN_SERVICE),
              Request(file_containing_symbol=f"{ENTITLEMENT_SERVICE}.StreamStatus")]),
        Response,
    )
    listed, admin_file, entitlement_file = list(call)
    names = {service.name for service in listed.list_services_response.service}
    assert {ENTITLEMENT_SERVICE, ADMIN_SERVICE} <= names, names
    from google.protobuf import descriptor_pb2

    def services(response):
        assert response.WhichOneof("message_response") == "file_descriptor_response", response
        found = set()
        for raw in response.file_descriptor_response.file_descriptor_proto:
            file = descriptor_pb2.FileDescriptorProto.FromString(raw)
            found |= {f"{file.package}.{service.name}" for service in file.service}
        return found

    assert ADMIN_SERVICE in services(admin_file)
    assert ENTITLEMENT_SERVICE in services(entitlement_file)
