"""The admin console's "Offer signatures" card in a real browser (headless Chromium through Selenium, as in
test_console_browser.py), against a server whose tenant signs App Store offers (`app_store.server_api` and
`app_store.offers`, as in test_offers.py).

What it proves: for a customer with a promotional offer signature that an App Store purchase under the offer
(offerType 2, offerIdentifier) redeemed, and a later introductory offer eligibility signature nobody redeems, the
customer page signed in with the tenant's secret key
- lists both signatures newest first, one row each carrying its nonce in `data-nonce`, with the time signed and the
  product as GetCustomer reports them;
- names the promotional offer by its identifier and the other "introductory eligibility" in the Offer column;
- shows the redeeming transaction ID and when it redeemed on the promotional row, and "—" on the other;
- lists each signature's OFFER_SIGNED event in the timeline, named by its nonce.
The page is screenshotted into the artifacts directory as `console-offer-signatures.png`.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from selenium.webdriver.common.by import By

from appstore_support import MONTHLY, PRODUCTS, SigningCA
from conftest import REPO_ROOT
from console_support import body, browser, screenshot, sign_in, wait_for  # noqa: F401 (browser: a fixture)
from entitlement_support import Clients, new_tenant, unique_id, write_tenants
from fake_app_store_api import write_key
from test_notifications import new_original_id
from test_offers import ANNUAL, OFFER_SIGNED, OfferApi, later, offer_store_settings, offer_transaction

OFFER = "spring_discount"
KEY_ID = "CONSOLEOF1"
APP_TRANSACTION_ID = "2000000987"  # the app transaction an introductory eligibility signature names


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("console-offers-ca") / "ca")


@pytest.fixture(scope="module")
def tenant(ca, tmp_path_factory):
    """App Store (test_offers.py's products: MONTHLY and ANNUAL subscriptions) with an In-App Purchase key whose API
    URLs go nowhere (it is never called), and one promotional offer on MONTHLY."""
    key_file = write_key(tmp_path_factory.mktemp("console-offers-key") / "Key.p8")
    return new_tenant("console-offers", products={**PRODUCTS, ANNUAL: ["pro"]}, app_store=offer_store_settings(
        ca, key_file, KEY_ID, {"promotional": {OFFER: {"products": [MONTHLY]}}}))


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenant):
    tenants_file = tmp_path_factory.mktemp("console-offers-tenants") / "tenants.json"
    write_tenants(tenants_file, [tenant])
    return tenants_server(tenants_file, {"admin_console": {"directory": str(REPO_ROOT / "Web" / "console")}})


@pytest.fixture
def clients(server, protos):
    made = Clients(server, protos)
    made.api_class = OfferApi
    made.channel()
    yield made
    made.close()


def shown(timestamp) -> str:
    """A protobuf Timestamp as the console shows it (console.js `when`: to the second, in UTC)."""
    return datetime.fromtimestamp(timestamp.seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def exactly(count: int, found: list):
    """`found` when it has `count` items, else None (for wait_for)."""
    return found if len(found) == count else None


def cells(row) -> list[str]:
    return [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]


def test_the_customer_page_lists_offer_signatures_and_what_redeemed_them(server, clients, browser, tenant, ca):
    app, admin = clients.api(tenant.public_key), clients.api(tenant.secret_key)
    user = unique_id()
    app.identify(user)
    promotional = app.sign(user, MONTHLY, OFFER)
    original = new_original_id()
    app.purchase(user, offer_transaction(ca, original, offer=OFFER))
    later()  # signed at a later millisecond: the introductory one is the newest
    # Subscribed now, so the eligibility signature withholds the introductory offer (naming the app's transaction).
    introductory = app.sign(user, MONTHLY, app_transaction_id=APP_TRANSACTION_ID)

    # What the page must show, as the API reports it.
    listed = list(admin.customer(user).offer_signatures)
    assert [(s.nonce, s.offer_id, s.redeemed_transaction_id) for s in listed] == [
        (introductory.nonce, "", ""), (promotional.nonce, OFFER, original)], listed
    newest, redeemed = listed

    sign_in(browser, server, tenant.secret_key)
    browser.get(f"http://127.0.0.1:{server.port}/admin/#/customer/{user}")
    wait_for(browser, "the live customer page", lambda d: body(d, "view") == "customer" and body(d, "live") == "yes")
    # Read whole within wait_for: a redraw of the card meanwhile only means reading it again.
    rows = wait_for(browser, "both signatures", lambda d: exactly(2, [
        (row.get_attribute("data-nonce"), cells(row))
        for row in d.find_elements(By.CSS_SELECTOR, "#offer-signatures tbody tr[data-nonce]")]))

    # Newest first, each row named by its nonce: Signed, Offer, Product, Redeemed by.
    assert rows == [
        (introductory.nonce, [shown(newest.signed_at), "introductory eligibility", MONTHLY, "—"]),
        (promotional.nonce, [shown(redeemed.signed_at), OFFER, MONTHLY, f"{original} ({shown(redeemed.redeemed_at)})"]),
    ], rows

    # The timeline lists each signature's OFFER_SIGNED event (cause 17) with its nonce as the reference.
    assert {e.reference_id for e in admin.all_events(user) if e.cause == OFFER_SIGNED} == {
        introductory.nonce, promotional.nonce}
    offer_events = wait_for(browser, "the OFFER_SIGNED events in the timeline", lambda d: exactly(
        2, [item.text for item in d.find_elements(By.CSS_SELECTOR, "#events li") if "OFFER_SIGNED" in item.text]))
    assert [[nonce in text for nonce in (introductory.nonce, promotional.nonce)] for text in offer_events] == [
        [True, False], [False, True]], offer_events
    browser.execute_script("document.getElementById('offer-signatures').closest('.card').scrollIntoView()")
    screenshot(browser, "offer-signatures")
