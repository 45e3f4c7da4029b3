"""The demo web page in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`, driven through
WebDriver by Selenium) opens the page the server serves, signs in, buys Pro through the local Checkout stand-in
(which posts Stripe's webhooks, signed by stripe-python), and sees the page unlock without a reload while a native
gRPC StreamStatus (grpcio) on the same user sees STATUS_CHANGED. The anonymous flow likewise: buy signed out, get a
redemption code, redeem it signed in. Screenshots go to the test's artifacts directory
(`$ENTITLEMENTD_TEST_ARTIFACTS`, default `.build/test-artifacts`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from browser_support import chromium
from conftest import REPO_ROOT, RPC_TIMEOUT, demo_tenants
from entctl_support import entctl
from test_demo_app_store import stream_events
from test_demo_play import wait_for_log

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ARTIFACTS = Path(os.environ.get("ENTITLEMENTD_TEST_ARTIFACTS", REPO_ROOT / ".build" / "test-artifacts"))


@pytest.fixture(scope="module")
def page_server(tenants_server, tmp_path_factory):
    """A server with the demo tenant and the demo page, whose only allowed web origin is the server's own (a browser
    sends Origin on the page's calls): known once it listens, so the tenants file is rewritten and reloaded then.
    Google Play is left out: the page does not use it."""
    tenants_file = tmp_path_factory.mktemp("demo-page") / "tenants.json"

    def write(origin: str) -> None:
        tenants = demo_tenants()
        tenant = tenants["tenants"][0]
        del tenant["play_store"]
        tenant["web"]["allowed_origins"] = [origin]
        tenants_file.write_text(json.dumps(tenants))

    write("http://127.0.0.1:1")
    server = tenants_server(tenants_file, {"demo_page": {"directory": str(REPO_ROOT / "Web" / "demo")}})
    write(f"http://127.0.0.1:{server.port}")
    server.process.send_signal(signal.SIGHUP)
    wait_for_log(server, "reloaded tenants")
    return server


@pytest.fixture(scope="module")
def checkout(page_server):
    """Scripts/fake-checkout for the page's server."""
    process = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "Tests" / "Interop" / "fake_checkout.py"), "--port", "0",
         "--server", f"127.0.0.1:{page_server.port}"],
        stdout=subprocess.PIPE, text=True)
    url = json.loads(process.stdout.readline())["url"]
    yield url
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def browser():
    driver = chromium("1000,900", "--disable-popup-blocking")
    yield driver
    driver.quit()


def screenshot(driver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"demo-page-{name}.png"))


def wait_for(driver, what: str, condition, timeout: float = 15):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d))
    except Exception:
        screenshot(driver, "timeout")
        logs = driver.get_log("browser") if hasattr(driver, "get_log") else []
        raise AssertionError(f"timed out waiting for {what}; page: {driver.find_element(By.TAG_NAME, 'body').text!r}; "
                             f"console: {logs}")


def entitlements(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-entitlements") or ""


def sign_in(driver, page: str, user: str) -> None:
    driver.get(page)
    wait_for(driver, "the sign-in form", lambda d: d.find_element(By.ID, "user").is_displayed())
    driver.find_element(By.ID, "user").send_keys(user)
    driver.find_element(By.ID, "sign-in").click()
    body = lambda d: d.find_element(By.TAG_NAME, "body")  # noqa: E731
    wait_for(driver, "the server's status of the user",
             lambda d: body(d).get_attribute("data-user") == user and body(d).get_attribute("data-origin") == "server")


def pay_in_checkout_window(driver, main_window: str) -> None:
    wait_for(driver, "the checkout window", lambda d: len(d.window_handles) == 2)
    driver.switch_to.window(next(h for h in driver.window_handles if h != main_window))
    wait_for(driver, "the Pay button", lambda d: d.find_element(By.ID, "pay"))
    screenshot(driver, "checkout")
    driver.find_element(By.ID, "pay").click()
    wait_for(driver, "the checkout window to close", lambda d: len(d.window_handles) == 1, timeout=20)
    driver.switch_to.window(main_window)


def watched(server, protos, user: str):
    """A native gRPC StreamStatus (grpcio) on `user`, created first, past its snapshot."""
    assert entctl("--addr", f"127.0.0.1:{server.port}", "identify", user).returncode == 0
    events = stream_events(server, protos, user)
    assert events.get(timeout=RPC_TIMEOUT)[1] == []
    return events


def next_status_change(events, status_changed: int):
    """The next event that changed the entitlements: signing in merges the page's anonymous customer into the user,
    which the user's stream sees first (CUSTOMER_INFO_CHANGED)."""
    while True:
        event = events.get(timeout=RPC_TIMEOUT)
        if event[0] == status_changed:
            return event


def test_buying_pro_on_the_web_unlocks_the_page_and_a_native_stream_without_a_reload(page_server, checkout, browser, protos):
    user = "browser-buyer"
    native = watched(page_server, protos, user)
    status_changed = protos.message("entitlements.v1.StatusEvent").Kind.Value("STATUS_CHANGED")
    try:
        page = f"http://127.0.0.1:{page_server.port}/demo/?checkout={checkout}"
        sign_in(browser, page, user)
        assert entitlements(browser) == ""
        load = browser.execute_script("return window.demoPageLoad")
        screenshot(browser, "signed-in")
        main_window = browser.current_window_handle
        browser.find_element(By.ID, "buy-pro").click()
        pay_in_checkout_window(browser, main_window)
        wait_for(browser, "the page to unlock", lambda d: entitlements(d) == "pro")
        assert browser.execute_script("return window.demoPageLoad") == load, "the page was reloaded"
        assert "entitlements changed" in browser.find_element(By.ID, "events").text
        assert "(WEB, renews)" in browser.find_element(By.ID, "entitlements").text
        screenshot(browser, "unlocked")
        assert next_status_change(native, status_changed) == (status_changed, ["pro"])
    finally:
        native.call.cancel()


def test_an_anonymous_purchase_is_redeemed_by_a_signed_in_user(page_server, checkout, browser, protos):
    user = "browser-redeemer"
    native = watched(page_server, protos, user)
    status_changed = protos.message("entitlements.v1.StatusEvent").Kind.Value("STATUS_CHANGED")
    try:
        browser.get(f"http://127.0.0.1:{page_server.port}/demo/?checkout={checkout}")
        browser.execute_script("localStorage.clear()")
        browser.refresh()
        wait_for(browser, "the signed-out page", lambda d: d.find_element(By.ID, "buy-anonymous").is_displayed())
        main_window = browser.current_window_handle
        browser.find_element(By.ID, "buy-anonymous").click()
        pay_in_checkout_window(browser, main_window)
        code = wait_for(browser, "the redemption code",
                        lambda d: d.find_element(By.ID, "code").get_attribute("value") or False)
        assert code.startswith("rc_") and len(code) == 35, code
        screenshot(browser, "redemption-code")
        browser.find_element(By.ID, "user").send_keys(user)
        browser.find_element(By.ID, "sign-in").click()
        wait_for(browser, "the redeem button", lambda d: d.find_element(By.ID, "redeem").is_enabled())
        browser.find_element(By.ID, "redeem").click()
        wait_for(browser, "the page to unlock", lambda d: entitlements(d) == "premium pro")
        assert "Redeemed" in browser.find_element(By.ID, "message").text
        screenshot(browser, "redeemed")
        assert next_status_change(native, status_changed) == (status_changed, ["premium", "pro"])
        # The code is single use: a second redemption is refused, and the page says why.
        browser.find_element(By.ID, "code").send_keys(code)
        browser.find_element(By.ID, "redeem").click()
        wait_for(browser, "the refusal", lambda d: "already used" in d.find_element(By.ID, "message").text)
    finally:
        native.call.cancel()


def test_two_tabs_follow_each_other(page_server, checkout, browser):
    """The web SDK keeps identity and status in localStorage: signing in or out in one tab is followed by the
    other, which switches its status and stream to the same user, without a reload."""
    user = "browser-two-tabs"
    page = f"http://127.0.0.1:{page_server.port}/demo/?checkout={checkout}"
    browser.get(page)
    browser.execute_script("localStorage.clear()")
    browser.refresh()
    wait_for(browser, "the signed-out page", lambda d: d.find_element(By.ID, "buy-anonymous").is_displayed())
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    second = browser.current_window_handle
    browser.get(page)
    wait_for(browser, "the second tab's status",
             lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-origin") == "server")
    anonymous = browser.find_element(By.TAG_NAME, "body").get_attribute("data-user")
    load = browser.execute_script("return window.demoPageLoad")
    try:
        browser.switch_to.window(first)
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-user") == anonymous, "one identity per site"
        browser.find_element(By.ID, "user").send_keys(user)
        browser.find_element(By.ID, "sign-in").click()
        browser.switch_to.window(second)
        wait_for(browser, "the second tab to follow the sign-in", lambda d: d.find_element(By.ID, "who").text == user)
        assert browser.execute_script("return window.demoPageLoad") == load, "the second tab was reloaded"
        browser.find_element(By.ID, "sign-out").click()
        wait_for(browser, "the signed-out page", lambda d: d.find_element(By.ID, "buy-anonymous").is_displayed()
                 and d.find_element(By.TAG_NAME, "body").get_attribute("data-user").startswith("$anon:"))
        signed_out = browser.find_element(By.TAG_NAME, "body").get_attribute("data-user")
        assert signed_out != anonymous
        browser.switch_to.window(first)
        wait_for(browser, "the first tab to follow the sign-out",
                 lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-user") == signed_out)
        assert browser.find_element(By.ID, "signed-in").get_attribute("hidden") is not None
    finally:
        browser.switch_to.window(second)
        browser.close()
        browser.switch_to.window(first)
