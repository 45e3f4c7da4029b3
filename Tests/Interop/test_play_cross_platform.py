"""One customer buying on both stores: an App Store purchase (signed by `entctl dev` with a CA the tenant trusts, as
in test_purchases.py) and a Google Play purchase (at the fake Google) under the same app_user_id, on a tenant that
has both `app_store` and `play_store` settings.
"""

from __future__ import annotations

import pytest

from appstore_support import BUNDLE_ID, MONTHLY, SigningCA, app_store_settings
from appstore_support import PRODUCTS as APP_STORE_PRODUCTS
from entitlement_support import ACTIVE, SNAPSHOT, STATUS_CHANGED, ts_millis, unique_id, write_tenants
from fake_google import FakeGoogle, SubscriptionNotificationType, new_purchase_token, subscription_notification
from play_support import (
    APP, APP_STORE_SOURCE, PLAY_STORE_SOURCE, SERVER_SETTINGS, UPGRADE, PlayEnv, expiry_ms, play_tenant, stored,
)


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("cross-ca") / "ca")


@pytest.fixture(scope="module")
def cross_tenants(fake, ca, tmp_path_factory):
    key = fake.write_service_account(tmp_path_factory.mktemp("cross") / "service-account.json")
    tenant = play_tenant(fake, key, "cross-both")
    tenant.products.update(APP_STORE_PRODUCTS)
    tenant.app_store = app_store_settings(ca.root, "transfer")
    return {"a": tenant}


@pytest.fixture(scope="module")
def cross_server(tenants_server, tmp_path_factory, cross_tenants):
    tenants_file = tmp_path_factory.mktemp("cross-tenants") / "tenants.json"
    write_tenants(tenants_file, cross_tenants.values())
    return tenants_server(tenants_file, SERVER_SETTINGS)


@pytest.fixture
def env(cross_server, fake, cross_tenants, protos):
    environment = PlayEnv(cross_server, fake, cross_tenants, protos)
    yield environment
    environment.close()


def test_both_stores_grant_side_by_side_and_a_play_notification_pushes_to_another_connection(env, ca):
    user = unique_id()
    apple = env.a.purchase(user, ca.sign(MONTHLY, "--expires", "+30d", bundle_id=BUNDLE_ID)).customer
    assert [(e.id, e.source) for e in apple.status.entitlements] == [("pro", APP_STORE_SOURCE)]
    token = new_purchase_token()
    play = env.fake.put_subscription(APP, token, product_id=UPGRADE, expiry="+10d")
    both = env.a.play_purchase(user, UPGRADE, token).customer
    assert both.status.state == ACTIVE
    synced = env.a.sync(user)
    assert synced.version == both.version
    assert [(e.id, e.source, e.product_id) for e in synced.status.entitlements] == [
        ("premium", PLAY_STORE_SOURCE, UPGRADE), ("pro", APP_STORE_SOURCE, MONTHLY)]
    assert ts_millis(synced.status.entitlements[0].expires_at) == expiry_ms(play)
    stores = sorted(t.store for t in env.a_admin.customer(user).transactions)
    assert stores == [APP_STORE_SOURCE, PLAY_STORE_SOURCE]

    # A stream on a connection of its own, then Google revokes the Play purchase.
    stream = env.api(env.tenants["a"].public_key, env.channel()).stream(user)
    assert stream.next().kind == SNAPSHOT
    env.fake.put_subscription(APP, token, product_id=UPGRADE, state="EXPIRED", expiry="-1m", acknowledged=True)
    env.push_ok("a", subscription_notification(APP, token, SubscriptionNotificationType.EXPIRED), "applied to", user)
    event = stream.next()
    assert event.kind == STATUS_CHANGED, event
    assert [(e.id, e.source) for e in event.customer.status.entitlements] == [("pro", APP_STORE_SOURCE)]
    assert env.a.sync(user).version == event.customer.version
    assert stored(env.a_admin, user, token).owner_app_user_id == user
