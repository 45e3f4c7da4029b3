"""EntitlementService Purchase and Restore of Google Play purchases, AdminService.RefreshStorePurchase, and the
server's calls to Google (access tokens, retries, outages, refusals), end to end through the real interop-server
and the fake Google (fake_google.py).

Tenant "a" transfers purchases between users and takes production and test purchases; "k" keeps purchases with
their first owner (its own package); "prod" takes production purchases only; "ungranted" calls Google with a service
account Play Console has not granted yet; "cache" has a service account of its own, so its token grants can be
counted apart from everyone else's.
"""

from __future__ import annotations

import time

import grpc
import pytest

from entitlement_support import (
    ACTIVE, CUSTOMER_INFO_CHANGED, INACTIVE, STATUS_CHANGED, rpc_error, ts_millis, unique_id, write_tenants,
)
from fake_google import ANDROIDPUBLISHER_SCOPE, FakeGoogle, new_purchase_token
from play_support import (
    ACK_FAILED, ACK_PENDING, ACKNOWLEDGED, ANNUAL, APP, COINS, LIFETIME, NEW, NOT_REQUIRED, PLAY_STORE,
    PLAY_STORE_SOURCE, PRODUCTION, PURCHASE_CAUSE, RESTORE_CAUSE, SANDBOX, SERVER_SETTINGS, STORE_API, SUB,
    TRANSFERRED_IN, TRANSFERRED_OUT, UNCHANGED, UPGRADE, PlayEnv, ack_path, api_path, entitlement_ids, expiry_ms,
    only_entitlement, play_tenant, stored, wait_acknowledged, wait_until,
)

Code = grpc.StatusCode
KEEP_APP, PROD_APP = "com.example.keep", "com.example.prod"


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        fake.add_package(KEEP_APP)
        fake.add_package(PROD_APP)
        yield fake


@pytest.fixture(scope="module")
def cache_account(fake):
    return fake.add_service_account("cache-tenant")


@pytest.fixture(scope="module")
def play_tenants(fake, cache_account, tmp_path_factory):
    directory = tmp_path_factory.mktemp("play-purchases")
    key = fake.write_service_account(directory / "service-account.json")
    ungranted = fake.write_service_account(directory / "ungranted.json",
                                           fake.add_service_account("not-yet-granted", granted=False))
    cache_key = fake.write_service_account(directory / "cache.json", cache_account)
    return {
        "a": play_tenant(fake, key, "play-a"),
        "k": play_tenant(fake, key, "play-k", package=KEEP_APP, policy="keep_with_original"),
        "prod": play_tenant(fake, key, "play-prod", package=PROD_APP, environments=["production"]),
        "ungranted": play_tenant(fake, ungranted, "play-ungranted"),
        "cache": play_tenant(fake, cache_key, "play-cache"),
    }


@pytest.fixture(scope="module")
def play_server(tenants_server, tmp_path_factory, play_tenants):
    tenants_file = tmp_path_factory.mktemp("play-purchases-tenants") / "tenants.json"
    write_tenants(tenants_file, play_tenants.values())
    return tenants_server(tenants_file, SERVER_SETTINGS)


@pytest.fixture
def env(play_server, fake, play_tenants, protos):
    environment = PlayEnv(play_server, fake, play_tenants, protos)
    yield environment
    fake.clear_faults()
    environment.close()


def assert_code(error: grpc.RpcError, code: grpc.StatusCode, *needles: str) -> None:
    assert error.code() == code, f"expected {code}, got {error.code()}: {error.details()}"
    for needle in needles:
        assert needle in (error.details() or ""), f"{needle!r} not in {error.details()!r}"


def subscribed(env, tenant: str = "a", package: str = APP, product: str = SUB, **fields):
    """A user who bought a subscription at the fake and presented it with Purchase: (user, token, resource,
    response)."""
    user, token = unique_id(), new_purchase_token()
    resource = env.fake.put_subscription(package, token, product_id=product, **fields)
    response = getattr(env, tenant).play_purchase(user, product, token)
    return user, token, resource, response


def ack_barrier(env) -> None:
    """Returns once the acknowledger has acknowledged a purchase made now. It sends what is due soonest first, so an
    acknowledgement that was (wrongly) due again before this one would have been sent by then."""
    user, token, _, _ = subscribed(env)
    wait_acknowledged(env.fake, env.a_admin, user, token)


def ack_posts(fake, token: str) -> int:
    return len(fake.requests("POST", ack_path(token)))


# --------------------------------------------------------------------------------------------------
# Purchase: what Google's answer grants


def test_an_active_subscription_grants_until_googles_expiry(env):
    user, token, resource, response = subscribed(env, expiry="+30d")
    customer = response.customer
    assert customer.app_user_id == user and customer.status.state == ACTIVE
    assert entitlement_ids(customer) == ["pro"]
    entitlement = only_entitlement(customer)
    assert entitlement.source == PLAY_STORE_SOURCE and entitlement.product_id == SUB
    assert ts_millis(entitlement.expires_at) == expiry_ms(resource)
    assert entitlement.will_renew and not entitlement.in_grace_period and not entitlement.in_billing_retry
    result = response.result
    assert result.store == PLAY_STORE and result.product_id == SUB
    assert result.original_transaction_id == token
    assert result.transaction_id == resource["lineItems"][0]["latestSuccessfulOrderId"]
    assert result.environment == PRODUCTION and result.outcome == NEW and result.active
    assert list(result.entitlement_ids) == ["pro"]
    assert ts_millis(result.expires_at) == expiry_ms(resource)
    synced = env.a.sync(user)
    assert synced.version == customer.version and entitlement_ids(synced) == ["pro"]
    assert only_entitlement(synced).source == PLAY_STORE_SOURCE
    newest = env.a_admin.all_events(user)[0]
    assert newest.cause == PURCHASE_CAUSE and newest.change == STATUS_CHANGED and newest.reference_id == token
    transaction = stored(env.a_admin, user, token)
    assert transaction.store == PLAY_STORE and transaction.owner_app_user_id == user
    assert transaction.superseded_by == "" and transaction.replaces == ""
    # Google fetched with the purchase's own token path, under this app's package.
    fetches = env.fake.requests("GET", api_path(token))
    assert len(fetches) == 1 and fetches[0].path.endswith(f"/{APP}/purchases/subscriptionsv2/tokens/{token}")
    # Tenants are apart: another tenant's customer of the same name has nothing.
    assert env.cache.is_unknown(user)


def test_a_base_plan_maps_on_its_own(env):
    """`"<product>:<basePlan>"` in the tenant's products wins over `"<product>"`: the annual plan grants more."""
    user, _, _, response = subscribed(env, base_plan=ANNUAL)
    assert entitlement_ids(response.customer) == ["premium", "pro"]
    monthly_user, _, _, monthly = subscribed(env)
    assert entitlement_ids(monthly.customer) == ["pro"]


def test_an_expired_subscription_is_stored_and_grants_nothing(env):
    user, token, _, response = subscribed(env, state="EXPIRED", acknowledged=True)
    assert response.customer.status.state == INACTIVE and not response.result.active
    assert list(response.result.entitlement_ids) == ["pro"]
    assert stored(env.a_admin, user, token).acknowledgement == NOT_REQUIRED


def test_a_test_purchase_is_sandbox(env):
    user, token, _, response = subscribed(env, test=True)
    assert response.result.environment == SANDBOX and response.customer.status.state == ACTIVE
    assert stored(env.a_admin, user, token).environment == SANDBOX


def test_the_same_token_twice_changes_nothing(env):
    user, token, _, response = subscribed(env)
    first = response.customer
    wait_acknowledged(env.fake, env.a_admin, user, token)
    events = len(env.a_admin.all_events(user))
    again = env.a.play_purchase(user, SUB, token)
    assert again.customer.version == first.version, "presenting the same purchase again changed the customer"
    assert again.result.outcome == UNCHANGED and again.result.active
    restored = env.a.play_restore(user, [(SUB, token)])
    assert restored.customer.version == first.version
    assert [r.outcome for r in restored.results] == [UNCHANGED]
    assert len(env.a_admin.all_events(user)) == events
    ack_barrier(env)
    assert len(env.fake.acknowledgements_of(token)) == 1 and ack_posts(env.fake, token) == 1
    assert stored(env.a_admin, user, token).acknowledgement == ACKNOWLEDGED


def test_refusals_store_nothing(env):
    user = unique_id()
    # A token Google does not know.
    error = env.a.play_purchase_error(user, SUB, new_purchase_token())
    assert_code(error, Code.INVALID_ARGUMENT, "Google Play does not confirm")
    # A product the tenant's play_store products do not list.
    token = new_purchase_token()
    env.fake.put_subscription(APP, token, product_id="unlisted_subscription")
    assert_code(env.a.play_purchase_error(user, "unlisted_subscription", token), Code.FAILED_PRECONDITION,
                "unlisted_subscription")
    # A subscription token presented as another subscription product.
    assert_code(env.a.play_purchase_error(user, UPGRADE, token), Code.INVALID_ARGUMENT)
    # A one-time product's token presented as a subscription.
    product_token = new_purchase_token()
    env.fake.put_product(APP, product_token, product_id=LIFETIME)
    assert_code(env.a.play_purchase_error(user, SUB, product_token), Code.INVALID_ARGUMENT)
    # Malformed requests, refused before Google is asked.
    before = len(env.fake.requests("GET", "subscriptionsv2|products/"))
    assert_code(env.a.play_purchase_error(user, SUB, ""), Code.INVALID_ARGUMENT, "purchase_token")
    assert_code(env.a.play_purchase_error(user, "", token), Code.INVALID_ARGUMENT, "product_id")
    assert_code(env.a.play_purchase_error(user, SUB, "bad token\n"), Code.INVALID_ARGUMENT)
    assert len(env.fake.requests("GET", "subscriptionsv2|products/")) == before
    assert env.a.is_unknown(user)
    assert_code(rpc_error(lambda: env.a_admin.customer(user)), Code.NOT_FOUND)


def test_a_test_purchase_on_a_production_only_tenant_is_refused_and_nothing_is_stored(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(PROD_APP, token, product_id=SUB, test=True)
    error = env.prod.play_purchase_error(user, SUB, token)
    assert_code(error, Code.FAILED_PRECONDITION, "test purchase", "production")
    assert env.prod.is_unknown(user)
    assert_code(rpc_error(lambda: env.prod_admin.customer(user)), Code.NOT_FOUND)
    # The same tenant takes a production purchase: the refusal was the test flag.
    prod_user, prod_token, _, response = subscribed(env, "prod", PROD_APP)
    assert response.customer.status.state == ACTIVE
    wait_acknowledged(env.fake, env.prod_admin, prod_user, prod_token)
    assert env.fake.acknowledgements_of(token) == [], "a refused purchase was acknowledged"


# --------------------------------------------------------------------------------------------------
# One-time products through Purchase


def test_a_non_consumable_grants_for_life_and_is_acknowledged_as_a_product(env):
    user, token = unique_id(), new_purchase_token()
    resource = env.fake.put_product(APP, token, product_id=LIFETIME)
    response = env.a.play_purchase(user, LIFETIME, token)
    entitlement = only_entitlement(response.customer)
    assert entitlement.id == "premium" and entitlement.source == PLAY_STORE_SOURCE
    assert entitlement.product_id == LIFETIME and not entitlement.HasField("expires_at")
    assert response.result.transaction_id == resource["orderId"]
    wait_acknowledged(env.fake, env.a_admin, user, token)
    [ack] = env.fake.acknowledgements_of(token)
    assert ack.kind == "product" and ack.product_id == LIFETIME
    assert env.fake.get_product(APP, token)["acknowledgementState"] == 1


def test_a_pending_one_time_purchase_grants_nothing_and_is_not_acknowledged(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_product(APP, token, product_id=LIFETIME, state=2)
    response = env.a.play_purchase(user, LIFETIME, token)
    assert response.customer.status.state == INACTIVE and not response.result.active
    assert stored(env.a_admin, user, token).acknowledgement == NOT_REQUIRED
    ack_barrier(env)
    assert ack_posts(env.fake, token) == 0


def test_a_consumable_is_recorded_without_entitlements(env):
    user, sub_token, _, first = subscribed(env)
    token = new_purchase_token()
    env.fake.put_product(APP, token, product_id=COINS, quantity=3)
    response = env.a.play_purchase(user, COINS, token)
    assert entitlement_ids(response.customer) == ["pro"]
    assert list(response.result.entitlement_ids) == []
    assert response.customer.version == first.customer.version + 1
    newest = env.a_admin.all_events(user)[0]
    assert newest.cause == PURCHASE_CAUSE and newest.change == CUSTOMER_INFO_CHANGED
    assert stored(env.a_admin, user, token).product_id == COINS
    wait_acknowledged(env.fake, env.a_admin, user, token)
    alone = unique_id()
    coins = new_purchase_token()
    env.fake.put_product(APP, coins, product_id=COINS)
    assert env.a.play_purchase(alone, COINS, coins).customer.status.state == INACTIVE


def test_a_canceled_one_time_purchase_grants_nothing(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_product(APP, token, product_id=LIFETIME, state=1)
    response = env.a.play_purchase(user, LIFETIME, token)
    assert response.customer.status.state == INACTIVE
    transaction = stored(env.a_admin, user, token)
    assert transaction.HasField("revoked_at") and transaction.revocation_reason == "CANCELED"


# --------------------------------------------------------------------------------------------------
# Acknowledgement


def test_purchase_is_acknowledged_by_the_server_exactly_once(env):
    user, token, _, response = subscribed(env)
    assert stored(env.a_admin, user, token).acknowledgement in (ACK_PENDING, ACKNOWLEDGED)
    transaction = wait_acknowledged(env.fake, env.a_admin, user, token)
    assert transaction.acknowledgement_attempts == 1 and transaction.acknowledgement_error == ""
    [ack] = env.fake.acknowledgements_of(token)
    assert ack.kind == "subscription" and ack.product_id == SUB and ack.package == APP
    assert env.fake.get_subscription(APP, token)["acknowledgementState"] == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
    # Presenting it again (Google now says acknowledged) sends nothing more.
    env.a.play_purchase(user, SUB, token)
    ack_barrier(env)
    assert ack_posts(env.fake, token) == 1


def test_restore_acknowledges_each_purchase_once(env):
    user = unique_id()
    sub_token, product_token, done_token = new_purchase_token(), new_purchase_token(), new_purchase_token()
    env.fake.put_subscription(APP, sub_token, product_id=SUB)
    env.fake.put_product(APP, product_token, product_id=LIFETIME)
    env.fake.put_product(APP, done_token, product_id=LIFETIME, acknowledged=True)
    response = env.a.play_restore(user, [(SUB, sub_token), (LIFETIME, product_token), (LIFETIME, done_token)])
    assert entitlement_ids(response.customer) == ["premium", "pro"]
    assert [r.outcome for r in response.results] == [NEW, NEW, NEW]
    assert env.a_admin.all_events(user)[0].cause == RESTORE_CAUSE
    wait_acknowledged(env.fake, env.a_admin, user, sub_token)
    wait_acknowledged(env.fake, env.a_admin, user, product_token)
    # One Google had acknowledged already (the app did) needs nothing.
    assert stored(env.a_admin, user, done_token).acknowledgement == NOT_REQUIRED
    env.a.play_restore(user, [(SUB, sub_token), (LIFETIME, product_token)])
    ack_barrier(env)
    assert [ack_posts(env.fake, t) for t in (sub_token, product_token, done_token)] == [1, 1, 0]


def test_a_failing_acknowledgement_is_retried_with_growing_delays_and_its_error_shown(env):
    """Google refuses the acknowledgement with 500s: attempts grow (1 s, then 2 s apart: the configured first retry,
    doubling), each recorded with Google's error while the acknowledgement stays pending; once Google answers, it
    is acknowledged once."""
    token = new_purchase_token()
    env.fake.fail_next("POST", ack_path(token), 500, count=1000)
    user = unique_id()
    env.fake.put_subscription(APP, token, product_id=SUB)
    env.a.play_purchase(user, SUB, token)

    def attempts(count):
        # Recorded with its error (an attempt is counted when it starts, its error once Google has answered).
        transaction = stored(env.a_admin, user, token)
        return transaction if transaction.acknowledgement_attempts >= count and transaction.acknowledgement_error else None

    first = wait_until(lambda: attempts(1), "first acknowledgement attempt recorded")
    assert first.acknowledgement == ACK_PENDING
    assert "500" in first.acknowledgement_error and "acknowledge" in first.acknowledgement_error
    # Three attempts' calls answered (the third's outcome may not be recorded yet: its count is, when it starts).
    env.fake.wait_for_requests("POST", ack_path(token), count=12, timeout=20)
    third = wait_until(lambda: attempts(3), "third acknowledgement attempt counted")
    assert third.acknowledgement == ACK_PENDING and "500" in third.acknowledgement_error
    # Each attempt is one call with the client's own retries (max_attempts 4): attempt starts are 1 s then 2 s apart.
    posts = env.fake.requests("POST", ack_path(token))
    starts = [posts[i].time for i in range(0, len(posts), 4)]
    assert len(starts) >= 3, [p.time for p in posts]
    assert starts[1] - posts[3].time >= 0.9 and starts[2] - posts[7].time >= 1.9, [p.time for p in posts]
    assert env.fake.acknowledgements_of(token) == []
    # The customer still has access meanwhile.
    assert env.a.sync(user).status.state == ACTIVE
    env.fake.clear_faults()
    transaction = wait_acknowledged(env.fake, env.a_admin, user, token, timeout=30)
    assert transaction.acknowledgement_attempts >= 4
    assert len(env.fake.acknowledgements_of(token)) == 1


def test_an_acknowledgement_that_fails_every_attempt_is_reported_once_the_attempts_run_out(
        tenants_server, tmp_path, fake, play_tenants, protos):
    """A server allowed two attempts (`acknowledgement_max_attempts = 2`) against a Google that answers 503 for good:
    after the second, the acknowledgement is FAILED with Google's error in GetCustomer, the owner's history says so
    (cause STORE_API), and nothing more is sent."""
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [play_tenants["a"]])
    server = tenants_server(tenants_file, {
        "google_play": {"acknowledgement_first_retry_seconds": 1, "acknowledgement_max_attempts": 2},
        "outbound_http": {"max_attempts": 1},
    })
    env = PlayEnv(server, fake, {"a": play_tenants["a"]}, protos)
    try:
        token = new_purchase_token()
        fake.fail_next("POST", ack_path(token), 503, count=1000)
        user = unique_id()
        fake.put_subscription(APP, token, product_id=SUB)
        env.a.play_purchase(user, SUB, token)
        failed = wait_until(lambda: (lambda t: t if t.acknowledgement == ACK_FAILED else None)(
            stored(env.a_admin, user, token)), "acknowledgement reported failed", timeout=20)
        assert failed.acknowledgement_attempts == 2 and "503" in failed.acknowledgement_error
        newest = env.a_admin.all_events(user)[0]
        assert newest.cause == STORE_API and "after 2 attempts" in newest.reason
        sent = len(fake.requests("POST", ack_path(token)))
        assert sent == 2
        # The access stays (Google refunds later, and tells the server then); no attempt is made after giving up.
        assert env.a.sync(user).status.state == ACTIVE
        time.sleep(2.5)
        assert len(fake.requests("POST", ack_path(token))) == sent
    finally:
        fake.clear_faults()
        env.close()


def test_an_acknowledgement_google_refuses_for_good_is_failed_and_refresh_restarts_it(env):
    """404 (Google knows no such purchase to acknowledge) is not retried: the acknowledgement fails at once, the
    owner's history says so, and an operator's RefreshStorePurchase starts it again."""
    token = new_purchase_token()
    env.fake.fail_next("POST", ack_path(token), 404, count=1)
    user = unique_id()
    env.fake.put_subscription(APP, token, product_id=SUB)
    env.a.play_purchase(user, SUB, token)
    failed = wait_until(lambda: (lambda t: t if t.acknowledgement == ACK_FAILED else None)(
        stored(env.a_admin, user, token)), "acknowledgement failed")
    assert failed.acknowledgement_attempts == 1 and "404" in failed.acknowledgement_error
    newest = env.a_admin.all_events(user)[0]
    assert newest.cause == STORE_API and "could not be acknowledged" in newest.reason
    assert newest.reference_id == token
    assert env.fake.acknowledgements_of(token) == []
    refreshed = env.a_admin.refresh(token)
    assert refreshed.transaction.original_transaction_id == token
    transaction = wait_acknowledged(env.fake, env.a_admin, user, token)
    assert transaction.acknowledgement_attempts == 2
    assert len(env.fake.acknowledgements_of(token)) == 1


# --------------------------------------------------------------------------------------------------
# Transfers and upgrades


def test_transfer_policy_moves_the_purchase_with_events_on_both_customers(env):
    first_user, token, _, first = subscribed(env)
    assert first.customer.status.state == ACTIVE
    second_user = unique_id()
    response = env.a.play_purchase(second_user, SUB, token)
    assert response.transferred_from_app_user_id == first_user
    assert response.result.transferred_from_app_user_id == first_user
    assert entitlement_ids(response.customer) == ["pro"]
    assert env.a.sync(first_user).status.state == INACTIVE
    out, into = env.a_admin.all_events(first_user)[0], env.a_admin.all_events(second_user)[0]
    assert out.cause == TRANSFERRED_OUT and out.related_app_user_id == second_user
    assert into.cause == TRANSFERRED_IN and into.related_app_user_id == first_user
    assert stored(env.a_admin, second_user, token).owner_app_user_id == second_user
    assert [t.original_transaction_id for t in env.a_admin.customer(first_user).transactions] == []
    wait_acknowledged(env.fake, env.a_admin, second_user, token)
    assert len(env.fake.acknowledgements_of(token)) == 1


def test_keep_with_original_refuses_another_user(env):
    first_user, token, _, first = subscribed(env, "k", KEEP_APP)
    other = unique_id()
    error = env.k.play_purchase_error(other, SUB, token)
    assert_code(error, Code.ALREADY_EXISTS, token)
    assert env.k.is_unknown(other)
    synced = env.k.sync(first_user)
    assert synced.status.state == ACTIVE and synced.version == first.customer.version


def test_an_upgrade_supersedes_the_old_token_although_google_still_shows_it_active(env):
    user, old, _, first = subscribed(env)
    assert entitlement_ids(first.customer) == ["pro"]
    new = new_purchase_token()
    env.fake.put_subscription(APP, new, product_id=UPGRADE, linked=old)
    assert env.fake.get_subscription(APP, old)["subscriptionState"] == "SUBSCRIPTION_STATE_ACTIVE"
    response = env.a.play_purchase(user, UPGRADE, new)
    assert entitlement_ids(response.customer) == ["premium"], "the replaced purchase still grants"
    assert stored(env.a_admin, user, old).superseded_by == new
    assert stored(env.a_admin, user, new).replaces == old
    # The app presenting the old token again (Google still says ACTIVE) does not bring it back.
    again = env.a.play_purchase(user, SUB, old)
    assert entitlement_ids(again.customer) == ["premium"] and not again.result.active
    assert again.customer.version == response.customer.version
    assert stored(env.a_admin, user, old).superseded_by == new
    wait_acknowledged(env.fake, env.a_admin, user, new)


def test_an_upgrade_presented_by_another_user_takes_from_the_first_with_events_on_both(env):
    first_user, old, _, _ = subscribed(env)
    new = new_purchase_token()
    env.fake.put_subscription(APP, new, product_id=UPGRADE, linked=old)
    second_user = unique_id()
    response = env.a.play_purchase(second_user, UPGRADE, new)
    assert entitlement_ids(response.customer) == ["premium"]
    assert env.a.sync(first_user).status.state == INACTIVE, "the replaced purchase still grants its owner"
    newest = env.a_admin.all_events(first_user)[0]
    assert newest.reference_id == new and newest.change == STATUS_CHANGED


# --------------------------------------------------------------------------------------------------
# RefreshStorePurchase


def test_refresh_applies_what_google_says_now(env):
    user, token, resource, first = subscribed(env)
    # Google's data changes without a notification reaching the server: the user turned auto-renew off.
    env.fake.put_subscription(APP, token, state="CANCELED", product_id=SUB, acknowledged=True,
                              expiry=resource["lineItems"][0]["expiryTime"])
    refreshed = env.a_admin.refresh(token)
    assert refreshed.changed
    assert refreshed.transaction.original_transaction_id == token and not refreshed.transaction.will_renew
    assert refreshed.customer.app_user_id == user and refreshed.customer.status.state == ACTIVE
    assert not only_entitlement(refreshed.customer).will_renew
    newest = env.a_admin.all_events(user)[0]
    assert newest.cause == STORE_API and "Refreshed" in newest.reason and newest.change == CUSTOMER_INFO_CHANGED
    synced = env.a.sync(user)
    assert synced.version == refreshed.customer.version and not only_entitlement(synced).will_renew
    # Nothing new the second time.
    again = env.a_admin.refresh(token)
    assert not again.changed and again.customer.version == synced.version
    # Then Google revokes it into EXPIRED: a refresh ends access.
    env.fake.put_subscription(APP, token, state="EXPIRED", product_id=SUB, expiry="-1m", acknowledged=True)
    assert env.a_admin.refresh(token, SUB).customer.status.state == INACTIVE


def test_refresh_of_a_token_the_server_does_not_hold_records_it_unowned(env):
    token = new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB)
    error = rpc_error(lambda: env.a_admin.refresh(token))
    assert_code(error, Code.INVALID_ARGUMENT, "product_id")
    refreshed = env.a_admin.refresh(token, SUB)
    assert refreshed.transaction.original_transaction_id == token
    assert refreshed.transaction.owner_app_user_id == "" and not refreshed.HasField("customer")
    # The user's Purchase then attaches it.
    user = unique_id()
    assert env.a.play_purchase(user, SUB, token).customer.status.state == ACTIVE
    wait_acknowledged(env.fake, env.a_admin, user, token)
    assert len(env.fake.acknowledgements_of(token)) == 1


def test_refresh_needs_a_secret_key_and_the_play_store(env):
    _, token, _, _ = subscribed(env)
    assert_code(rpc_error(lambda: env.a.refresh(token)), Code.PERMISSION_DENIED)
    assert_code(rpc_error(lambda: env.a_admin.refresh(token, store=1)), Code.INVALID_ARGUMENT, "PLAY_STORE")


# --------------------------------------------------------------------------------------------------
# Talking to Google: retries, outages, permissions, access tokens


def test_a_500_then_200_is_retried_and_the_call_succeeds(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB)
    env.fake.fail_next("GET", api_path(token), 500, count=2)
    response = env.a.play_purchase(user, SUB, token)
    assert response.customer.status.state == ACTIVE
    assert [r.status for r in env.fake.requests("GET", api_path(token))] == [500, 500, 200]


def test_a_429_with_retry_after_is_honoured(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB)
    env.fake.fail_next("GET", api_path(token), 429, headers={"Retry-After": "2"})
    response = env.a.play_purchase(user, SUB, token)
    assert response.customer.status.state == ACTIVE
    first, second = env.fake.requests("GET", api_path(token))
    assert (first.status, second.status) == (429, 200)
    # The client's own backoff before a second attempt is at most 250 ms: only Retry-After waits 2 s.
    assert second.time - first.time >= 1.9, second.time - first.time


def test_google_unreachable_is_unavailable_and_stores_nothing_then_works_when_back(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB)
    env.fake.stop_listening()
    try:
        error = env.a.play_purchase_error(user, SUB, token)
    finally:
        env.fake.start_listening()
    assert_code(error, Code.UNAVAILABLE, "Google")
    assert env.a.is_unknown(user)
    assert_code(rpc_error(lambda: env.a_admin.customer(user)), Code.NOT_FOUND)
    response = env.a.play_purchase(user, SUB, token)
    assert response.customer.status.state == ACTIVE
    wait_acknowledged(env.fake, env.a_admin, user, token)
    assert len(env.fake.acknowledgements_of(token)) == 1


def test_an_ungranted_service_account_is_unavailable_explaining_the_propagation_delay(env):
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB)
    error = env.ungranted.play_purchase_error(user, SUB, token)
    assert_code(error, Code.UNAVAILABLE, "24 to 48 hours", "Play Console")
    assert "insufficient permissions" in error.details()
    assert env.ungranted.is_unknown(user)
    statuses = [r.status for r in env.fake.requests("GET", api_path(token))]
    # One more try with a fresh access token, then the answer.
    assert statuses == [401, 401], statuses


def test_the_access_token_is_cached_and_renewed_when_google_stops_taking_it(env, cache_account):
    def grants():
        return [g for g in env.fake.grants if g.account.email == cache_account.email]

    user = unique_id()
    tokens = [new_purchase_token() for _ in range(6)]
    for token in tokens:
        env.fake.put_subscription(APP, token, product_id=SUB, acknowledged=True)
    env.cache.play_purchase(user, SUB, tokens[0])
    assert len(grants()) == 1
    grant = grants()[0]
    # The assertion the server signed, as the fake checked it (signature with PyJWT, against the key file).
    assert grant.claims["iss"] == cache_account.email and grant.claims["scope"] == ANDROIDPUBLISHER_SCOPE
    assert grant.claims["aud"] in env.fake.accepted_audiences
    assert grant.claims["exp"] - grant.claims["iat"] <= 3600
    for token in tokens[1:4]:
        env.cache.play_purchase(user, SUB, token)
    assert len(grants()) == 1, "the access token was not reused"
    used = {r.header("Authorization") for t in tokens[:4] for r in env.fake.requests("GET", api_path(t))}
    assert used == {"Bearer " + grant.access_token}
    env.fake.expire_tokens()
    response = env.cache.play_purchase(user, SUB, tokens[4])
    assert len(grants()) == 2, "no new access token after Google refused the old one"
    assert [r.status for r in env.fake.requests("GET", api_path(tokens[4]))] == [401, 200]
    assert response.customer.status.state == ACTIVE
    env.cache.play_purchase(user, SUB, tokens[5])
    assert len(grants()) == 2
    [last] = env.fake.requests("GET", api_path(tokens[5]))
    assert last.header("Authorization") == "Bearer " + grants()[1].access_token
