"""The admin console's browser helpers: a headless Chromium whose page may log no error, screenshots into the
artifacts directory (`$ENTITLEMENTD_TEST_ARTIFACTS`, default `.build/test-artifacts`) as `console-*.png`, signing in.
Not a test module."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import chromium
from conftest import REPO_ROOT

REFUSED_CALL = re.compile(
    r"/entitlements\.v1\.\w+/\w+ - Failed to load resource: the server responded with a status of 4\d\d")
ARTIFACTS = Path(os.environ.get("ENTITLEMENTD_TEST_ARTIFACTS", REPO_ROOT / ".build" / "test-artifacts"))


@pytest.fixture
def browser():
    driver = chromium("1280,1000", browser_log=True)
    yield driver
    # No page may have tripped its Content-Security-Policy or thrown. A call the server refuses is a Connect error,
    # an HTTP 4xx, which Chromium logs as a failed load: the page shows the refusal, and the tests check it there.
    problems = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                and "favicon" not in entry["message"] and not REFUSED_CALL.search(entry["message"])]
    driver.quit()
    assert problems == []


def screenshot(driver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"console-{name}.png"))


def body(driver, name: str) -> str:
    return driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}") or ""


def wait_for(driver, what: str, condition, timeout: float = 20):
    try:
        # The console redraws whole sections, so an element found a moment ago may be gone: keep polling.
        return WebDriverWait(
            driver, timeout, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)
        ).until(lambda d: condition(d))
    except Exception:
        screenshot(driver, "timeout")
        raise AssertionError(f"timed out waiting for {what}; page: {driver.find_element(By.TAG_NAME, 'body').text!r}")


def sign_in(driver, server, key: str, *, shot: str | None = None) -> None:
    driver.get(f"http://127.0.0.1:{server.port}/admin/")
    wait_for(driver, "the sign-in form", lambda d: d.find_element(By.ID, "key").is_displayed())
    if shot:
        screenshot(driver, shot)
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.ID, "sign-in-button").click()
    wait_for(driver, "the search page", lambda d: body(d, "view") == "home")


