"""Google Play Real-time Developer Notifications at `POST /v1/google/notifications/{tenant_id}`, end to end through
the real interop-server and the fake Google, over HTTP/1.1 (http.client) and HTTP/2 (raw h2).

A notification only says that a purchase token changed: each test changes the purchase at the fake first, as Google
would, then pushes the notification (with a valid push token; test_play_push_auth.py refuses bad ones) and checks
what the server made of Google's answer. Tenant "a" takes production and test purchases; "b" is another app (another
package); "prod" takes production purchases only; "quiet" takes no notifications.
"""

from __future__ import annotations

import base64
import json
import time

import grpc
import pytest

from entitlement_support import (
    ACTIVE, CUSTOMER_INFO_CHANGED, INACTIVE, SNAPSHOT, STATUS_CHANGED, ts_millis, unique_id, write_tenants,
)
from fake_google import (
    FakeGoogle, OneTimeProductNotificationType, ProductType, SubscriptionNotificationType, millis, new_order_id,
    new_purchase_token, one_time_product_notification, subscription_notification, test_notification,
    voided_purchase_notification,
)
from play_support import (
    ACKNOWLEDGED, APP, COINS, LIFETIME, NOT_REQUIRED, PLAY_STORE_NOTIFICATION, SERVER_SETTINGS, SUB, UPGRADE, PlayEnv,
    api_path, entitlement_ids, expiry_ms, only_entitlement, play_tenant, stored, wait_acknowledged,
)

Code = grpc.StatusCode
OTHER_APP, PROD_APP = "com.example.other", "com.example.prodonly"
Type = SubscriptionNotificationType
VIAS = ["http1", "h2"]


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        fake.add_package(OTHER_APP)
        fake.add_package(PROD_APP)
        yield fake


@pytest.fixture(scope="module")
def play_tenants(fake, tmp_path_factory):
    key = fake.write_service_account(tmp_path_factory.mktemp("play-rtdn") / "service-account.json")
    return {
        "a": play_tenant(fake, key, "rtdn-a"),
        "b": play_tenant(fake, key, "rtdn-b", package=OTHER_APP),
        "prod": play_tenant(fake, key, "rtdn-prod", package=PROD_APP, environments=["production"]),
        "quiet": play_tenant(fake, key, "rtdn-quiet", notifications=False),
    }


@pytest.fixture(scope="module")
def play_server(tenants_server, tmp_path_factory, play_tenants):
    tenants_file = tmp_path_factory.mktemp("play-rtdn-tenants") / "tenants.json"
    write_tenants(tenants_file, play_tenants.values())
    return tenants_server(tenants_file, SERVER_SETTINGS)


@pytest.fixture
def env(play_server, fake, play_tenants, protos):
    environment = PlayEnv(play_server, fake, play_tenants, protos)
    yield environment
    fake.clear_faults()
    environment.close()


def purchased(env, product: str = SUB, **fields):
    """A user who bought `product` at the fake and presented it; (user, token, resource, customer)."""
    user, token = unique_id(), new_purchase_token()
    resource = env.fake.put_subscription(APP, token, product_id=product, **fields)
    customer = env.a.play_purchase(user, product, token).customer
    return user, token, resource, customer


def google_changes(env, token: str, product: str = SUB, **fields) -> dict:
    """The purchase as Google shows it after a change. Google keeps a purchase's acknowledgement state; so does this."""
    return env.fake.put_subscription(APP, token, product_id=product, acknowledged=True, **fields)


def sub_rtdn(token: str, kind: int, package: str = APP) -> dict:
    return subscription_notification(package, token, kind)


def watch(env, tenant: str, user: str):
    """A StreamStatus on another connection, past its snapshot."""
    stream = env.api(env.tenants[tenant].public_key, env.channel()).stream(user)
    assert stream.next().kind == SNAPSHOT
    return stream


def newest_event(env, user: str):
    return env.a_admin.all_events(user)[0]


def assert_play_event(env, user: str, token: str, reason: str, change: int | None = None):
    newest = newest_event(env, user)
    assert newest.cause == PLAY_STORE_NOTIFICATION, newest
    assert newest.reason == reason, newest.reason
    assert newest.reference_id == token
    if change is not None:
        assert newest.change == change, newest
    return newest


def order_of(resource: dict) -> str:
    return resource["lineItems"][0]["latestSuccessfulOrderId"]


# --------------------------------------------------------------------------------------------------
# Subscription lifecycle


@pytest.mark.parametrize("via", VIAS)
def test_renewed_moves_the_expiry_and_pushes(env, via):
    user, token, resource, first = purchased(env, expiry="+1d")
    stream = watch(env, "a", user)
    renewed = google_changes(env, token, expiry="+31d", order_id=order_of(resource) + "..0")
    env.push_ok("a", sub_rtdn(token, Type.RENEWED), "SUBSCRIPTION_RENEWED", "applied to", user, via=via)
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, event
    assert ts_millis(only_entitlement(event.customer).expires_at) == expiry_ms(renewed)
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and synced.version == event.customer.version > first.version
    assert ts_millis(only_entitlement(synced).expires_at) == expiry_ms(renewed)
    assert_play_event(env, user, token, "SUBSCRIPTION_RENEWED", CUSTOMER_INFO_CHANGED)
    assert stored(env.a_admin, user, token).transaction_id == order_of(resource) + "..0"


def test_in_grace_period_keeps_access_flagged(env):
    user, token, _, _ = purchased(env, expiry="+1h")
    grace = google_changes(env, token, state="IN_GRACE_PERIOD", expiry="+3d")
    env.push_ok("a", sub_rtdn(token, Type.IN_GRACE_PERIOD), "applied to")
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE
    entitlement = only_entitlement(synced)
    assert entitlement.in_grace_period and entitlement.in_billing_retry
    assert ts_millis(entitlement.expires_at) == expiry_ms(grace)
    assert_play_event(env, user, token, "SUBSCRIPTION_IN_GRACE_PERIOD")


def test_on_hold_ends_access_in_billing_retry_and_recovered_brings_it_back(env):
    user, token, _, _ = purchased(env, expiry="+1h")
    stream = watch(env, "a", user)
    google_changes(env, token, state="ON_HOLD", expiry="-1h")
    env.push_ok("a", sub_rtdn(token, Type.ON_HOLD), "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    transaction = stored(env.a_admin, user, token)
    assert transaction.in_billing_retry and not transaction.in_grace_period
    assert_play_event(env, user, token, "SUBSCRIPTION_ON_HOLD", STATUS_CHANGED)
    recovered = google_changes(env, token, expiry="+30d")
    env.push_ok("a", sub_rtdn(token, Type.RECOVERED), "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == ACTIVE
    assert ts_millis(only_entitlement(event.customer).expires_at) == expiry_ms(recovered)
    assert not stored(env.a_admin, user, token).in_billing_retry


def test_paused_gives_nothing_until_it_resumes(env):
    """PAUSED with Google's autoResumeTime a few seconds ahead: no access now, and access again at that time with
    no notification (the server's own timer pushes the change)."""
    user, token, _, _ = purchased(env)
    stream = watch(env, "a", user)
    resume_ms = (int(time.time()) + 3) * 1000
    google_changes(env, token, state="PAUSED", expiry="+30d", auto_resume=resume_ms)
    env.push_ok("a", sub_rtdn(token, Type.PAUSED), "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    assert env.a.sync(user).status.state == INACTIVE
    assert_play_event(env, user, token, "SUBSCRIPTION_PAUSED", STATUS_CHANGED)
    arrived, resumed = stream.next_timed(timeout=10)
    assert resumed.kind == STATUS_CHANGED and resumed.customer.status.state == ACTIVE, resumed
    assert arrived >= resume_ms / 1000 - 0.05, f"access came back {resume_ms / 1000 - arrived:.3f}s before the resume"
    assert env.a.sync(user).status.state == ACTIVE


def test_canceled_keeps_access_until_expiry_without_renewal(env):
    user, token, resource, first = purchased(env)
    assert only_entitlement(first).will_renew
    stream = watch(env, "a", user)
    google_changes(env, token, state="CANCELED", expiry=resource["lineItems"][0]["expiryTime"])
    env.push_ok("a", sub_rtdn(token, Type.CANCELED), "applied to")
    event = stream.next()
    assert event.kind == CUSTOMER_INFO_CHANGED, event
    entitlement = only_entitlement(event.customer)
    assert not entitlement.will_renew and ts_millis(entitlement.expires_at) == expiry_ms(resource)
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and not only_entitlement(synced).will_renew
    assert_play_event(env, user, token, "SUBSCRIPTION_CANCELED", CUSTOMER_INFO_CHANGED)


def test_expired_is_a_status_change_to_inactive(env):
    user, token, _, _ = purchased(env)
    stream = watch(env, "a", user)
    google_changes(env, token, state="EXPIRED", expiry="-1m")
    env.push_ok("a", sub_rtdn(token, Type.EXPIRED), "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    assert env.a.sync(user).status.state == INACTIVE
    assert_play_event(env, user, token, "SUBSCRIPTION_EXPIRED", STATUS_CHANGED)


def test_revoked_ends_access_at_once_whatever_the_expiry(env):
    """Google shows a revoked subscription EXPIRED with its old, future expiry: access ends now all the same."""
    user, token, resource, _ = purchased(env)
    stream = watch(env, "a", user)
    google_changes(env, token, state="EXPIRED", expiry=resource["lineItems"][0]["expiryTime"], cancellation="developer")
    before = time.time()
    env.push_ok("a", sub_rtdn(token, Type.REVOKED), "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    transaction = stored(env.a_admin, user, token)
    assert transaction.revocation_reason == "REVOKED" and not transaction.will_renew
    assert transaction.HasField("revoked_at") and ts_millis(transaction.revoked_at) / 1000 <= time.time() + 1
    assert ts_millis(transaction.revoked_at) / 1000 >= before - 5
    assert_play_event(env, user, token, "SUBSCRIPTION_REVOKED", STATUS_CHANGED)


# --------------------------------------------------------------------------------------------------
# Voided purchases


def test_a_voided_purchase_notification_revokes_at_once(env):
    """Google voids a subscription (a refund with revocation) and notifies: the server checks with Google, which
    now shows it ended, and revokes the stored purchase at once."""
    user, token, resource, _ = purchased(env)
    stream = watch(env, "a", user)
    env.fake.void(token, order_id=order_of(resource), product_type=1)
    env.push_ok("a", voided_purchase_notification(APP, token, order_of(resource), ProductType.SUBSCRIPTION),
                "VOIDED_PURCHASE", "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    transaction = stored(env.a_admin, user, token)
    assert transaction.revocation_reason == "VOIDED" and transaction.HasField("revoked_at")
    assert_play_event(env, user, token, "VOIDED_PURCHASE", STATUS_CHANGED)
    # Again (another message): nothing new.
    version = env.a.sync(user).version
    env.push_ok("a", voided_purchase_notification(APP, token, order_of(resource), ProductType.SUBSCRIPTION))
    assert env.a.sync(user).version == version


def test_a_voided_subscription_revokes_at_once_while_google_still_shows_it_active(env):
    """Google's subscription can still say ACTIVE after a refund: the void is confirmed by Google's voided-purchases
    list (subscriptions included: type=1, from a little before the notification, to Google's now), and revoked at
    once."""
    user, token, resource, _ = purchased(env)
    stream = watch(env, "a", user)
    voided = env.fake.void(token, order_id=order_of(resource), product_type=ProductType.SUBSCRIPTION, revoke=False)
    assert env.fake.get_subscription(APP, token)["subscriptionState"] == "SUBSCRIPTION_STATE_ACTIVE"
    notification = voided_purchase_notification(APP, token, order_of(resource), ProductType.SUBSCRIPTION)
    listed_before = len(env.fake.requests("GET", "voidedpurchases$"))
    env.push_ok("a", notification, "VOIDED_PURCHASE", "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE
    assert env.a.sync(user).status.state == INACTIVE
    transaction = stored(env.a_admin, user, token)
    assert transaction.revocation_reason == "VOIDED" and ts_millis(transaction.revoked_at) == millis(voided.voided_time)
    assert_play_event(env, user, token, "VOIDED_PURCHASE", STATUS_CHANGED)
    listings = env.fake.requests("GET", "voidedpurchases$")[listed_before:]
    assert [request.status for request in listings] == [200]
    query = {name: values[0] for name, values in listings[0].query.items()}
    assert query["type"] == "1" and "endTime" not in query and "token" not in query, query
    assert int(query["startTime"]) <= int(notification["eventTimeMillis"]) - 10 * 60_000, query
    assert env.fake.get_subscription(APP, token)["subscriptionState"] == "SUBSCRIPTION_STATE_ACTIVE"


def test_a_voided_subscription_google_does_not_list_is_retried_then_acknowledged(env):
    """A void Google's list does not show is not applied: answered 503 while Google may still list it (ten minutes
    after the notification's time), so Pub/Sub redelivers and the redelivery revokes once Google lists it; a later
    one (a replayed or forged push, Google's subscription still ACTIVE) is acknowledged and changes nothing."""
    user, token, resource, _ = purchased(env)
    version = env.a.sync(user).version
    notification = voided_purchase_notification(APP, token, order_of(resource), ProductType.SUBSCRIPTION)
    message_id = f"msg-{unique_id()}"
    status, text = env.push("a", notification, message_id=message_id)
    assert status == 503 and "do not list" in text, (status, text)
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and synced.version == version
    assert not stored(env.a_admin, user, token).HasField("revoked_at")
    env.fake.void(token, order_id=order_of(resource), product_type=ProductType.SUBSCRIPTION, revoke=False)
    env.push_ok("a", notification, "VOIDED_PURCHASE", "applied to", message_id=message_id)
    assert env.a.sync(user).status.state == INACTIVE

    user, token, resource, _ = purchased(env)
    version = env.a.sync(user).version
    late = voided_purchase_notification(APP, token, order_of(resource), ProductType.SUBSCRIPTION, event_time="-11m")
    text = env.push_ok("a", late, "not applied", "do not list")
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and synced.version == version, text
    assert not stored(env.a_admin, user, token).HasField("revoked_at")


def test_a_voided_subscription_is_kept_while_googles_list_fails(env):
    user, token, resource, _ = purchased(env)
    env.fake.void(token, order_id=order_of(resource), product_type=ProductType.SUBSCRIPTION, revoke=False)
    notification = voided_purchase_notification(APP, token, order_of(resource), ProductType.SUBSCRIPTION)
    env.fake.fail_next("GET", "voidedpurchases$", 500, count=10)
    message_id = f"msg-{unique_id()}"
    status, text = env.push("a", notification, message_id=message_id)
    assert status == 503, (status, text)
    assert env.a.sync(user).status.state == ACTIVE
    env.fake.clear_faults()
    env.push_ok("a", notification, "applied to", message_id=message_id)
    assert env.a.sync(user).status.state == INACTIVE


def test_a_partial_refund_or_an_earlier_renewals_void_leaves_access(env):
    user, token, resource, first = purchased(env)
    env.push_ok("a", voided_purchase_notification(APP, token, order_of(resource), ProductType.SUBSCRIPTION,
                                                  refund_type=2))
    current = google_changes(env, token, order_id=order_of(resource) + "..1")
    env.push_ok("a", sub_rtdn(token, Type.RENEWED), "applied to")
    renewed_version = env.a.sync(user).version
    # The first renewal's order voided: a period that is over.
    env.fake.void(token, order_id=order_of(resource) + "..0", product_type=ProductType.SUBSCRIPTION, revoke=False)
    env.push_ok("a", voided_purchase_notification(APP, token, order_of(resource) + "..0", ProductType.SUBSCRIPTION))
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and synced.version == renewed_version
    assert stored(env.a_admin, user, token).transaction_id == order_of(current)


def test_a_voided_one_time_product_is_revoked(env):
    user, token = unique_id(), new_purchase_token()
    resource = env.fake.put_product(APP, token, product_id=LIFETIME)
    assert env.a.play_purchase(user, LIFETIME, token).customer.status.state == ACTIVE
    env.fake.void(token, order_id=resource["orderId"], product_type=2)
    env.push_ok("a", voided_purchase_notification(APP, token, resource["orderId"], ProductType.ONE_TIME), "applied to")
    assert env.a.sync(user).status.state == INACTIVE
    assert stored(env.a_admin, user, token).revocation_reason == "VOIDED"


def test_a_voided_purchase_the_server_never_saw_is_acknowledged_and_changes_nothing(env):
    env.push_ok("a", voided_purchase_notification(APP, new_purchase_token(), new_order_id(),
                                                  ProductType.SUBSCRIPTION), "recorded")


# --------------------------------------------------------------------------------------------------
# Replacements and attribution


def test_an_upgrade_arriving_by_notification_first_supersedes_the_old_token(env):
    user, old, _, first = purchased(env)
    assert entitlement_ids(first) == ["pro"]
    wait_acknowledged(env.fake, env.a_admin, user, old)
    stream = watch(env, "a", user)
    new = new_purchase_token()
    env.fake.put_subscription(APP, new, product_id=UPGRADE, linked=old)
    # Google still shows the old token ACTIVE: only the newest token may grant.
    assert env.fake.get_subscription(APP, old)["subscriptionState"] == "SUBSCRIPTION_STATE_ACTIVE"
    env.push_ok("a", sub_rtdn(new, Type.PURCHASED), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED and entitlement_ids(event.customer) == ["premium"], event
    assert stored(env.a_admin, user, old).superseded_by == new
    assert stored(env.a_admin, user, new).replaces == old
    # The old token's own notification, while Google still shows it active, does not bring it back.
    env.push_ok("a", sub_rtdn(old, Type.RENEWED))
    assert entitlement_ids(env.a.sync(user)) == ["premium"]
    # The device's Purchase of the new token afterwards changes nothing.
    version = env.a.sync(user).version
    assert env.a.play_purchase(user, UPGRADE, new).customer.version == version
    wait_acknowledged(env.fake, env.a_admin, user, new)
    assert len(env.fake.acknowledgements_of(new)) == 1 and len(env.fake.acknowledgements_of(old)) == 1


def test_a_resubscription_in_the_play_store_goes_to_the_previous_owner(env):
    """outOfAppPurchaseContext names the expired token a re-subscription made in the Play Store app continues: the
    new token has no account ids and no linkedPurchaseToken, and still goes to that token's owner."""
    user, old, _, _ = purchased(env)
    google_changes(env, old, state="EXPIRED", expiry="-1d")
    env.push_ok("a", sub_rtdn(old, Type.EXPIRED), "applied to")
    assert env.a.sync(user).status.state == INACTIVE
    stream = watch(env, "a", user)
    new = new_purchase_token()
    env.fake.put_subscription(APP, new, product_id=SUB, out_of_app_previous={"token": old})
    env.push_ok("a", sub_rtdn(new, Type.PURCHASED), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == ACTIVE
    assert stored(env.a_admin, user, new).owner_app_user_id == user
    assert_play_event(env, user, new, "SUBSCRIPTION_PURCHASED", STATUS_CHANGED)
    wait_acknowledged(env.fake, env.a_admin, user, new)


def test_a_resubscription_naming_the_previous_account_id_goes_to_that_user(env):
    """The previous token is one the server never saw (older than this server), but Google names the account id
    it carried: the Identify app_account_token of a user."""
    user = unique_id()
    account = env.a.identify(user).app_account_token
    new = new_purchase_token()
    env.fake.put_subscription(APP, new, product_id=SUB,
                              out_of_app_previous={"token": new_purchase_token(), "account_id": account})
    env.push_ok("a", sub_rtdn(new, Type.PURCHASED), "applied to", user)
    assert env.a.sync(user).status.state == ACTIVE


def test_the_app_account_token_attributes_a_notification_before_any_purchase_call(env):
    user = unique_id()
    account = env.a.identify(user).app_account_token
    stream = watch(env, "a", user)
    token = new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB, account_id=account)
    env.push_ok("a", sub_rtdn(token, Type.PURCHASED), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED and event.customer.status.state == ACTIVE
    assert_play_event(env, user, token, "SUBSCRIPTION_PURCHASED", STATUS_CHANGED)
    wait_acknowledged(env.fake, env.a_admin, user, token)
    assert len(env.fake.acknowledgements_of(token)) == 1


def test_an_unknown_token_for_nobody_is_recorded_acknowledged_and_attached_later(env):
    token = new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB, account_id="not-an-app-account-token")
    env.push_ok("a", sub_rtdn(token, Type.PURCHASED), "recorded")
    # Acknowledged although nobody owns it yet: Google refunds it otherwise.
    env.fake.wait_for_requests("POST", token + ":acknowledge")
    user = unique_id()
    customer = env.a.play_purchase(user, SUB, token).customer
    assert customer.status.state == ACTIVE
    transaction = stored(env.a_admin, user, token)
    assert transaction.acknowledgement in (ACKNOWLEDGED, NOT_REQUIRED)
    assert len(env.fake.acknowledgements_of(token)) == 1


# --------------------------------------------------------------------------------------------------
# One-time products


def test_a_pending_one_time_purchase_is_granted_when_google_says_purchased(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_product(APP, token, product_id=LIFETIME, state=2)
    assert env.a.play_purchase(user, LIFETIME, token).customer.status.state == INACTIVE
    stream = watch(env, "a", user)
    env.fake.put_product(APP, token, product_id=LIFETIME, state=0)
    env.push_ok("a", one_time_product_notification(APP, token, LIFETIME), "ONE_TIME_PRODUCT_PURCHASED", "applied to")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and entitlement_ids(event.customer) == ["premium"]
    assert not only_entitlement(event.customer).HasField("expires_at")
    assert_play_event(env, user, token, "ONE_TIME_PRODUCT_PURCHASED", STATUS_CHANGED)
    wait_acknowledged(env.fake, env.a_admin, user, token)
    [ack] = env.fake.acknowledgements_of(token)
    assert ack.kind == "product" and ack.product_id == LIFETIME


def test_a_canceled_one_time_purchase_ends_access(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_product(APP, token, product_id=LIFETIME, acknowledged=True)
    assert env.a.play_purchase(user, LIFETIME, token).customer.status.state == ACTIVE
    env.fake.put_product(APP, token, product_id=LIFETIME, state=1, acknowledged=True)
    env.push_ok("a", one_time_product_notification(APP, token, LIFETIME, OneTimeProductNotificationType.CANCELED),
                "ONE_TIME_PRODUCT_CANCELED", "applied to")
    assert env.a.sync(user).status.state == INACTIVE
    assert stored(env.a_admin, user, token).revocation_reason == "CANCELED"


def test_a_consumable_by_notification_is_recorded_for_its_account_without_entitlements(env):
    user = unique_id()
    account = env.a.identify(user).app_account_token
    token = new_purchase_token()
    env.fake.put_product(APP, token, product_id=COINS, account_id=account)
    env.push_ok("a", one_time_product_notification(APP, token, COINS), "applied to", user)
    assert env.a.sync(user).status.state == INACTIVE
    assert stored(env.a_admin, user, token).product_id == COINS
    assert_play_event(env, user, token, "ONE_TIME_PRODUCT_PURCHASED", CUSTOMER_INFO_CHANGED)


# --------------------------------------------------------------------------------------------------
# Every type, unknown types, deduplication, failures


@pytest.mark.parametrize("kind", list(Type), ids=lambda kind: kind.name)
def test_every_subscription_notification_type_is_applied_under_its_name(env, kind):
    """Whatever the type, the server fetches Google's answer and applies it; the type's name is the event's reason.
    Google's answer changes (the expiry moves by a minute) so that every type has something to apply."""
    user, token, resource, _ = purchased(env, expiry="+20d")
    google_changes(env, token, expiry=expiry_ms(resource) + 60_000, order_id=order_of(resource))
    name = f"SUBSCRIPTION_{kind.name}"
    text = env.push_ok("a", sub_rtdn(token, kind), name, "applied to", user)
    assert text.startswith(name), text
    assert_play_event(env, user, token, name)
    if kind != Type.REVOKED:
        assert ts_millis(only_entitlement(env.a.sync(user)).expires_at) == expiry_ms(resource) + 60_000


def test_an_unknown_type_number_is_recorded_by_number(env):
    user, token, resource, _ = purchased(env, expiry="+20d")
    google_changes(env, token, expiry=expiry_ms(resource) + 60_000, order_id=order_of(resource))
    env.push_ok("a", sub_rtdn(token, 99), "SUBSCRIPTION_NOTIFICATION_99", "applied to")
    assert_play_event(env, user, token, "SUBSCRIPTION_NOTIFICATION_99")


@pytest.mark.parametrize("via", VIAS)
def test_a_redelivered_message_is_applied_once(env, via):
    """Pub/Sub delivers at least once: the same messageId again is acknowledged and applies nothing, even when
    Google's data changed meanwhile (a later notification carries that)."""
    user, token, resource, _ = purchased(env, expiry="+1d")
    google_changes(env, token, expiry="+31d", order_id=order_of(resource) + "..0")
    message_id = f"msg-{unique_id()}"
    env.push_ok("a", sub_rtdn(token, Type.RENEWED), "applied to", message_id=message_id, via=via)
    after = env.a.sync(user)
    events = len(env.a_admin.all_events(user))
    google_changes(env, token, state="EXPIRED", expiry="-1m")
    env.push_ok("a", sub_rtdn(token, Type.RENEWED), "already processed", message_id=message_id, via=via)
    synced = env.a.sync(user)
    assert synced.version == after.version and synced.status.state == ACTIVE
    assert len(env.a_admin.all_events(user)) == events


def test_google_failing_during_a_notification_is_5xx_and_the_redelivery_applies(env):
    user, token, _, _ = purchased(env)
    google_changes(env, token, state="EXPIRED", expiry="-1m")
    # Every fetch of the token fails (the client's retries included) until the faults are cleared.
    env.fake.fail_next("GET", api_path(token), 503, count=1000)
    message_id = f"msg-{unique_id()}"
    status, text = env.push("a", sub_rtdn(token, Type.EXPIRED), message_id=message_id)
    assert status == 503, (status, text)
    assert env.a.sync(user).status.state == ACTIVE
    env.fake.clear_faults()
    env.push_ok("a", sub_rtdn(token, Type.EXPIRED), "applied to", message_id=message_id)
    assert env.a.sync(user).status.state == INACTIVE


def test_a_test_notification_is_acknowledged(env):
    env.push_ok("a", test_notification(APP), "TEST_NOTIFICATION")


def test_a_test_purchase_notified_to_a_production_only_tenant_is_refused_for_redelivery_and_not_applied(env):
    """The tenant's settings refuse it: ours to change, so 503 and Pub/Sub keeps it (never dropped)."""
    user = unique_id()
    account = env.prod.identify(user).app_account_token
    token = new_purchase_token()
    env.fake.put_subscription(PROD_APP, token, product_id=SUB, test=True, account_id=account)
    status, text = env.push("prod", sub_rtdn(token, Type.PURCHASED, PROD_APP))
    assert status == 503 and "test purchase" in text, (status, text)
    assert env.prod.sync(user).version == 1  # Identify's creation only
    assert list(env.prod_admin.customer(user).transactions) == []
    assert env.fake.requests("POST", token + ":acknowledge") == []


# --------------------------------------------------------------------------------------------------
# Refusals


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def envelope_with(message: dict) -> bytes:
    return json.dumps({"message": message, "subscription": "projects/p/subscriptions/s"}).encode()


MALFORMED = {
    "not json": b"not json",
    "no message": json.dumps({"subscription": "projects/p/subscriptions/s"}).encode(),
    "message not an object": envelope_with("x"),  # type: ignore[arg-type]
    "garbage base64": envelope_with({"data": "%%% not base64 %%%", "messageId": "1"}),
    "garbage json": envelope_with({"data": b64(b"{not json"), "messageId": "2"}),
    "no data": envelope_with({"messageId": "3"}),
    "no messageId": envelope_with({"data": b64(json.dumps(test_notification(APP)).encode())}),
    "empty messageId": envelope_with({"data": b64(json.dumps(test_notification(APP)).encode()), "messageId": ""}),
    "empty notification": envelope_with({
        "data": b64(json.dumps({"version": "1.0", "packageName": APP, "eventTimeMillis": "1"}).encode()),
        "messageId": "4"}),
    "subscription notification without a token": envelope_with({
        "data": b64(json.dumps({"version": "1.0", "packageName": APP, "eventTimeMillis": "1",
                                "subscriptionNotification": {"version": "1.0", "notificationType": 2}}).encode()),
        "messageId": "5"}),
    "one-time notification without a sku": envelope_with({
        "data": b64(json.dumps({"version": "1.0", "packageName": APP, "eventTimeMillis": "1",
                                "oneTimeProductNotification": {"version": "1.0", "notificationType": 1,
                                                               "purchaseToken": "abc"}}).encode()),
        "messageId": "6"}),
}


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_pushes_are_400(env, name, via):
    status, text = env.push("a", None, body=MALFORMED[name], via=via)
    assert status == 400, (status, text)


def test_a_kind_of_notification_google_adds_later_is_acknowledged_not_applied(env):
    """Unlike a notification of no kind at all (400 above), one of a kind this server does not know yet is Google's
    to send: refusing it would have Pub/Sub redeliver it for days to no end."""
    data = {"version": "1.0", "packageName": APP, "eventTimeMillis": "1",
            "futureProductNotification": {"version": "1.0", "purchaseToken": new_purchase_token()}}
    env.push_ok("a", data, "not applied")


def test_a_malformed_push_does_not_use_up_its_message_id(env):
    """A 400 applies nothing: the message id of a refused push still applies when a well-formed push carries it."""
    user, token, _, _ = purchased(env)
    google_changes(env, token, state="EXPIRED", expiry="-1m")
    message_id = f"msg-{unique_id()}"
    empty = {"version": "1.0", "packageName": APP, "eventTimeMillis": "1"}
    status, text = env.push("a", empty, message_id=message_id)
    assert status == 400, (status, text)
    env.push_ok("a", sub_rtdn(token, Type.EXPIRED), "applied to", message_id=message_id)


@pytest.mark.parametrize("via", VIAS)
def test_another_apps_notification_is_400(env, via):
    user, token, _, first = purchased(env)
    google_changes(env, token, state="EXPIRED", expiry="-1m")
    status, text = env.push("a", sub_rtdn(token, Type.EXPIRED, package=OTHER_APP), via=via)
    assert status == 400 and OTHER_APP in text and APP in text, (status, text)
    # Tenant b's own push (with b's audience) for its package is fine; a's package on b's URL is not.
    env.push_ok("b", test_notification(OTHER_APP), via=via)
    status, text = env.push("b", test_notification(APP), via=via)
    assert status == 400, (status, text)
    assert env.a.sync(user).version == first.version


@pytest.mark.parametrize("via", VIAS)
def test_unknown_tenants_and_tenants_without_notifications_are_404(env, via):
    status, text = env.push("no-such-tenant", test_notification(APP), via=via)
    assert status == 404 and "no-such-tenant" in text, (status, text)
    status, text = env.push("quiet", test_notification(APP), via=via)
    assert status == 404, (status, text)
