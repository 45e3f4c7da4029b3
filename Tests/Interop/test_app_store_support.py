"""The support actions Apple offers, through the real server and a local fake of the App Store Server API (checking
our bearer token with PyJWT): Look Up Order ID, Extend a Subscription Renewal Date (Apple's limits checked first),
Send Consumption Information, test notifications, and `CheckAppStoreSetup`; each action about a purchase audited as
an event of its owner."""

from __future__ import annotations

import json
import time

import grpc
import pytest

from appstore_support import BUNDLE_ID, DAY_MS, MONTHLY, PRODUCTS, SigningCA, StoreEnv, app_store_settings, payload
from entctl_support import entctl
from entitlement_support import ACTIVE, new_tenant, rpc_error, unique_id, write_tenants
from fake_app_store_api import FakeAppStoreAPI, write_key
from test_metrics import Samples, scrape
from test_notifications import body_of, new_original_id, notification, post_body, transaction
from test_purchase_by_transaction_id import ISSUER_ID, KEY_ID, keys  # noqa: F401 (a fixture)

Code = grpc.StatusCode
SUPPORT = 15
DELIVERED = 1
SERVICE_ISSUE = 3


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("support-ca") / "ca")


@pytest.fixture(scope="module")
def apple(keys, tmp_path_factory):  # noqa: F811
    other = write_key(tmp_path_factory.mktemp("support-other") / "Other.p8")
    fakes = {"main": FakeAppStoreAPI(keys[0], KEY_ID, ISSUER_ID, BUNDLE_ID),
             "no_url": FakeAppStoreAPI(keys[0], KEY_ID, ISSUER_ID, BUNDLE_ID),
             "wrong": FakeAppStoreAPI(other, KEY_ID, ISSUER_ID, BUNDLE_ID)}
    fakes["no_url"].test_notification_refusal = 4040007
    yield fakes
    for fake in fakes.values():
        fake.close()


@pytest.fixture(scope="module")
def tenants(ca, keys, apple):  # noqa: F811
    def settings(fake, environments):
        store = app_store_settings(ca.root, "transfer")
        store["environments"] = environments
        if "Production" in environments:
            store["app_apple_id"] = 1234567890
        store["server_api"] = {"key_file": str(keys[0]), "key_id": KEY_ID, "issuer_id": ISSUER_ID,
                               "production_url": fake.url, "sandbox_url": fake.url, "reconcile_minutes": 0}
        return store

    specs = {"t": (apple["main"], ["Sandbox"]), "both": (apple["main"], ["Production", "Sandbox"]),
             "no_url": (apple["no_url"], ["Sandbox"]), "wrong": (apple["wrong"], ["Sandbox"])}
    return {name: new_tenant(f"support-{name.replace('_', '-')}", products=dict(PRODUCTS),
                             app_store=settings(fake, environments))
            for name, (fake, environments) in specs.items()}


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("support") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def env(server, tenants, protos, apple):
    environment = StoreEnv(server, tenants, protos)
    yield environment
    apple["main"].on_test_notification = None
    environment.close()


def subscriber(env, ca, apple, api="t", expires="+10d") -> tuple[str, str, str]:
    """A customer holding a monthly subscription Apple knows: (app user ID, original transaction ID, its JWS)."""
    user, original = unique_id(), new_original_id()
    token = transaction(ca, original, "--transaction-id", original, "--expires", expires)
    apple["main"].transactions[original] = token
    apple["main"].subscriptions[original] = {"status": 1, "signedTransactionInfo": token}
    getattr(env, api).purchase(user, token)
    return user, original, token


def support_events(env, user: str, api="t_admin"):
    return [e for e in getattr(env, api).call("ListCustomerEvents", app_user_id=user).events if e.cause == SUPPORT]


def millis(timestamp) -> int:
    return timestamp.seconds * 1000 + timestamp.nanos // 1_000_000


# --------------------------------------------------------------------------------------------------
# Look Up Order ID


def test_an_order_id_finds_its_verified_transactions_and_their_owners(env, ca, apple):
    user, original, token = subscriber(env, ca, apple, api="both")
    unowned = new_original_id()
    apple["main"].orders["MK5TTTVWJH"] = [token, transaction(ca, unowned, "--transaction-id", unowned)]
    response = env.both_admin.call("LookUpOrder", order_id="MK5TTTVWJH", reason="ticket 7")
    assert response.found
    assert [(t.original_transaction_id, t.owner_app_user_id) for t in response.transactions] == [
        (original, user), (unowned, "")]
    (audit,) = support_events(env, user, "both_admin")
    assert "Order MK5TTTVWJH looked up with Apple: ticket 7" == audit.reason
    assert env.both_admin.call("LookUpOrder", order_id="UNKNOWN1").found is False


def test_a_lookup_needs_production_and_a_well_formed_order_id(env):
    error = env.t_admin.error("LookUpOrder", order_id="MK5TTTVWJH")
    assert error.code() == Code.FAILED_PRECONDITION and "production only" in error.details()
    error = env.both_admin.error("LookUpOrder", order_id="../x")
    assert error.code() == Code.INVALID_ARGUMENT and "letters and digits" in error.details()


# --------------------------------------------------------------------------------------------------
# Extend a Subscription Renewal Date


def test_an_extension_moves_the_expiry_at_once_and_is_audited(env, ca, apple):
    user, original, token = subscriber(env, ca, apple)
    before = payload(token)["expiresDate"]
    response = env.t_admin.call("ExtendSubscription", original_transaction_id=original, extend_by_days=7,
                                reason_code=SERVICE_ISSUE, request_identifier="req-1", reason="outage")
    assert millis(response.expires_at) == before + 7 * DAY_MS
    assert response.request_identifier == "req-1" and response.customer.app_user_id == user
    assert apple["main"].extensions[-1] == (original, 7, 3, "req-1")
    (entitlement,) = env.t.sync(user).status.entitlements
    assert millis(entitlement.expires_at) == before + 7 * DAY_MS
    (audit,) = support_events(env, user)
    assert audit.reason == "Renewal date extended with Apple by 7 days (reason code 3): outage"
    # The same request identifier retries the same extension: Apple answers the same, and it counts once.
    again = env.t_admin.call("ExtendSubscription", original_transaction_id=original, extend_by_days=7,
                             request_identifier="req-1")
    assert millis(again.expires_at) == before + 7 * DAY_MS
    env.t_admin.call("ExtendSubscription", original_transaction_id=original, extend_by_days=1)
    assert support_events(env, user)[0].reason == "Renewal date extended with Apple by 1 day (reason code 0)."
    asked = len(apple["main"].extensions)
    error = env.t_admin.error("ExtendSubscription", original_transaction_id=original, extend_by_days=1)
    assert error.code() == Code.FAILED_PRECONDITION and "Apple allows two" in error.details()
    assert len(apple["main"].extensions) == asked


@pytest.mark.parametrize("fields, code, needle", [
    ({"extend_by_days": 91}, Code.INVALID_ARGUMENT, "1 to 90"),
    ({"extend_by_days": 0}, Code.INVALID_ARGUMENT, "1 to 90"),
    ({"extend_by_days": 5, "reason_code": 9}, Code.INVALID_ARGUMENT, "reason_code 9"),
    ({"extend_by_days": 5, "request_identifier": "x" * 129}, Code.INVALID_ARGUMENT, "request_identifier"),
])
def test_an_extension_outside_apples_rules_is_refused_before_asking(env, ca, apple, fields, code, needle):
    _, original, _ = subscriber(env, ca, apple)
    asked = len(apple["main"].extensions)
    error = env.t_admin.error("ExtendSubscription", original_transaction_id=original, **fields)
    assert error.code() == code, error
    assert needle in error.details()
    assert len(apple["main"].extensions) == asked


def test_an_expired_or_unknown_subscription_is_not_extended_and_apples_refusal_is_said(env, ca, apple):
    _, expired, _ = subscriber(env, ca, apple, expires="-1d")
    error = env.t_admin.error("ExtendSubscription", original_transaction_id=expired, extend_by_days=3)
    assert error.code() == Code.FAILED_PRECONDITION and "not active" in error.details()
    error = env.t_admin.error("ExtendSubscription", original_transaction_id="999999999999", extend_by_days=3)
    assert error.code() == Code.NOT_FOUND
    _, refused, _ = subscriber(env, ca, apple)
    apple["main"].extension_refusals[refused] = 4030004
    error = env.t_admin.error("ExtendSubscription", original_transaction_id=refused, extend_by_days=3)
    assert error.code() == Code.FAILED_PRECONDITION and "SubscriptionExtensionIneligibleError" in error.details()


# --------------------------------------------------------------------------------------------------
# Send Consumption Information


def test_consumption_information_is_sent_with_what_the_server_knows_and_audited(env, ca, apple):
    user, original, _ = subscriber(env, ca, apple)
    response = env.t_admin.call("SendConsumptionInfo", transaction_id=original, customer_consented=True,
                                consumption_percentage=25_000, refund_preference=1, reason="refund ticket")
    assert response.delivery_status == DELIVERED and response.owner_app_user_id == user
    sent_id, body = apple["main"].consumption[-1]
    assert sent_id == original
    assert body == {"customerConsented": True, "sampleContentProvided": False, "deliveryStatus": "DELIVERED",
                    "consumptionPercentage": 25_000, "refundPreference": "DECLINE"}
    (audit,) = support_events(env, user)
    assert audit.reason.startswith("Consumption information sent to Apple for transaction")


def test_consumption_needs_consent_and_apples_rules(env, ca, apple):
    _, original, _ = subscriber(env, ca, apple)
    sent = len(apple["main"].consumption)
    error = env.t_admin.error("SendConsumptionInfo", transaction_id=original)
    assert error.code() == Code.FAILED_PRECONDITION and "consent" in error.details()
    error = env.t_admin.error("SendConsumptionInfo", transaction_id=original, customer_consented=True,
                              refund_preference=3)
    assert error.code() == Code.INVALID_ARGUMENT and "GRANT_PRORATED" in error.details()
    assert len(apple["main"].consumption) == sent


# --------------------------------------------------------------------------------------------------
# Test notifications and the setup check


def deliver_test_notifications(env, ca, apple, tenant="t"):
    """Makes the fake Apple sign each requested TEST notification and post it to the server, as Apple would."""
    def deliver(_token):
        signed = notification(ca, "TEST")
        status, _ = post_body(env.server, env.tenants[tenant].id, body_of(signed))
        assert status == 200
        return signed
    apple["main"].on_test_notification = deliver


def test_a_test_notification_is_requested_and_seen_arriving(env, ca, apple):
    deliver_test_notifications(env, ca, apple)
    requested = env.t_admin.call("RequestTestNotification")
    assert requested.test_notification_token and requested.environment == 2
    status = env.t_admin.call("GetTestNotificationStatus", test_notification_token=requested.test_notification_token)
    assert status.received and status.send_attempts[0].result == "SUCCESS"
    error = env.t_admin.error("GetTestNotificationStatus", test_notification_token="unknown_1")
    assert error.code() == Code.FAILED_PRECONDITION and "TestNotificationNotFoundError" in error.details()


def test_the_setup_check_says_what_is_right_and_what_is_wrong(env, ca, apple):
    deliver_test_notifications(env, ca, apple)
    good = env.t_admin.call("CheckAppStoreSetup")
    assert good.ok and good.tenant_id == env.tenants["t"].id
    assert [(c.name, c.ok) for c in good.checks] == [("key", True), ("notification_url", True)]
    wrong = env.wrong_admin.call("CheckAppStoreSetup")
    assert not wrong.ok and [(c.name, c.ok) for c in wrong.checks] == [("key", False)]
    assert "Apple refused the token" in wrong.checks[0].detail and BUNDLE_ID in wrong.checks[0].detail
    no_url = env.no_url_admin.call("CheckAppStoreSetup")
    assert [(c.name, c.ok) for c in no_url.checks] == [("key", True), ("notification_url", False)]
    assert f"/v1/apple/notifications/{env.tenants['no_url'].id}" in no_url.checks[1].detail
    # Nobody delivers it: not received within the wait.
    apple["main"].on_test_notification = None
    request = env.t_admin.request("CheckAppStoreSetup")
    request.wait.seconds = 1
    silent = env.t_admin.call("CheckAppStoreSetup", request)
    assert not silent.ok and "did not reach this server" in silent.checks[1].detail


def test_a_setup_check_whose_caller_has_gone_stops_asking_apple(env, apple):
    """Nobody delivers the TEST notification, so the check asks Apple for its status until the wait is over; a caller
    that gives up (its deadline here) ends the asking too. It used to go on until the wait was over, and without its
    pauses (the sleep between two questions returns at once in a cancelled task): thousands of attempts a second,
    for up to a minute, from one call any read-only key can make and drop (found by the services fuzz target)."""
    apple["main"].on_test_notification = None
    request = env.t_admin.request("CheckAppStoreSetup")
    request.wait.seconds = 30
    error = rpc_error(lambda: env.t_admin.call("CheckAppStoreSetup", request, timeout=1.5))
    assert error.code() == Code.DEADLINE_EXCEEDED

    def attempts() -> float:
        samples = Samples(scrape(env.server))
        return sum(value for (name, labels), value in samples.values.items()
                   if name == "entitlementd_outbound_attempts_total" and ("target", "app_store_server_api") in labels)

    after_deadline = attempts()
    time.sleep(2)
    # One question may have been on its way when the deadline passed.
    assert attempts() - after_deadline <= 1


def test_entctl_wraps_the_support_actions(env, ca, apple):
    user, original, _ = subscriber(env, ca, apple)
    base = ("--addr", f"127.0.0.1:{env.server.port}", "--key", env.tenants["t"].secret_key)
    extended = entctl(*base, "--json", "appstore", "extend", original, "--days", "2", "--reason-code", "service-issue")
    assert extended.returncode == 0, extended.stderr
    assert json.loads(extended.stdout)["customer"]["appUserId"] == user
    consumption = entctl(*base, "appstore", "consumption", original, "--consented", "--consumed", "12.5")
    assert consumption.returncode == 0 and f"sent: DELIVERED, owner {user}" in consumption.stdout
    assert apple["main"].consumption[-1][1]["consumptionPercentage"] == 12_500
    deliver_test_notifications(env, ca, apple)
    tested = entctl(*base, "appstore", "test-notification", "--wait", "5")
    assert tested.returncode == 0 and "received" in tested.stdout
    checked = entctl(*base, "appstore", "check", "--tenant", env.tenants["t"].id)
    assert checked.returncode == 0 and "ok" in checked.stdout
    other = entctl(*base, "appstore", "check", "--tenant", "someone-else")
    assert other.returncode == 2 and "the key given is tenant" in other.stderr
    wrong = entctl("--addr", f"127.0.0.1:{env.server.port}", "--key", env.tenants["wrong"].secret_key,
                   "appstore", "check")
    assert wrong.returncode == 1 and "FAIL" in wrong.stdout and "Apple refused the token" in wrong.stdout
    bad = entctl(*base, "appstore", "extend", original, "--days", "2", "--reason-code", "boredom")
    assert bad.returncode == 2 and "service-issue" in bad.stderr
