"""Recovering missed App Store notifications from Apple's notification history (Get Notification History on a local
fake of the App Store Server API), through the real server: at startup for what Apple failed to deliver since the
last run, and on demand with `AdminService.ReconcileAppStore` / `entctl appstore reconcile`; every notification is
verified and applied once per notificationUUID, exactly as a delivered one."""

from __future__ import annotations

import json
import time

import grpc
import pytest

from appstore_support import BUNDLE_ID, MONTHLY, PRODUCTS, SigningCA, StoreEnv, app_store_settings, payload
from conftest import start_server, stop_and_check
from entctl_support import entctl
from entitlement_support import ACTIVE, INACTIVE, new_tenant, unique_id, write_tenants
from fake_app_store_api import FakeAppStoreAPI
from test_notifications import new_original_id, notification, transaction
from test_purchase_by_transaction_id import ISSUER_ID, KEY_ID, keys  # noqa: F401 (a fixture)

Code = grpc.StatusCode
SANDBOX = 2
DELIVERED = [{"attemptDate": 0, "sendAttemptResult": "SUCCESS"}]


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("reconcile-ca") / "ca")


@pytest.fixture(scope="module")
def apple(keys):  # noqa: F811
    fake = FakeAppStoreAPI(keys[0], KEY_ID, ISSUER_ID, BUNDLE_ID)
    yield fake
    fake.close()


def tenant_with_api(name: str, ca, keys, apple, reconcile_minutes: int):  # noqa: F811
    store = app_store_settings(ca.root, "transfer")
    store["server_api"] = {"key_file": str(keys[0]), "key_id": KEY_ID, "issuer_id": ISSUER_ID,
                           "production_url": apple.url, "sandbox_url": apple.url,
                           "reconcile_minutes": reconcile_minutes}
    return new_tenant(name, products=dict(PRODUCTS), app_store=store)


@pytest.fixture(scope="module")
def tenants(ca, keys, apple):  # noqa: F811
    return {"t": tenant_with_api("reconcile-api", ca, keys, apple, 0),
            "plain": new_tenant("reconcile-plain", products=dict(PRODUCTS),
                                app_store=app_store_settings(ca.root, "transfer"))}


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("reconcile") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def env(server, tenants, protos):
    environment = StoreEnv(server, tenants, protos)
    yield environment
    environment.close()


def reconcile(api, **fields):
    return api.call("ReconcileAppStore", **fields)


def events(api, user: str):
    return list(api.call("ListCustomerEvents", app_user_id=user).events)


def bought(ca, apple, original: str) -> str:
    """A monthly subscription's first period, bought 29 days ago, ending in an hour, as Apple knows it."""
    token = transaction(ca, original, "--transaction-id", original, "--purchase-date", "-29d", "--expires", "+1h",
                        "--signed-date", "-29d")
    apple.transactions[original] = token
    return token


def renewed_and_refunded(ca, original: str) -> tuple[str, str]:
    """A renewal of `original`'s subscription, then its refund, as Apple signs the two notifications."""
    renewal = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1h",
                          "--expires", "+30d", "--signed-date", "-2m")
    refunded = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1h",
                           "--expires", "+30d", "--revocation-date", "-1m", "--signed-date", "-1m")
    return (notification(ca, "DID_RENEW", transaction=renewal, extra=("--signed-date", "-2m")),
            notification(ca, "REFUND", transaction=refunded, extra=("--signed-date", "-1m")))


def test_startup_applies_what_apple_failed_to_deliver_in_order_and_a_replay_changes_nothing(
        tmp_path, ca, keys, apple, protos):  # noqa: F811
    tenant = tenant_with_api("reconcile-startup", ca, keys, apple, 360)
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [tenant])
    directory = tmp_path / "server"
    user, original = unique_id(), new_original_id()
    first = start_server(directory, tenants_file)
    try:
        env = StoreEnv(first, {"t": tenant}, protos)
        response = env.t.purchase(user, bought(ca, apple, original))
        assert response.customer.status.state == ACTIVE
        env.close()
    finally:
        stop_and_check(first)
    # While the server is down, Apple signs a renewal and then a refund, and cannot deliver either.
    for token in renewed_and_refunded(ca, original):
        apple.add_notification(token)
    second = start_server(directory, tenants_file)
    try:
        env = StoreEnv(second, {"t": tenant}, protos)
        deadline = time.monotonic() + 15
        while env.t.sync(user).status.state != INACTIVE and time.monotonic() < deadline:
            time.sleep(0.1)
        assert env.t.sync(user).status.state == INACTIVE
        recovered = [e for e in events(env.t_admin, user) if "recovered from Apple's notification history" in e.reason]
        # Newest first: the refund after the renewal.
        assert [e.reason.split(",")[0] for e in recovered] == ["REFUND", "DID_RENEW"]
        assert recovered[0].version > recovered[1].version
        version = env.t.sync(user).version
        (report,) = reconcile(env.t_admin).environments
        assert report.environment == SANDBOX and report.found >= 2 and report.applied == 0
        assert report.already_processed == report.found
        assert env.t.sync(user).version == version
        asked = [path for method, path, _ in apple.requests if method == "POST"]
        assert "/inApps/v1/notifications/history" in asked
        env.close()
    finally:
        stop_and_check(second)


def test_one_customers_notifications_are_read_on_demand_delivered_ones_too(env, ca, apple):
    user, original = unique_id(), new_original_id()
    env.t.purchase(user, bought(ca, apple, original))
    renewal, refund = renewed_and_refunded(ca, original)
    # Delivered somewhere else (a wrong URL that answered 200): not a failure in Apple's eyes.
    apple.add_notification(renewal, DELIVERED)
    only_failures = reconcile(env.t_admin, transaction_ids=[original], only_failures=True).environments[0]
    assert only_failures.found == 0
    (report,) = reconcile(env.t_admin, transaction_ids=[original + "1"]).environments
    assert report.found == 1 and report.applied == 1 and report.pages == 1
    status = env.t.sync(user).status
    assert status.state == ACTIVE
    assert status.entitlements[0].expires_at.seconds > time.time() + 29 * 86_400


def test_a_forged_notification_is_rejected_and_the_rest_applied(env, ca, apple, tmp_path):
    user, original = unique_id(), new_original_id()
    env.t.purchase(user, bought(ca, apple, original))
    other = SigningCA(tmp_path / "other")
    forged = notification(other, "REFUND", transaction=transaction(other, original, "--revocation-date", "-1m"))
    renewal, _ = renewed_and_refunded(ca, original)
    apple.add_notification(forged)
    apple.add_notification(renewal)
    (report,) = reconcile(env.t_admin, transaction_ids=[original]).environments
    assert report.rejected == 1 and report.applied == 1
    assert "failed verification" in report.rejections[0]
    assert env.t.sync(user).status.state == ACTIVE


def test_entctl_reconciles(env, ca, apple):
    user, original = unique_id(), new_original_id()
    env.t.purchase(user, bought(ca, apple, original))
    apple.add_notification(renewed_and_refunded(ca, original)[0])
    base = ("--addr", f"127.0.0.1:{env.server.port}", "--key", env.tenants["t"].secret_key)
    result = entctl(*base, "--json", "appstore", "reconcile", "--transaction-id", original)
    assert result.returncode == 0, result.stderr
    (report,) = json.loads(result.stdout)["environments"]
    assert report["environment"] == "SANDBOX" and report["applied"] == 1
    human = entctl(*base, "appstore", "reconcile", "--transaction-id", original, "--only-failures")
    assert human.returncode == 0, human.stderr
    assert "1 found, 0 applied, 0 unchanged, 0 without an owner yet, 1 already applied, 0 rejected" in human.stdout


@pytest.mark.parametrize("fields, code, needle", [
    ({"transaction_ids": ["12ab"]}, Code.INVALID_ARGUMENT, "transaction_ids[0] must be an App Store transaction ID"),
    ({"transaction_ids": [str(n) for n in range(11)]}, Code.INVALID_ARGUMENT, "at most 10"),
])
def test_bad_requests_are_refused(env, fields, code, needle):
    error = env.t_admin.error("ReconcileAppStore", **fields)
    assert error.code() == code, error
    assert needle in error.details()


def test_without_the_api_each_command_says_what_it_needs(env):
    """Each call that needs Apple's server says so in its own words; the setup check reports it as its finding."""
    lookup = env.plain_admin.error("LookUpOrder", order_id="MQZ1234567")
    assert lookup.code() == Code.FAILED_PRECONDITION
    assert "which looking up an order ID with Apple needs: add the app's In-App Purchase key" in lookup.details()
    check = env.plain_admin.call("CheckAppStoreSetup")
    assert not check.ok and [(c.name, c.ok) for c in check.checks] == [("key", False)], check
    assert "which checking the tenant's App Store setup with Apple needs" in check.checks[0].detail, check
    assert "signed transaction" not in check.checks[0].detail


def test_a_window_must_run_forward_and_a_tenant_needs_the_api(env):
    request = env.t_admin.request("ReconcileAppStore")
    request.start_time.seconds = 1_800_000_000
    request.end_time.seconds = 1_700_000_000
    error = env.t_admin.error("ReconcileAppStore", request)
    assert error.code() == Code.INVALID_ARGUMENT and "start_time must be before end_time" in error.details()
    error = env.plain_admin.error("ReconcileAppStore", only_failures=True)
    assert error.code() == Code.FAILED_PRECONDITION and "server_api" in error.details()
    assert "which reading Apple's notification history needs" in error.details(), error.details()
    assert "signed transaction" not in error.details(), "advice for purchases is not advice for a reconciliation"
    # A public key is not enough.
    assert env.t.error("ReconcileAppStore").code() == Code.PERMISSION_DENIED
