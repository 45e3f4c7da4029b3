"""The Google fake (fake_google.py) speaks Google's formats: proven with clients that are not ours.

google-auth obtains tokens from it and calls its API as it would Google's; google-auth verifies its Pub/Sub push
tokens against its JWKS; PyJWT signs the assertions it must refuse. No entitlementd server is needed.
"""

from __future__ import annotations

import base64
import http.client
import json
import re
import signal
import socket
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import google.auth.exceptions
import google.auth.transport.requests
import google.oauth2.id_token
import google.oauth2.service_account
import jwt
import pytest
import requests

from conftest import REPO_ROOT
from fake_google import (
    ANDROIDPUBLISHER_SCOPE,
    FakeGoogle,
    OneTimeProductNotificationType,
    ProductType,
    SubscriptionNotificationType,
    decode_push_data,
    millis,
    new_purchase_token,
    new_rsa_key,
    one_time_product_notification,
    private_key_pem,
    push_envelope,
    subscription_notification,
    test_notification,
    voided_purchase_notification,
)

PACKAGE = "com.example.app"
MONTHLY = "premium"
TIMEOUT = 10
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6})?Z$")
AUDIENCE = "https://entitlementd.example/v1/google/notifications/tenant-a"
PUSH_EMAIL = "pubsub-push@entitlementd-fake.iam.gserviceaccount.com"


@pytest.fixture
def fake():
    with FakeGoogle(package=PACKAGE) as fake:
        yield fake


@pytest.fixture
def key_file(fake, tmp_path) -> Path:
    return fake.write_service_account(tmp_path / "service-account.json")


def credentials(path: Path, scopes=(ANDROIDPUBLISHER_SCOPE,)):
    return google.oauth2.service_account.Credentials.from_service_account_file(str(path), scopes=list(scopes))


def google_request(session: requests.Session | None = None):
    return google.auth.transport.requests.Request(session)


def access_token(fake: FakeGoogle, account=None) -> str:
    """A token for `account` (the default one) obtained by google-auth, as a real client would."""
    info = fake.service_account_info(account)
    creds = google.oauth2.service_account.Credentials.from_service_account_info(info, scopes=[ANDROIDPUBLISHER_SCOPE])
    creds.refresh(google_request())
    return creds.token


def api_get(fake: FakeGoogle, rest: str, token: str | None, package: str = PACKAGE, **kwargs) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.get(fake.api_url(package, rest), headers=headers, timeout=TIMEOUT, **kwargs)


def api_post(fake: FakeGoogle, rest: str, token: str, body=None, package: str = PACKAGE) -> requests.Response:
    return requests.post(fake.api_url(package, rest), headers={"Authorization": f"Bearer {token}"}, json=body,
                         timeout=TIMEOUT)


def google_error(response: requests.Response) -> dict:
    """The single `errors[]` entry of a Google error body, with the top-level code and message checked."""
    body = response.json()["error"]
    assert body["code"] == response.status_code
    assert len(body["errors"]) == 1 and body["errors"][0]["message"]
    return {**body["errors"][0], "status": body.get("status"), "top_message": body["message"]}


def assertion(fake: FakeGoogle, key=None, **overrides) -> str:
    """A service-account assertion signed with PyJWT: right by default, each claim or header overridable."""
    account = fake.service_account
    iat = overrides.get("iat") or int(time.time())
    claims = {"iss": account.email, "scope": ANDROIDPUBLISHER_SCOPE, "aud": fake.token_uri, "iat": iat,
              "exp": iat + 3600}
    kid = overrides.pop("kid", account.private_key_id)
    headers = {"kid": kid} if kid is not None else {}
    algorithm = overrides.pop("alg", "RS256")
    claims.update(overrides)
    claims = {name: value for name, value in claims.items() if value is not None}
    signing_key = key if key is not None else account.key
    if algorithm == "HS256":
        signing_key = "a-shared-secret-of-enough-length-for-hmac"
    return jwt.encode(claims, signing_key, algorithm=algorithm, headers=headers)


def post_token(fake: FakeGoogle, assertion_value: str, grant_type: str = "urn:ietf:params:oauth:grant-type:jwt-bearer"):
    return requests.post(fake.token_uri, data={"grant_type": grant_type, "assertion": assertion_value},
                         timeout=TIMEOUT)


# --------------------------------------------------------------------------------------------------
# Service accounts and the token endpoint


def test_service_account_key_file_has_googles_fields(fake, key_file):
    info = json.loads(key_file.read_text())
    assert set(info) == {
        "type", "project_id", "private_key_id", "private_key", "client_email", "client_id", "auth_uri", "token_uri",
        "auth_provider_x509_cert_url", "client_x509_cert_url", "universe_domain",
    }
    assert info["type"] == "service_account"
    assert info["token_uri"] == fake.token_uri
    assert info["universe_domain"] == "googleapis.com"
    assert re.fullmatch(r"[0-9a-f]{40}", info["private_key_id"])
    assert re.fullmatch(r"\d{21}", info["client_id"])
    assert info["client_email"].endswith(f"@{info['project_id']}.iam.gserviceaccount.com")
    assert info["private_key"].startswith("-----BEGIN PRIVATE KEY-----\n")
    assert key_file.stat().st_mode & 0o077 == 0
    # The account's certificate URL serves its public key under its key id, as Google's does.
    certs = requests.get(info["client_x509_cert_url"], timeout=TIMEOUT).json()
    assert list(certs) == [info["private_key_id"]]


def test_google_auth_gets_a_token_and_reads_a_subscription(fake, key_file):
    fake.put_subscription(PACKAGE, "sub-token", product_id=MONTHLY, account_id="user-42")
    creds = credentials(key_file)
    creds.refresh(google_request())
    assert creds.token.startswith("ya29.")
    assert creds.expiry is not None and creds.expiry > datetime.utcnow() + timedelta(minutes=50)
    assert fake.token_grant_count == 1
    grant = fake.grants[0]
    assert grant.account is fake.service_account and grant.scopes == [ANDROIDPUBLISHER_SCOPE]

    session = google.auth.transport.requests.AuthorizedSession(creds)
    response = session.get(fake.api_url(PACKAGE, "purchases/subscriptionsv2/tokens/sub-token"), timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    resource = response.json()
    assert resource["kind"] == "androidpublisher#subscriptionPurchaseV2"
    assert resource["lineItems"][0]["productId"] == MONTHLY
    assert resource["externalAccountIdentifiers"] == {"obfuscatedExternalAccountId": "user-42"}
    (logged,) = fake.requests("GET", "subscriptionsv2")
    assert logged.header("Authorization") == f"Bearer {creds.token}" and logged.status == 200


def test_the_token_is_reused_until_it_expires(fake, key_file):
    fake.put_subscription(PACKAGE, "sub-token")
    session = google.auth.transport.requests.AuthorizedSession(credentials(key_file))
    for _ in range(3):
        assert session.get(fake.api_url(PACKAGE, "purchases/subscriptionsv2/tokens/sub-token")).status_code == 200
    assert fake.token_grant_count == 1
    # Expired (or revoked) tokens get 401, on which AuthorizedSession gets a new one and retries once.
    fake.expire_tokens()
    assert session.get(fake.api_url(PACKAGE, "purchases/subscriptionsv2/tokens/sub-token")).status_code == 200
    assert fake.token_grant_count == 2
    assert [r.status for r in fake.requests("GET", "subscriptionsv2")] == [200, 200, 200, 401, 200]


def test_an_assertion_signed_with_another_key_is_refused(fake):
    response = post_token(fake, assertion(fake, key=new_rsa_key()))
    assert response.status_code == 400
    assert response.json() == {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
    assert fake.token_grant_count == 0


def test_google_auth_reports_the_refusal_of_a_key_google_does_not_know(fake, tmp_path):
    info = fake.service_account_info()
    info["private_key"] = private_key_pem(new_rsa_key())  # a key the account never had (deleted, or another's)
    path = tmp_path / "stale.json"
    path.write_text(json.dumps(info))
    with pytest.raises(google.auth.exceptions.RefreshError, match="invalid_grant: Invalid JWT Signature"):
        credentials(path).refresh(google_request())


@pytest.mark.parametrize("overrides, error, description", [
    ({"aud": "https://example.com/token"}, "invalid_grant", "Invalid JWT: Failed audience check"),
    ({"iss": "someone@else.iam.gserviceaccount.com"}, "invalid_grant", "Invalid grant: account not found"),
    ({"kid": "0" * 40}, "invalid_grant", "Invalid JWT Signature."),
    ({"kid": None}, "invalid_grant", "Invalid JWT Signature."),
    ({"alg": "HS256"}, "invalid_grant", "Invalid JWT Signature."),
    ({"exp": int(time.time()) - 10, "iat": int(time.time()) - 100}, "invalid_grant", "short-lived token"),
    ({"exp": int(time.time()) + 7200}, "invalid_grant", "short-lived token"),
    ({"iat": int(time.time()) + 600, "exp": int(time.time()) + 1200}, "invalid_grant", "short-lived token"),
    ({"iat": int(time.time()) - 1800}, "invalid_grant", "short-lived token"),
    ({"iat": None}, "invalid_grant", "short-lived token"),
    ({"scope": None}, "invalid_scope", "Invalid OAuth scope"),
    ({"sub": "admin@example.com"}, "unauthorized_client", "Client is unauthorized"),
])
def test_assertion_claims_are_checked(fake, overrides, error, description):
    response = post_token(fake, assertion(fake, **overrides))
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == error and description in body["error_description"], body
    assert fake.token_grant_count == 0


@pytest.mark.parametrize("audience", ["token_uri", "https://oauth2.googleapis.com/token"])
def test_the_right_assertion_is_granted_and_a_wrong_grant_type_is_not(fake, audience):
    aud = fake.token_uri if audience == "token_uri" else audience
    good = assertion(fake, aud=aud, iat=int(time.time()) - 30)  # backdating iat for clock skew is fine
    response = post_token(fake, good)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access_token", "expires_in", "token_type"}
    assert body["expires_in"] == 3599 and body["token_type"] == "Bearer"
    refused = post_token(fake, good, grant_type="client_credentials")
    assert refused.status_code == 400 and refused.json()["error"] == "unsupported_grant_type"


# --------------------------------------------------------------------------------------------------
# Authorization on the API


def test_calls_without_a_valid_token_get_googles_401(fake):
    fake.put_subscription(PACKAGE, "sub-token")
    missing = api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", None)
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"].startswith('Bearer realm="https://accounts.google.com/"')
    error = google_error(missing)
    assert error["reason"] == "required" and error["status"] == "UNAUTHENTICATED"
    assert error["location"] == "Authorization" and error["locationType"] == "header"

    bogus = api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", "ya29.not-a-token")
    assert bogus.status_code == 401 and google_error(bogus)["reason"] == "authError"
    assert 'error="invalid_token"' in bogus.headers["WWW-Authenticate"]


def test_an_ungranted_account_gets_insufficient_permissions_until_granted(fake):
    fake.put_subscription(PACKAGE, "sub-token")
    waiting = fake.add_service_account("not-yet", granted=False)
    token = access_token(fake, waiting)  # Google grants the token: it is the API that refuses
    response = api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token)
    assert response.status_code == 401
    error = google_error(response)
    assert error["reason"] == "permissionDenied" and error["domain"] == "androidpublisher"
    assert error["message"] == "The current user has insufficient permissions to perform the requested operation."
    fake.set_granted(waiting, True)
    assert api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token).status_code == 200


def test_an_account_reaches_only_its_own_apps(fake):
    fake.put_subscription("com.example.other", "other-token")
    tenant = fake.add_service_account("tenant-a", packages=[PACKAGE])
    token = access_token(fake, tenant)
    response = api_get(fake, "purchases/subscriptionsv2/tokens/other-token", token, package="com.example.other")
    assert response.status_code == 401 and google_error(response)["reason"] == "permissionDenied"
    unknown = api_get(fake, "purchases/subscriptionsv2/tokens/x", access_token(fake), package="com.example.nothing")
    assert unknown.status_code == 404 and google_error(unknown)["reason"] == "applicationNotFound"


def test_a_token_without_the_androidpublisher_scope_gets_403(fake, key_file):
    fake.put_subscription(PACKAGE, "sub-token")
    creds = credentials(key_file, scopes=["https://www.googleapis.com/auth/cloud-platform"])
    creds.refresh(google_request())
    response = api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", creds.token)
    assert response.status_code == 403
    error = google_error(response)
    assert error["reason"] == "insufficientPermissions" and error["status"] == "PERMISSION_DENIED"


# --------------------------------------------------------------------------------------------------
# Purchases


def test_subscription_resources_follow_their_state(fake):
    token = access_token(fake)
    expiry = datetime.now(timezone.utc) + timedelta(days=3)
    fake.put_subscription(PACKAGE, "active", product_id=MONTHLY, base_plan="monthly", offer_id="intro",
                          offer_tags=["promo"], expiry=expiry, test=True, linked="previous-token",
                          out_of_app_previous=("expired-token", "user-7"))
    fake.put_subscription(PACKAGE, "canceled", state="CANCELED")
    fake.put_subscription(PACKAGE, "paused", state="PAUSED", auto_resume="+10d")
    fake.put_subscription(PACKAGE, "pending", state="PENDING")

    active = api_get(fake, "purchases/subscriptionsv2/tokens/active", token).json()
    assert active["subscriptionState"] == "SUBSCRIPTION_STATE_ACTIVE"
    assert active["acknowledgementState"] == "ACKNOWLEDGEMENT_STATE_PENDING"
    assert active["testPurchase"] == {} and active["linkedPurchaseToken"] == "previous-token"
    assert active["outOfAppPurchaseContext"] == {
        "expiredPurchaseToken": "expired-token",
        "expiredExternalAccountIdentifiers": {"obfuscatedExternalAccountId": "user-7"},
    }
    (item,) = active["lineItems"]
    assert item["autoRenewingPlan"] == {"autoRenewEnabled": True}
    assert item["offerDetails"] == {"basePlanId": "monthly", "offerId": "intro", "offerTags": ["promo"]}
    assert item["latestSuccessfulOrderId"] == active["latestOrderId"]
    assert re.fullmatch(r"GPA\.\d{4}-\d{4}-\d{4}-\d{5}", active["latestOrderId"])
    for value in (active["startTime"], item["expiryTime"]):
        assert RFC3339.match(value), value
    assert abs(datetime.fromisoformat(item["expiryTime"].replace("Z", "+00:00")) - expiry) < timedelta(milliseconds=1)

    canceled = api_get(fake, "purchases/subscriptionsv2/tokens/canceled", token).json()
    assert canceled["lineItems"][0]["autoRenewingPlan"]["autoRenewEnabled"] is False
    cancellation = canceled["canceledStateContext"]["userInitiatedCancellation"]
    assert RFC3339.match(cancellation["cancelTime"])

    paused = api_get(fake, "purchases/subscriptionsv2/tokens/paused", token).json()
    assert RFC3339.match(paused["pausedStateContext"]["autoResumeTime"])
    pending = api_get(fake, "purchases/subscriptionsv2/tokens/pending", token).json()
    assert "startTime" not in pending and "latestSuccessfulOrderId" not in pending["lineItems"][0]


def test_unknown_and_mismatched_tokens_get_googles_answers(fake):
    token = access_token(fake)
    fake.put_product(PACKAGE, "product-token", product_id="coins_100")
    fake.put_subscription(PACKAGE, "long-gone", state="EXPIRED", expiry="-61d")

    unknown = api_get(fake, "purchases/subscriptionsv2/tokens/" + new_purchase_token(), token)
    assert unknown.status_code == 400
    error = google_error(unknown)
    assert (error["message"], error["reason"], error["domain"]) == ("Invalid Value", "invalid", "global")

    product_as_subscription = api_get(fake, "purchases/subscriptionsv2/tokens/product-token", token)
    assert product_as_subscription.status_code == 400
    assert google_error(product_as_subscription)["reason"] == "subscriptionInvalidArgument"

    wrong_product = api_get(fake, "purchases/products/gems_5/tokens/product-token", token)
    assert wrong_product.status_code == 400 and google_error(wrong_product)["reason"] == "invalid"

    gone = api_get(fake, "purchases/subscriptionsv2/tokens/long-gone", token)
    assert gone.status_code == 410 and google_error(gone)["reason"] == "subscriptionPurchaseNoLongerAvailable"

    nowhere = api_get(fake, "purchases/subscriptions/premium/tokens/x", token)
    assert nowhere.status_code == 404 and nowhere.headers["Content-Type"].startswith("text/html")


def test_product_purchases_carry_googles_fields(fake):
    token = access_token(fake)
    fake.put_product(PACKAGE, "plain", product_id="coins_100", account_id="user-1")
    fake.put_product(PACKAGE, "tester", product_id="coins_100", test=True, quantity=3)
    plain = api_get(fake, "purchases/products/coins_100/tokens/plain", token).json()
    assert plain["kind"] == "androidpublisher#productPurchase"
    assert isinstance(plain["purchaseTimeMillis"], str) and plain["purchaseTimeMillis"].isdigit()
    assert (plain["purchaseState"], plain["consumptionState"], plain["acknowledgementState"]) == (0, 0, 0)
    assert "purchaseType" not in plain and "quantity" not in plain
    assert plain["purchaseToken"] == "plain" and plain["productId"] == "coins_100"
    assert plain["obfuscatedExternalAccountId"] == "user-1" and plain["refundableQuantity"] == 1
    tester = api_get(fake, "purchases/products/coins_100/tokens/tester", token).json()
    assert tester["purchaseType"] == 0 and tester["quantity"] == 3 and tester["refundableQuantity"] == 3


def test_a_subscription_is_acknowledged_once(fake):
    token = access_token(fake)
    fake.put_subscription(PACKAGE, "sub-token", product_id=MONTHLY, out_of_app_previous=("old", "user-1"))
    path = f"purchases/subscriptions/{MONTHLY}/tokens/sub-token:acknowledge"

    first = api_post(fake, path, token, {"developerPayload": "user-1"})
    assert first.status_code == 204 and first.content == b""
    stored = fake.get_subscription(PACKAGE, "sub-token")
    assert stored["acknowledgementState"] == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
    assert "outOfAppPurchaseContext" not in stored  # Google drops it once acknowledged
    (ack,) = fake.acknowledgements_of("sub-token")
    assert (ack.kind, ack.product_id, ack.developer_payload) == ("subscription", MONTHLY, "user-1")

    again = api_post(fake, path, token)
    assert again.status_code == 400 and google_error(again)["reason"] == "subscriptionNotOwnedByUser"
    wrong_id = api_post(fake, "purchases/subscriptions/other_sub/tokens/sub-token:acknowledge", token)
    assert wrong_id.status_code == 400 and google_error(wrong_id)["reason"] == "invalid"
    assert len(fake.acknowledgements_of("sub-token")) == 1
    assert [r.status for r in fake.requests("POST", ":acknowledge$")] == [204, 400, 400]

    fake.reacknowledge = "ok"
    assert api_post(fake, path, token).status_code == 204


def test_a_product_is_acknowledged_once_and_bodies_are_checked(fake):
    token = access_token(fake)
    fake.put_product(PACKAGE, "p-token", product_id="coins_100")
    fake.put_product(PACKAGE, "pending", product_id="coins_100", state=2)
    path = "purchases/products/coins_100/tokens/p-token:acknowledge"

    unknown_field = api_post(fake, path, token, {"payload": "x"})
    assert unknown_field.status_code == 400 and "Unknown name" in google_error(unknown_field)["message"]
    assert api_post(fake, path, token, {"developerPayload": "order-9"}).status_code == 204
    assert fake.get_product(PACKAGE, "p-token")["acknowledgementState"] == 1
    assert fake.get_product(PACKAGE, "p-token")["developerPayload"] == "order-9"
    again = api_post(fake, path, token)
    assert again.status_code == 400 and google_error(again)["reason"] == "productNotOwnedByUser"
    pending = api_post(fake, "purchases/products/coins_100/tokens/pending:acknowledge", token)
    assert pending.status_code == 400 and google_error(pending)["reason"] == "invalidPurchaseState"

    fake.acknowledge_status = 200
    fake.put_product(PACKAGE, "q-token", product_id="coins_100")
    ok = api_post(fake, "purchases/products/coins_100/tokens/q-token:acknowledge", token)
    assert ok.status_code == 200 and ok.content == b"" and ok.headers["Content-Length"] == "0"


def test_voided_purchases_are_paged_and_filtered_like_googles(fake):
    token = access_token(fake)
    now = datetime.now(timezone.utc)
    voided_tokens = []
    for index in range(5):
        purchase = f"coins-{index}"
        fake.put_product(PACKAGE, purchase, product_id="coins_100")
        fake.void(purchase, voided_time=now - timedelta(hours=5 - index), reason=1)
        voided_tokens.append(purchase)
    fake.put_subscription(PACKAGE, "sub-token")
    fake.void("sub-token", voided_time=now - timedelta(minutes=30), source=2, reason=7)
    fake.put_product(PACKAGE, "bulk", product_id="coins_100", quantity=5)
    fake.void("bulk", voided_time=now - timedelta(minutes=20), quantity=2)

    def listing(**params):
        response = api_get(fake, "purchases/voidedpurchases", token, params=params)
        assert response.status_code == 200, response.text
        return response.json()

    seen, page_token, pages = [], None, 0
    while True:
        page = listing(maxResults=2, **({"token": page_token} if page_token else {}))
        pages += 1
        seen += [entry["purchaseToken"] for entry in page["voidedPurchases"]]
        page_token = page.get("tokenPagination", {}).get("nextPageToken")
        if not page_token:
            break
    assert pages == 3 and seen == voided_tokens  # type=0 (the default) leaves subscriptions out, oldest first

    first = listing()["voidedPurchases"][0]
    assert set(first) == {"kind", "purchaseToken", "purchaseTimeMillis", "voidedTimeMillis", "orderId",
                          "voidedSource", "voidedReason"}
    assert first["kind"] == "androidpublisher#voidedPurchase" and first["voidedTimeMillis"].isdigit()
    assert fake.get_product(PACKAGE, "coins-0")["purchaseState"] == 1  # revoked

    everything = listing(type=1, includeQuantityBasedPartialRefund="true")["voidedPurchases"]
    assert [entry["purchaseToken"] for entry in everything][-2:] == ["sub-token", "bulk"]
    assert everything[-1]["voidedQuantity"] == 2 and everything[-2]["voidedReason"] == 7

    recent = listing(startTime=millis(now - timedelta(hours=2)), endTime=millis(now - timedelta(hours=1)))
    assert [entry["purchaseToken"] for entry in recent["voidedPurchases"]] == ["coins-3"]
    assert listing(startTime=millis(now - timedelta(minutes=1))) == {}  # nothing at all: an empty object

    too_old = api_get(fake, "purchases/voidedpurchases", token,
                      params={"startTime": millis(now - timedelta(days=31))})
    assert too_old.status_code == 400 and google_error(too_old)["status"] == "INVALID_ARGUMENT"
    bad_page = api_get(fake, "purchases/voidedpurchases", token, params={"token": "forged"})
    assert bad_page.status_code == 400
    misspelt = api_get(fake, "purchases/voidedpurchases", token, params={"start_time": millis(now)})
    assert misspelt.status_code == 400 and "Unknown name \"start_time\"" in google_error(misspelt)["message"]
    paged = listing(**{"pageSelection.maxResults": 2, "prettyPrint": "false"})
    assert len(paged["voidedPurchases"]) == 2 and paged["tokenPagination"]["nextPageToken"]


# --------------------------------------------------------------------------------------------------
# Faults and the transport


def test_fail_next_answers_the_given_failures_then_the_real_answer(fake):
    token = access_token(fake)
    fake.put_subscription(PACKAGE, "sub-token")
    fake.fail_next("GET", r"/subscriptionsv2/", 500)
    fake.fail_next("GET", r"/subscriptionsv2/", 429, headers={"Retry-After": "1"})
    fake.fail_next(None, r"/subscriptionsv2/", 401)

    failed = api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token)
    assert failed.status_code == 500 and google_error(failed)["status"] == "INTERNAL"
    throttled = api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token)
    assert throttled.status_code == 429 and throttled.headers["Retry-After"] == "1"
    assert google_error(throttled)["reason"] == "rateLimitExceeded"
    unauthorized = api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token)
    assert unauthorized.status_code == 401 and "WWW-Authenticate" in unauthorized.headers
    assert api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token).status_code == 200

    fake.fail_next("POST", r"^/token$", 503, body={"error": "temporarily_unavailable"})
    assert post_token(fake, assertion(fake)).json() == {"error": "temporarily_unavailable"}
    assert post_token(fake, assertion(fake)).status_code == 200


@pytest.mark.parametrize("reset", [False, True], ids=["fin", "rst"])
def test_drop_next_closes_the_connection_without_an_answer(fake, reset):
    token = access_token(fake)
    fake.put_subscription(PACKAGE, "sub-token")
    fake.drop_next("GET", r"/subscriptionsv2/", reset=reset)
    with pytest.raises(requests.ConnectionError):
        api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token)
    assert api_get(fake, "purchases/subscriptionsv2/tokens/sub-token", token).status_code == 200
    assert [r.status for r in fake.requests("GET", "subscriptionsv2")] == [None, 200]


def test_the_fake_can_become_unreachable_and_come_back_on_the_same_port(fake):
    token = access_token(fake)
    fake.put_subscription(PACKAGE, "sub-token")
    port = fake.port
    with requests.Session() as session:  # a pooled keep-alive connection is cut too
        url = fake.api_url(PACKAGE, "purchases/subscriptionsv2/tokens/sub-token")
        assert session.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT).status_code == 200
        fake.stop_listening()
        assert not fake.listening
        with pytest.raises(requests.ConnectionError):
            session.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT).close()
        fake.start_listening()
        assert fake.port == port
        assert session.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT).status_code == 200


def test_delay_next_answers_late(fake):
    fake.delay_next("GET", r"/oauth2/v3/certs", seconds=2)
    with pytest.raises(requests.Timeout):
        requests.get(fake.jwks_url, timeout=0.3)
    assert requests.get(fake.jwks_url, timeout=TIMEOUT).status_code == 200


def test_keep_alive_with_content_length_on_every_answer(fake):
    token = access_token(fake)
    fake.put_subscription(PACKAGE, "sub-token")
    connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=TIMEOUT)
    try:
        path = fake.api_url(PACKAGE, "purchases/subscriptionsv2/tokens/sub-token")[len(fake.base_url):]
        for headers in ({"Authorization": f"Bearer {token}"}, {}):
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            assert response.version == 11 and response.getheader("Content-Length") == str(len(body))
            assert response.getheader("Transfer-Encoding") is None
        assert response.status == 401
        connection.request("GET", "/oauth2/v3/certs")
        assert connection.getresponse().status == 200  # still the same connection
        assert connection.sock is not None
    finally:
        connection.close()


def test_tls_with_a_ca_made_on_the_fly(tmp_path):
    ca_key, ca_cert = tmp_path / "ca.key", tmp_path / "ca.pem"
    key, csr, cert = tmp_path / "server.key", tmp_path / "server.csr", tmp_path / "server.pem"
    extensions = tmp_path / "san.cnf"
    extensions.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    openssl("req", "-x509", "-nodes", "-newkey", "rsa:2048", "-days", "2", "-subj", "/CN=fake-google test CA",
            "-keyout", str(ca_key), "-out", str(ca_cert))
    openssl("req", "-nodes", "-newkey", "rsa:2048", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(csr))
    openssl("x509", "-req", "-in", str(csr), "-CA", str(ca_cert), "-CAkey", str(ca_key), "-CAcreateserial",
            "-days", "2", "-extfile", str(extensions), "-out", str(cert))

    with FakeGoogle(tls=(cert, key), package=PACKAGE) as fake:
        assert fake.base_url.startswith("https://127.0.0.1:")
        fake.put_subscription(PACKAGE, "sub-token")
        with requests.Session() as session:
            session.verify = str(ca_cert)
            session.trust_env = False  # else REQUESTS_CA_BUNDLE, when set, would override session.verify
            creds = google.oauth2.service_account.Credentials.from_service_account_info(
                fake.service_account_info(), scopes=[ANDROIDPUBLISHER_SCOPE]
            )
            creds.refresh(google_request(session))
            response = session.get(fake.api_url(PACKAGE, "purchases/subscriptionsv2/tokens/sub-token"),
                                   headers={"Authorization": f"Bearer {creds.token}"}, timeout=TIMEOUT)
            assert response.status_code == 200
        with pytest.raises(requests.exceptions.SSLError):
            requests.get(fake.jwks_url, timeout=TIMEOUT, verify=True)  # not trusted without the CA


# --------------------------------------------------------------------------------------------------
# Pub/Sub push


def test_push_tokens_verify_with_google_auth_against_the_fake_jwks(fake):
    request = google_request()
    token = fake.mint_push_token(AUDIENCE, PUSH_EMAIL)
    claims = google.oauth2.id_token.verify_token(token, request, audience=AUDIENCE, certs_url=fake.jwks_url)
    assert claims["iss"] == "https://accounts.google.com" and claims["email"] == PUSH_EMAIL
    assert claims["email_verified"] is True and claims["aud"] == AUDIENCE
    assert claims["exp"] - claims["iat"] == 3600 and claims["sub"] == claims["azp"]

    with pytest.raises(Exception, match="[Aa]udience"):
        google.oauth2.id_token.verify_token(token, request, audience=AUDIENCE + "/other", certs_url=fake.jwks_url)
    with pytest.raises(Exception):
        stranger = fake.mint_push_token(AUDIENCE, PUSH_EMAIL, key=new_rsa_key())
        google.oauth2.id_token.verify_token(stranger, request, audience=AUDIENCE, certs_url=fake.jwks_url)
    with pytest.raises(Exception, match="[Ee]xpired"):
        stale = fake.mint_push_token(AUDIENCE, PUSH_EMAIL, iat=int(time.time()) - 7200)
        google.oauth2.id_token.verify_token(stale, request, audience=AUDIENCE, certs_url=fake.jwks_url)
    unverified = fake.mint_push_token(AUDIENCE, PUSH_EMAIL, email_verified=False, issuer="accounts.google.com")
    claims = google.oauth2.id_token.verify_token(unverified, request, audience=AUDIENCE, certs_url=fake.jwks_url)
    assert claims["email_verified"] is False and claims["iss"] == "accounts.google.com"


def test_push_key_rotation_keeps_old_tokens_valid_until_the_key_is_retired(fake):
    request = google_request()
    old_kid = fake.push_kids[0]
    old_token = fake.mint_push_token(AUDIENCE, PUSH_EMAIL)
    new_kid = fake.rotate_push_key()
    new_token = fake.mint_push_token(AUDIENCE, PUSH_EMAIL)
    assert jwt.get_unverified_header(new_token)["kid"] == new_kid != old_kid
    jwks = requests.get(fake.jwks_url, timeout=TIMEOUT)
    assert [key["kid"] for key in jwks.json()["keys"]] == [new_kid, old_kid]
    assert all(key["alg"] == "RS256" and key["use"] == "sig" and key["kty"] == "RSA" for key in jwks.json()["keys"])
    assert "max-age=" in jwks.headers["Cache-Control"]
    for token in (old_token, new_token):
        google.oauth2.id_token.verify_token(token, request, audience=AUDIENCE, certs_url=fake.jwks_url)
    # The same keys as X.509 certificates, the format google-auth's default (v1) verifier reads.
    google.oauth2.id_token.verify_token(old_token, request, audience=AUDIENCE,
                                        certs_url=fake.base_url + "/oauth2/v1/certs")
    fake.retire_push_key(old_kid)
    with pytest.raises(Exception, match=old_kid):
        google.oauth2.id_token.verify_token(old_token, request, audience=AUDIENCE, certs_url=fake.jwks_url)


def test_push_envelopes_and_notifications_have_pubsubs_and_plays_shapes():
    notification = subscription_notification(PACKAGE, "sub-token", SubscriptionNotificationType.PURCHASED)
    assert notification["version"] == "1.0" and notification["packageName"] == PACKAGE
    assert isinstance(notification["eventTimeMillis"], str) and notification["eventTimeMillis"].isdigit()
    assert notification["subscriptionNotification"] == {"version": "1.0", "notificationType": 4,
                                                        "purchaseToken": "sub-token"}
    envelope = push_envelope(notification, message_id="1234567890", subscription="projects/demo/subscriptions/play")
    message = envelope["message"]
    assert set(message) == {"data", "messageId", "message_id", "publishTime", "publish_time"}
    assert message["messageId"] == message["message_id"] == "1234567890"
    assert message["publishTime"] == message["publish_time"] and RFC3339.match(message["publishTime"])
    assert envelope["subscription"] == "projects/demo/subscriptions/play"
    assert json.loads(base64.b64decode(message["data"])) == notification == decode_push_data(envelope)
    assert push_envelope({}, attributes={"k": "v"})["message"]["attributes"] == {"k": "v"}

    one_time = one_time_product_notification(PACKAGE, "p", "coins_100", OneTimeProductNotificationType.CANCELED)
    assert one_time["oneTimeProductNotification"] == {"version": "1.0", "notificationType": 2,
                                                      "purchaseToken": "p", "sku": "coins_100"}
    voided = voided_purchase_notification(PACKAGE, "p", "GPA.1", ProductType.ONE_TIME, refund_type=2)
    assert voided["voidedPurchaseNotification"] == {"purchaseToken": "p", "orderId": "GPA.1", "productType": 2,
                                                    "refundType": 2}
    assert test_notification(PACKAGE)["testNotification"] == {"version": "1.0"}


# --------------------------------------------------------------------------------------------------
# Control API and command line


def test_the_control_api_drives_the_fake_from_another_process(fake):
    control = fake.base_url + "/_fake"
    put = requests.put(f"{control}/applications/{PACKAGE}/subscriptions/http-token",
                       json={"state": "IN_GRACE_PERIOD", "expiry": "+2d", "account_id": "user-9"}, timeout=TIMEOUT)
    assert put.status_code == 200 and put.json()["subscriptionState"] == "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
    token = access_token(fake)
    fetched = api_get(fake, "purchases/subscriptionsv2/tokens/http-token", token).json()
    assert fetched == put.json()

    account = requests.post(f"{control}/service-accounts", json={"name": "tenant-b", "granted": False},
                            timeout=TIMEOUT).json()
    assert account["granted"] is False and account["key"]["token_uri"] == fake.token_uri

    assert requests.post(f"{control}/faults", json={"action": "fail", "method": "GET", "path": "subscriptionsv2",
                                                     "status": 503}, timeout=TIMEOUT).status_code == 200
    assert api_get(fake, "purchases/subscriptionsv2/tokens/http-token", token).status_code == 503

    voided = requests.post(f"{control}/applications/{PACKAGE}/voided",
                           json={"token": "http-token", "reason": 5}, timeout=TIMEOUT).json()
    assert voided["voidedReason"] == 5 and voided["purchaseToken"] == "http-token"

    rtdn = requests.post(f"{control}/rtdn", json={
        "package": PACKAGE, "subscription": {"token": "http-token", "type": 12}, "audience": AUDIENCE,
        "email": PUSH_EMAIL, "message_id": "42",
    }, timeout=TIMEOUT).json()
    assert decode_push_data(rtdn["body"])["subscriptionNotification"]["notificationType"] == 12
    assert rtdn["body"]["message"]["messageId"] == "42"
    google.oauth2.id_token.verify_token(rtdn["authorization"].removeprefix("Bearer "), google_request(),
                                        audience=AUDIENCE, certs_url=fake.jwks_url)

    logged = requests.get(f"{control}/requests", params={"path": "subscriptionsv2"}, timeout=TIMEOUT).json()
    assert [entry["status"] for entry in logged] == [200, 503]
    assert not fake.requests(path="^/_fake/")  # the control API is not in the log it serves
    state = requests.get(f"{control}/state", timeout=TIMEOUT).json()
    assert state["packages"][PACKAGE]["subscriptions"] == ["http-token"] and state["token_grants"] == 1


def test_the_control_api_outage_stops_listening_for_a_while(fake):
    assert requests.post(fake.base_url + "/_fake/outage", json={"seconds": 0.5}, timeout=TIMEOUT).status_code == 200
    fake.wait_until_listening(False, timeout=TIMEOUT)
    fake.wait_until_listening(True, timeout=TIMEOUT)
    assert requests.get(fake.jwks_url, timeout=TIMEOUT).status_code == 200


def test_the_launcher_prints_its_urls_and_serves_until_sigterm(tmp_path):
    key_path, ungranted = tmp_path / "sa.json", tmp_path / "ungranted.json"
    process = subprocess.Popen(
        [str(REPO_ROOT / "Scripts" / "fake-google"), "--port", "0", "--service-account-out", str(key_path),
         "--ungranted-service-account", str(ungranted), "--package", PACKAGE],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = process.stdout.readline()
        assert line, process.stderr.read()
        urls = json.loads(line)
        assert urls["token_uri"] == urls["base_url"] + "/token"
        assert urls["jwks_url"] == urls["base_url"] + "/oauth2/v3/certs"
        info = json.loads(key_path.read_text())
        assert info["token_uri"] == urls["token_uri"] and info["client_email"] == urls["client_email"]

        creds = credentials(key_path)
        creds.refresh(google_request())
        requests.put(urls["base_url"] + f"/_fake/applications/{PACKAGE}/products/cli-token", json={}, timeout=TIMEOUT)
        response = requests.get(f"{urls['base_url']}/androidpublisher/v3/applications/{PACKAGE}/purchases/products/"
                                "coins_100/tokens/cli-token", headers={"Authorization": f"Bearer {creds.token}"},
                                timeout=TIMEOUT)
        assert response.status_code == 200
        waiting = credentials(ungranted)
        waiting.refresh(google_request())
        refused = requests.get(f"{urls['base_url']}/androidpublisher/v3/applications/{PACKAGE}/purchases/products/"
                               "coins_100/tokens/cli-token", headers={"Authorization": f"Bearer {waiting.token}"},
                               timeout=TIMEOUT)
        assert refused.status_code == 401 and google_error(refused)["reason"] == "permissionDenied"
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=TIMEOUT) == 0, process.stderr.read()
