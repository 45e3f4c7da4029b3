"""One customer buying in all three places: an App Store purchase (signed by `entctl dev`), a Google Play purchase (at
the fake Google) and a web purchase (a Stripe webhook) under the same app_user_id, on a tenant with `app_store`,
`play_store` and `stripe` settings; SyncStatus shows each entitlement with its own source.
"""

from __future__ import annotations

import dataclasses

import pytest

import fake_stripe as fs
from appstore_support import BUNDLE_ID, MONTHLY as APP_STORE_MONTHLY, SigningCA, app_store_settings
from appstore_support import PRODUCTS as APP_STORE_PRODUCTS
from entitlement_support import STATUS_CHANGED, SNAPSHOT, unique_id, write_tenants
from fake_google import FakeGoogle, new_purchase_token
from play_support import APP, APP_STORE_SOURCE, PLAY_STORE_SOURCE, SERVER_SETTINGS, UPGRADE, PlayEnv, play_tenant
from stripe_support import PRODUCTS as WEB_PRODUCTS
from stripe_support import WEB_SOURCE, WEB_STORE, StripeTenantSpec, post, stripe_settings

PRICE_PLUS, WEB_PLUS = "price_web_plus", "web_plus"


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("web-cross-ca") / "ca")


@pytest.fixture(scope="module")
def tenant(fake, ca, tmp_path_factory) -> StripeTenantSpec:
    key = fake.write_service_account(tmp_path_factory.mktemp("web-cross") / "service-account.json")
    play = play_tenant(fake, key, "cross-three")
    spec = StripeTenantSpec(**{f.name: getattr(play, f.name) for f in dataclasses.fields(play)})
    spec.entitlements = ["pro", "premium", "plus"]
    spec.products.update(APP_STORE_PRODUCTS)
    spec.products.update(WEB_PRODUCTS)
    spec.products[WEB_PLUS] = ["plus"]
    spec.app_store = app_store_settings(ca.root, "transfer")
    spec.stripe = stripe_settings()
    spec.stripe["prices"][PRICE_PLUS] = WEB_PLUS
    return spec


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenant):
    path = tmp_path_factory.mktemp("web-cross-tenants") / "tenants.json"
    write_tenants(path, [tenant])
    return tenants_server(path, SERVER_SETTINGS)


@pytest.fixture
def env(server, fake, tenant, protos):
    environment = PlayEnv(server, fake, {"a": tenant}, protos)
    yield environment
    environment.close()


def test_app_store_play_and_web_purchases_side_by_side(env, ca, tenant):
    user = unique_id()
    env.a.purchase(user, ca.sign(APP_STORE_MONTHLY, "--expires", "+30d", bundle_id=BUNDLE_ID))
    token = new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=UPGRADE, expiry="+10d")
    env.a.play_purchase(user, UPGRADE, token)

    stream = env.api(tenant.public_key, env.channel()).stream(user)
    assert stream.next().kind == SNAPSHOT
    sub = fs.subscription(price_id=PRICE_PLUS, metadata={"app_user_id": user})
    body = fs.body_of(fs.event("customer.subscription.created", sub))
    status, text = post(env.server, tenant.id, body.encode(), fs.sign(body, tenant.webhook_secret))
    assert status == 200 and "applied to" in text, text
    pushed = stream.next()
    assert pushed.kind == STATUS_CHANGED, pushed

    synced = env.a.sync(user)
    assert synced.version == pushed.customer.version
    assert [(e.id, e.source) for e in synced.status.entitlements] == [
        ("plus", WEB_SOURCE), ("premium", PLAY_STORE_SOURCE), ("pro", APP_STORE_SOURCE)]
    stores = sorted(t.store for t in env.a_admin.customer(user).transactions)
    assert stores == [APP_STORE_SOURCE, PLAY_STORE_SOURCE, WEB_STORE]
