"""`Restore` from Apple's transaction history, through the real server: for each `app_store_transaction_ids` entry it
pages through Get Transaction History v2 on the App Store Server API (a local fake checking our bearer token with
PyJWT), verifies every signed transaction as a device's, and attaches the newest state of each purchase; a tenant
with `restore_consults_history` also reads the history on a Restore of signed transactions, so a refund the device
does not know of still ends access."""

from __future__ import annotations

import json

import grpc
import pytest

from appstore_support import BUNDLE_ID, LIFETIME, MONTHLY, PRODUCTS, SigningCA, StoreEnv, app_store_settings, payload
from entctl_support import entctl
from entitlement_support import ACTIVE, INACTIVE, new_tenant, unique_id, write_tenants
from fake_app_store_api import FakeAppStoreAPI
from test_notifications import new_original_id
from test_purchase_by_transaction_id import ISSUER_ID, KEY_ID, keys  # noqa: F401 (a fixture)

Code = grpc.StatusCode
NEW, UNCHANGED = 1, 3
SANDBOX = 2


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("history-ca") / "ca")


@pytest.fixture(scope="module")
def apple(keys):  # noqa: F811
    fake = FakeAppStoreAPI(keys[0], KEY_ID, ISSUER_ID, BUNDLE_ID)
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def tenants(ca, keys, apple):  # noqa: F811
    def settings(consults: bool):
        store = app_store_settings(ca.root, "transfer")
        store["server_api"] = {"key_file": str(keys[0]), "key_id": KEY_ID, "issuer_id": ISSUER_ID,
                               "production_url": apple.url, "sandbox_url": apple.url,
                               "restore_consults_history": consults, "reconcile_minutes": 0}
        return store

    return {name: new_tenant(f"history-{name}", products=dict(PRODUCTS), app_store=settings(consults))
            for name, consults in (("plain", False), ("consulting", True))}


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("history") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def env(server, tenants, protos, apple):
    environment = StoreEnv(server, tenants, protos)
    yield environment
    apple.page_size = 20
    environment.close()


def restore(api, user: str, ids: list[str], tokens: list[str] = ()):
    request = api.message("RestoreRequest", app_user_id=user)
    request.app_store_transaction_ids.extend(ids)
    for token in tokens:
        request.app_store.add().signed_transaction = token
    return api.store_call("Restore", request)


def restore_error(api, user: str, ids: list[str]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as raised:
        restore(api, user, ids)
    return raised.value


def subscription_history(ca, apple, *, refunded: bool, original: str | None = None, extra: list[str] = ()) \
        -> tuple[str, list[str]]:
    """A monthly subscription's history at Apple: an expired first period, the current one, and (when `refunded`) the
    current one again, refunded, then `extra`. Returns the original transaction ID and the tokens in Apple's order."""
    original = original or new_original_id()
    first = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original,
                    "--purchase-date", "-40d", "--expires", "-10d", "--signed-date", "-40d")
    current = ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "1",
                      "--purchase-date", "-10d", "--expires", "+20d", "--signed-date", "-10d")
    tokens = [first, current]
    if refunded:
        tokens.append(ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original + "1",
                              "--purchase-date", "-10d", "--expires", "+20d", "--revocation-date", "-1h",
                              "--signed-date", "-1m"))
    apple.add_history(tokens + list(extra))
    return original, tokens


def test_a_restore_from_history_finds_a_refund_the_device_never_saw(env, ca, apple):
    original = new_original_id()
    lifetime = ca.sign(LIFETIME, "--type", "non-consumable", "--original-transaction-id", original + "9",
                       "--transaction-id", original + "9")
    subscription_history(ca, apple, refunded=True, original=original, extra=[lifetime])
    asked = len(apple.requests)
    response = restore(env.plain, unique_id(), [original])
    # The refunded subscription grants nothing; the lifetime purchase in the same history does.
    assert [e.id for e in response.customer.status.entitlements] == ["premium"]
    (history,) = response.app_store_histories
    assert history.transaction_id == original and history.environment == SANDBOX and history.transactions_found == 4
    subscription, bought = history.purchases
    assert subscription.original_transaction_id == original and subscription.transaction_id == original + "1"
    assert subscription.HasField("revoked_at") and not subscription.active and subscription.outcome == NEW
    assert bought.original_transaction_id == original + "9" and bought.active
    assert list(response.results) == []
    # One history page, then the subscription's status for its renewal state.
    assert [path for _, path, _ in apple.requests[asked:]] == [
        f"/inApps/v2/history/{original}", f"/inApps/v1/subscriptions/{original}"]


def test_every_page_is_read_with_the_revision_of_the_one_before_and_nothing_changes_the_second_time(env, ca, apple):
    original = new_original_id()
    # Apple's first transaction ID is the original one.
    tokens = [ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", f"{original}{n or ''}",
                      "--purchase-date", f"-{150 - 30 * n}d", "--expires", f"-{120 - 30 * n}d" if n < 4 else "+30d",
                      "--signed-date", f"-{150 - 30 * n}d") for n in range(5)]
    apple.add_history(tokens)
    apple.page_size = 2
    user = unique_id()
    asked = len(apple.requests)
    response = restore(env.plain, user, [f"{original}2"])
    paths = [path for _, path, _ in apple.requests[asked:] if "/history/" in path]
    assert len(paths) == 3 and "revision=" not in paths[0] and all("revision=" in p for p in paths[1:])
    (history,) = response.app_store_histories
    assert history.transactions_found == 5
    (purchase,) = history.purchases
    assert purchase.transaction_id == f"{original}4" and purchase.active
    assert response.customer.status.state == ACTIVE
    version = response.customer.version
    again = restore(env.plain, user, [original])
    assert again.app_store_histories[0].purchases[0].outcome == UNCHANGED
    assert again.customer.version == version


def test_a_page_apple_fails_to_give_is_asked_again(env, ca, apple):
    original, _ = subscription_history(ca, apple, refunded=False)
    apple.fail_next("GET", "/inApps/v2/history/", 500, {"errorCode": 5000001, "errorMessage": "Try again."})
    apple.fail_next("GET", "/inApps/v2/history/", 429, {"errorCode": 4290000, "errorMessage": "Rate limit exceeded."},
                    headers={"Retry-After": "0"})
    asked = len(apple.requests)
    response = restore(env.plain, unique_id(), [original + "1"])
    assert response.customer.status.state == ACTIVE
    assert [p for _, p, _ in apple.requests[asked:]].count(f"/inApps/v2/history/{original}1") == 3


def test_a_consulting_tenant_reads_the_history_behind_a_devices_stale_jws(env, ca, apple):
    original, tokens = subscription_history(ca, apple, refunded=True)
    stale = tokens[1]  # the current period as the device holds it: not refunded
    plain = env.plain.restore(unique_id(), [stale])
    assert plain.customer.status.state == ACTIVE and not plain.app_store_histories
    response = env.consulting.restore(unique_id(), [stale])
    assert response.customer.status.state == INACTIVE
    (result,) = response.results
    assert result.transaction_id == original + "1" and result.HasField("revoked_at") and not result.active
    (history,) = response.app_store_histories
    assert history.transaction_id == original + "1" and history.transactions_found == 3


def test_ids_of_one_history_read_it_once(env, ca, apple):
    original, _ = subscription_history(ca, apple, refunded=False)
    asked = len(apple.requests)
    response = restore(env.plain, unique_id(), [original, original + "1"])
    assert [h.transaction_id for h in response.app_store_histories] == [original, original + "1"]
    assert [p for _, p, _ in apple.requests[asked:] if "/history/" in p] == [f"/inApps/v2/history/{original}"]


@pytest.mark.parametrize("ids, code, needle", [
    (["12ab"], Code.INVALID_ARGUMENT, "app_store_transaction_ids[0] must be an App Store transaction ID"),
    ([str(n) for n in range(11)], Code.INVALID_ARGUMENT, "at most 10 App Store histories"),
    (["999999999999"], Code.NOT_FOUND, "TransactionIdNotFoundError"),
])
def test_a_bad_or_unknown_id_fails_the_restore_and_attaches_nothing(env, ids, code, needle):
    user = unique_id()
    error = restore_error(env.plain, user, ids)
    assert error.code() == code, error
    assert needle in error.details()
    assert env.plain.is_unknown(user), "the failed restore created the customer"


def test_a_forged_transaction_in_the_history_fails_the_restore(env, ca, apple, tmp_path):
    original = new_original_id()
    forged = SigningCA(tmp_path / "other").sign(MONTHLY, "--original-transaction-id", original,
                                                 "--transaction-id", original)
    apple.add_history([forged])
    error = restore_error(env.plain, unique_id(), [original])
    assert error.code() == Code.INVALID_ARGUMENT, error
    assert "transaction 1 of Apple's history" in error.details()


def test_entctl_restores_from_history(env, ca, apple):
    original, _ = subscription_history(ca, apple, refunded=False)
    base = ("--addr", f"127.0.0.1:{env.server.port}", "--key", env.tenants["plain"].public_key)
    result = entctl(*base, "--json", "restore", unique_id(), "--history", original)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["customer"]["status"]["state"] == "ACTIVE"
    assert body["appStoreHistories"][0]["transactionsFound"] == 2
    human = entctl(*base, "restore", unique_id(), "--history", original)
    assert human.returncode == 0 and f"history of {original} (SANDBOX): 2 transactions, 1 purchase" in human.stdout
