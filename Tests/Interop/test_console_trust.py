"""The admin console's "User tokens and signed status" card in a real browser (headless Chromium): a tenant that
observes user tokens shows its mode and this server's counts by outcome and reason as calls with and without tokens
made them, and its status keys; a tenant with neither says so. Screenshotted as `console-trust.png`."""

from __future__ import annotations

import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from selenium.webdriver.common.by import By

from console_support import browser, screenshot, sign_in, wait_for  # noqa: F401 (browser: a fixture)
from conftest import REPO_ROOT
from entitlement_support import Clients, new_tenant, unique_id, write_tenants

ISSUER = "https://auth.console.example"
SECRET = "a-console-user-token-secret-of-32-bytes"


@pytest.fixture(scope="module")
def tenants(tmp_path_factory):
    directory = tmp_path_factory.mktemp("console-trust-keys")
    key = directory / "status.pem"
    key.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return {
        "observing": new_tenant(
            "console-trust", user_tokens={"mode": "observe", "issuer": ISSUER, "hs256_secrets": [SECRET]},
            signed_status={"keys": [{"kid": "2027-01", "key_file": str(key)}, {"kid": "2026-07", "key_file": str(key)}],
                           "offline_validity_hours": 48}),
        "plain": new_tenant("console-plain"),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    tenants_file = tmp_path_factory.mktemp("console-trust") / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    return tenants_server(tenants_file, {"admin_console": {"directory": str(REPO_ROOT / "Web" / "console")}})


def token(sub: str, aud: str, lifetime: int = 600) -> str:
    now = int(time.time())
    return jwt.encode({"sub": sub, "aud": aud, "iss": ISSUER, "iat": now - 1, "exp": now + lifetime}, SECRET,
                      algorithm="HS256")


def test_the_card_shows_the_mode_the_counts_and_the_status_keys(server, tenants, protos, browser):
    tenant = tenants["observing"]
    clients = Clients(server, protos)
    clients.channel()
    try:
        user = unique_id("trust")
        api = clients.api(tenant.public_key)
        bearer = [("authorization", f"Bearer {tenant.public_key}")]
        api.call("Identify", app_user_id=user, metadata=bearer + [("entitlements-user-token", token(user, tenant.id))])
        for _ in range(2):
            api.call("SyncStatus", app_user_id=user)  # no token: would be refused (missing)
        api.call("SyncStatus", app_user_id=user,
                 metadata=bearer + [("entitlements-user-token", token("someone-else", tenant.id))])
    finally:
        clients.close()

    sign_in(browser, server, tenant.secret_key)
    wait_for(browser, "the counts", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#user-token-counts tr[data-outcome]")) == 3)
    assert browser.find_element(By.ID, "user-token-mode").text.startswith(
        f"observe · issuer {ISSUER}, at most 3600 seconds, 1 HS256 secret, anonymous IDs need none"), \
        browser.find_element(By.ID, "user-token-mode").text
    rows = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in browser.find_elements(By.CSS_SELECTOR, "#user-token-counts tbody tr")]
    assert rows == [["Would be refused", "missing", "2"], ["Accepted", "—", "1"], ["Would be refused", "subject", "1"]]
    assert browser.find_element(By.ID, "signed-status").text == (
        "Signed with 2027-01; published keys: 2027-01, 2026-07; valid offline for 48 hours.")
    screenshot(browser, "trust")


def test_a_tenant_with_neither_says_so(server, tenants, browser):
    sign_in(browser, server, tenants["plain"].secret_key)
    wait_for(browser, "the card", lambda d: d.find_element(By.ID, "signed-status").text != "")
    assert browser.find_element(By.ID, "user-token-mode").text == "off"
    assert browser.find_element(By.ID, "signed-status").text == "Status is not signed."
    assert [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#user-token-counts tbody tr")] == ["none"]
