"""Headless Chromium through Selenium for the browser tests (Debian's `chromium` and `chromium-driver`). Not a test
module."""

from __future__ import annotations

import shutil

import pytest
from selenium import webdriver


def chromium(window_size: str, *arguments: str, browser_log: bool = False) -> webdriver.Chrome:
    """A new headless Chromium; fails the test when Chromium or its driver is missing."""
    binary, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (binary and chromedriver):
        pytest.fail("chromium and chromium-driver are not installed: run Scripts/setup --deps-only")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window_size}",
                     *arguments):
        options.add_argument(argument)
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(30)
    return driver
