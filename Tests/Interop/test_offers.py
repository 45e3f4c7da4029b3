"""App Store offers (`EntitlementService.GetOfferEligibility` and `SignOffer`) through the real server, checked with
independent code: the `cryptography` package for the StoreKit 1 signature, PyJWT for the compact JWS formats.

What it proves:
- the tenants file refuses `app_store.offers` without `app_store.server_api` (check-config and at startup);
- introductory-offer eligibility is judged on the purchases of every store (App Store, Google Play, the web) over the
  entitlements the product grants, unless `"introductory": {"history": "app_store"}` counts the App Store only;
- each promotional offer's rules (product, window, new / subscribed / lapsed customers, refunds, limit) refuse with
  FAILED_PRECONDITION naming the rule, GetOfferEligibility reports the same rule, a refusal records nothing, and the
  limit holds for calls made at once;
- a signature is made with the tenant's own In-App Purchase key over Apple's payload, names the customer's
  app_account_token (Identify's), and each one is recorded as one OFFER_SIGNED event whose reference_id is the nonce;
- the introductory offer eligibility JWS tells StoreKit what GetOfferEligibility decided, naming one of the
  customer's own App Store transactions;
- tenants are isolated, and an alias may not ask for offers;
- an App Store transaction bought under a promotional offer (offerType 2, offerIdentifier), by Purchase, Restore or
  an App Store Server Notification, redeems the customer's newest unredeemed signature of that offer and product made
  before it, once; a renewal, another offer, another product, another kind of offer or another customer redeems
  nothing;
- GetCustomer lists the newest 50 signatures newest first with what redeemed them, a merged anonymous customer's
  included (and counted by the offer's limit);
- /metrics counts signatures (by kind) and redemptions per tenant and offer, and an erasure leaves the totals.

Purchases come from App Store transactions signed by `entctl dev` (a CA the tenants trust, as in test_purchases.py;
those bought under an offer re-signed with the offer's fields by test_notifications.py's `sign_jws`),
Google Play purchases at the fake Google, and Stripe webhooks. The App Store Server API is never called: its URLs
point at a closed port.
"""

from __future__ import annotations

import base64
import dataclasses
import re
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import grpc
import jwt
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import ECDSA
from cryptography.hazmat.primitives.hashes import SHA256

import fake_stripe as fs
from appstore_support import BUNDLE_ID, DAY_MS, MONTHLY, SigningCA, app_store_settings, now_ms, payload
from appstore_support import PRODUCTS as APP_STORE_PRODUCTS
from conftest import RPC_TIMEOUT, free_port, server_binary
from conftest import query_database
from entitlement_support import (
    ENTITLEMENT_SERVICE, PACKAGE, anon_id, new_tenant, ts_millis, unique_id, write_tenants,
)
from fake_app_store_api import write_key
from fake_google import FakeGoogle, new_purchase_token
from play_support import APP, SERVER_SETTINGS, SUB, UPGRADE, PlayApi, PlayEnv, play_tenant
from stripe_support import MONTHLY as WEB_MONTHLY
from stripe_support import PRICE_MONTHLY
from stripe_support import PRODUCTS as WEB_PRODUCTS
from stripe_support import StripeTenantSpec, post, stripe_settings
from test_metrics import Delta, Samples, scrape
from test_notifications import new_original_id, notification, post_ok, sign_jws

Code = grpc.StatusCode

ANNUAL = "com.example.pro.annual"  # a second App Store subscription granting "pro"
KEY_ID_A, KEY_ID_B = "OFFERKEYA1", "OFFERKEYB2"
ISSUER_ID = "57246542-96fe-1a63-e053-0824d011072a"

# IntroductoryOfferEligibility.Reason, Store, CustomerEvent.Cause
NEVER_SUBSCRIBED, NO_HISTORY, SUBSCRIBED_BEFORE = 1, 2, 3
APP_STORE, PLAY_STORE, WEB = 1, 2, 3
OFFER_SIGNED = 17

NONCE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
SEPARATOR = "\u2063"

# Tenant "a"'s promotional offers, all on MONTHLY but "annual_only".
OFFERS_A = {
    "any_offer": {"products": [MONTHLY, ANNUAL]},
    "new_offer": {"products": [MONTHLY], "customers": "new"},
    "sub_offer": {"products": [MONTHLY], "customers": "subscribed"},
    "winback": {"products": [MONTHLY], "customers": "lapsed", "lapsed_days": 30},
    "loyal": {"products": [MONTHLY], "refunded": False},
    "limited": {"products": [MONTHLY], "limit": {"count": 2, "days": 30}},
    "future": {"products": [MONTHLY], "starts_at": "2099-01-01T00:00:00Z"},
    "past": {"products": [MONTHLY], "starts_at": "2001-01-01T00:00:00Z", "ends_at": "2002-01-01T00:00:00Z"},
    "annual_only": {"products": [ANNUAL]},
}
MONTHLY_OFFERS = sorted(offer for offer, rules in OFFERS_A.items() if MONTHLY in rules["products"])


# --------------------------------------------------------------------------------------------------
# Tenants and server


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("offers-ca") / "ca")


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict:
    """Each tenant's In-App Purchase key (.p8) by tenant name."""
    directory = tmp_path_factory.mktemp("offers-keys")
    return {"a": write_key(directory / "KeyA.p8"), "b": write_key(directory / "KeyB.p8")}


def public_key(path):
    return serialization.load_pem_private_key(path.read_bytes(), password=None).public_key()


def offer_store_settings(ca, key_file, key_id: str, offers: dict | None) -> dict:
    """`app_store` settings with MONTHLY and ANNUAL subscriptions, an In-App Purchase key (`key_file`; None: no
    `server_api`) whose API URLs go nowhere, and `offers`."""
    store = app_store_settings(ca.root, "transfer")
    store["products"][ANNUAL] = {"type": "auto_renewable"}
    if key_file is not None:
        nowhere = f"http://127.0.0.1:{free_port()}"
        store["server_api"] = {"key_file": str(key_file), "key_id": key_id, "issuer_id": ISSUER_ID,
                               "production_url": nowhere, "sandbox_url": nowhere, "reconcile_minutes": 0}
    if offers is not None:
        store["offers"] = offers
    return store


@pytest.fixture(scope="module")
def tenants(fake, ca, keys, tmp_path_factory) -> dict:
    """"a": App Store (offers), Google Play and Stripe; "b": App Store (its own key and offers, "once" signed at most
    once a year; introductory history of the App Store only) and Google Play; "plain": App Store without an In-App
    Purchase key."""
    service_account = fake.write_service_account(tmp_path_factory.mktemp("offers-play") / "service-account.json")

    play_a = play_tenant(fake, service_account, "offers-a")
    a = StripeTenantSpec(**{f.name: getattr(play_a, f.name) for f in dataclasses.fields(play_a)})
    a.products.update(APP_STORE_PRODUCTS, **{ANNUAL: ["pro"]}, **WEB_PRODUCTS)
    a.app_store = offer_store_settings(ca, keys["a"], KEY_ID_A, {"promotional": OFFERS_A})
    a.stripe = stripe_settings()

    b = play_tenant(fake, service_account, "offers-b")
    b.products.update(APP_STORE_PRODUCTS, **{ANNUAL: ["pro"]})
    b.app_store = offer_store_settings(ca, keys["b"], KEY_ID_B, {
        "promotional": {"b_offer": {"products": [MONTHLY]},
                        "once": {"products": [MONTHLY], "limit": {"count": 1, "days": 365}}},
        "introductory": {"history": "app_store"}})

    plain = new_tenant("offers-plain", products={**APP_STORE_PRODUCTS, ANNUAL: ["pro"]},
                       app_store=offer_store_settings(ca, None, "", None))
    return {"a": a, "b": b, "plain": plain}


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("offers") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path, SERVER_SETTINGS)


class OfferApi(PlayApi):
    """`PlayApi` with GetOfferEligibility and SignOffer."""

    def offers_call(self, method: str, request_type: str, response_type: str, **fields):
        callable_ = self.channel.unary_unary(
            f"/{ENTITLEMENT_SERVICE}/{method}", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=self.protos.message(f"{PACKAGE}.{response_type}").FromString,
        )
        return callable_(self.message(request_type, **fields), timeout=RPC_TIMEOUT, metadata=self._metadata(None))

    def eligibility(self, user: str, *products: str):
        """GetOfferEligibility of `products` (MONTHLY when none is given)."""
        return self.eligibility_of(user, list(products or [MONTHLY]))

    def eligibility_of(self, user: str, products: list[str]):
        return self.offers_call("GetOfferEligibility", "GetOfferEligibilityRequest", "GetOfferEligibilityResponse",
                                app_user_id=user, product_ids=products)

    def intro(self, user: str, product: str = MONTHLY):
        """The introductory offer eligibility of `product`."""
        (answer,) = [e for e in self.eligibility(user, product).introductory_offers if e.product_id == product]
        return answer

    def promotional(self, user: str, product: str = MONTHLY) -> dict:
        """offer ID → its PromotionalOfferEligibility on `product`."""
        return {o.offer_id: o for o in self.eligibility(user, product).promotional_offers if o.product_id == product}

    def sign(self, user: str, product: str = MONTHLY, offer_id: str = "", **fields):
        return self.offers_call("SignOffer", "SignOfferRequest", "SignOfferResponse",
                                app_user_id=user, product_id=product, offer_id=offer_id, **fields)

    def sign_error(self, user: str, product: str = MONTHLY, offer_id: str = "", **fields) -> grpc.RpcError:
        try:
            result = self.sign(user, product, offer_id, **fields)
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected SignOffer to fail, got {result}")

    def eligibility_error(self, user: str, products: list[str] | None = None) -> grpc.RpcError:
        try:
            result = self.eligibility_of(user, products if products is not None else [MONTHLY])
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected GetOfferEligibility to fail, got {result}")


class OfferEnv(PlayEnv):
    api_class = OfferApi


@pytest.fixture
def env(server, fake, tenants, protos):
    environment = OfferEnv(server, fake, tenants, protos)
    yield environment
    environment.close()


# --------------------------------------------------------------------------------------------------
# Customers


def app_store_subscriber(env, ca, *args: str, api: str = "a", product: str = MONTHLY, user: str | None = None):
    """A customer holding an App Store subscription signed with `args` (default: bought now, 30 days):
    (app user ID, its transaction ID)."""
    user = user or unique_id()
    response = getattr(env, api).purchase(user, ca.sign(product, *args, bundle_id=BUNDLE_ID))
    return user, response.result.transaction_id


def play_subscriber(env, product: str = SUB, api: str = "a") -> str:
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=product, expiry="+10d")
    getattr(env, api).play_purchase(user, product, token)
    return user


def web_subscriber(env) -> str:
    user = unique_id()
    body = fs.body_of(fs.event("customer.subscription.created",
                               fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user})))
    status, text = post(env.server, env.tenants["a"].id, body.encode(), fs.sign(body, env.tenants["a"].webhook_secret))
    assert status == 200 and "applied to" in text, text
    return user


def known_user(env, api: str = "a") -> str:
    """A customer the server knows, with no purchase."""
    user = unique_id()
    getattr(env, api).identify(user)
    return user


def offer_events(env, user: str, api: str = "a_admin") -> list:
    return [e for e in getattr(env, api).all_events(user) if e.cause == OFFER_SIGNED]


def refused(error: grpc.RpcError, rule: str) -> None:
    assert error.code() == Code.FAILED_PRECONDITION, (error.code(), error.details())
    assert error.details().startswith(f'offer refused by rule "{rule}"'), error.details()


def claims_of(token: str, key_file, audience: str) -> dict:
    """The JWS's claims once PyJWT verified it (ES256, with the public half of `key_file`, for `audience`)."""
    return jwt.decode(token, public_key(key_file), algorithms=["ES256"], audience=audience)


def storekit1_payload(key_id: str, product: str, offer: str, token: str, nonce: str, timestamp: int) -> bytes:
    return SEPARATOR.join([BUNDLE_ID, key_id, product, offer, token, nonce, str(timestamp)]).encode()


def verifies(key_file, signature: str, payload: bytes) -> bool:
    try:
        public_key(key_file).verify(base64.b64decode(signature, validate=True), payload, ECDSA(SHA256()))
    except InvalidSignature:
        return False
    return True


# --------------------------------------------------------------------------------------------------
# Configuration


def offers_without_key_config(tmp_path, ca):
    """A configuration whose one tenant has `app_store.offers` but no `app_store.server_api`."""
    store = offer_store_settings(ca, None, "", {"promotional": {"any_offer": {"products": [MONTHLY]}}})
    tenants = tmp_path / "tenants.json"
    write_tenants(tenants, [new_tenant("offers-nokey", products={**APP_STORE_PRODUCTS, ANNUAL: ["pro"]},
                                       app_store=store)])
    config = tmp_path / "check.toml"
    config.write_text(f'[server]\nlisten = "127.0.0.1:0"\n\n[storage]\ndatabase = "{tmp_path / "entitlements.db"}"\n'
                      f'tenants = "{tenants}"\n')
    return config


def test_offers_without_an_in_app_purchase_key_are_refused_by_check_config_and_at_startup(tmp_path, ca):
    config = offers_without_key_config(tmp_path, ca)
    checked = subprocess.run([str(server_binary()), "check-config", "--config", str(config)], capture_output=True,
                             text=True, timeout=RPC_TIMEOUT)
    assert checked.returncode != 0, checked.stdout
    assert "app_store.offers" in checked.stderr and "server_api" in checked.stderr, checked.stderr
    started = subprocess.run([str(server_binary()), "--config", str(config)], capture_output=True, text=True,
                             timeout=60, cwd=tmp_path)
    assert started.returncode != 0, started.stdout
    assert "app_store.offers" in started.stderr and "server_api" in started.stderr, started.stderr
    assert "entitlementd listening" not in started.stdout


def test_a_tenant_without_an_in_app_purchase_key_signs_nothing(env):
    user = known_user(env, "plain")
    for error in (env.plain.eligibility_error(user), env.plain.sign_error(user, offer_id="any_offer"),
                  env.plain.sign_error(user)):
        assert error.code() == Code.FAILED_PRECONDITION, (error.code(), error.details())
        assert "server_api" in error.details(), error.details()


# --------------------------------------------------------------------------------------------------
# GetOfferEligibility


def test_an_unknown_user_is_answered_as_new_and_is_not_created(env):
    user = unique_id()
    answer = env.a.eligibility(user, MONTHLY, ANNUAL)
    assert answer.app_user_id == user
    assert [(e.product_id, e.eligible, e.reason, e.subscribed_store) for e in answer.introductory_offers] == [
        (MONTHLY, True, NO_HISTORY, 0), (ANNUAL, True, NO_HISTORY, 0)]
    # By product asked, then by offer ID; for a user who never subscribed.
    assert [(o.product_id, o.offer_id) for o in answer.promotional_offers] == (
        [(MONTHLY, offer) for offer in MONTHLY_OFFERS] + [(ANNUAL, "annual_only"), (ANNUAL, "any_offer")])
    verdicts = {o.offer_id: o.refused_rule for o in answer.promotional_offers if o.product_id == MONTHLY}
    assert verdicts == {"any_offer": "", "future": "not_started", "limited": "", "loyal": "", "new_offer": "",
                        "past": "ended", "sub_offer": "subscribers", "winback": "lapsed"}
    for offer in answer.promotional_offers:
        assert offer.eligible == (offer.refused_rule == ""), offer
        assert bool(offer.message) == (not offer.eligible), offer
    assert env.a.is_unknown(user), "GetOfferEligibility created the customer"


def test_an_app_store_subscriber_subscribed_before(env, ca):
    user, _ = app_store_subscriber(env, ca)
    intro = env.a.intro(user)
    assert (intro.eligible, intro.reason, intro.subscribed_store, intro.subscribed_product_id) == (
        False, SUBSCRIBED_BEFORE, APP_STORE, MONTHLY)
    # ANNUAL grants the same entitlement: the user is not new to it either.
    annual = env.a.intro(user, ANNUAL)
    assert (annual.eligible, annual.reason, annual.subscribed_product_id) == (False, SUBSCRIBED_BEFORE, MONTHLY)
    offers = env.a.promotional(user)
    assert {k: v.refused_rule for k, v in offers.items()} == {
        "any_offer": "", "future": "not_started", "limited": "", "loyal": "", "new_offer": "new_subscribers",
        "past": "ended", "sub_offer": "", "winback": "lapsed"}


def test_a_known_user_who_never_subscribed_is_eligible(env):
    user = known_user(env)
    intro = env.a.intro(user)
    assert (intro.eligible, intro.reason, intro.subscribed_store) == (True, NEVER_SUBSCRIBED, 0)


@pytest.mark.parametrize("store", ["play", "web"])
def test_a_subscription_in_another_store_ends_ios_introductory_eligibility(env, store):
    user = play_subscriber(env) if store == "play" else web_subscriber(env)
    intro = env.a.intro(user)
    expected = (PLAY_STORE, SUB) if store == "play" else (WEB, WEB_MONTHLY)
    assert (intro.eligible, intro.reason) == (False, SUBSCRIBED_BEFORE), intro
    assert (intro.subscribed_store, intro.subscribed_product_id) == expected, intro
    # The same history decides the promotional offers: not new, subscribed now.
    offers = env.a.promotional(user)
    assert offers["new_offer"].refused_rule == "new_subscribers" and not offers["new_offer"].eligible
    assert offers["sub_offer"].eligible and offers["winback"].refused_rule == "lapsed"


def test_a_subscription_to_other_entitlements_does_not_count(env):
    user = play_subscriber(env, UPGRADE)  # grants "premium"; MONTHLY grants "pro"
    intro = env.a.intro(user)
    assert (intro.eligible, intro.reason) == (True, NEVER_SUBSCRIBED), intro
    assert env.a.promotional(user)["new_offer"].eligible


def test_introductory_history_of_the_app_store_only_ignores_google_play(env, ca):
    play_user = play_subscriber(env, api="b")
    intro = env.b.intro(play_user)
    assert (intro.eligible, intro.reason, intro.subscribed_store) == (True, NEVER_SUBSCRIBED, 0), intro
    apple_user, _ = app_store_subscriber(env, ca, api="b")
    intro = env.b.intro(apple_user)
    assert (intro.eligible, intro.reason, intro.subscribed_store) == (False, SUBSCRIBED_BEFORE, APP_STORE), intro


@pytest.mark.parametrize("products", [["com.example.unknown"], [MONTHLY, "com.example.unknown"],
                                      [MONTHLY, MONTHLY], []], ids=["unknown", "one unknown", "twice", "none"])
def test_eligibility_refuses_products_the_tenant_does_not_map(env, products):
    error = env.a.eligibility_error(unique_id(), products)
    assert error.code() == Code.INVALID_ARGUMENT, (products, error.code(), error.details())


# --------------------------------------------------------------------------------------------------
# SignOffer: promotional offers


def test_a_promotional_signature_verifies_with_the_tenants_key(env, ca, keys):
    user, transaction_id = app_store_subscriber(env, ca)
    token = env.a.identify(user).app_account_token
    before = time.time()
    signed = env.a.sign(user, offer_id="any_offer")
    after = time.time()

    assert (signed.app_user_id, signed.product_id, signed.offer_id, signed.key_id) == (
        user, MONTHLY, "any_offer", KEY_ID_A)
    assert NONCE.match(signed.nonce), signed.nonce
    assert before * 1000 - 1000 <= signed.timestamp <= after * 1000 + 1000, (before, signed.timestamp, after)
    assert signed.app_account_token == token and uuid.UUID(token)
    assert not signed.introductory_offer_allowed and signed.transaction_id == transaction_id

    # StoreKit 1: bundleId⁣keyId⁣productId⁣offerId⁣appAccountToken⁣nonce⁣timestamp, ECDSA P-256 SHA-256, DER.
    payload = storekit1_payload(KEY_ID_A, MONTHLY, "any_offer", token, signed.nonce, signed.timestamp)
    assert verifies(keys["a"], signed.signature, payload)
    assert not verifies(keys["b"], signed.signature, payload), "verifies with another tenant's key"
    other_token = str(uuid.uuid4())
    assert not verifies(keys["a"], signed.signature, storekit1_payload(
        KEY_ID_A, MONTHLY, "any_offer", other_token, signed.nonce, signed.timestamp)), "not bound to the token"

    # The compact JWS (Product.PurchaseOption.promotionalOffer(_:compactJWS:)).
    assert jwt.get_unverified_header(signed.compact_jws) == {"alg": "ES256", "kid": KEY_ID_A, "typ": "JWT"}
    claims = claims_of(signed.compact_jws, keys["a"], "promotional-offer")
    assert {k: v for k, v in claims.items() if k != "iat"} == {
        "productId": MONTHLY, "offerIdentifier": "any_offer", "transactionId": transaction_id, "bid": BUNDLE_ID,
        "iss": ISSUER_ID, "aud": "promotional-offer", "nonce": signed.nonce}
    assert claims["iat"] == signed.timestamp // 1000, "the JWS and the StoreKit 1 signature were made at one time"
    with pytest.raises(jwt.InvalidSignatureError):
        claims_of(signed.compact_jws, keys["b"], "promotional-offer")


def test_a_promotional_jws_for_a_user_without_app_store_transactions_names_none(env, keys):
    user = known_user(env)
    signed = env.a.sign(user, ANNUAL, "any_offer")
    assert signed.transaction_id == ""
    claims = claims_of(signed.compact_jws, keys["a"], "promotional-offer")
    assert "transactionId" not in claims and claims["productId"] == ANNUAL and claims["nonce"] == signed.nonce


def test_a_new_user_is_created_by_signing(env):
    user = unique_id()
    signed = env.a.sign(user, offer_id="any_offer")
    assert signed.app_account_token == env.a.identify(user).app_account_token
    (event,) = offer_events(env, user)
    assert event.reference_id == signed.nonce


def test_each_signature_is_one_offer_signed_event_named_by_its_nonce(env, ca):
    user, _ = app_store_subscriber(env, ca)
    status_before = env.a.sync(user)
    first = env.a.sign(user, offer_id="any_offer")
    second = env.a.sign(user, offer_id="sub_offer")
    assert first.nonce != second.nonce
    events = offer_events(env, user)
    assert sorted(e.reference_id for e in events) == sorted([first.nonce, second.nonce])
    # Refusals record nothing.
    refused(env.a.sign_error(user, offer_id="new_offer"), "new_subscribers")
    assert len(offer_events(env, user)) == 2
    # Signing changes no entitlement.
    assert [e.id for e in env.a.sync(user).status.entitlements] == [e.id for e in status_before.status.entitlements]


# --------------------------------------------------------------------------------------------------
# SignOffer: the rules


def test_new_customers_only(env, ca):
    assert env.a.sign(known_user(env), offer_id="new_offer").offer_id == "new_offer"
    apple_user, _ = app_store_subscriber(env, ca)
    refused(env.a.sign_error(apple_user, offer_id="new_offer"), "new_subscribers")
    # A subscriber on Google Play only is not new on iOS either; nor is one on the web.
    play_user = play_subscriber(env)
    error = env.a.sign_error(play_user, offer_id="new_offer")
    refused(error, "new_subscribers")
    assert SUB in error.details() and "Google Play" in error.details(), error.details()
    refused(env.a.sign_error(web_subscriber(env), offer_id="new_offer"), "new_subscribers")
    assert offer_events(env, play_user) == []


def test_current_subscribers_only(env, ca):
    refused(env.a.sign_error(known_user(env), offer_id="sub_offer"), "subscribers")
    lapsed, _ = app_store_subscriber(env, ca, "--purchase-date", "-100d", "--expires", "-60d")
    refused(env.a.sign_error(lapsed, offer_id="sub_offer"), "subscribers")
    assert env.a.sign(play_subscriber(env), offer_id="sub_offer").offer_id == "sub_offer"


def test_lapsed_customers_at_least_lapsed_days(env, ca):
    long_ago, _ = app_store_subscriber(env, ca, "--purchase-date", "-100d", "--expires", "-60d")
    assert env.a.promotional(long_ago)["winback"].eligible
    assert env.a.sign(long_ago, offer_id="winback").offer_id == "winback"

    recently, _ = app_store_subscriber(env, ca, "--purchase-date", "-40d", "--expires", "-10d")
    assert env.a.promotional(recently)["winback"].refused_rule == "lapsed_days"
    refused(env.a.sign_error(recently, offer_id="winback"), "lapsed_days")

    subscribed, _ = app_store_subscriber(env, ca)
    refused(env.a.sign_error(subscribed, offer_id="winback"), "lapsed")
    refused(env.a.sign_error(known_user(env), offer_id="winback"), "lapsed")
    assert offer_events(env, recently) == [] and len(offer_events(env, long_ago)) == 1


def test_customers_who_had_a_refund_are_refused_an_offer_for_those_who_never_had(env, ca):
    user, _ = app_store_subscriber(env, ca, "--purchase-date", "-10d", "--revocation-date", "-1d")
    assert env.a.promotional(user)["loyal"].refused_rule == "never_refunded"
    refused(env.a.sign_error(user, offer_id="loyal"), "never_refunded")
    assert env.a.sign(known_user(env), offer_id="loyal").offer_id == "loyal"


def test_a_limit_of_two_signatures_in_thirty_days(env):
    user = known_user(env)
    nonces = [env.a.sign(user, offer_id="limited").nonce for _ in range(2)]
    assert env.a.promotional(user)["limited"].refused_rule == "limit"
    error = env.a.sign_error(user, offer_id="limited")
    refused(error, "limit")
    assert "at most 2 times" in error.details() and "had 2" in error.details(), error.details()
    assert sorted(e.reference_id for e in offer_events(env, user)) == sorted(nonces)
    # The limit is per offer: another one still signs.
    assert env.a.sign(user, offer_id="any_offer").offer_id == "any_offer"
    assert len(offer_events(env, user)) == 3


def test_the_limit_holds_for_calls_at_once(env):
    user = known_user(env)
    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(lambda _: outcome(lambda: env.a.sign(user, offer_id="limited")), range(6)))
    signed = [o for o in outcomes if not isinstance(o, grpc.RpcError)]
    assert len(signed) == 2, outcomes
    for error in (o for o in outcomes if isinstance(o, grpc.RpcError)):
        refused(error, "limit")
    assert sorted(e.reference_id for e in offer_events(env, user)) == sorted(s.nonce for s in signed)


def outcome(call):
    try:
        return call()
    except grpc.RpcError as error:
        return error


def test_the_offer_window(env):
    user = known_user(env)
    error = env.a.sign_error(user, offer_id="future")
    refused(error, "not_started")
    assert "2099-01-01T00:00:00" in error.details(), error.details()
    error = env.a.sign_error(user, offer_id="past")
    refused(error, "ended")
    assert "2002-01-01T00:00:00" in error.details(), error.details()
    assert offer_events(env, user) == []
    # A refusal for a user the server did not know leaves it unknown.
    stranger = unique_id()
    refused(env.a.sign_error(stranger, offer_id="future"), "not_started")
    assert env.a.is_unknown(stranger), "a refused SignOffer created the customer"


def test_an_offer_is_signed_only_for_its_products(env):
    user = known_user(env)
    refused(env.a.sign_error(user, MONTHLY, "annual_only"), "product")
    assert env.a.sign(user, ANNUAL, "annual_only").product_id == ANNUAL


def test_unknown_offers_and_products(env):
    user = known_user(env)
    error = env.a.sign_error(user, offer_id="no_such_offer")
    assert error.code() == Code.NOT_FOUND and "no_such_offer" in error.details(), error.details()
    error = env.a.sign_error(user, "com.example.unknown", "any_offer")
    assert error.code() == Code.INVALID_ARGUMENT, error.details()
    assert offer_events(env, user) == []


# --------------------------------------------------------------------------------------------------
# SignOffer: introductory offer eligibility JWS


def test_an_app_store_subscriber_is_told_no_introductory_offer(env, ca, keys):
    user, older = app_store_subscriber(env, ca, "--purchase-date", "-60d", "--expires", "-30d")
    _, newer = app_store_subscriber(env, ca, "--purchase-date", "-1d", user=user)
    signed = env.a.sign(user)
    assert (signed.introductory_offer_allowed, signed.transaction_id, signed.offer_id) == (False, newer, "")
    assert (signed.key_id, signed.signature) == ("", ""), "a StoreKit 1 signature for an introductory offer"
    assert NONCE.match(signed.nonce)
    assert jwt.get_unverified_header(signed.compact_jws) == {"alg": "ES256", "kid": KEY_ID_A, "typ": "JWT"}
    claims = claims_of(signed.compact_jws, keys["a"], "introductory-offer-eligibility")
    assert {k: v for k, v in claims.items() if k != "iat"} == {
        "productId": MONTHLY, "allowIntroductoryOffer": False, "transactionId": newer, "bid": BUNDLE_ID,
        "iss": ISSUER_ID, "aud": "introductory-offer-eligibility", "nonce": signed.nonce}
    # One of the user's transactions, named.
    named = env.a.sign(user, transaction_id=older)
    assert named.transaction_id == older
    assert claims_of(named.compact_jws, keys["a"], "introductory-offer-eligibility")["transactionId"] == older
    assert sorted(e.reference_id for e in offer_events(env, user)) == sorted([signed.nonce, named.nonce])


def test_eligible_users_are_left_to_storekit(env):
    """The server signs an eligibility JWS only to withhold the offer: "eligible" would override StoreKit's check of
    the Apple ID, which knows trials the server cannot see. Nothing is recorded, and an unknown user stays unknown."""
    user = unique_id()
    refused(env.a.sign_error(user), "storekit_decides")
    assert env.a.is_unknown(user), "a refused SignOffer created the customer"
    known = known_user(env)
    refused(env.a.sign_error(known, app_transaction_id="2000000123"), "storekit_decides")
    assert offer_events(env, known) == []


def test_a_user_with_no_app_store_transaction_names_its_app_transaction(env, keys):
    user = play_subscriber(env)
    error = env.a.sign_error(user)
    assert error.code() == Code.INVALID_ARGUMENT and "app_transaction_id" in error.details(), error.details()
    signed = env.a.sign(user, app_transaction_id="2000000123")
    assert (signed.introductory_offer_allowed, signed.transaction_id) == (False, "2000000123")
    claims = claims_of(signed.compact_jws, keys["a"], "introductory-offer-eligibility")
    assert (claims["allowIntroductoryOffer"], claims["transactionId"]) == (False, "2000000123")
    assert env.a.sign_error(user, app_transaction_id="12ab").code() == Code.INVALID_ARGUMENT


def test_the_eligibility_jws_follows_the_tenants_history_rule(env, keys):
    """A Google Play subscriber is told no on tenant "a" (all stores count) and left to StoreKit on "b" (App Store
    only)."""
    a_user = play_subscriber(env)
    signed = env.a.sign(a_user, app_transaction_id="2000000456")
    assert signed.introductory_offer_allowed is False
    assert claims_of(signed.compact_jws, keys["a"], "introductory-offer-eligibility")["allowIntroductoryOffer"] is False
    b_user = play_subscriber(env, api="b")
    refused(env.b.sign_error(b_user, app_transaction_id="2000000789"), "storekit_decides")


def test_another_users_transaction_is_refused(env, ca):
    user, _ = app_store_subscriber(env, ca)
    _, theirs = app_store_subscriber(env, ca)
    for offer in ("", "any_offer"):
        error = env.a.sign_error(user, offer_id=offer, transaction_id=theirs)
        assert error.code() == Code.INVALID_ARGUMENT and theirs in error.details(), (offer, error.details())
    assert offer_events(env, user) == []


# --------------------------------------------------------------------------------------------------
# Isolation


def test_a_tenants_key_signs_only_its_own_offers(env, ca, keys):
    user, _ = app_store_subscriber(env, ca)
    error = env.a.sign_error(user, offer_id="b_offer")
    assert error.code() == Code.NOT_FOUND, (error.code(), error.details())
    error = env.b.sign_error(user, offer_id="any_offer")
    assert error.code() == Code.NOT_FOUND, (error.code(), error.details())
    # The same app user ID is another, new customer of tenant "b": its own key, its own token.
    assert env.b.intro(user).reason == NO_HISTORY
    signed = env.b.sign(user, offer_id="b_offer")
    assert signed.key_id == KEY_ID_B
    assert signed.app_account_token == env.b.identify(user).app_account_token != env.a.identify(user).app_account_token
    payload = storekit1_payload(KEY_ID_B, MONTHLY, "b_offer", signed.app_account_token, signed.nonce, signed.timestamp)
    assert verifies(keys["b"], signed.signature, payload) and not verifies(keys["a"], signed.signature, payload)
    assert offer_events(env, user, "a_admin") == []
    assert [e.reference_id for e in offer_events(env, user, "b_admin")] == [signed.nonce]


def test_an_alias_may_not_ask_for_offers(env):
    user, anonymous = unique_id(), anon_id()
    env.a.identify(anonymous)
    env.a.identify(user, anonymous_id=anonymous)
    error = env.a.sign_error(anonymous, offer_id="any_offer")
    assert error.code() == Code.PERMISSION_DENIED, (error.code(), error.details())
    assert env.a.sign_error(anonymous).code() == Code.PERMISSION_DENIED
    # Eligibility answers for the canonical customer.
    assert env.a.eligibility(anonymous).app_user_id == user
    assert offer_events(env, user) == []


# --------------------------------------------------------------------------------------------------
# Redemption: the App Store transaction bought under a promotional offer


def offer_transaction(ca, original: str, *, offer: str | None = "any_offer", offer_type: int | None = 2,
                      reason: str | None = "PURCHASE", transaction_id: str | None = None, product: str = MONTHLY,
                      token: str | None = None, purchased_at: int | None = None) -> str:
    """An App Store transaction of `original` as `entctl dev` signs it, re-signed by `ca` with Apple's offer fields:
    `offerType` (2: a promotional offer; None: left out), `offerIdentifier` (None: left out), `transactionReason`
    (None: left out), bought at `purchased_at` (milliseconds; default now) for 30 days."""
    args = ["--original-transaction-id", original]
    if transaction_id is not None:
        args += ["--transaction-id", transaction_id]
    if token is not None:
        args += ["--app-account-token", token]
    claims = payload(ca.sign(product, *args, bundle_id=BUNDLE_ID))
    claims.pop("transactionReason", None)
    for field, value in (("offerType", offer_type), ("offerIdentifier", offer), ("transactionReason", reason)):
        if value is not None:
            claims[field] = value
    if purchased_at is not None:
        claims.update(purchaseDate=purchased_at, originalPurchaseDate=purchased_at,
                      expiresDate=purchased_at + 30 * DAY_MS)
    return sign_jws(ca, claims)


def later() -> None:
    """Enough time for the next signature to be made at a later millisecond than the last."""
    time.sleep(0.005)


def signatures(env, user: str, api: str = "a_admin") -> list:
    """GetCustomer's offer_signatures."""
    return list(getattr(env, api).customer(user).offer_signatures)


def redeemed(env, user: str, api: str = "a_admin") -> dict:
    """Nonce → the transaction that redeemed the signature ("" when none did)."""
    listed = signatures(env, user, api)
    for signature in listed:
        assert signature.HasField("redeemed_at") == bool(signature.redeemed_transaction_id), signature
    return {s.nonce: s.redeemed_transaction_id for s in listed}


def test_a_purchase_under_a_promotional_offer_redeems_the_newest_signature_made_before_it(env, ca):
    user = known_user(env)
    older = env.a.sign(user, offer_id="any_offer")
    later()
    newer = env.a.sign(user, offer_id="any_offer")
    annual = env.a.sign(user, ANNUAL, "any_offer")  # another product
    loyal = env.a.sign(user, offer_id="loyal")  # another offer
    original = new_original_id()
    bought = offer_transaction(ca, original)
    before = time.time()
    env.a.purchase(user, bought)
    after = time.time()
    expected = {older.nonce: "", newer.nonce: original, annual.nonce: "", loyal.nonce: ""}
    assert redeemed(env, user) == expected
    (linked,) = [s for s in signatures(env, user) if s.nonce == newer.nonce]
    assert (linked.offer_id, linked.product_id) == ("any_offer", MONTHLY)
    assert before * 1000 - 1000 <= ts_millis(linked.redeemed_at) <= after * 1000 + 1000, linked

    # The same transaction again, by Purchase or Restore: nothing more, and the link is as it was.
    env.a.purchase(user, bought)
    env.a.restore(user, [bought])
    assert redeemed(env, user) == expected
    (again,) = [s for s in signatures(env, user) if s.nonce == newer.nonce]
    assert again.redeemed_at == linked.redeemed_at

    # Renewals at the offer's price redeem nothing new: Apple's RENEWAL, or (signed before Apple added the field) a
    # transaction of the subscription other than its first.
    env.a.purchase(user, offer_transaction(ca, original, transaction_id=original + "1", reason="RENEWAL"))
    env.a.purchase(user, offer_transaction(ca, original, transaction_id=original + "2", reason=None))
    assert redeemed(env, user) == expected

    # Another purchase under the offer, restored, redeems the one left.
    second = new_original_id()
    env.a.restore(user, [offer_transaction(ca, second)])
    expected[older.nonce] = second
    assert redeemed(env, user) == expected
    # None is left: a third redeems nothing, and takes no signature of another product or offer.
    env.a.purchase(user, offer_transaction(ca, new_original_id()))
    assert redeemed(env, user) == expected


@pytest.mark.parametrize("case", ["another offer", "no offer type", "offer code", "no offer identifier",
                                  "another product", "bought before signing", "another customer"])
def test_a_transaction_not_bought_under_the_signed_offer_redeems_nothing(env, ca, case):
    user = play_subscriber(env)  # so that an introductory eligibility signature is made (withholding the offer)
    signed = env.a.sign(user, offer_id="any_offer")
    intro = env.a.sign(user, app_transaction_id="2000000321")  # offer_id "" (an introductory eligibility signature)
    original = new_original_id()
    fields = {
        "another offer": {"offer": "loyal"},
        "no offer type": {"offer_type": None},  # Apple's offerIdentifier without offerType is no offer's
        "offer code": {"offer_type": 3},
        "no offer identifier": {"offer": None},
        "another product": {"product": ANNUAL},
        "bought before signing": {"purchased_at": now_ms() - 3_600_000},
        "another customer": {},
    }[case]
    buyer = known_user(env) if case == "another customer" else user
    env.a.purchase(buyer, offer_transaction(ca, original, **fields))
    assert redeemed(env, user) == {signed.nonce: "", intro.nonce: ""}
    assert redeemed(env, buyer) == ({} if buyer != user else {signed.nonce: "", intro.nonce: ""})
    # The customer's own purchase under the offer redeems it.
    mine = new_original_id()
    env.a.purchase(user, offer_transaction(ca, mine))
    assert redeemed(env, user) == {signed.nonce: mine, intro.nonce: ""}


def test_a_purchase_moments_before_the_signature_redeems_it(env, ca):
    """The device's clock and Apple's may run ahead of the server's by a few minutes."""
    user = known_user(env)
    signed = env.a.sign(user, offer_id="any_offer")
    original = new_original_id()
    env.a.purchase(user, offer_transaction(ca, original, purchased_at=now_ms() - 60_000))
    assert redeemed(env, user) == {signed.nonce: original}


def test_a_notification_of_a_purchase_under_an_offer_redeems_it(env, ca):
    user = known_user(env)
    token = env.a.identify(user).app_account_token
    signed = env.a.sign(user, offer_id="any_offer")
    original = new_original_id()
    bought = offer_transaction(ca, original, token=token)
    post_ok(env, "a", notification(ca, "SUBSCRIBED", "INITIAL_BUY", transaction=bought))
    assert redeemed(env, user) == {signed.nonce: original}

    # Apple's renewal at the offer's price redeems nothing, nor does the device's Purchase of the first transaction.
    later()
    unused = env.a.sign(user, offer_id="any_offer")
    renewed = offer_transaction(ca, original, transaction_id=original + "1", reason="RENEWAL", token=token)
    post_ok(env, "a", notification(ca, "DID_RENEW", transaction=renewed))
    env.a.purchase(user, bought)
    post_ok(env, "a", notification(ca, "SUBSCRIBED", "INITIAL_BUY", transaction=bought))
    assert redeemed(env, user) == {signed.nonce: original, unused.nonce: ""}


def test_a_notification_nobody_owns_redeems_when_the_device_claims_the_purchase(env, ca):
    user = known_user(env)
    signed = env.a.sign(user, offer_id="any_offer")
    original = new_original_id()
    bought = offer_transaction(ca, original)  # no app account token
    post_ok(env, "a", notification(ca, "SUBSCRIBED", "INITIAL_BUY", transaction=bought))
    assert redeemed(env, user) == {signed.nonce: ""}
    env.a.purchase(user, bought)
    assert redeemed(env, user) == {signed.nonce: original}


def test_purchases_under_an_offer_at_once_redeem_one_signature_each(env, ca):
    """Apple's notifications (and a device's Purchase calls) of new purchases under one offer at the same time: each
    transaction redeems a signature of its own, and the redemptions counter moves by as many as are linked."""
    count = 8
    user = known_user(env)
    token = env.a.identify(user).app_account_token
    nonces = []
    for _ in range(count):
        later()
        nonces.append(env.a.sign(user, offer_id="any_offer").nonce)
    originals = [new_original_id() for _ in range(count)]
    purchases = [offer_transaction(ca, original, token=token) for original in originals]
    delta = Delta(env.server)

    def apply(index: int):
        if index % 4 == 3:
            return env.a.purchase(user, purchases[index])
        return post_ok(env, "a", notification(ca, "SUBSCRIBED", "INITIAL_BUY", transaction=purchases[index]))

    with ThreadPoolExecutor(max_workers=count) as pool:
        list(pool.map(apply, range(count)))
    links = redeemed(env, user)
    counted = delta.rescrape()[redemption_series(env, "a", "any_offer")]
    assert sorted(links) == sorted(nonces)
    assert (sorted(links.values()), counted) == (sorted(originals), count), links


# --------------------------------------------------------------------------------------------------
# GetCustomer's offer signatures


def test_get_customer_lists_the_signatures_newest_first(env, ca):
    user, transaction_id = app_store_subscriber(env, ca)
    made, windows = [], []
    for product, offer in [(MONTHLY, "any_offer"), (MONTHLY, ""), (ANNUAL, "annual_only"), (MONTHLY, "sub_offer")]:
        later()
        before = now_ms()
        made.append(env.a.sign(user, product, offer))
        windows.append((before, now_ms()))
    listed = signatures(env, user)
    assert [(s.nonce, s.offer_id, s.product_id) for s in listed] == [
        (m.nonce, m.offer_id, m.product_id) for m in reversed(made)]
    for signature, signed, (before, after) in zip(listed, reversed(made), reversed(windows)):
        assert before - 1000 <= ts_millis(signature.signed_at) <= after + 1000, (signature, before, after)
        # A promotional offer's StoreKit 1 timestamp is when it was signed (the eligibility JWS has none).
        assert signed.timestamp == (ts_millis(signature.signed_at) if signed.offer_id else 0), signature
    assert all(not s.redeemed_transaction_id and not s.HasField("redeemed_at") for s in listed)
    # Only the customer's own; the admin key only.
    assert signatures(env, known_user(env)) == []
    assert env.a.error("GetCustomer", app_user_id=user).code() == Code.PERMISSION_DENIED


def test_get_customer_lists_the_newest_fifty(env):
    user = known_user(env)
    nonces = []
    for _ in range(52):
        later()
        nonces.append(env.a.sign(user, offer_id="any_offer").nonce)
    assert [s.nonce for s in signatures(env, user)] == nonces[::-1][:50]


def test_a_merged_anonymous_customers_signatures_are_the_survivors(env, ca):
    user, anonymous = known_user(env, "b"), anon_id()
    own = env.b.sign(user, offer_id="b_offer")
    later()
    theirs = env.b.sign(anonymous, offer_id="once")
    later()
    also = env.b.sign(anonymous, offer_id="b_offer")
    assert env.b.identify(user, anonymous_id=anonymous).merged
    nonces = [also.nonce, theirs.nonce, own.nonce]
    assert [s.nonce for s in signatures(env, user, "b_admin")] == nonces
    assert [s.nonce for s in signatures(env, anonymous, "b_admin")] == nonces, "by the alias"
    # The offer's limit counts the anonymous customer's signature.
    assert env.b.promotional(user)["once"].refused_rule == "limit"
    refused(env.b.sign_error(user, offer_id="once"), "limit")
    # A purchase under the offer redeems it.
    original = new_original_id()
    env.b.purchase(user, offer_transaction(ca, original, offer="once"))
    assert redeemed(env, user, "b_admin") == {also.nonce: "", theirs.nonce: original, own.nonce: ""}


def test_a_merge_into_a_new_user_keeps_the_signatures_and_the_limit(env):
    anonymous, user = anon_id(), unique_id()
    signed = env.b.sign(anonymous, offer_id="once")
    env.b.identify(user, anonymous_id=anonymous)
    assert [s.nonce for s in signatures(env, user, "b_admin")] == [signed.nonce]
    refused(env.b.sign_error(user, offer_id="once"), "limit")


# --------------------------------------------------------------------------------------------------
# Metrics


SIGNATURES, REDEMPTIONS = "entitlementd_offer_signatures_total", "entitlementd_offer_redemptions_total"


def signature_series(env, tenant: str, offer: str) -> tuple[str, dict]:
    kind = "promotional" if offer else "introductory_eligibility"
    return SIGNATURES, {"tenant": env.tenants[tenant].id, "kind": kind, "offer": offer}


def redemption_series(env, tenant: str, offer: str) -> tuple[str, dict]:
    return REDEMPTIONS, {"tenant": env.tenants[tenant].id, "offer": offer}


def test_metrics_count_signatures_and_redemptions_per_tenant_and_offer(env, ca):
    delta = Delta(env.server)
    # A Google Play subscriber on "a" (which counts every store), so its introductory eligibility signatures are made.
    a_user, b_user = play_subscriber(env), known_user(env, "b")
    for _ in range(3):
        env.a.sign(a_user, offer_id="any_offer")
    env.a.sign(a_user, offer_id="loyal")
    env.a.sign(a_user, app_transaction_id="2000000111")
    env.a.sign(a_user, app_transaction_id="2000000112")
    env.b.sign(b_user, offer_id="b_offer")
    refused(env.b.sign_error(b_user, app_transaction_id="2000000113"), "storekit_decides")  # counts nothing
    refused(env.a.sign_error(a_user, offer_id="future"), "not_started")  # counts nothing
    env.a.purchase(a_user, offer_transaction(ca, new_original_id()))
    env.a.purchase(a_user, offer_transaction(ca, new_original_id()))
    env.b.purchase(b_user, offer_transaction(ca, new_original_id(), offer="b_offer"))
    delta.rescrape()
    expected = [
        (signature_series(env, "a", "any_offer"), 3), (redemption_series(env, "a", "any_offer"), 2),
        (signature_series(env, "a", "loyal"), 1), (redemption_series(env, "a", "loyal"), 0),
        (signature_series(env, "a", ""), 2), (signature_series(env, "a", "future"), 0),
        (signature_series(env, "b", "b_offer"), 1), (redemption_series(env, "b", "b_offer"), 1),
    ]
    assert [(series, delta[series]) for series, _ in expected] == expected
    after = delta.after
    # Each series only where it belongs: tenant "a" has no "b_offer", introductory eligibility no redemptions and no
    # promotional series.
    assert not after.has(*signature_series(env, "a", "b_offer"))
    assert not after.has(*redemption_series(env, "a", ""))
    assert not after.has(SIGNATURES, {"tenant": env.tenants["a"].id, "kind": "promotional", "offer": ""})
    assert not after.has(SIGNATURES, {"tenant": env.tenants["a"].id, "kind": "introductory_eligibility",
                                      "offer": "any_offer"})
    # Counters: the samples are the totals, one per series.
    assert after[signature_series(env, "a", "any_offer")] >= 3 and after[redemption_series(env, "a", "any_offer")] >= 2


def test_an_erasure_removes_the_signatures_and_leaves_the_totals(env, ca):
    user = play_subscriber(env)
    signed = env.a.sign(user, offer_id="any_offer")
    intro = env.a.sign(user, app_transaction_id="2000000222")
    env.a.purchase(user, offer_transaction(ca, new_original_id()))
    assert len(signatures(env, user)) == 2
    before = Samples(scrape(env.server))
    env.a_admin.call("DeleteCustomer", app_user_id=user, confirm_app_user_id=user, timeout=60.0)
    error = env.a_admin.error("GetCustomer", app_user_id=user)
    assert error.code() == Code.NOT_FOUND, (error.code(), error.details())
    after = Samples(scrape(env.server))
    for series in (signature_series(env, "a", "any_offer"), redemption_series(env, "a", "any_offer"),
                   signature_series(env, "a", "")):
        assert after[series] == before[series] > 0, series
    nonces = ", ".join(f"'{nonce}'" for nonce in (signed.nonce, intro.nonce))
    assert query_database(env.server.config.parent,
                          f"SELECT count(*) FROM offer_signatures WHERE nonce IN ({nonces})") == [("0",)]
