"""EntitlementService Purchase and Restore for the App Store, end to end through the real interop-server.

Tokens are signed at test time by `entctl dev sign-transaction` with a CA made by `entctl dev init`; the tenants
trust that CA's root for Sandbox only. Tenant A transfers purchases between users, B keeps them with their first
owner, C transfers only purchases that give their owner nothing now.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import grpc
import pytest

from appstore_support import (
    BUNDLE_ID, COINS, DAY_MS, LIFETIME, MONTHLY, PASS, PRODUCTS, SigningCA, StoreApi, StoreEnv, app_store_settings,
    payload,
)
from conftest import start_server
from entitlement_support import (
    ACTIVE, CAUSE, CUSTOMER_INFO_CHANGED, INACTIVE, SNAPSHOT, STATUS_CHANGED, Api, active_ids, new_tenant, rpc_error,
    sigkill, ts_millis, unique_id, write_tenants,
)

Code = grpc.StatusCode

APP_STORE_SOURCE = 1
XCODE_SAMPLE = Path(__file__).resolve().parent.parent / "Fixtures/apple/xcode/xcode-signed-transaction"
POLICIES = {"a": "transfer", "b": "keep_with_original", "c": "transfer_if_no_active"}


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("purchase-ca") / "ca")


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("purchase-other-ca") / "ca")


def store_tenant(name: str, ca: SigningCA):
    return new_tenant(f"store-{name}", entitlements=["pro", "premium"], products=dict(PRODUCTS),
                      app_store=app_store_settings(ca.root, POLICIES[name]))


@pytest.fixture(scope="module")
def store_tenants(ca):
    return {name: store_tenant(name, ca) for name in POLICIES}


@pytest.fixture(scope="module")
def store_server(tenants_server, tmp_path_factory, store_tenants):
    tenants_file = tmp_path_factory.mktemp("purchases") / "tenants.json"
    write_tenants(tenants_file, store_tenants.values())
    return tenants_server(tenants_file)


@pytest.fixture
def env(store_server, store_tenants, protos):
    environment = StoreEnv(store_server, store_tenants, protos)
    yield environment
    environment.close()


def assert_code(error: grpc.RpcError, code: grpc.StatusCode, *needles: str) -> None:
    assert error.code() == code, f"expected {code}, got {error.code()}: {error.details()}"
    for needle in needles:
        assert needle in (error.details() or ""), f"{needle!r} not in {error.details()!r}"


def assert_no_customer(admin: Api, app_user_id: str) -> None:
    error = rpc_error(lambda: admin.customer(app_user_id))
    assert_code(error, Code.NOT_FOUND)


def causes(admin: Api, app_user_id: str) -> list[str]:
    """Event causes, oldest first."""
    names = {value: name for name, value in CAUSE.items()}
    return [names.get(event.cause, str(event.cause)) for event in reversed(admin.all_events(app_user_id))]


def original_id(token: str) -> str:
    return payload(token)["originalTransactionId"]


# --------------------------------------------------------------------------------------------------
# Purchase: what each product type gives


def test_auto_renewable_purchase_grants_until_its_expiry(env, ca):
    user = unique_id()
    token = ca.sign(MONTHLY, "--expires", "+30d")
    assert env.a.is_unknown(user)
    response = env.a.purchase(user, token)
    customer = response.customer
    assert customer.app_user_id == user
    assert customer.status.state == ACTIVE
    assert active_ids(customer) == ["pro"]
    entitlement = customer.status.entitlements[0]
    assert entitlement.source == APP_STORE_SOURCE
    assert entitlement.product_id == MONTHLY
    assert entitlement.HasField("expires_at")
    assert ts_millis(entitlement.expires_at) == payload(token)["expiresDate"]
    assert entitlement.will_renew
    assert customer.version > 0
    assert response.transferred_from_app_user_id == ""
    synced = env.a.sync(user)
    assert synced.version == customer.version and active_ids(synced) == ["pro"]
    # Tenants are separate: B does not see A's customer.
    assert env.b.is_unknown(user)


def test_the_same_token_again_changes_nothing(env, ca):
    user = unique_id()
    token = ca.sign(MONTHLY)
    first = env.a.purchase(user, token).customer
    events = len(env.a_admin.all_events(user))
    again = env.a.purchase(user, token).customer
    assert again.version == first.version
    assert active_ids(again) == ["pro"]
    assert len(env.a_admin.all_events(user)) == events
    # Through Restore too.
    assert env.a.restore(user, [token]).customer.version == first.version
    assert len(env.a_admin.all_events(user)) == events


def test_an_older_signed_date_after_a_newer_one_changes_nothing(env, ca):
    user = unique_id()
    original = f"2000{int(time.time() * 1000) % 10**12:012d}"
    newer = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "2",
                    "--purchase-date", "-1d", "--expires", "+29d", "--signed-date", "-1m")
    older = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original,
                    "--purchase-date", "-40d", "--expires", "-10d", "--signed-date", "-39d")
    first = env.a.purchase(user, newer).customer
    assert first.status.state == ACTIVE
    events = len(env.a_admin.all_events(user))
    after = env.a.purchase(user, older).customer
    assert after.version == first.version, "an older signedDate changed the customer"
    assert after.status.state == ACTIVE and active_ids(after) == ["pro"]
    assert ts_millis(after.status.entitlements[0].expires_at) == payload(newer)["expiresDate"]
    assert len(env.a_admin.all_events(user)) == events


def test_a_newer_signed_date_after_an_older_one_applies(env, ca):
    user = unique_id()
    original = f"2001{int(time.time() * 1000) % 10**12:012d}"
    # StoreKit signs each copy when it hands it out: the older period here was signed after the newer one.
    older = ca.sign(MONTHLY, "--original-transaction-id", original, "--purchase-date", "-40d", "--expires", "-10d")
    newer = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "9",
                    "--purchase-date", "-1d", "--expires", "+29d", "--signed-date", "-1h")
    first = env.a.purchase(user, older).customer
    assert first.status.state == INACTIVE and active_ids(first) == []
    after = env.a.purchase(user, newer).customer
    assert after.version > first.version
    assert after.status.state == ACTIVE and active_ids(after) == ["pro"]
    assert ts_millis(after.status.entitlements[0].expires_at) == payload(newer)["expiresDate"]


def test_non_consumable_grants_for_life(env, ca):
    user = unique_id()
    customer = env.a.purchase(user, ca.sign(LIFETIME, "--type", "non-consumable")).customer
    assert customer.status.state == ACTIVE
    assert active_ids(customer) == ["premium"]
    entitlement = customer.status.entitlements[0]
    assert entitlement.source == APP_STORE_SOURCE and entitlement.product_id == LIFETIME
    assert not entitlement.HasField("expires_at")
    assert not entitlement.will_renew


def test_consumable_is_recorded_and_changes_no_status(env, ca):
    user = unique_id()
    before = env.a.purchase(user, ca.sign(MONTHLY)).customer
    after = env.a.purchase(user, ca.sign(COINS, "--type", "consumable")).customer
    assert after.status.state == ACTIVE and active_ids(after) == ["pro"]
    assert list(after.status.entitlements) == list(before.status.entitlements)
    newest = env.a_admin.all_events(user)[0]
    # Recorded (an event), but not a status change.
    assert newest.cause == CAUSE["PURCHASE"]
    assert newest.change == CUSTOMER_INFO_CHANGED, newest
    # A consumable alone gives nothing.
    alone = unique_id()
    customer = env.a.purchase(alone, ca.sign(COINS, "--type", "consumable")).customer
    assert customer.status.state == INACTIVE and active_ids(customer) == []


def test_non_renewing_grants_for_its_configured_duration(env, ca):
    user = unique_id()
    token = ca.sign(PASS, "--type", "non-renewing", "--purchase-date", "-1d")
    customer = env.a.purchase(user, token).customer
    assert customer.status.state == ACTIVE and active_ids(customer) == ["pro"]
    entitlement = customer.status.entitlements[0]
    assert ts_millis(entitlement.expires_at) == payload(token)["purchaseDate"] + 30 * DAY_MS
    assert not entitlement.will_renew
    # Bought 31 days ago: over.
    expired = env.a.purchase(unique_id(), ca.sign(PASS, "--type", "non-renewing", "--purchase-date", "-31d")).customer
    assert expired.status.state == INACTIVE


def test_a_refunded_transaction_gives_nothing(env, ca):
    user = unique_id()
    token = ca.sign(MONTHLY, "--purchase-date", "-2d", "--expires", "+28d", "--revocation-date", "-1h")
    customer = env.a.purchase(user, token).customer
    assert customer.status.state == INACTIVE
    assert active_ids(customer) == []
    lifetime = env.a.purchase(unique_id(), ca.sign(LIFETIME, "--type", "non-consumable",
                                                   "--revocation-date", "-1m")).customer
    assert lifetime.status.state == INACTIVE


def test_an_expired_subscription_gives_nothing(env, ca):
    customer = env.a.purchase(unique_id(), ca.sign(MONTHLY, "--purchase-date", "-40d", "--expires", "-10d")).customer
    assert customer.status.state == INACTIVE and active_ids(customer) == []


# --------------------------------------------------------------------------------------------------
# Purchase: refusals


def test_wrong_bundle_id_is_invalid_argument_naming_both(env, ca):
    user = unique_id()
    error = env.a.purchase_error(user, ca.sign(MONTHLY, bundle_id="com.other.app"))
    assert_code(error, Code.INVALID_ARGUMENT, BUNDLE_ID, "com.other.app")
    assert_no_customer(env.a_admin, user)


def test_production_token_for_a_sandbox_tenant_is_failed_precondition(env, ca):
    user = unique_id()
    error = env.a.purchase_error(user, ca.sign(MONTHLY, "--environment", "Production"))
    assert_code(error, Code.FAILED_PRECONDITION, "Production", "Sandbox")
    assert_no_customer(env.a_admin, user)


def test_token_signed_by_another_ca_is_invalid_argument(env, other_ca):
    user = unique_id()
    assert_code(env.a.purchase_error(user, other_ca.sign(MONTHLY)), Code.INVALID_ARGUMENT)
    assert_no_customer(env.a_admin, user)


@pytest.mark.parametrize("token", ["garbage", "a.b.c", "eyJhbGciOiJFUzI1NiJ9.bm90LWpzb24.AAAA", "x" * 100, ""])
def test_malformed_token_is_invalid_argument(env, token):
    user = unique_id()
    assert_code(env.a.purchase_error(user, token), Code.INVALID_ARGUMENT)
    assert_no_customer(env.a_admin, user)


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


@pytest.mark.parametrize("environment", [None, "", 7])
def test_token_without_a_known_environment_is_invalid_argument(env, ca, environment):
    """A token whose (unsigned) payload has no environment, or one that is no environment at all, is malformed:
    INVALID_ARGUMENT, not the FAILED_PRECONDITION "The transaction is from the  environment" meant for a real
    environment the tenant does not accept."""
    user = unique_id()
    header, _, signature = ca.sign(MONTHLY).split(".")
    claims = payload(ca.sign(MONTHLY))
    if environment is None:
        del claims["environment"]
    else:
        claims["environment"] = environment
    error = env.a.purchase_error(user, f"{header}.{_b64(claims)}.{signature}")
    assert_code(error, Code.INVALID_ARGUMENT)
    assert "from the  environment" not in error.details()
    assert_no_customer(env.a_admin, user)
    # The smallest such token: `{}` as the payload.
    assert_code(env.a.purchase_error(user, "eyJhbGciOiJFUzI1NiJ9.e30.AAAA"), Code.INVALID_ARGUMENT)


def test_unknown_environment_name_is_refused_naming_it(env, ca):
    header, _, signature = ca.sign(MONTHLY).split(".")
    claims = payload(ca.sign(MONTHLY))
    claims["environment"] = "Staging"
    error = env.a.purchase_error(unique_id(), f"{header}.{_b64(claims)}.{signature}")
    assert error.code() in (Code.INVALID_ARGUMENT, Code.FAILED_PRECONDITION), error.details()
    if error.code() == Code.FAILED_PRECONDITION:
        assert "Staging" in error.details() and "Sandbox" in error.details()


def test_product_the_tenant_does_not_map_names_it(env, ca):
    user = unique_id()
    try:
        customer = env.a.purchase(user, ca.sign("com.example.unknown")).customer
    except grpc.RpcError as error:
        assert_code(error, Code.FAILED_PRECONDITION, "com.example.unknown")
    else:
        assert customer.status.state == INACTIVE and active_ids(customer) == []


def test_tampered_payload_is_invalid_argument(env, ca):
    user = unique_id()
    header, body, signature = ca.sign(MONTHLY, "--expires", "+1d").split(".")
    claims = payload(f"{header}.{body}.{signature}")
    claims["expiresDate"] += 365 * DAY_MS
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    assert_code(env.a.purchase_error(user, f"{header}.{forged}.{signature}"), Code.INVALID_ARGUMENT)
    assert_no_customer(env.a_admin, user)


def test_oversized_token_is_invalid_argument(env):
    assert_code(env.a.purchase_error(unique_id(), "a" * (64 * 1024 + 1)), Code.INVALID_ARGUMENT, "64 KiB")


def test_xcode_signed_transaction_explains_what_to_do(env):
    user = unique_id()
    error = env.a.purchase_error(user, XCODE_SAMPLE.read_text().strip())
    assert_code(error, Code.FAILED_PRECONDITION, "Xcode", "StoreKit Configuration")
    assert_no_customer(env.a_admin, user)


def test_play_store_purchase_to_a_tenant_without_play_settings_is_failed_precondition(env):
    """These tenants configure only the App Store: a Play token is refused before Google is asked, naming the
    missing settings, and nothing is stored."""
    user = unique_id()
    request = env.a.message("PurchaseRequest", app_user_id=user)
    request.play_store.product_id = "p"
    request.play_store.purchase_token = "t"
    assert_code(env.a.purchase_error(user, request=request), Code.FAILED_PRECONDITION, "play_store")
    restore = env.a.message("RestoreRequest", app_user_id=user)
    restore.play_store.add(product_id="p", purchase_token="t")
    assert_code(rpc_error(lambda: env.a.store_call("Restore", restore)), Code.FAILED_PRECONDITION, "play_store[0]")
    assert_no_customer(env.a_admin, user)


def test_missing_purchase_is_invalid_argument(env):
    user = unique_id()
    assert_code(env.a.purchase_error(user, None), Code.INVALID_ARGUMENT)
    assert_no_customer(env.a_admin, user)


def test_invalid_app_user_id_is_invalid_argument(env, ca):
    assert_code(env.a.purchase_error("", ca.sign(MONTHLY)), Code.INVALID_ARGUMENT)


def test_purchase_needs_a_public_key(env, ca):
    user = unique_id()
    token = ca.sign(MONTHLY)
    assert_code(env.api(None).purchase_error(user, token), Code.UNAUTHENTICATED)
    assert_code(env.api("pk_" + "0" * 64).purchase_error(user, token), Code.UNAUTHENTICATED)
    assert_no_customer(env.a_admin, user)


# --------------------------------------------------------------------------------------------------
# Pushes and events


def test_stream_on_another_connection_sees_the_purchase(env, ca):
    user = unique_id()
    env.a.identify(user)
    stream = env.api(env.tenants["a"].public_key, env.channel()).stream(user)
    snapshot = stream.next()
    assert snapshot.kind == SNAPSHOT and active_ids(snapshot.customer) == []
    response = env.a.purchase(user, ca.sign(MONTHLY))
    event = stream.next()
    assert event.kind == STATUS_CHANGED, event
    assert active_ids(event.customer) == ["pro"]
    assert event.customer.version == response.customer.version
    assert event.customer.status.entitlements[0].source == APP_STORE_SOURCE
    # A consumable is pushed as a customer-info change, not a status change.
    env.a.purchase(user, ca.sign(COINS, "--type", "consumable"))
    assert stream.next().kind == CUSTOMER_INFO_CHANGED


def test_purchase_event_names_the_original_transaction(env, ca):
    user = unique_id()
    token = ca.sign(MONTHLY)
    customer = env.a.purchase(user, token).customer
    assert causes(env.a_admin, user) == ["CREATED", "PURCHASE"]
    newest = env.a_admin.all_events(user)[0]
    assert newest.version == customer.version
    assert newest.change == STATUS_CHANGED
    assert newest.reference_id == original_id(token)
    assert [e.id for e in newest.status.entitlements] == ["pro"]


# --------------------------------------------------------------------------------------------------
# Ownership and transfer policy


def test_transfer_moves_the_purchase_and_pushes_to_both(env, ca):
    u1, u2 = unique_id("u1"), unique_id("u2")
    token = ca.sign(MONTHLY)
    env.a.purchase(u1, token)
    stream = env.api(env.tenants["a"].public_key, env.channel()).stream(u1)
    assert stream.next().kind == SNAPSHOT
    response = env.a.purchase(u2, token)
    assert response.transferred_from_app_user_id == u1
    assert response.customer.status.state == ACTIVE and active_ids(response.customer) == ["pro"]
    event = stream.next()
    assert event.kind == STATUS_CHANGED and active_ids(event.customer) == []
    assert event.customer.status.state == INACTIVE
    assert env.a.sync(u1).status.state == INACTIVE
    assert causes(env.a_admin, u1) == ["CREATED", "PURCHASE", "TRANSFERRED_OUT"]
    assert causes(env.a_admin, u2) == ["CREATED", "TRANSFERRED_IN"]
    out = env.a_admin.all_events(u1)[0]
    into = env.a_admin.all_events(u2)[0]
    assert out.related_app_user_id == u2 and into.related_app_user_id == u1
    assert into.reference_id == original_id(token)
    # And back: u1 presents it again.
    back = env.a.purchase(u1, token)
    assert back.transferred_from_app_user_id == u2
    assert env.a.sync(u2).status.state == INACTIVE and env.a.sync(u1).status.state == ACTIVE


def test_keep_with_original_refuses_with_already_exists(env, ca):
    u1, u2 = unique_id("u1"), unique_id("u2")
    token = ca.sign(MONTHLY)
    first = env.b.purchase(u1, token).customer
    error = env.b.purchase_error(u2, token)
    assert_code(error, Code.ALREADY_EXISTS, original_id(token))
    after = env.b.sync(u1)
    assert after.status.state == ACTIVE and active_ids(after) == ["pro"] and after.version == first.version
    assert_no_customer(env.b_admin, u2)
    assert_code(env.b.restore_error(u2, [token]), Code.ALREADY_EXISTS)
    assert_no_customer(env.b_admin, u2)
    # The owner may present it again.
    assert env.b.purchase(u1, token).customer.version == first.version


def test_transfer_if_no_active_moves_only_inactive_purchases(env, ca):
    u1, u2 = unique_id("u1"), unique_id("u2")
    active = ca.sign(MONTHLY)
    expired = ca.sign(MONTHLY, "--purchase-date", "-40d", "--expires", "-10d")
    env.c.purchase(u1, active)
    assert_code(env.c.purchase_error(u2, active), Code.ALREADY_EXISTS)
    assert env.c.sync(u1).status.state == ACTIVE
    env.c.purchase(u1, expired)
    moved = env.c.purchase(u2, expired)
    assert moved.transferred_from_app_user_id == u1
    assert moved.customer.status.state == INACTIVE
    assert env.c.sync(u1).status.state == ACTIVE


def test_transfer_if_no_active_judges_by_the_newest_period_the_token_shows(env, ca):
    # u1's stored period has lapsed, but the subscription renewed: u2's token is the renewal, active now. It is
    # u1's subscription still giving access, so it does not move.
    u1, u2 = unique_id("u1"), unique_id("u2")
    original = f"2005{int(time.time() * 1000) % 10**12:012d}"
    env.c.purchase(u1, ca.sign(MONTHLY, "--original-transaction-id", original, "--purchase-date", "-40d",
                               "--expires", "-10d"))
    assert env.c.sync(u1).status.state == INACTIVE
    renewal = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "2",
                      "--purchase-date", "-10d", "--expires", "+20d")
    assert_code(env.c.purchase_error(u2, renewal), Code.ALREADY_EXISTS, original)
    assert env.c.sync(u1).status.state == INACTIVE, "a refused transfer changed nothing"
    assert_no_customer(env.c_admin, u2)


# --------------------------------------------------------------------------------------------------
# Restore


def test_restore_attaches_everything_and_names_previous_owners(env, ca):
    u1, u2 = unique_id("u1"), unique_id("u2")
    owned = ca.sign(MONTHLY)
    env.a.purchase(u1, owned)
    fresh = ca.sign(LIFETIME, "--type", "non-consumable")
    response = env.a.restore(u2, [owned, fresh])
    assert list(response.transferred_from_app_user_ids) == [u1]
    assert sorted(active_ids(response.customer)) == ["premium", "pro"]
    assert env.a.sync(u1).status.state == INACTIVE
    assert "TRANSFERRED_OUT" in causes(env.a_admin, u1)
    assert causes(env.a_admin, u2)[-1] in ("TRANSFERRED_IN", "RESTORE")
    assert "TRANSFERRED_IN" in causes(env.a_admin, u2)
    # Restoring again changes nothing.
    again = env.a.restore(u2, [owned, fresh])
    assert again.customer.version == response.customer.version
    assert list(again.transferred_from_app_user_ids) == []


OUTCOME = {"NEW": 1, "UPDATED": 2, "UNCHANGED": 3, "OLDER_THAN_STORED": 4}
SANDBOX = 2


def outcome_names(results) -> list[str]:
    names = {value: name for name, value in OUTCOME.items()}
    return [names.get(result.outcome, str(result.outcome)) for result in results]


def test_restore_reports_each_token_in_request_order(env, ca):
    owner, user = unique_id("owner"), unique_id()
    owned = ca.sign(MONTHLY, "--signed-date", "-1h")
    env.a.purchase(owner, owned)
    original = f"2003{int(time.time() * 1000) % 10**12:012d}"
    current = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "2",
                      "--purchase-date", "-1d", "--expires", "+29d", "--signed-date", "-1m")
    earlier = ca.sign(MONTHLY, "--original-transaction-id", original, "--purchase-date", "-31d",
                      "--expires", "-1d", "--signed-date", "-31d")
    tokens = [
        owned,
        ca.sign(LIFETIME, "--type", "non-consumable"),
        ca.sign(COINS, "--type", "consumable"),
        ca.sign(MONTHLY, "--purchase-date", "-40d", "--expires", "-10d"),
        current,
        earlier,
        current,
    ]
    response = env.a.restore(user, tokens)
    results = list(response.results)
    assert [r.original_transaction_id for r in results] == [original_id(t) for t in tokens]
    assert [r.transaction_id for r in results] == [payload(t)["transactionId"] for t in tokens]
    assert [r.product_id for r in results] == [MONTHLY, LIFETIME, COINS, MONTHLY, MONTHLY, MONTHLY, MONTHLY]
    assert outcome_names(results) == ["UNCHANGED", "NEW", "NEW", "NEW", "NEW", "OLDER_THAN_STORED", "UNCHANGED"]
    assert [r.active for r in results] == [True, True, False, False, True, True, True]
    assert [list(r.entitlement_ids) for r in results] == [["pro"], ["premium"], [], ["pro"], ["pro"], ["pro"], ["pro"]]
    assert [r.transferred_from_app_user_id for r in results] == [owner, "", "", "", "", "", ""]
    assert all(r.store == APP_STORE_SOURCE and r.environment == SANDBOX for r in results)
    # Dates are the token's own, to the millisecond.
    for result, token in zip(results, tokens):
        claims = payload(token)
        assert ts_millis(result.purchased_at) == claims["purchaseDate"]
        assert (ts_millis(result.expires_at) if result.HasField("expires_at") else None) == claims.get("expiresDate")
        assert not result.HasField("revoked_at")
    assert list(response.transferred_from_app_user_ids) == [owner]
    # The same restore again: every token is already known, nothing moves.
    again = env.a.restore(user, tokens)
    assert outcome_names(again.results) == ["UNCHANGED", "UNCHANGED", "UNCHANGED", "UNCHANGED", "UNCHANGED",
                                            "OLDER_THAN_STORED", "UNCHANGED"]
    assert [r.transferred_from_app_user_id for r in again.results] == [""] * len(tokens)
    assert again.customer.version == response.customer.version


def test_purchase_reports_what_it_made_of_the_token(env, ca):
    user = unique_id()
    original = f"2004{int(time.time() * 1000) % 10**12:012d}"
    older = ca.sign(MONTHLY, "--original-transaction-id", original, "--signed-date", "-1h")
    newer = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "2",
                    "--expires", "+60d")
    first = env.a.purchase(user, older).result
    assert (first.outcome, first.active, first.product_id) == (OUTCOME["NEW"], True, MONTHLY)
    assert first.original_transaction_id == original
    assert env.a.purchase(user, older).result.outcome == OUTCOME["UNCHANGED"]
    assert env.a.purchase(user, newer).result.outcome == OUTCOME["UPDATED"]
    stale = env.a.purchase(user, older).result
    assert stale.outcome == OUTCOME["OLDER_THAN_STORED"]
    assert ts_millis(stale.expires_at) == payload(older)["expiresDate"], "the result describes the token sent"
    refunded = env.a.purchase(user, ca.sign(LIFETIME, "--type", "non-consumable", "--revocation-date", "-1m")).result
    assert (refunded.outcome, refunded.active) == (OUTCOME["NEW"], False)
    assert refunded.HasField("revoked_at")


@pytest.mark.parametrize("newer_first", [True, False])
def test_restore_with_two_versions_of_one_transaction_keeps_the_newest(env, ca, newer_first):
    user = unique_id()
    original = f"2002{int(time.time() * 1000) % 10**12:012d}{int(newer_first)}"
    # StoreKit signs each copy when it hands it out: the older period here was signed after the newer one.
    older = ca.sign(MONTHLY, "--original-transaction-id", original, "--purchase-date", "-40d", "--expires", "-10d")
    newer = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "9",
                    "--purchase-date", "-1d", "--expires", "+29d", "--signed-date", "-1h")
    tokens = [newer, older] if newer_first else [older, newer]
    customer = env.a.restore(user, tokens).customer
    assert customer.status.state == ACTIVE and active_ids(customer) == ["pro"]
    assert ts_millis(customer.status.entitlements[0].expires_at) == payload(newer)["expiresDate"]


def test_keep_with_original_under_concurrent_purchases_gives_one_owner(env, ca):
    import concurrent.futures
    token = ca.sign(MONTHLY)
    users = [unique_id(f"c{i}") for i in range(8)]

    def attempt(user):
        try:
            env.b.purchase(user, token)
            return user, None
        except grpc.RpcError as error:
            return user, error.code()

    with concurrent.futures.ThreadPoolExecutor(len(users)) as pool:
        results = list(pool.map(attempt, users))
    winners = [user for user, code in results if code is None]
    assert len(winners) == 1, results
    assert all(code in (None, Code.ALREADY_EXISTS) for _, code in results), results
    assert env.b.sync(winners[0]).status.state == ACTIVE
    for user, code in results:
        if code is not None:
            assert env.b.is_unknown(user), "a refused purchase created its customer"


def test_restore_of_own_purchases_is_a_restore_event(env, ca):
    user = unique_id()
    tokens = [ca.sign(MONTHLY), ca.sign(LIFETIME, "--type", "non-consumable")]
    response = env.a.restore(user, tokens)
    assert sorted(active_ids(response.customer)) == ["premium", "pro"]
    assert list(response.transferred_from_app_user_ids) == []
    assert causes(env.a_admin, user) == ["CREATED", "RESTORE"]


def test_restore_with_one_bad_token_writes_nothing(env, ca, other_ca):
    user = unique_id()
    good = ca.sign(MONTHLY)
    for bad, index in [("garbage", 1), (other_ca.sign(MONTHLY), 1), (ca.sign(MONTHLY, bundle_id="com.other.app"), 2)]:
        tokens = [good, bad] if index == 1 else [good, ca.sign(LIFETIME, "--type", "non-consumable"), bad]
        error = env.a.restore_error(user, tokens)
        assert error.code() in (Code.INVALID_ARGUMENT,), (error.code(), error.details())
        assert f"app_store[{index}]" in error.details(), error.details()
        assert_no_customer(env.a_admin, user)
    # The good token was not stored as anyone's: a purchase of it is no transfer.
    other = unique_id()
    assert env.a.purchase(other, good).transferred_from_app_user_id == ""


def test_restore_of_a_production_token_names_it(env, ca):
    user = unique_id()
    error = env.a.restore_error(user, [ca.sign(MONTHLY), ca.sign(MONTHLY, "--environment", "Production")])
    assert_code(error, Code.FAILED_PRECONDITION, "app_store[1]", "Production")
    assert_no_customer(env.a_admin, user)


def test_restore_takes_at_most_100(env):
    assert_code(env.a.restore_error(unique_id(), ["x"] * 101), Code.INVALID_ARGUMENT, "100")


# --------------------------------------------------------------------------------------------------
# Durability


def test_purchase_survives_sigkill(tmp_path, ca, protos):
    tenants = {"a": store_tenant("a", ca)}
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    server = start_server(tmp_path / "server", tenants_file)
    user = unique_id()
    token = ca.sign(MONTHLY)
    try:
        channel = server.channel()
        response = StoreApi(channel, protos, tenants["a"].public_key).purchase(user, token)
        channel.close()
    finally:
        sigkill(server)
    server = start_server(tmp_path / "server", tenants_file)
    try:
        channel = server.channel()
        api = StoreApi(channel, protos, tenants["a"].public_key)
        synced = api.sync(user)
        assert synced.version == response.customer.version
        assert synced.status.state == ACTIVE and active_ids(synced) == ["pro"]
        assert ts_millis(synced.status.entitlements[0].expires_at) == payload(token)["expiresDate"]
        # Still the same data: presenting it again changes nothing.
        assert api.purchase(user, token).customer.version == response.customer.version
        channel.close()
    finally:
        assert server.terminate() == 0
