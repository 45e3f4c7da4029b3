"""README's "What each store is answered", through the real interop-server, at the three stores' endpoints of one
tenant: the same outcome gets the same reply at Apple's, Google's and Stripe's. Above all, a notification the tenant's
settings cannot place (a product they do not map or give no duration, an environment or mode they refuse) is answered
503, so the store delivers it again, and it is applied once an operator fixes the tenants file (SIGHUP): nothing is
lost meanwhile. A duplicate is 200 at each; a malformed body 400, an unknown tenant 404, an oversized body 413.

The tenant "t" takes Apple's Sandbox, Google's production purchases and Stripe's test mode only. Each store's own rules
are proved in test_notifications.py, test_play_notifications.py and test_stripe_events.py.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

import fake_stripe as fs
from appstore_support import SigningCA, app_store_settings
from appstore_support import PRODUCTS as APPLE_PRODUCTS
from entitlement_support import make_key, unique_id, write_tenants
from fake_google import FakeGoogle, new_purchase_token, one_time_product_notification, push_envelope
from fake_google import SubscriptionNotificationType, subscription_notification
from play_support import APP, PUSH_EMAIL, SERVER_SETTINGS, SUB, audience_for, play_settings
from play_support import PRODUCTS as PLAY_PRODUCTS
from play_support import post as play_post
from stripe_support import PRICE_UNMAPPED, StripeEnv, StripeTenantSpec, stripe_settings, subscription_for
from stripe_support import PRODUCTS as STRIPE_PRODUCTS
from stripe_support import post as stripe_post
from webhook_posting import POSTERS

STORES = ["apple", "google", "stripe"]
TENANT_ID = "replies"
DAY_PASS = "com.example.day.pass"  # an Apple non-renewing product the tenants file does not list at first
GEMS = "gems_500"  # a Play one-time product the tenants file does not list at first
RELOADED = "reloaded tenants"


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("replies-ca") / "ca")


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def tenant(ca, fake, tmp_path_factory) -> StripeTenantSpec:
    key = fake.write_service_account(tmp_path_factory.mktemp("replies-play") / "service-account.json")
    return StripeTenantSpec(
        id=TENANT_ID, public_keys=[make_key("pk")[0]], secret_keys=[make_key("sk")[0]], entitlements=["pro", "premium"],
        products={**APPLE_PRODUCTS, **PLAY_PRODUCTS, **STRIPE_PRODUCTS},
        app_store=app_store_settings(ca.root, "transfer"),
        play_store=play_settings(fake, key, TENANT_ID, environments=["production"]), stripe=stripe_settings())


@pytest.fixture(scope="module")
def tenants_file(tmp_path_factory, tenant):
    path = tmp_path_factory.mktemp("replies-tenants") / "tenants.json"
    write_tenants(path, [tenant])
    return path


@pytest.fixture(scope="module")
def server(tenants_server, tenants_file):
    return tenants_server(tenants_file, SERVER_SETTINGS)


@pytest.fixture
def env(server, tenant, protos):
    environment = StripeEnv(server, {"t": tenant}, protos)
    yield environment
    environment.close()


# --------------------------------------------------------------------------------------------------
# Delivering one notification as each store does


class Delivery:
    """One store's notification, delivered again and again as the store would: the same body and ID each time."""

    def __init__(self, store: str, body: bytes, tenant: StripeTenantSpec, fake: FakeGoogle):
        self.store, self.body, self.tenant, self.fake = store, body, tenant, fake

    def post(self, tenant_id: str = TENANT_ID, body: bytes | None = None, server=None) -> tuple[int, str]:
        body = self.body if body is None else body
        if self.store == "apple":
            return POSTERS["http1"](server, f"/v1/apple/notifications/{tenant_id}", body,
                                    {"content-type": "application/json"})
        if self.store == "google":
            token = self.fake.mint_push_token(audience=audience_for(tenant_id), email=PUSH_EMAIL)
            return play_post(server, tenant_id, body, "Bearer " + token)
        signature = fs.sign(body.decode("utf-8", "replace"), self.tenant.webhook_secret)
        return stripe_post(server, tenant_id, body, signature)


def apple_body(token: str) -> bytes:
    return json.dumps({"signedPayload": token}).encode()


def apple_notification(ca: SigningCA, transaction: str, *extra: str) -> bytes:
    return apple_body(ca.signed("sign-notification", "ONE_TIME_CHARGE", "--transaction", transaction, *extra))


def unplaceable(store: str, env, ca: SigningCA, fake: FakeGoogle, tenant) -> tuple[str, Delivery]:
    """A user, and a delivery of their purchase of a product the tenants file cannot place yet."""
    user = unique_id()
    account = env.t.identify(user).app_account_token
    if store == "apple":
        # A non-renewing product the app's settings do not list: no duration to give it.
        transaction = ca.sign(DAY_PASS, "--type", "non-renewing", "--app-account-token", account)
        return user, Delivery(store, apple_notification(ca, transaction), tenant, fake)
    if store == "google":
        token = new_purchase_token()
        fake.put_product(APP, token, product_id=GEMS, account_id=account)
        data = one_time_product_notification(APP, token, GEMS)
        return user, Delivery(store, json.dumps(push_envelope(data)).encode(), tenant, fake)
    evt = fs.event("customer.subscription.created", subscription_for(user, price_id=PRICE_UNMAPPED))
    return user, Delivery(store, fs.body_of(evt).encode(), tenant, fake)


def place_everything(tenant) -> None:
    """What the operator adds to the tenants file: each store's product, mapped to "premium"."""
    tenant.app_store["products"][DAY_PASS] = {"type": "non_renewing", "duration_days": 7}
    tenant.play_store["products"][GEMS] = {"type": "non_consumable"}
    tenant.stripe["prices"][PRICE_UNMAPPED] = "gems_web"
    tenant.products.update({DAY_PASS: ["premium"], GEMS: ["premium"], "gems_web": ["premium"]})


def reload(server, tenants_file, tenant) -> None:
    before = server.log().count(RELOADED)
    write_tenants(tenants_file, [tenant])
    server.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while server.log().count(RELOADED) <= before:
        assert time.monotonic() < deadline, f"no reload:\n{server.log()[-3000:]}"
        time.sleep(0.05)


# --------------------------------------------------------------------------------------------------
# Tests


def test_what_the_tenants_file_cannot_place_is_kept_at_every_store_until_an_operator_places_it(
        env, server, tenants_file, tenant, ca, fake):
    pending = {store: unplaceable(store, env, ca, fake, tenant) for store in STORES}
    for store, (user, delivery) in pending.items():
        for attempt in range(2):
            status, text = delivery.post(server=server)
            assert status == 503, (store, attempt, status, text)
        assert list(env.t.sync(user).status.entitlements) == [], store
    assert "raised_at" in server.log() and "EntitlementDomain/" in server.log()
    place_everything(tenant)
    reload(server, tenants_file, tenant)
    for store, (user, delivery) in pending.items():
        status, text = delivery.post(server=server)
        assert status == 200 and "applied to" in text and user in text, (store, status, text)
        assert [e.id for e in env.t.sync(user).status.entitlements] == ["premium"], store
        status, text = delivery.post(server=server)
        assert status == 200 and "already processed" in text, (store, status, text)


def test_an_environment_or_mode_the_tenant_refuses_is_503_at_every_store(env, server, tenant, ca, fake):
    user = unique_id()
    account = env.t.identify(user).app_account_token
    apple = Delivery("apple", apple_notification(
        ca, ca.sign("com.example.lifetime", "--type", "non-consumable", "--app-account-token", account),
        "--environment", "Production"), tenant, fake)
    token = new_purchase_token()
    fake.put_subscription(APP, token, product_id=SUB, test=True, account_id=account)
    google = Delivery("google", json.dumps(push_envelope(subscription_notification(
        APP, token, SubscriptionNotificationType.PURCHASED))).encode(), tenant, fake)
    live = fs.event("customer.subscription.created", subscription_for(user, livemode=True))
    stripe = Delivery("stripe", fs.body_of(live).encode(), tenant, fake)
    for delivery in [apple, google, stripe]:
        status, text = delivery.post(server=server)
        assert status == 503, (delivery.store, status, text)
    assert list(env.t.sync(user).status.entitlements) == []


def test_a_duplicate_is_200_at_every_store(env, server, tenant, ca, fake):
    user = unique_id()
    account = env.t.identify(user).app_account_token
    token = new_purchase_token()
    fake.put_subscription(APP, token, product_id=SUB, account_id=account)
    deliveries = [
        Delivery("apple", apple_notification(
            ca, ca.sign("com.example.lifetime", "--type", "non-consumable", "--app-account-token", account)),
            tenant, fake),
        Delivery("google", json.dumps(push_envelope(subscription_notification(
            APP, token, SubscriptionNotificationType.PURCHASED))).encode(), tenant, fake),
        Delivery("stripe", fs.body_of(fs.event("customer.subscription.created", subscription_for(user))).encode(),
                 tenant, fake),
    ]
    for delivery in deliveries:
        first, text = delivery.post(server=server)
        assert first == 200 and "applied to" in text, (delivery.store, first, text)
        again, text = delivery.post(server=server)
        assert again == 200 and "already processed" in text, (delivery.store, again, text)


@pytest.mark.parametrize("store", STORES)
def test_malformed_unknown_tenant_and_oversized_are_answered_alike(server, tenant, fake, store):
    delivery = Delivery(store, b"{}", tenant, fake)
    status, text = delivery.post(server=server)
    assert status == 400, (status, text)
    assert delivery.post("no-such-tenant", server=server)[0] == 404
    limit = 256 * 1024 if store == "stripe" else 64 * 1024
    status, text = delivery.post(body=b" " * (limit + 1), server=server)
    assert status == 413, (status, text)
