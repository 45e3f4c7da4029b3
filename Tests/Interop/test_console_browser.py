"""The admin console in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`, through
Selenium) opens /admin/ as the server serves it, signs in with a secret key, finds a customer by an App Store
transaction ID, grants a month (the page and a native grpcio StreamStatus both see it), revokes it, redelivers a
failed webhook, sets and removes attributes and finds a customer by e-mail address, exports a customer to a file and
deletes one after typing its ID again; a read-only key sees no way to change anything; an app user ID and a reason full of markup are shown as text. Every page is screenshotted into the artifacts directory (`$ENTITLEMENTD_TEST_ARTIFACTS`, default
`.build/test-artifacts`) as `console-*.png`, which the README links."""

from __future__ import annotations

import json
import time
import urllib.request

import grpc
import pytest

import fake_stripe as fs
import stripe_support
from console_support import body, browser, screenshot, sign_in, wait_for  # noqa: F401 (browser: a fixture)
from appstore_support import MONTHLY, PRODUCTS, SigningCA, StoreApi, app_store_settings
from conftest import REPO_ROOT
from entitlement_support import SNAPSHOT, STATUS_CHANGED, Clients, make_key, unique_id, write_tenants
from webhook_receiver import Receiver

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SUPPORT, _ = make_key("sk")
READER, _ = make_key("sk")


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("console-ca") / "ca")


@pytest.fixture(scope="module")
def receiver():
    made = Receiver(secrets=[SECRET], default_status=500)
    yield made
    made.close()


@pytest.fixture(scope="module")
def tenant(ca, receiver):
    return stripe_support.StripeTenantSpec(
        id="console-a", public_keys=[make_key("pk")[0]], secret_keys=[make_key("sk")[0]],
        products={**PRODUCTS, **stripe_support.PRODUCTS}, app_store=app_store_settings(ca.root, "transfer"),
        stripe=stripe_support.stripe_settings(), webhooks=[{"id": "backend", "url": receiver.url, "secrets": [SECRET]}],
        named_secret_keys=[{"key": SUPPORT, "name": "support-bo"},
                           {"key": READER, "name": "viewer", "scope": "read"}])


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenant):
    """No web origins allowed: the console calls from the server's own origin."""
    tenants_file = tmp_path_factory.mktemp("console-tenants") / "tenants.json"
    write_tenants(tenants_file, [tenant])
    return tenants_server(tenants_file, {
        "admin_console": {"directory": str(REPO_ROOT / "Web" / "console")},
        "webhooks": {"retry_delays": "100ms"}})


@pytest.fixture
def clients(server, protos):
    made = Clients(server, protos)
    made.api_class = StoreApi
    made.channel()
    yield made
    made.close()


def open_customer(driver, query: str, app_user_id: str) -> str:
    """Searches `query`, opens `app_user_id`'s page from the results, and returns what the results said."""
    field = driver.find_element(By.ID, "query")
    field.clear()
    field.send_keys(query)
    driver.find_element(By.ID, "search").click()
    def open_result(d) -> str | None:
        # wait_for retries when a redraw replaces the link between finding and clicking it.
        link = next((a for a in d.find_elements(By.CSS_SELECTOR, "#results a") if a.text == app_user_id), None)
        if link is None:
            return None
        results = d.find_element(By.ID, "results").text
        link.click()
        return results
    results = wait_for(driver, "the search result", open_result)
    wait_for(driver, "the live customer page", lambda d: body(d, "view") == "customer" and body(d, "live") == "yes")
    return results


def test_find_by_transaction_id_grant_a_month_and_revoke_it(server, clients, browser, tenant, ca):
    user = unique_id()
    stamp = f"{int(time.time() * 1000) % 10**12:012d}"
    original, latest = f"500{stamp}", f"600{stamp}"
    sdk = clients.api(tenant.public_key)
    sdk.purchase(user, ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", latest))
    native = clients.api(tenant.public_key, clients.channel()).stream(user)
    assert native.next().kind == SNAPSHOT

    sign_in(browser, server, SUPPORT, shot="sign-in")
    assert "support-bo" in browser.find_element(By.ID, "who").text
    screenshot(browser, "search")
    results = open_customer(browser, latest, user)
    assert f"matched by latest transaction ID of the App Store purchase {original}" in results, results
    assert body(browser, "entitlements") == "pro"
    assert "App Store" in browser.find_element(By.ID, "entitlements").text
    assert original in browser.find_element(By.ID, "transactions").text

    Select(browser.find_element(By.ID, "grant-entitlement")).select_by_value("premium")
    browser.find_element(By.ID, "grant-reason").send_keys("Make-good month for ticket 4711")
    browser.find_element(By.ID, "grant-button").click()
    wait_for(browser, "the page to show the grant", lambda d: body(d, "entitlements") == "premium pro")
    pushed = native.next()
    assert pushed.kind == STATUS_CHANGED
    assert sorted(e.id for e in pushed.customer.status.entitlements) == ["premium", "pro"]
    wait_for(browser, "the timeline", lambda d: "Make-good month for ticket 4711" in d.find_element(By.ID, "events").text)
    assert "key support-bo" in browser.find_element(By.ID, "events").text
    screenshot(browser, "customer")

    row = browser.find_element(By.CSS_SELECTOR, "#grants tr[data-live='yes']")
    row.find_element(By.CLASS_NAME, "revoke-reason").send_keys("Granted to the wrong account")
    row.find_element(By.CLASS_NAME, "revoke").click()
    wait_for(browser, "the page to show the revoke", lambda d: body(d, "entitlements") == "pro")
    assert native.next().kind == STATUS_CHANGED
    # Audited like any other admin call: both events name the acting key.
    events = clients.api(tenant.secret_key).all_events(user)
    assert [(e.reason, e.key_name) for e in events[:2]] == [
        ("Granted to the wrong account", "support-bo"), ("Make-good month for ticket 4711", "support-bo")]

    browser.set_window_size(390, 844)
    browser.refresh()
    wait_for(browser, "the page on a phone", lambda d: body(d, "live") == "yes")
    screenshot(browser, "customer-phone")


def test_each_purchase_shows_its_environment_in_its_stores_words(server, clients, browser, tenant, ca):
    """Apple's word is sandbox, Stripe's test mode (the API says SANDBOX for both)."""
    user = unique_id()
    clients.api(tenant.public_key).purchase(user, ca.sign(MONTHLY))
    body = fs.body_of(fs.event("customer.subscription.created", stripe_support.subscription_for(user))).encode()
    status, text = stripe_support.post(server, tenant.id, body, fs.sign(body.decode(), tenant.webhook_secret))
    assert status == 200, text
    sign_in(browser, server, SUPPORT)
    open_customer(browser, user, user)
    rows = {row.find_elements(By.TAG_NAME, "td")[0].text: row.text
            for row in browser.find_elements(By.CSS_SELECTOR, "#transactions tbody tr")}
    assert "sandbox" in rows["App Store"] and "SANDBOX" not in rows["App Store"], rows
    assert "test mode" in rows["Stripe (web)"] and "sandbox" not in rows["Stripe (web)"], rows


def test_redeliver_a_failed_webhook(server, clients, browser, tenant, receiver):
    user = unique_id()
    admin = clients.api(tenant.secret_key)
    admin.grant(user, "pro", duration=86400, reason="trial")
    # The endpoint answers 500 to every attempt until the schedule's one retry is spent.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(admin.call("ListWebhookDeliveries", app_user_id=user, state=3).deliveries) < 2:
        time.sleep(0.1)
    failed = admin.call("ListWebhookDeliveries", app_user_id=user, state=3).deliveries
    assert len(failed) == 2  # the customer's creation and the grant

    sign_in(browser, server, SUPPORT)
    open_customer(browser, user, user)
    wait_for(browser, "the failed deliveries", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#deliveries tr[data-state='FAILED']")) == 2)
    screenshot(browser, "webhooks")
    receiver.default_status = 200
    before = len(receiver.deliveries)
    grant_row = next(row for row in browser.find_elements(By.CSS_SELECTOR, "#deliveries tr[data-state='FAILED']")
                     if row.get_attribute("data-delivery-id") == str(max(d.delivery_id for d in failed)))
    grant_row.find_element(By.CLASS_NAME, "redeliver").click()
    wait_for(browser, "the confirmation", lambda d: "Queued for delivery again" in d.find_element(By.ID, "message").text)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(receiver.deliveries) == before:
        time.sleep(0.05)
    delivered = receiver.deliveries[before:]
    # The same message again: the grant's webhook-id, now answered 200.
    grant_delivery = max(failed, key=lambda d: d.delivery_id)
    assert [d.headers["webhook-id"] for d in delivered] == [grant_delivery.webhook_id]


def test_set_find_by_email_and_remove_attributes(server, clients, browser, tenant):
    user = unique_id()
    address = f"{user}@Example.com"
    clients.api(tenant.public_key).identify(user)
    sign_in(browser, server, SUPPORT)
    open_customer(browser, user, user)
    for key, value in (("$email", address), ("plan", "gold")):
        browser.find_element(By.ID, "attribute-key").send_keys(key)
        browser.find_element(By.ID, "attribute-value").send_keys(value)
        browser.find_element(By.ID, "attribute-button").click()
        wait_for(browser, f"the {key} row", lambda d, key=key: d.find_elements(
            By.CSS_SELECTOR, f"#attributes tr[data-attribute='{key}']"))
    assert [(a.key, a.value) for a in clients.api(tenant.secret_key).customer(user).attributes] == [
        ("$email", address), ("plan", "gold")]
    wait_for(browser, "the timeline", lambda d: "Attributes changed: plan." in d.find_element(By.ID, "events").text)
    assert address in browser.find_element(By.ID, "attributes").text
    screenshot(browser, "attributes")

    # The server's refusal is shown, and nothing changes.
    browser.find_element(By.ID, "attribute-key").send_keys("$phoneNumber")
    browser.find_element(By.ID, "attribute-value").send_keys("555")
    browser.find_element(By.ID, "attribute-button").click()
    wait_for(browser, "the refusal", lambda d: "is not an E.164 number" in d.find_element(By.ID, "message").text)
    assert not browser.find_elements(By.CSS_SELECTOR, "#attributes tr[data-attribute='$phoneNumber']")

    # Each change redraws the table (the page's stream): the button is looked up again until a click lands.
    def remove_plan(driver) -> bool:
        try:
            driver.find_element(By.CSS_SELECTOR, "#attributes tr[data-attribute='plan'] .unset-attribute").click()
            return True
        except StaleElementReferenceException:
            return False
    wait_for(browser, "the Remove button", remove_plan)
    wait_for(browser, "the row to go", lambda d: not d.find_elements(
        By.CSS_SELECTOR, "#attributes tr[data-attribute='plan']"))
    assert [a.key for a in clients.api(tenant.secret_key).customer(user).attributes] == ["$email"]

    # Found again by the address, whatever its case.
    browser.get(f"http://127.0.0.1:{server.port}/admin/#/")
    wait_for(browser, "the search page", lambda d: body(d, "view") == "home")
    results = open_customer(browser, address.lower(), user)
    assert "matched by e-mail address" in results, results


def test_a_read_only_key_exports_a_customer_to_a_file_and_the_audit_log_names_it(
        server, clients, browser, tenant, tmp_path):
    user = unique_id()
    clients.api(tenant.secret_key).grant(user, "pro", duration=3600, reason="gift for the export")
    sign_in(browser, server, READER)
    open_customer(browser, user, user)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    browser.find_element(By.ID, "export").click()
    name = f"customer-{user}.json"
    wait_for(browser, "the download", lambda d: body(d, "exported") == name and (downloads / name).exists())
    document = json.loads((downloads / name).read_text())
    assert (document["format"], document["format_version"], document["app_user_id"]) == (
        "entitlementd.customer_export", 1, user)
    assert [g["reason"] for g in document["grants"]] == ["gift for the export"]
    assert [e["cause"] for e in document["events"]] == ["created", "grant"]
    newest = clients.api(tenant.secret_key).call("ListAuditEvents", page_size=1).events[0]
    assert (newest.action, newest.key_name, newest.subject) == (1, "viewer", user)


def test_delete_a_customer_after_typing_its_id(server, clients, browser, tenant):
    user = unique_id()
    admin = clients.api(tenant.secret_key)
    admin.grant(user, "pro", duration=3600, reason="to be erased")
    sign_in(browser, server, SUPPORT)
    open_customer(browser, user, user)
    confirm, button = browser.find_element(By.ID, "delete-confirm"), browser.find_element(By.ID, "delete-button")
    confirm.send_keys(user[:-1])
    assert not button.is_enabled()
    confirm.send_keys(user[-1])
    assert button.is_enabled()
    screenshot(browser, "delete")
    button.click()
    wait_for(browser, "the search page", lambda d: body(d, "view") == "home")
    assert f"Deleted {user}" in browser.find_element(By.ID, "message").text
    error = admin.error("GetCustomer", app_user_id=user)
    assert error.code() == grpc.StatusCode.NOT_FOUND
    newest = admin.call("ListAuditEvents", page_size=1).events[0]
    assert (newest.action, newest.key_name) == (2, "support-bo") and newest.subject.startswith("erased_")
    assert user not in newest.subject


def test_a_read_only_key_sees_no_way_to_change_anything(server, clients, browser, tenant):
    user = unique_id()
    grant = clients.api(tenant.secret_key).grant(user, "pro", duration=86400, reason="gift")
    sign_in(browser, server, READER)
    assert body(browser, "can-write") == "no"
    assert "(read-only)" in browser.find_element(By.ID, "who").text
    open_customer(browser, user, user)
    assert not browser.find_element(By.ID, "grant-card").is_displayed()
    assert browser.find_elements(By.CSS_SELECTOR, "#grants .revoke") == []
    assert browser.find_elements(By.CSS_SELECTOR, "#deliveries .redeliver") == []
    assert not browser.find_element(By.ID, "attribute-form").is_displayed()
    assert not browser.find_element(By.ID, "delete-card").is_displayed()
    assert browser.find_elements(By.CSS_SELECTOR, "#attributes .unset-attribute") == []
    assert browser.find_element(By.CSS_SELECTOR, f"#grants tr[data-grant-id='{grant.grant_id}']")
    screenshot(browser, "read-only")


def test_markup_in_an_app_user_id_and_a_reason_is_shown_as_text(server, clients, browser, tenant):
    user = "<img src=x onerror=window.pwned=1>" + unique_id()[:8]
    reason = "<script>window.pwned=2</script><b>bold</b>"
    clients.api(tenant.public_key).identify(user)
    clients.api(tenant.secret_key).grant(user, "pro", duration=3600, reason=reason)
    sign_in(browser, server, SUPPORT)
    open_customer(browser, user, user)
    wait_for(browser, "the reason in the timeline", lambda d: reason in d.find_element(By.ID, "events").text)
    assert browser.find_element(By.ID, "customer-id").text == user
    assert browser.execute_script("return window.pwned") is None
    assert browser.find_elements(By.CSS_SELECTOR, "main img, main script, #events b") == []
    screenshot(browser, "markup-as-text")


def test_the_pages_carry_a_strict_content_security_policy(server):
    for name in ("", "console.js", "console.css"):
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/admin/{name}", timeout=10) as response:
            policy = response.headers["content-security-policy"]
            assert "default-src 'none'" in policy and "script-src 'self'" in policy and "unsafe" not in policy
            assert "frame-ancestors 'none'" in policy and "connect-src 'self'" in policy
            assert response.headers["x-frame-options"] == "DENY"
            assert response.headers["referrer-policy"] == "no-referrer"
