"""`Purchase` and `Restore` with only an App Store transaction ID, through the real server: it asks the App Store
Server API (a local fake checking our bearer token with PyJWT) for the signed transaction, production first and
sandbox when production does not know it, and verifies it exactly as a device's JWS, with the same results."""

from __future__ import annotations

import json

import grpc
import pytest

from appstore_support import BUNDLE_ID, MONTHLY, PRODUCTS, SigningCA, StoreEnv, app_store_settings, payload
from entctl_support import entctl
from entitlement_support import ACTIVE, new_tenant, unique_id, write_tenants
from fake_app_store_api import FakeAppStoreAPI, write_key
from test_notifications import new_original_id

Code = grpc.StatusCode
KEY_ID, ISSUER_ID = "2X9R4HXF34", "57246542-96fe-1a63-e053-0824d011072a"
NEW, UNCHANGED = 1, 3


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("api-ca") / "ca")


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    directory = tmp_path_factory.mktemp("api-keys")
    return write_key(directory / "SubscriptionKey.p8"), write_key(directory / "OtherKey.p8")


@pytest.fixture(scope="module")
def apple(keys):
    key, other = keys
    fakes = {
        "production": FakeAppStoreAPI(key, KEY_ID, ISSUER_ID, BUNDLE_ID),
        "sandbox": FakeAppStoreAPI(key, KEY_ID, ISSUER_ID, BUNDLE_ID),
        # Holds another key: every token of ours is refused, as Apple refuses a wrong one.
        "wrong": FakeAppStoreAPI(other, KEY_ID, ISSUER_ID, BUNDLE_ID),
    }
    yield fakes
    for fake in fakes.values():
        fake.close()


@pytest.fixture(scope="module")
def tenants(ca, keys, apple):
    def settings(environments, production, sandbox, api=True):
        store = app_store_settings(ca.root, "transfer")
        store["environments"] = environments
        if "Production" in environments:
            store["app_apple_id"] = 1234567890
        if api:
            store["server_api"] = {"key_file": str(keys[0]), "key_id": KEY_ID, "issuer_id": ISSUER_ID,
                                   "production_url": production.url, "sandbox_url": sandbox.url, "reconcile_minutes": 0}
        return store

    specs = {
        "sandbox": settings(["Sandbox"], apple["production"], apple["sandbox"]),
        "both": settings(["Production", "Sandbox"], apple["production"], apple["sandbox"]),
        "refused": settings(["Sandbox"], apple["wrong"], apple["wrong"]),
        "plain": settings(["Sandbox"], apple["production"], apple["sandbox"], api=False),
    }
    return {name: new_tenant(f"byid-{name}", products=dict(PRODUCTS), app_store=store) for name, store in specs.items()}


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("byid") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def env(server, tenants, protos):
    environment = StoreEnv(server, tenants, protos)
    yield environment
    environment.close()


def by_id(api, user: str, transaction_id: str, signed: str = ""):
    request = api.message("PurchaseRequest", app_user_id=user)
    request.app_store.transaction_id = transaction_id
    if signed:
        request.app_store.signed_transaction = signed
    return request


def purchase(api, user: str, transaction_id: str):
    return api.store_call("Purchase", by_id(api, user, transaction_id))


def signed_at_apple(ca, fake: FakeAppStoreAPI, *renewal: str, status: int = 1) -> tuple[str, str]:
    """A monthly subscription Apple's (fake) server knows, with its status and renewal info (`renewal`: arguments of
    `entctl dev sign-renewal-info`): its transaction ID and signed transaction."""
    original = new_original_id()
    token = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "7",
                    "--signed-date", "-1h")
    fake.transactions[original + "7"] = token
    fake.subscriptions[original] = {
        "status": status, "signedTransactionInfo": token,
        "signedRenewalInfo": ca.signed("sign-renewal-info", "--original-transaction-id", original, "--product", MONTHLY,
                                       *renewal)}
    return original + "7", token


def test_a_transaction_id_is_looked_up_verified_and_applied_like_its_jws(env, ca, apple):
    transaction_id, token = signed_at_apple(ca, apple["sandbox"])
    before = len(apple["production"].requests)
    user = unique_id()
    response = purchase(env.sandbox, user, transaction_id)
    assert response.customer.status.state == ACTIVE
    assert [e.id for e in response.customer.status.entitlements] == ["pro"]
    assert response.result.outcome == NEW and response.result.transaction_id == transaction_id
    assert response.result.original_transaction_id == payload(token)["originalTransactionId"]
    # A Sandbox-only tenant asks only the sandbox host, with a token PyJWT accepted.
    assert len(apple["production"].requests) == before
    # The transaction, then (a subscription) its status.
    asked = apple["sandbox"].requests[-2:]
    assert [(method, path) for method, path, _ in asked] == [
        ("GET", f"/inApps/v1/transactions/{transaction_id}"), ("GET", f"/inApps/v1/subscriptions/{transaction_id}")]
    claims = asked[0][2]
    assert claims["bid"] == BUNDLE_ID and claims["iss"] == ISSUER_ID and claims["aud"] == "appstoreconnect-v1"
    # The same purchase again, by ID or by its JWS: nothing new.
    assert purchase(env.sandbox, user, transaction_id).result.outcome == UNCHANGED
    assert env.sandbox.purchase(user, token).result.outcome == UNCHANGED


def test_production_is_asked_first_and_sandbox_when_it_does_not_know_the_id(env, ca, apple):
    transaction_id, _ = signed_at_apple(ca, apple["sandbox"])
    production, sandbox = len(apple["production"].requests), len(apple["sandbox"].requests)
    response = purchase(env.both, unique_id(), transaction_id)
    assert response.customer.status.state == ACTIVE
    assert apple["production"].requests[production][1] == f"/inApps/v1/transactions/{transaction_id}"
    assert apple["sandbox"].requests[sandbox][1] == f"/inApps/v1/transactions/{transaction_id}"


def test_restore_takes_transaction_ids_too(env, ca, apple):
    first, _ = signed_at_apple(ca, apple["sandbox"])
    second, second_token = signed_at_apple(ca, apple["sandbox"])
    request = env.sandbox.message("RestoreRequest", app_user_id=unique_id())
    request.app_store.add().transaction_id = first
    request.app_store.add().signed_transaction = second_token
    response = env.sandbox.store_call("Restore", request)
    assert [r.transaction_id for r in response.results] == [first, second]
    assert response.customer.status.state == ACTIVE


def test_an_id_apple_does_not_know_is_not_found_by_name(env):
    error = env.both.purchase_error(unique_id(), request=by_id(env.both, unique_id(), "999999999999"))
    assert error.code() == Code.NOT_FOUND, error
    assert "TransactionIdNotFoundError" in error.details()


def test_a_token_apple_refuses_is_the_servers_setup(env):
    error = env.refused.purchase_error(unique_id(), request=by_id(env.refused, unique_id(), "123"))
    assert error.code() == Code.FAILED_PRECONDITION, error
    assert "401" in error.details() and "refused the token" in error.details()


@pytest.mark.parametrize("transaction_id, signed, needle", [
    ("12ab", "", "1 to 32 digits"),
    ("1" * 33, "", "1 to 32 digits"),
    ("123", "a.b.c", "not both"),
    ("", "", "needs signed_transaction or transaction_id"),
])
def test_a_malformed_request_is_refused_before_any_call(env, apple, transaction_id, signed, needle):
    asked = len(apple["sandbox"].requests)
    error = env.sandbox.purchase_error(unique_id(), request=by_id(env.sandbox, unique_id(), transaction_id, signed))
    assert error.code() == Code.INVALID_ARGUMENT, error
    assert needle in error.details()
    assert len(apple["sandbox"].requests) == asked


def test_a_tenant_without_the_api_is_told_to_send_the_jws(env):
    error = env.plain.purchase_error(unique_id(), request=by_id(env.plain, unique_id(), "123"))
    assert error.code() == Code.FAILED_PRECONDITION, error
    assert "no \"app_store.server_api\" settings, which a purchase by transaction ID needs" in error.details()
    assert "key_file, key_id and issuer_id" in error.details() and "send the signed transaction" in error.details()


def test_entctl_purchases_by_transaction_id(env, ca, apple):
    transaction_id, _ = signed_at_apple(ca, apple["sandbox"])
    user = unique_id()
    base = ("--addr", f"127.0.0.1:{env.server.port}", "--key", env.tenants["sandbox"].public_key)
    result = entctl(*base, "--json", "purchase", user, "--transaction-id", transaction_id)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["customer"]["status"]["state"] == "ACTIVE" and body["result"]["transactionId"] == transaction_id
    both = entctl(*base, "purchase", user, "a.b.c", "--transaction-id", transaction_id)
    assert both.returncode == 2 and "one of SIGNED_TRANSACTION, --transaction-id or --play" in both.stderr


def test_a_subscriptions_renewal_state_and_newest_period_come_from_its_status(env, ca, apple):
    transaction_id, token = signed_at_apple(ca, apple["sandbox"])
    original = payload(token)["originalTransactionId"]
    # Apple's status holds a newer period than the ID asked for, auto-renew off, in the billing grace period.
    renewed = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "8",
                      "--purchase-date", "-1d", "--expires", "+29d", "--signed-date", "-1m")
    apple["sandbox"].subscriptions[original] = {
        "status": 4, "signedTransactionInfo": renewed,
        "signedRenewalInfo": ca.signed("sign-renewal-info", "--original-transaction-id", original, "--product", MONTHLY,
                                       "--auto-renew", "off", "--grace-period-expires", "+3d")}
    response = purchase(env.sandbox, unique_id(), transaction_id)
    (entitlement,) = response.customer.status.entitlements
    assert not entitlement.will_renew and entitlement.in_grace_period and entitlement.in_billing_retry
    assert response.result.transaction_id == original + "8"
    assert entitlement.expires_at.seconds * 1000 + entitlement.expires_at.nanos // 1_000_000 == payload(renewed)["expiresDate"]
    assert apple["sandbox"].requests[-1][1] == f"/inApps/v1/subscriptions/{transaction_id}"


def test_a_status_whose_signed_data_is_forged_is_refused(env, ca, apple, tmp_path):
    transaction_id, token = signed_at_apple(ca, apple["sandbox"])
    original = payload(token)["originalTransactionId"]
    other = SigningCA(tmp_path / "other-ca")
    apple["sandbox"].subscriptions[original]["signedRenewalInfo"] = other.signed(
        "sign-renewal-info", "--original-transaction-id", original, "--product", MONTHLY)
    error = env.sandbox.purchase_error(unique_id(), request=by_id(env.sandbox, unique_id(), transaction_id))
    assert error.code() == Code.INVALID_ARGUMENT, error
