"""App Store Server Notifications V2 at `POST /v1/apple/notifications/{tenant_id}`, end to end through the real
interop-server, over HTTP/1.1 (http.client) and HTTP/2 (raw h2).

Notifications, transactions and renewal infos are signed at test time by `entctl dev` with a CA made by
`entctl dev init`; the tenants trust that CA's root for Sandbox only. Tenant "a" has no grace window, tenant "g"
has `grace_period_days` = GRACE_DAYS; "plain" is a tenant without App Store settings.
"""

from __future__ import annotations

import base64
import json
import time

import pytest

from appstore_support import (
    BUNDLE_ID, DAY_MS, MONTHLY, PRODUCTS, SigningCA, StoreApi, StoreEnv, app_store_settings, now_ms, payload, rfc3339,
)
from conftest import start_server
from webhook_posting import POSTERS
from entitlement_support import (
    ACTIVE, CAUSE, CUSTOMER_INFO_CHANGED, INACTIVE, SNAPSHOT, STATUS_CHANGED, new_tenant, sigkill, ts_millis,
    unique_id, write_tenants,
)

GRACE_DAYS = 16
# A second auto-renewable subscription in the same subscription group (the signer's default group) as MONTHLY,
# granting a different entitlement: the target of upgrades and the source of downgrades.
PREMIUM_MONTHLY = "com.example.premium.monthly"
MAX_BODY = 64 * 1024


# --------------------------------------------------------------------------------------------------
# Signing helpers


def at(offset_ms: int) -> tuple[str, int]:
    """An absolute RFC 3339 time `offset_ms` from now, and its value in milliseconds (whole seconds)."""
    value = (now_ms() + offset_ms) // 1000 * 1000
    return rfc3339(value), value


_counter = [0]


def new_original_id() -> str:
    _counter[0] += 1
    return f"3{int(time.time() * 1000) % 10**12:012d}{_counter[0]:03d}"


def transaction(ca: SigningCA, original: str, *args: str, product: str = MONTHLY) -> str:
    return ca.sign(product, "--original-transaction-id", original, *args)


def renewal_info(ca: SigningCA, original: str, *args: str, product: str = MONTHLY) -> str:
    return ca.signed("sign-renewal-info", "--original-transaction-id", original, "--product", product, *args)


def notification(ca: SigningCA, kind: str, subtype: str | None = None, *, transaction: str | None = None,
                 renewal: str | None = None, extra: tuple[str, ...] = ()) -> str:
    args = [kind] + ([subtype] if subtype else [])
    if transaction is None:
        args += ["--bundle-id", BUNDLE_ID]
    else:
        args += ["--transaction", transaction]
    if renewal is not None:
        args += ["--renewal-info", renewal]
    return ca.signed("sign-notification", *args, *extra)


def body_of(token: str) -> bytes:
    return json.dumps({"signedPayload": token}).encode()


# --------------------------------------------------------------------------------------------------
# HTTP helpers


def path_for(tenant_id: str) -> str:
    return f"/v1/apple/notifications/{tenant_id}"


def post_body(server, tenant_id: str, body: bytes, via: str = "http1") -> tuple[int, str]:
    return POSTERS[via](server, path_for(tenant_id), body, {"content-type": "application/json"})


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("notify-ca") / "ca")


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("notify-other-ca") / "ca")


def make_tenants(ca: SigningCA) -> dict:
    app_store = app_store_settings(ca.root, "transfer")
    app_store["products"][PREMIUM_MONTHLY] = {"type": "auto_renewable"}
    settings = {"a": app_store, "g": {**app_store, "grace_period_days": GRACE_DAYS}, "plain": None}
    return {name: new_tenant(f"notify-{name}", entitlements=["pro", "premium"],
                             products={**PRODUCTS, PREMIUM_MONTHLY: ["premium"]}, app_store=settings[name])
            for name in settings}


@pytest.fixture(scope="module")
def notify_tenants(ca):
    return make_tenants(ca)


@pytest.fixture(scope="module")
def notify_server(tenants_server, tmp_path_factory, notify_tenants):
    tenants_file = tmp_path_factory.mktemp("notifications") / "tenants.json"
    write_tenants(tenants_file, notify_tenants.values())
    return tenants_server(tenants_file)


@pytest.fixture
def env(notify_server, notify_tenants, protos):
    environment = StoreEnv(notify_server, notify_tenants, protos)
    yield environment
    environment.close()


def post(env, tenant: str, token_or_body, via: str = "http1") -> tuple[int, str]:
    body = token_or_body if isinstance(token_or_body, bytes) else body_of(token_or_body)
    tenant_id = env.tenants[tenant].id if tenant in env.tenants else tenant
    return post_body(env.server, tenant_id, body, via)


def post_ok(env, tenant: str, token: str, *needles: str, via: str = "http1") -> str:
    status, text = post(env, tenant, token, via)
    assert status == 200, f"{status}: {text}\n{env.server.log()[-2000:]}"
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"
    return text


def watch(env, tenant: str, user: str):
    """A StreamStatus on another connection, past its snapshot."""
    stream = env.api(env.tenants[tenant].public_key, env.channel()).stream(user)
    assert stream.next().kind == SNAPSHOT
    return stream


def only_entitlement(customer):
    entitlements = list(customer.status.entitlements)
    assert len(entitlements) == 1, entitlements
    return entitlements[0]


def newest_event(env, tenant: str, user: str):
    return getattr(env, f"{tenant}_admin").all_events(user)[0]


def purchased(env, tenant: str, ca, original: str, *args: str, product: str = MONTHLY):
    """A user who purchased `original` (signed two hours ago unless `args` says otherwise)."""
    user = unique_id()
    token = transaction(ca, original, "--signed-date", "-2h", *args, product=product)
    customer = getattr(env, tenant).purchase(user, token).customer
    return user, customer, token


# --------------------------------------------------------------------------------------------------
# Renewals and renewal status


@pytest.mark.parametrize("via", ["http1", "h2"])
def test_did_renew_extends_pushes_and_is_applied_once(env, ca, via):
    original = new_original_id()
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    assert first.status.state == ACTIVE
    stream = watch(env, "a", user)
    renewed = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1m",
                          "--expires", "+30d")
    token = notification(ca, "DID_RENEW", transaction=renewed)
    post_ok(env, "a", token, user, via=via)
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, event
    assert ts_millis(only_entitlement(event.customer).expires_at) == payload(renewed)["expiresDate"]
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE
    assert ts_millis(only_entitlement(synced).expires_at) == payload(renewed)["expiresDate"]
    assert synced.version > first.version and event.customer.version == synced.version
    newest = newest_event(env, "a", user)
    assert newest.cause == CAUSE["APP_STORE_NOTIFICATION"], newest
    assert newest.reason == "DID_RENEW", newest.reason
    assert newest.reference_id == original
    events = len(env.a_admin.all_events(user))
    # The same notification again (Apple retries): 200, nothing new.
    post_ok(env, "a", token, via=via)
    assert env.a.sync(user).version == synced.version
    assert len(env.a_admin.all_events(user)) == events
    stream.expect_quiet(0.5)


def test_auto_renew_disabled_keeps_access_with_will_renew_false(env, ca):
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, expires_ms = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", purchase_date, "--expires", expires)
    assert only_entitlement(first).will_renew
    stream = watch(env, "a", user)
    same_period = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expires)
    renewal = renewal_info(ca, original, "--auto-renew", "off")
    post_ok(env, "a", notification(ca, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED",
                                   transaction=same_period, renewal=renewal))
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, event
    assert not only_entitlement(event.customer).will_renew
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and [e.id for e in synced.status.entitlements] == ["pro"]
    entitlement = only_entitlement(synced)
    assert not entitlement.will_renew
    assert ts_millis(entitlement.expires_at) == expires_ms
    newest = newest_event(env, "a", user)
    assert newest.cause == CAUSE["APP_STORE_NOTIFICATION"]
    assert newest.reason == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"
    assert newest.change == CUSTOMER_INFO_CHANGED


def test_auto_renew_disabled_is_not_undone_by_the_app_presenting_its_purchase_again(env, ca):
    """The notification carries the very transaction the app purchased with (same signedDate) plus renewal info
    saying auto-renew is off. The app then calls Purchase with that same token (as apps do at launch): the
    renewal status learned from Apple must not move backwards to will_renew=true."""
    original = new_original_id()
    user, first, token = purchased(env, "a", ca, original)
    renewal = renewal_info(ca, original, "--auto-renew", "off")
    post_ok(env, "a", notification(ca, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED",
                                   transaction=token, renewal=renewal))
    after_notification = env.a.sync(user)
    assert not only_entitlement(after_notification).will_renew, "the notification's renewal info was ignored"
    again = env.a.purchase(user, token).customer
    assert not only_entitlement(again).will_renew, "presenting the same purchase token again reset will_renew"
    assert again.version == after_notification.version


# --------------------------------------------------------------------------------------------------
# Billing problems


def test_grace_period_with_apples_date_keeps_access_until_it(env, ca):
    original = new_original_id()
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    stream = watch(env, "a", user)
    lapsed = transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1h")
    grace, grace_ms = at(5 * DAY_MS)
    renewal = renewal_info(ca, original, "--grace-period-expires", grace)
    post_ok(env, "a", notification(ca, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", transaction=lapsed, renewal=renewal))
    event = stream.next()
    assert event.customer.status.state == ACTIVE
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE
    entitlement = only_entitlement(synced)
    assert entitlement.in_grace_period
    assert ts_millis(entitlement.expires_at) == grace_ms
    assert newest_event(env, "a", user).reason == "DID_FAIL_TO_RENEW/GRACE_PERIOD"
    # And GRACE_PERIOD_EXPIRED ends it.
    ended = renewal_info(ca, original, "--billing-retry")
    post_ok(env, "a", notification(ca, "GRACE_PERIOD_EXPIRED",
                                   transaction=transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1h"),
                                   renewal=ended))
    assert stream.next().kind == STATUS_CHANGED
    assert env.a.sync(user).status.state == INACTIVE


def test_grace_period_without_a_date_uses_the_tenants_grace_window(env, ca):
    original = new_original_id()
    user, first, _ = purchased(env, "g", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    assert first.status.state == ACTIVE
    purchase_date, _ = at(-30 * DAY_MS)
    expired, expired_ms = at(-3_600_000)
    lapsed = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expired)
    renewal = renewal_info(ca, original, "--billing-retry")
    post_ok(env, "g", notification(ca, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", transaction=lapsed, renewal=renewal))
    synced = env.g.sync(user)
    assert synced.status.state == ACTIVE, synced
    entitlement = only_entitlement(synced)
    assert entitlement.in_grace_period
    assert ts_millis(entitlement.expires_at) == expired_ms + GRACE_DAYS * DAY_MS


def test_grace_period_without_a_date_and_no_grace_window_gives_no_access(env, ca):
    original = new_original_id()
    user, _, _ = purchased(env, "a", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    lapsed = transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1h")
    post_ok(env, "a", notification(ca, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", transaction=lapsed,
                                   renewal=renewal_info(ca, original, "--billing-retry")))
    assert env.a.sync(user).status.state == INACTIVE


def test_did_fail_to_renew_without_subtype_is_billing_retry_without_access(env, ca):
    original = new_original_id()
    user, first, _ = purchased(env, "g", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    stream = watch(env, "g", user)
    lapsed = transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1h")
    post_ok(env, "g", notification(ca, "DID_FAIL_TO_RENEW", transaction=lapsed,
                                   renewal=renewal_info(ca, original, "--billing-retry")))
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    synced = env.g.sync(user)
    assert synced.status.state == INACTIVE
    assert [e for e in synced.status.entitlements if e.id == "pro" and ts_millis(e.expires_at) > now_ms()] == []
    assert newest_event(env, "g", user).reason == "DID_FAIL_TO_RENEW"


@pytest.mark.parametrize("subtype", ["VOLUNTARY", "BILLING_RETRY", None])
def test_expired_is_a_status_change_to_inactive(env, ca, subtype):
    original = new_original_id()
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    stream = watch(env, "a", user)
    over = transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1m")
    post_ok(env, "a", notification(ca, "EXPIRED", subtype, transaction=over,
                                   renewal=renewal_info(ca, original, "--auto-renew", "off")))
    event = stream.next()
    assert event.kind == STATUS_CHANGED, event
    assert event.customer.status.state == INACTIVE
    assert env.a.sync(user).status.state == INACTIVE
    newest = newest_event(env, "a", user)
    assert newest.change == STATUS_CHANGED
    assert newest.reason == (f"EXPIRED/{subtype}" if subtype else "EXPIRED")


# --------------------------------------------------------------------------------------------------
# Refunds


def test_refund_revokes_at_once_and_refund_reversed_reinstates(env, ca):
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, expires_ms = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", purchase_date, "--expires", expires)
    assert first.status.state == ACTIVE
    stream = watch(env, "a", user)
    refunded = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expires,
                           "--revocation-date", "-1m", "--signed-date", "-1h")
    post_ok(env, "a", notification(ca, "REFUND", transaction=refunded))
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    assert env.a.sync(user).status.state == INACTIVE
    assert newest_event(env, "a", user).reason == "REFUND"
    reinstated = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expires)
    post_ok(env, "a", notification(ca, "REFUND_REVERSED", transaction=reinstated))
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == ACTIVE
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE
    assert ts_millis(only_entitlement(synced).expires_at) == expires_ms
    assert newest_event(env, "a", user).reason == "REFUND_REVERSED"


def test_a_refund_dated_ahead_of_the_server_clock_ends_access_at_once(env, ca):
    # Apple's clock may run ahead of ours: the refund has happened all the same, so access ends when it is applied.
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, _ = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", purchase_date, "--expires", expires)
    assert first.status.state == ACTIVE
    stream = watch(env, "a", user)
    refunded = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expires,
                           "--revocation-date", "+30s", "--signed-date", "-1m")
    post_ok(env, "a", notification(ca, "REFUND", transaction=refunded))
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    assert env.a.sync(user).status.state == INACTIVE
    version = env.a.sync(user).version
    # The same refund again (another notification) is no change: the date first applied stands.
    post_ok(env, "a", notification(ca, "REFUND", transaction=refunded))
    assert env.a.sync(user).version == version
    assert "revocation dated ahead of the server clock" in env.server.log()


def test_a_renewal_dated_ahead_of_the_server_clock_takes_nothing_away(env, ca):
    # Apple's clock may run a few seconds ahead of ours (and Apple charges a renewal before the period ends): the
    # paid period goes on granting until the renewal's begins, so nobody sees the entitlement drop and come back.
    original = new_original_id()
    boundary, boundary_ms = at(5_000)
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", "-30d", "--expires", boundary)
    assert first.status.state == ACTIVE
    stream = watch(env, "a", user)
    renewed = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", boundary,
                          "--expires", "+30d")
    post_ok(env, "a", notification(ca, "DID_RENEW", transaction=renewed), user)
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, event
    assert event.customer.status.state == ACTIVE
    assert ts_millis(only_entitlement(event.customer).expires_at) == payload(renewed)["expiresDate"]
    assert env.a.sync(user).status.state == ACTIVE
    # Past the renewal's start: no STATUS_CHANGED either way, and still active.
    stream.expect_quiet(max(boundary_ms - now_ms(), 0) / 1000 + 1.5)
    assert env.a.sync(user).status.state == ACTIVE


def test_a_purchase_dated_a_few_seconds_ahead_grants_when_applied(env, ca):
    user = unique_id()
    result = env.a.purchase(user, transaction(ca, new_original_id(), "--purchase-date", "+5s", "--expires", "+30d"))
    assert result.customer.status.state == ACTIVE and result.result.active, result
    # Dated further ahead than the allowance (5 minutes), a purchase starts at its date.
    later = unique_id()
    result = env.a.purchase(later, transaction(ca, new_original_id(), "--purchase-date", "+10m", "--expires", "+30d"))
    assert result.customer.status.state == INACTIVE and not result.result.active, result


# --------------------------------------------------------------------------------------------------
# Ordering, unknown purchases, informational and unknown types


def test_an_older_signed_notification_after_a_newer_one_changes_nothing(env, ca):
    original = new_original_id()
    user, _, _ = purchased(env, "a", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    renewed = transaction(ca, original, "--transaction-id", original + "2", "--purchase-date", "-1m",
                          "--expires", "+30d")
    post_ok(env, "a", notification(ca, "DID_RENEW", transaction=renewed))
    after = env.a.sync(user)
    events = len(env.a_admin.all_events(user))
    stale = transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1m", "--signed-date", "-1h")
    post_ok(env, "a", notification(ca, "EXPIRED", "VOLUNTARY", transaction=stale,
                                   extra=("--signed-date", "-1h")))
    synced = env.a.sync(user)
    assert synced.version == after.version, "an older signedDate changed the customer"
    assert synced.status.state == ACTIVE
    assert ts_millis(only_entitlement(synced).expires_at) == payload(renewed)["expiresDate"]
    assert len(env.a_admin.all_events(user)) == events


@pytest.mark.parametrize("method", ["Purchase", "Restore"])
def test_notification_for_an_unknown_purchase_is_recorded_and_attached_later(env, ca, method):
    original = new_original_id()
    renewed = transaction(ca, original, "--transaction-id", original + "5", "--purchase-date", "-1m",
                          "--expires", "+40d")
    post_ok(env, "a", notification(ca, "DID_RENEW", transaction=renewed), "recorded")
    user = unique_id()
    # The app presents an older token for the same subscription: it attaches the stored (newer) data.
    older = transaction(ca, original, "--purchase-date", "-1d", "--expires", "+10d", "--signed-date", "-1d")
    response = env.a.purchase(user, older) if method == "Purchase" else env.a.restore(user, [older])
    customer = response.customer
    assert customer.status.state == ACTIVE
    assert ts_millis(only_entitlement(customer).expires_at) == payload(renewed)["expiresDate"]


@pytest.mark.parametrize("kind, subtype", [("TEST", None), ("PRICE_INCREASE", "PENDING"),
                                           ("CONSUMPTION_REQUEST", None), ("FUTURE_TYPE", None)])
def test_informational_and_unknown_types_without_a_transaction_are_acknowledged(env, ca, kind, subtype):
    post_ok(env, "a", notification(ca, kind, subtype), kind)


def test_informational_notification_with_the_stored_transaction_changes_nothing(env, ca):
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, _ = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--purchase-date", purchase_date, "--expires", expires)
    events = len(env.a_admin.all_events(user))
    # Apple re-signs the same transaction (a newer signedDate, the same data) in a PRICE_INCREASE.
    same = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expires)
    post_ok(env, "a", notification(ca, "PRICE_INCREASE", "ACCEPTED", transaction=same,
                                   renewal=renewal_info(ca, original)))
    assert env.a.sync(user).version == first.version, "an informational notification changed the customer"
    assert len(env.a_admin.all_events(user)) == events


# --------------------------------------------------------------------------------------------------
# Refusals


@pytest.mark.parametrize("via", ["http1", "h2"])
def test_tampered_or_foreign_payloads_are_400(env, ca, other_ca, via):
    original = new_original_id()
    user, first, _ = purchased(env, "a", ca, original)
    token = notification(ca, "EXPIRED", "VOLUNTARY",
                         transaction=transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1m"))
    header, body, signature = token.split(".")
    claims = payload(token)
    claims["notificationType"] = "DID_RENEW"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    status, text = post(env, "a", f"{header}.{forged}.{signature}", via)
    assert status == 400, text
    foreign = notification(other_ca, "EXPIRED", "VOLUNTARY",
                           transaction=transaction(other_ca, original, "--purchase-date", "-30d", "--expires", "-1m"))
    status, text = post(env, "a", foreign, via)
    assert status == 400, text
    # A notification signed by our CA whose nested transaction is signed by another CA.
    mixed = notification(ca, "EXPIRED", "VOLUNTARY",
                         transaction=transaction(other_ca, original, "--purchase-date", "-30d", "--expires", "-1m"))
    status, text = post(env, "a", mixed, via)
    assert status == 400, text
    # A transaction is not a notification.
    status, text = post(env, "a", transaction(ca, original), via)
    assert 400 <= status < 500, text
    synced = env.a.sync(user)
    assert synced.version == first.version and synced.status.state == ACTIVE


@pytest.mark.parametrize("via", ["http1", "h2"])
def test_wrong_tenant_is_404(env, ca, via):
    token = notification(ca, "TEST")
    assert post(env, "no-such-tenant", token, via)[0] == 404
    assert post(env, "plain", token, via)[0] == 404


@pytest.mark.parametrize("via", ["http1", "h2"])
def test_body_over_64_kib_is_413(env, ca, via):
    token = notification(ca, "TEST")
    body = json.dumps({"signedPayload": token, "padding": "x" * MAX_BODY}).encode()
    assert len(body) > MAX_BODY
    status, text = post(env, "a", body, via)
    assert status == 413, text
    # Exactly at the limit is not refused for its size.
    exact = json.dumps({"signedPayload": token, "padding": ""}).encode()
    exact = exact[:-2] + b"x" * (MAX_BODY - len(exact)) + exact[-2:]
    assert len(exact) == MAX_BODY
    assert post(env, "a", exact, via)[0] == 200


@pytest.mark.parametrize("via", ["http1", "h2"])
@pytest.mark.parametrize("body", [b"", b"not json", b"[]", b"{}", b'{"signedPayload": 7}', b'{"signedPayload": ""}',
                                  b'{"signedPayload": "garbage"}', b'{"signedPayload": "a.b.c"}'])
def test_malformed_bodies_are_400(env, body, via):
    status, text = post(env, "a", body, via)
    assert status == 400, (status, text)


def test_production_notification_for_a_sandbox_tenant_is_kept_for_redelivery(env, ca):
    """Verified, but from an environment the tenant's settings refuse: ours to fix, so 503 and Apple delivers it
    again, as Play and Stripe are answered for a purchase of a mode their tenant refuses."""
    token = notification(ca, "TEST", extra=("--environment", "Production"))
    status, text = post(env, "a", token)
    assert status == 503, text


# --------------------------------------------------------------------------------------------------
# Durability


def test_acknowledged_notification_survives_sigkill(tmp_path, ca, protos):
    tenants = make_tenants(ca)
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    server = start_server(tmp_path / "server", tenants_file)
    original = new_original_id()
    user = unique_id()
    token = None
    try:
        channel = server.channel()
        api = StoreApi(channel, protos, tenants["a"].public_key)
        first = api.purchase(user, transaction(ca, original, "--signed-date", "-2h")).customer
        channel.close()
        renewed = transaction(ca, original, "--transaction-id", original + "7", "--purchase-date", "-1m",
                              "--expires", "+45d")
        token = notification(ca, "DID_RENEW", transaction=renewed,
                             renewal=renewal_info(ca, original, "--auto-renew", "off"))
        status, text = post_body(server, tenants["a"].id, body_of(token))
        assert status == 200, text
    finally:
        sigkill(server)
    server = start_server(tmp_path / "server", tenants_file)
    try:
        channel = server.channel()
        api = StoreApi(channel, protos, tenants["a"].public_key)
        synced = api.sync(user)
        assert synced.version > first.version
        entitlement = only_entitlement(synced)
        assert ts_millis(entitlement.expires_at) == payload(renewed)["expiresDate"]
        assert not entitlement.will_renew
        # Apple retries it: it was processed already.
        status, text = post_body(server, tenants["a"].id, body_of(token))
        assert status == 200, text
        assert api.sync(user).version == synced.version
        channel.close()
    finally:
        assert server.terminate() == 0


def test_a_newer_transaction_from_the_app_keeps_the_renewal_state_apple_reported(env, ca):
    """A device transaction JWS carries no renewal info. When the app presents one signed after a notification
    (StoreKit re-signs on every fetch), the server must keep will_renew=false and the grace period it learned from
    Apple's renewal info, not reset them to "renews, no grace" (which here also ends access in the grace period)."""
    original = new_original_id()
    purchase_date, _ = at(-30 * DAY_MS)
    expired, _ = at(-3_600_000)
    user, _, _ = purchased(env, "a", ca, original, "--purchase-date", "-29d", "--expires", "+1d")
    lapsed = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expired, "--signed-date", "-1m")
    grace, grace_ms = at(5 * DAY_MS)
    post_ok(env, "a", notification(ca, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", transaction=lapsed,
                                   renewal=renewal_info(ca, original, "--grace-period-expires", grace)))
    in_grace = env.a.sync(user)
    assert in_grace.status.state == ACTIVE and only_entitlement(in_grace).in_grace_period
    # The app calls Purchase/Restore with the same transaction, re-signed now by StoreKit.
    resigned = transaction(ca, original, "--purchase-date", purchase_date, "--expires", expired)
    after = env.a.restore(user, [resigned]).customer
    assert after.status.state == ACTIVE, "the app presenting its transaction ended the grace period"
    entitlement = only_entitlement(after)
    assert entitlement.in_grace_period and ts_millis(entitlement.expires_at) == grace_ms


def test_refund_of_an_older_period_does_not_revoke_the_newer_paid_one(env, ca):
    original = new_original_id()
    current_start, _ = at(-DAY_MS)
    current_end, current_end_ms = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--transaction-id", original + "2",
                               "--purchase-date", current_start, "--expires", current_end)
    assert first.status.state == ACTIVE
    # Apple refunds last month's period: its own transaction ID, dates and revocation, signed now.
    old_period = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-31d",
                             "--expires", current_start, "--revocation-date", "-1m")
    post_ok(env, "a", notification(ca, "REFUND", transaction=old_period))
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE, "refunding an older period revoked the current paid one"
    assert ts_millis(only_entitlement(synced).expires_at) == current_end_ms
    # Apple reverses that refund: the old period, unrevoked and signed later still, leaves the current one alone.
    reinstated = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-31d",
                             "--expires", current_start)
    post_ok(env, "a", notification(ca, "REFUND_REVERSED", transaction=reinstated))
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE, "reversing an older period's refund rolled the subscription back"
    assert ts_millis(only_entitlement(synced).expires_at) == current_end_ms


def test_a_retried_notification_applies_its_renewal_state_after_a_later_signed_device_copy(env, ca):
    """Apple keeps a retried notification's signedDate. If the app presented the same transaction (signed later by
    StoreKit) in between, the notification's transaction data is older, but its renewal info is still news."""
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, expires_ms = at(29 * DAY_MS)
    same = ("--purchase-date", purchase_date, "--expires", expires)
    # Apple signed the notification half an hour ago; its first delivery failed.
    late = notification(ca, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED",
                        transaction=transaction(ca, original, *same, "--signed-date", "-30m"),
                        renewal=renewal_info(ca, original, "--auto-renew", "off", "--signed-date", "-30m"),
                        extra=("--signed-date", "-30m"))
    user = unique_id()
    first = env.a.purchase(user, transaction(ca, original, *same)).customer
    assert only_entitlement(first).will_renew
    post_ok(env, "a", late, "applied to", user)
    synced = env.a.sync(user)
    entitlement = only_entitlement(synced)
    assert synced.status.state == ACTIVE and ts_millis(entitlement.expires_at) == expires_ms
    assert not entitlement.will_renew, "the retried notification's auto-renew change was lost"


def test_the_transaction_upgraded_away_from_never_grants_or_replaces_the_upgrade(env, ca):
    original = new_original_id()
    user, _, _ = purchased(env, "a", ca, original, "--purchase-date", "-10d", "--expires", "+20d")
    upgrade = transaction(ca, original, "--transaction-id", original + "2", "--purchase-date", "-1m",
                          "--expires", "+30d", "--signed-date", "-1m", product=PREMIUM_MONTHLY)
    post_ok(env, "a", notification(ca, "DID_CHANGE_RENEWAL_PREF", "UPGRADE", transaction=upgrade,
                                   renewal=renewal_info(ca, original, product=PREMIUM_MONTHLY)), "applied to")
    # The device still holds the old plan's transaction, now marked isUpgraded and signed after the upgrade.
    upgraded_away = transaction(ca, original, "--purchase-date", "-10d", "--expires", "+20d", "--upgraded")
    assert payload(upgraded_away)["isUpgraded"] is True
    result = env.a.purchase(user, upgraded_away)
    assert entitlement_ids(result.customer) == ["premium"], "the old plan replaced the upgrade"
    assert result.result.outcome == 4  # OLDER_THAN_STORED
    # On its own, the upgraded-away transaction grants nothing.
    alone = env.a.purchase(unique_id(), transaction(ca, new_original_id(), "--upgraded"))
    assert alone.customer.status.state == INACTIVE and not alone.result.active


def sign_jws(ca: SigningCA, claims: dict) -> str:
    """A compact ES256 JWS of `claims` with the CA's leaf, the way Apple signs: x5c = leaf, intermediate, root."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    from cryptography.x509 import load_pem_x509_certificate

    def b64url(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    chain = [load_pem_x509_certificate((ca.dir / name).read_bytes()) for name in
             ("leaf.pem", "intermediate.pem", "root.pem")]
    x5c = [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in chain]
    header = b64url(json.dumps({"alg": "ES256", "x5c": x5c}).encode())
    body = b64url(json.dumps(claims).encode())
    key = serialization.load_pem_private_key((ca.dir / "leaf-key.pem").read_bytes(), password=None)
    r, s_ = decode_dss_signature(key.sign(f"{header}.{body}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{header}.{body}.{b64url(r.to_bytes(32, 'big') + s_.to_bytes(32, 'big'))}"


def test_external_purchase_token_notification_is_acknowledged(env, ca):
    claims = {
        "notificationType": "EXTERNAL_PURCHASE_TOKEN", "subtype": "UNREPORTED", "version": "2.0",
        "notificationUUID": f"ept-{unique_id()}", "signedDate": now_ms(),
        "externalPurchaseToken": {"externalPurchaseId": f"SANDBOX_{unique_id()}", "tokenCreationDate": now_ms(),
                                  "appAppleId": 55555, "bundleId": BUNDLE_ID},
    }
    post_ok(env, "a", sign_jws(ca, claims), "EXTERNAL_PURCHASE_TOKEN/UNREPORTED: recorded")
    # A production token (no SANDBOX prefix) is from an environment this Sandbox tenant does not accept: the tenant's
    # settings, so 503 and Apple delivers it again (see README, What each store is answered).
    claims["notificationUUID"] = f"ept-{unique_id()}"
    claims["externalPurchaseToken"]["externalPurchaseId"] = unique_id()
    status, text = post(env, "a", sign_jws(ca, claims))
    assert status == 503 and "Production" in text, (status, text)


def test_renewal_info_for_another_purchase_is_refused_naming_both(env, ca):
    original, other = new_original_id(), new_original_id()
    token = notification(ca, "DID_RENEW", transaction=transaction(ca, original),
                         renewal=renewal_info(ca, other))
    status, text = post(env, "a", token)
    assert status == 400 and original in text and other in text, (status, text)


def test_a_notification_for_an_unmapped_product_is_stored_granting_nothing(env, ca):
    user = unique_id()
    identified = env.a.identify(user)
    unmapped = ca.sign("com.example.not.in.settings", "--type", "non-consumable",
                       "--app-account-token", identified.app_account_token)
    post_ok(env, "a", notification(ca, "ONE_TIME_CHARGE", transaction=unmapped), "applied to", user)
    synced = env.a.sync(user)
    assert synced.status.state == INACTIVE and list(synced.status.entitlements) == []
    stored = stored_transaction(env, user, payload(unmapped)["originalTransactionId"])
    assert stored.product_id == "com.example.not.in.settings"
    # The app presenting it still gets the clear refusal: the product maps to nothing in this app.
    error = env.a.purchase_error(user, unmapped)
    assert error.code().name == "FAILED_PRECONDITION" and "com.example.not.in.settings" in error.details()


# --------------------------------------------------------------------------------------------------
# Attribution by appAccountToken


def test_subscribed_with_the_identify_app_account_token_is_attributed_without_purchase(env, ca):
    user = unique_id()
    identified = env.a.identify(user)
    token = identified.app_account_token
    assert token and token == token.lower(), token
    assert token[14] == "8" and token[19] in "89ab", token  # RFC 9562 version 8, RFC variant
    assert env.a.identify(user).app_account_token == token  # stable
    assert identified.customer.status.state == INACTIVE
    stream = watch(env, "a", user)
    original = new_original_id()
    signed = transaction(ca, original, "--app-account-token", token, "--purchase-date", "-1m", "--expires", "+30d")
    assert payload(signed)["appAccountToken"] == token
    post_ok(env, "a", notification(ca, "SUBSCRIBED", "INITIAL_BUY", transaction=signed), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED, event
    assert event.customer.status.state == ACTIVE
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE
    assert ts_millis(only_entitlement(synced).expires_at) == payload(signed)["expiresDate"]
    newest = newest_event(env, "a", user)
    assert newest.cause == CAUSE["APP_STORE_NOTIFICATION"], newest
    assert newest.reference_id == original
    # A token nobody was given leaves the purchase unowned.
    stranger = transaction(ca, new_original_id(), "--app-account-token", "00000000-0000-8000-8000-000000000000")
    post_ok(env, "a", notification(ca, "SUBSCRIBED", "INITIAL_BUY", transaction=stranger), "recorded")


# --------------------------------------------------------------------------------------------------
# Product changes within the subscription group, family revocation, renewal extension


def entitlement_ids(customer) -> list[str]:
    return sorted(e.id for e in customer.status.entitlements)


@pytest.mark.parametrize("kind", ["DID_CHANGE_RENEWAL_PREF", "OFFER_REDEEMED"])
def test_upgrade_switches_product_and_entitlements_now(env, ca, kind):
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, _ = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--transaction-id", original + "1",
                               "--purchase-date", purchase_date, "--expires", expires)
    assert entitlement_ids(first) == ["pro"]
    stream = watch(env, "a", user)
    # Apple's upgrade: a new transaction for the higher product, same originalTransactionId, starting now.
    upgraded = transaction(ca, original, "--transaction-id", original + "2", "--purchase-date", "-1m",
                           "--expires", "+30d", product=PREMIUM_MONTHLY)
    renewal = renewal_info(ca, original, "--auto-renew-product", PREMIUM_MONTHLY, product=PREMIUM_MONTHLY)
    post_ok(env, "a", notification(ca, kind, "UPGRADE", transaction=upgraded, renewal=renewal), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED, event
    assert entitlement_ids(event.customer) == ["premium"], event.customer.status
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE
    assert entitlement_ids(synced) == ["premium"], "the upgrade did not switch the entitlement now"
    assert ts_millis(only_entitlement(synced).expires_at) == payload(upgraded)["expiresDate"]
    newest = newest_event(env, "a", user)
    assert newest.cause == CAUSE["APP_STORE_NOTIFICATION"]
    assert newest.reason == f"{kind}/UPGRADE"
    assert newest.change == STATUS_CHANGED
    assert newest.reference_id == original


def test_downgrade_waits_for_the_next_renewal(env, ca):
    original = new_original_id()
    purchase_date, _ = at(-29 * DAY_MS)
    expires, expires_ms = at(DAY_MS)
    user = unique_id()
    first = env.a.purchase(user, transaction(ca, original, "--transaction-id", original + "1", "--signed-date", "-2h",
                                             "--purchase-date", purchase_date, "--expires", expires,
                                             product=PREMIUM_MONTHLY)).customer
    assert entitlement_ids(first) == ["premium"]
    stream = watch(env, "a", user)
    # The user picks the lower product: the current transaction is unchanged (re-signed), only the renewal
    # info's autoRenewProductId names the lower product.
    same = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", purchase_date,
                       "--expires", expires, product=PREMIUM_MONTHLY)
    renewal = renewal_info(ca, original, "--auto-renew-product", MONTHLY, product=PREMIUM_MONTHLY)
    post_ok(env, "a", notification(ca, "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", transaction=same, renewal=renewal),
            "applied to", user)
    # Recorded and pushed as news about the customer, with the entitlements unchanged.
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, event
    assert event.reason == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE"
    assert entitlement_ids(event.customer) == ["premium"]
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE
    assert entitlement_ids(synced) == ["premium"], "a downgrade switched the entitlement before the renewal"
    assert ts_millis(only_entitlement(synced).expires_at) == expires_ms
    assert only_entitlement(synced).will_renew
    # The pending change is visible to admin tools, and the app presenting its current purchase keeps it.
    assert stored_transaction(env, user, original).renewal_product_id == MONTHLY
    env.a.purchase(user, same)
    assert stored_transaction(env, user, original).renewal_product_id == MONTHLY
    # At the renewal, Apple's DID_RENEW carries a transaction for the lower product.
    renewed = transaction(ca, original, "--transaction-id", original + "2", "--purchase-date", "-1m",
                          "--expires", "+30d", product=MONTHLY)
    post_ok(env, "a", notification(ca, "DID_RENEW", transaction=renewed,
                                   renewal=renewal_info(ca, original, product=MONTHLY)), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED, event
    assert entitlement_ids(event.customer) == ["pro"]
    after = env.a.sync(user)
    assert after.status.state == ACTIVE and entitlement_ids(after) == ["pro"]
    assert ts_millis(only_entitlement(after).expires_at) == payload(renewed)["expiresDate"]
    assert newest_event(env, "a", user).reason == "DID_RENEW"
    assert stored_transaction(env, user, original).renewal_product_id == ""


def test_a_cancelled_downgrade_is_no_longer_pending(env, ca):
    original = new_original_id()
    user, _, current = purchased(env, "a", ca, original, "--purchase-date", "-1d", "--expires", "+29d",
                                 product=PREMIUM_MONTHLY)
    lower = renewal_info(ca, original, "--auto-renew-product", MONTHLY, product=PREMIUM_MONTHLY)
    post_ok(env, "a", notification(ca, "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", transaction=current, renewal=lower))
    assert stored_transaction(env, user, original).renewal_product_id == MONTHLY
    # The user goes back to the current product before the renewal: Apple sends the preference without a subtype.
    same = renewal_info(ca, original, "--auto-renew-product", PREMIUM_MONTHLY, product=PREMIUM_MONTHLY)
    post_ok(env, "a", notification(ca, "DID_CHANGE_RENEWAL_PREF", transaction=current, renewal=same), "applied to")
    assert stored_transaction(env, user, original).renewal_product_id == ""
    assert entitlement_ids(env.a.sync(user)) == ["premium"]


def stored_transaction(env, user: str, original: str):
    transactions = [t for t in env.a_admin.customer(user).transactions if t.original_transaction_id == original]
    assert len(transactions) == 1, transactions
    return transactions[0]


def test_revoke_withdraws_family_shared_access_at_once(env, ca):
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, _ = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--ownership", "family-shared",
                               "--purchase-date", purchase_date, "--expires", expires)
    assert first.status.state == ACTIVE and entitlement_ids(first) == ["pro"]
    stream = watch(env, "a", user)
    revoked = transaction(ca, original, "--ownership", "family-shared", "--purchase-date", purchase_date,
                          "--expires", expires, "--revocation-date", "-1m")
    assert payload(revoked)["inAppOwnershipType"] == "FAMILY_SHARED"
    post_ok(env, "a", notification(ca, "REVOKE", transaction=revoked), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED, event
    assert event.customer.status.state == INACTIVE
    synced = env.a.sync(user)
    assert synced.status.state == INACTIVE, "REVOKE left family-shared access in place"
    assert [e for e in synced.status.entitlements if ts_millis(e.expires_at) > now_ms()] == []
    newest = newest_event(env, "a", user)
    assert newest.reason == "REVOKE" and newest.change == STATUS_CHANGED


def test_renewal_extended_moves_the_expiry_later(env, ca):
    original = new_original_id()
    purchase_date, _ = at(-DAY_MS)
    expires, expires_ms = at(29 * DAY_MS)
    user, first, _ = purchased(env, "a", ca, original, "--transaction-id", original + "1",
                               "--purchase-date", purchase_date, "--expires", expires)
    assert ts_millis(only_entitlement(first).expires_at) == expires_ms
    stream = watch(env, "a", user)
    later, later_ms = at(36 * DAY_MS)
    extended = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", purchase_date,
                           "--expires", later)
    post_ok(env, "a", notification(ca, "RENEWAL_EXTENDED", transaction=extended,
                                   renewal=renewal_info(ca, original)), "applied to", user)
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, event
    assert ts_millis(only_entitlement(event.customer).expires_at) == later_ms
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and entitlement_ids(synced) == ["pro"]
    assert ts_millis(only_entitlement(synced).expires_at) == later_ms, "the expiry was not extended"
    newest = newest_event(env, "a", user)
    assert newest.reason == "RENEWAL_EXTENDED" and newest.change == CUSTOMER_INFO_CHANGED


@pytest.mark.parametrize("via", ["http1", "h2"])
def test_a_refusal_names_the_failed_check(env, ca, other_ca, via):
    import base64
    original = new_original_id()
    token = notification(ca, "TEST")
    header, body, signature = token.split(".")
    claims = payload(token)
    claims["notificationType"] = "DID_RENEW"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    status, text = post(env, "a", f"{header}.{forged}.{signature}", via)
    assert status == 400, text
    assert "signature" in text.lower(), f"a tampered payload's refusal does not name the signature check: {text!r}"
    # Signed by a CA the tenant does not trust: the chain check.
    status, text = post(env, "a", notification(other_ca, "TEST"), via)
    assert status == 400, text
    assert any(word in text.lower() for word in ("chain", "root", "certificate")), \
        f"an untrusted chain's refusal does not name the chain check: {text!r}"
    # Not a compact JWS at all: the format check.
    status, text = post(env, "a", b'{"signedPayload": "garbage"}', via)
    assert status == 400, text
    assert any(word in text.lower() for word in ("jws", "format", "malformed", "compact", "token")), \
        f"a malformed token's refusal does not say so: {text!r}"
    # Production notification for a Sandbox-only tenant: names both environments (503: the tenant's settings).
    status, text = post(env, "a", notification(ca, "TEST", extra=("--environment", "Production")), via)
    assert status == 503, text
    assert "Production" in text and "Sandbox" in text, text
    # Wrong tenant: says which.
    status, text = post(env, "no-such-tenant", notification(ca, "TEST"), via)
    assert status == 404 and "no-such-tenant" in text, text
    del original
