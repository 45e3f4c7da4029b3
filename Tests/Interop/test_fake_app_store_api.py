"""The App Store Server API fake (fake_app_store_api.py) speaks Apple's formats: proven with Apple's own client.

Apple's `app-store-server-library` (AppStoreServerAPIClient) signs its tokens, builds its paths, query strings and
bodies, and parses the fake's answers and errors as it would Apple's. PyJWT and requests make the calls the library
cannot make wrong. No entitlementd server is needed.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from pathlib import Path

import jwt
import pytest
import requests
from appstoreserverlibrary.api_client import APIError, APIException, AppStoreServerAPIClient, \
    GetTransactionHistoryVersion
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.models.OrderLookupStatus import OrderLookupStatus
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.models.SendAttemptResult import SendAttemptResult
from appstoreserverlibrary.models.Subtype import Subtype
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest

from fake_app_store_api import FakeAppStoreAPI, write_key

KEY_ID = "FAKEKEY123"
ISSUER_ID = "57246542-96fe-1a63-e053-0824d011072a"
BUNDLE_ID = "com.example.entitlements"
DAY_MS = 86_400_000
V2 = GetTransactionHistoryVersion.V2


def jws(claims: dict) -> str:
    """A well-formed but unsigned JWS: neither the fake nor the API client verifies these."""
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'ES256', 'x5c': []})}.{part(claims)}.c2lnbmF0dXJl"


def decode(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def now_ms() -> int:
    return int(time.time() * 1000)


def transaction(transaction_id: str, original: str | None = None, *, type: str = "Auto-Renewable Subscription",
                product: str = "pro.monthly", **extra) -> str:
    return jws({"transactionId": transaction_id, "originalTransactionId": original or transaction_id,
                "bundleId": BUNDLE_ID, "productId": product, "type": type, "environment": "Sandbox",
                "purchaseDate": 1_700_000_000_000 + int(transaction_id), "inAppOwnershipType": "PURCHASED", **extra})


def notification(signed_date: int, kind: str = "DID_RENEW", subtype: str | None = None,
                 signed_transaction: str | None = None) -> str:
    claims = {"notificationType": kind, "notificationUUID": str(uuid.uuid4()), "version": "2.0",
              "signedDate": signed_date, "data": {"bundleId": BUNDLE_ID, "environment": "Sandbox"}}
    if subtype:
        claims["subtype"] = subtype
    if signed_transaction:
        claims["data"]["signedTransactionInfo"] = signed_transaction
    return jws(claims)


class RecordingClient(AppStoreServerAPIClient):
    """Apple's client, keeping the last HTTP response: APIException carries no headers (e.g. Retry-After)."""

    last_response: requests.Response | None = None

    def _execute_request(self, *args, **kwargs):
        self.last_response = super()._execute_request(*args, **kwargs)
        return self.last_response


def client_for(fake: FakeAppStoreAPI, key: Path) -> RecordingClient:
    client = RecordingClient(key.read_bytes(), KEY_ID, ISSUER_ID, BUNDLE_ID, Environment.SANDBOX)
    # The library picks its base URL from the environment in __init__ and keeps it in `_base_url`, which
    # `_get_full_url` prefixes to every path: pointing it at the fake sends every call there unchanged.
    client._base_url = fake.url
    return client


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> tuple[Path, Path]:
    directory = tmp_path_factory.mktemp("app-store-keys")
    return write_key(directory / "SubscriptionKey.p8"), write_key(directory / "OtherKey.p8")


@pytest.fixture
def fake(keys):
    fake = FakeAppStoreAPI(keys[0], KEY_ID, ISSUER_ID, BUNDLE_ID)
    yield fake
    fake.close()


@pytest.fixture
def client(fake, keys) -> RecordingClient:
    return client_for(fake, keys[0])


def api_error(call) -> APIException:
    with pytest.raises(APIException) as caught:
        call()
    return caught.value


def raw(fake: FakeAppStoreAPI, keys, method: str, path: str, **kwargs) -> requests.Response:
    """A call Apple's library would not make (invalid bodies), with a token like the library's."""
    token = jwt.encode({"bid": BUNDLE_ID, "iss": ISSUER_ID, "aud": "appstoreconnect-v1", "exp": int(time.time()) + 300},
                       keys[0].read_bytes(), algorithm="ES256", headers={"kid": KEY_ID})
    return requests.request(method, fake.url + path, headers={"authorization": f"Bearer {token}"}, timeout=10,
                            **kwargs)


# --- tokens


def test_apple_library_token_without_iat_is_accepted(fake, client):
    fake.transactions["1001"] = transaction("1001")
    assert client.get_transaction_info("1001").signedTransactionInfo == fake.transactions["1001"]
    method, path, claims = fake.requests[-1]
    assert (method, path) == ("GET", "/inApps/v1/transactions/1001")
    assert "iat" not in claims and claims["bid"] == BUNDLE_ID and claims["exp"] - time.time() <= 300


def test_token_signed_by_another_key_answers_401_without_body(fake, keys):
    fake.transactions["1001"] = transaction("1001")
    other = client_for(fake, keys[1])
    failure = api_error(lambda: other.get_transaction_info("1001"))
    assert (failure.http_status_code, failure.raw_api_error) == (401, None)
    assert other.last_response.content == b""
    assert fake.requests[-1] == ("GET", "/inApps/v1/transactions/1001", None)


def test_token_lifetime_bounds(fake, keys):
    fake.transactions["1001"] = transaction("1001")
    key = keys[0].read_bytes()
    now = int(time.time())

    def status(claims: dict) -> int:
        token = jwt.encode({"bid": BUNDLE_ID, "iss": ISSUER_ID, "aud": "appstoreconnect-v1", **claims}, key,
                           algorithm="ES256", headers={"kid": KEY_ID})
        return requests.get(fake.url + "/inApps/v1/transactions/1001", timeout=10,
                            headers={"authorization": f"Bearer {token}"}).status_code

    assert status({"iat": now, "exp": now + 3600}) == 200
    assert status({"iat": now, "exp": now + 3601}) == 401
    assert status({"exp": now + 3500}) == 200
    assert status({"exp": now + 7200}) == 401  # no iat: exp itself must be within the hour
    assert status({"exp": now - 10}) == 401
    assert status({"iat": now}) == 401  # exp is still required


# --- Get Transaction History v2


def test_history_pages_with_revision_until_has_more_is_false(fake, client):
    tokens = [transaction(str(2000 + i), "2000") for i in range(45)]
    fake.add_history(tokens)
    seen, revision, pages = [], None, []
    while True:
        page = client.get_transaction_history("2010", revision, TransactionHistoryRequest(), V2)
        pages.append(len(page.signedTransactions))
        seen += page.signedTransactions
        assert page.bundleId == BUNDLE_ID and page.environment == Environment.SANDBOX and page.appAppleId is None
        assert page.revision and page.revision != revision
        revision = page.revision
        if not page.hasMore:
            break
    assert pages == [20, 20, 5] and seen == tokens
    assert [path for _, path, _ in fake.requests][0] == "/inApps/v2/history/2010"
    # The last revision picks up what the customer did later (ascending order).
    later = transaction("2045", "2000")
    fake.add_history([later])
    page = client.get_transaction_history("2000", revision, TransactionHistoryRequest(), V2)
    assert page.signedTransactions == [later] and not page.hasMore
    assert fake.transactions["2044"] == tokens[44] and fake.transactions["2045"] == later


def test_history_reissued_transaction_replaces_transaction_info(fake, client):
    bought = transaction("3001")
    refunded = transaction("3001", revocationDate=1_700_100_000_000, revocationReason=0)
    fake.add_history([bought, refunded])
    assert client.get_transaction_info("3001").signedTransactionInfo == refunded
    history = client.get_transaction_history("3001", None, TransactionHistoryRequest(), V2)
    assert history.signedTransactions == [bought, refunded]


def test_history_sort_and_filters(fake, client):
    fake.app_apple_id = 1234567890
    monthly = transaction("4001", product="pro.monthly")
    coins = transaction("4002", type="Consumable", product="coins.100")
    lifetime = transaction("4003", type="Non-Consumable", product="lifetime")
    season = transaction("4004", type="Non-Renewing Subscription", product="season")
    revoked = transaction("4005", type="Consumable", product="coins.500", revocationDate=1_700_200_000_000)
    fake.add_history([monthly, coins, lifetime, season, revoked])

    def history(**request) -> list[str]:
        page = client.get_transaction_history("4003", None, TransactionHistoryRequest(**request), V2)
        assert page.appAppleId == 1234567890 and not page.hasMore
        return page.signedTransactions

    assert history(sort=Order.DESCENDING) == [revoked, season, lifetime, coins, monthly]
    assert history(sort=Order.ASCENDING) == [monthly, coins, lifetime, season, revoked]
    assert history(productTypes=[ProductType.CONSUMABLE]) == [coins, revoked]
    assert history(productTypes=[ProductType.AUTO_RENEWABLE, ProductType.NON_RENEWABLE]) == [monthly, season]
    assert history(productTypes=[ProductType.NON_CONSUMABLE]) == [lifetime]
    assert history(productIds=["coins.100", "lifetime"]) == [coins, lifetime]
    assert history(revoked=True) == [revoked]
    assert history(revoked=False, productTypes=[ProductType.CONSUMABLE]) == [coins]
    assert history(productIds=["coins.500"], revoked=False) == []
    assert fake.requests[-1][1].endswith("productId=coins.500&revoked=False")


def test_history_revision_is_bound_to_the_query(fake, client):
    fake.page_size = 2
    fake.add_history([transaction(str(5000 + i), type="Consumable", product=f"coins.{i % 2}") for i in range(6)])
    fake.add_history([transaction("6000")])
    coins = TransactionHistoryRequest(productIds=["coins.0"])
    first = client.get_transaction_history("5000", None, coins, V2)
    assert first.hasMore and [decode(t)["transactionId"] for t in first.signedTransactions] == ["5000", "5002"]
    second = client.get_transaction_history("5001", first.revision, coins, V2)
    assert not second.hasMore and [decode(t)["transactionId"] for t in second.signedTransactions] == ["5004"]

    def invalid(transaction_id, revision, request):
        failure = api_error(lambda: client.get_transaction_history(transaction_id, revision, request, V2))
        assert (failure.http_status_code, failure.api_error) == (400, APIError.INVALID_REQUEST_REVISION)

    invalid("5000", first.revision, TransactionHistoryRequest())
    invalid("5000", first.revision, TransactionHistoryRequest(productIds=["coins.0"], sort=Order.DESCENDING))
    invalid("5000", first.revision[:-1] + ("0" if first.revision[-1] != "0" else "1"), coins)
    invalid("5000", "not-a-revision", coins)
    invalid("6000", first.revision, coins)  # another customer's


def test_history_unknown_transaction_and_invalid_parameters(fake, client, keys):
    fake.add_history([transaction("7001")])
    failure = api_error(lambda: client.get_transaction_history("7999", None, TransactionHistoryRequest(), V2))
    assert (failure.http_status_code, failure.api_error) == (404, APIError.TRANSACTION_ID_NOT_FOUND)
    assert raw(fake, keys, "GET", "/inApps/v2/history/7001?sort=SIDEWAYS").json()["errorCode"] == 4000021
    assert raw(fake, keys, "GET", "/inApps/v2/history/7001?productType=GIFT").json()["errorCode"] == 4000022
    assert raw(fake, keys, "GET", "/inApps/v2/history/7001?revoked=maybe").json()["errorCode"] == 4000030


# --- Get Notification History


def test_notification_history_pages_with_pagination_token(fake, client):
    fake.page_size = 10
    start = now_ms() - 20 * DAY_MS
    payloads = [notification(start + i * 1000) for i in range(25)]
    for signed in reversed(payloads):  # served by signedDate, not by insertion order
        fake.add_notification(signed)
    body = NotificationHistoryRequest(startDate=start, endDate=now_ms() + DAY_MS)  # a future end is clamped
    seen, token, pages = [], None, 0
    while True:
        page = client.get_notification_history(token, body)
        pages += 1
        seen += [item.signedPayload for item in page.notificationHistory]
        if not page.hasMore:
            assert page.paginationToken is None
            break
        token = page.paginationToken
        assert token
    assert pages == 3 and seen == payloads
    item = client.get_notification_history(None, body).notificationHistory[0]
    assert item.sendAttempts[0].attemptDate == start and \
        item.sendAttempts[0].sendAttemptResult == SendAttemptResult.NO_RESPONSE
    assert fake.requests[-2][:2] == ("POST", f"/inApps/v1/notifications/history?paginationToken={token}")

    first = client.get_notification_history(None, body)
    for other_token, other_body in [
            (first.paginationToken, NotificationHistoryRequest(startDate=start + 1, endDate=body.endDate)),
            (first.paginationToken, NotificationHistoryRequest(startDate=start, endDate=body.endDate,
                                                               onlyFailures=True)),
            ("garbled" + first.paginationToken, body)]:
        failure = api_error(lambda: client.get_notification_history(other_token, other_body))
        assert (failure.http_status_code, failure.api_error) == (400, APIError.INVALID_PAGINATION_TOKEN)


def test_notification_history_filters(fake, client):
    now = now_ms()
    fake.transactions["8001"] = transaction("8001", "8000")
    renewal = notification(now - 5000, "DID_RENEW", signed_transaction=transaction("8002", "8000"))
    first = notification(now - 4000, "SUBSCRIBED", "INITIAL_BUY", signed_transaction=transaction("8000"))
    resubscribed = notification(now - 3000, "SUBSCRIBED", "RESUBSCRIBE", signed_transaction=transaction("9000"))
    delivered = notification(now - 2000, "DID_RENEW", signed_transaction=transaction("9001", "9000"))
    old = notification(now - 40 * DAY_MS, "DID_RENEW", signed_transaction=transaction("8003", "8000"))
    for signed in (renewal, first, resubscribed, old):
        fake.add_notification(signed)
    fake.add_notification(delivered, [{"attemptDate": now - 2000, "sendAttemptResult": "TIMED_OUT"},
                                      {"attemptDate": now - 1000, "sendAttemptResult": "SUCCESS"}])

    def history(**request) -> list[str]:
        page = client.get_notification_history(None, NotificationHistoryRequest(
            startDate=request.pop("startDate", now - 10 * DAY_MS), endDate=now, **request))
        assert not page.hasMore
        return [item.signedPayload for item in page.notificationHistory]

    assert history() == [renewal, first, resubscribed, delivered]
    assert history(startDate=now - 100 * DAY_MS) == [old, renewal, first, resubscribed, delivered]
    assert history(startDate=now - 3000) == [resubscribed, delivered]
    assert history(notificationType=NotificationTypeV2.SUBSCRIBED) == [first, resubscribed]
    assert history(notificationType=NotificationTypeV2.SUBSCRIBED, notificationSubtype=Subtype.RESUBSCRIBE) \
        == [resubscribed]
    assert history(transactionId="8001") == [renewal, first]  # same original transaction as 8001
    assert history(transactionId="9001") == [delivered]
    assert history(onlyFailures=True) == [renewal, first, resubscribed]


def test_notification_history_request_errors(fake, client):
    now = now_ms()

    def error(**request) -> tuple[int, APIError]:
        failure = api_error(lambda: client.get_notification_history(None, NotificationHistoryRequest(**request)))
        return failure.http_status_code, failure.api_error

    assert error(endDate=now) == (400, APIError.INVALID_START_DATE)
    assert error(startDate=now - DAY_MS) == (400, APIError.INVALID_END_DATE)
    assert error(startDate=now, endDate=now - 1) == (400, APIError.START_DATE_AFTER_END_DATE)
    assert error(startDate=now - 181 * DAY_MS, endDate=now) == (400, APIError.START_DATE_TOO_FAR_IN_PAST)
    assert client.get_notification_history(None, NotificationHistoryRequest(
        startDate=now - 179 * DAY_MS, endDate=now)).notificationHistory == []
    assert error(startDate=now - DAY_MS, endDate=now, notificationSubtype=Subtype.INITIAL_BUY) \
        == (400, APIError.INVALID_NOTIFICATION_TYPE)
    assert error(startDate=now - DAY_MS, endDate=now, notificationType=NotificationTypeV2.REFUND,
                 transactionId="1") == (400, APIError.MULTIPLE_FILTERS_SUPPLIED)


# --- Look Up Order ID


def test_look_up_order_id(fake, client):
    fake.orders["MQ5VNPGX1K"] = [transaction("10001"), transaction("10002", type="Consumable")]
    found = client.look_up_order_id("MQ5VNPGX1K")
    assert found.status == OrderLookupStatus.VALID and found.signedTransactions == fake.orders["MQ5VNPGX1K"]
    missing = client.look_up_order_id("MQ5VNPGX2K")
    assert missing.status == OrderLookupStatus.INVALID and missing.signedTransactions is None
    assert client.last_response.status_code == 200


# --- Extend a Subscription Renewal Date


def test_extend_renewal_date_and_idempotent_retry(fake, client):
    expires = now_ms() + 10 * DAY_MS
    fake.subscriptions["11000"] = {"status": 1, "signedTransactionInfo": transaction(
        "11001", "11000", expiresDate=expires, webOrderLineItemId="11000-line-2"), "signedRenewalInfo": jws({})}
    hooked = []

    def resign(original: str, days: int, effective: int):
        hooked.append((original, days, effective))
        entry = fake.subscriptions[original]
        entry["signedTransactionInfo"] = jws({**decode(entry["signedTransactionInfo"]), "expiresDate": effective})

    fake.on_extend = resign
    request = ExtendRenewalDateRequest(extendByDays=7, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE,
                                       requestIdentifier="outage-2026-12-01")
    response = client.extend_subscription_renewal_date("11000", request)
    assert (response.originalTransactionId, response.webOrderLineItemId, response.success, response.effectiveDate) \
        == ("11000", "11000-line-2", True, expires + 7 * DAY_MS)
    assert fake.extensions == [("11000", 7, 3, "outage-2026-12-01")]
    assert hooked == [("11000", 7, expires + 7 * DAY_MS)]
    assert fake.requests[-1][:2] == ("PUT", "/inApps/v1/subscriptions/extend/11000")

    retry = client.extend_subscription_renewal_date("11000", request)
    assert retry == response and len(fake.extensions) == 1 and len(hooked) == 1

    again = client.extend_subscription_renewal_date("11000", ExtendRenewalDateRequest(
        extendByDays=3, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="goodwill-1"))
    assert again.effectiveDate == expires + 10 * DAY_MS  # from the re-signed expiry
    assert fake.extensions[-1] == ("11000", 3, 1, "goodwill-1")


def test_extend_uses_the_newest_known_transaction_without_status_entry(fake, client):
    expires = now_ms() + DAY_MS
    fake.add_history([transaction("12000", expiresDate=expires - 30 * DAY_MS, webOrderLineItemId="w1"),
                      transaction("12001", "12000", expiresDate=expires, webOrderLineItemId="w2")])
    response = client.extend_subscription_renewal_date("12000", ExtendRenewalDateRequest(
        extendByDays=90, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="x" * 128))
    assert (response.webOrderLineItemId, response.effectiveDate) == ("w2", expires + 90 * DAY_MS)


def test_extend_validation_refusals_and_unknown(fake, client, keys):
    fake.subscriptions["13000"] = {"status": 1, "signedTransactionInfo": transaction(
        "13000", expiresDate=now_ms() + DAY_MS), "signedRenewalInfo": jws({})}
    path = "/inApps/v1/subscriptions/extend/13000"

    def code(body: dict) -> tuple[int, int]:
        response = raw(fake, keys, "PUT", path, json=body)
        return response.status_code, response.json()["errorCode"]

    valid = {"extendByDays": 5, "extendReasonCode": 0, "requestIdentifier": "r-1"}
    for days in (0, 91, "5", None):
        assert code({**valid, "extendByDays": days}) == (400, 4000009)
    for reason in (-1, 4, None):
        assert code({**valid, "extendReasonCode": reason}) == (400, 4000010)
    for identifier in ("", "x" * 129, None, 5):
        assert code({**valid, "requestIdentifier": identifier}) == (400, 4000011)
    assert fake.extensions == []

    request = ExtendRenewalDateRequest(extendByDays=5, extendReasonCode=ExtendReasonCode.UNDECLARED,
                                       requestIdentifier="r-2")
    failure = api_error(lambda: client.extend_subscription_renewal_date("13999", request))
    assert (failure.http_status_code, failure.api_error) == (404, APIError.ORIGINAL_TRANSACTION_ID_NOT_FOUND)
    for refusal, name in [(4030005, APIError.SUBSCRIPTION_MAX_EXTENSION),
                          (4030004, APIError.SUBSCRIPTION_EXTENSION_INELIGIBLE),
                          (4030007, APIError.FAMILY_SHARED_SUBSCRIPTION_EXTENSION_INELIGIBLE)]:
        fake.extension_refusals["13000"] = refusal
        failure = api_error(lambda: client.extend_subscription_renewal_date("13000", request))
        assert (failure.http_status_code, failure.api_error) == (403, name)
    assert fake.extensions == []


# --- Send Consumption Information v2


def test_send_consumption_information(fake, client, keys):
    fake.transactions["14001"] = transaction("14001", type="Consumable", product="coins.100")
    client.send_consumption_information("14001", ConsumptionRequest(
        customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
        consumptionPercentage=25_000, refundPreference=RefundPreference.GRANT_PRORATED))
    assert client.last_response.status_code == 202 and client.last_response.content == b""
    assert fake.consumption == [("14001", {"customerConsented": True, "sampleContentProvided": False,
                                           "deliveryStatus": "DELIVERED", "consumptionPercentage": 25_000,
                                           "refundPreference": "GRANT_PRORATED"})]
    assert fake.requests[-1][:2] == ("PUT", "/inApps/v2/transactions/consumption/14001")

    failure = api_error(lambda: client.send_consumption_information("14001", ConsumptionRequest(
        customerConsented=False, sampleContentProvided=True, deliveryStatus=DeliveryStatus.DELIVERED)))
    assert (failure.http_status_code, failure.api_error) == (400, APIError.INVALID_CUSTOMER_CONSENTED)
    failure = api_error(lambda: client.send_consumption_information("14999", ConsumptionRequest(
        customerConsented=True, sampleContentProvided=True, deliveryStatus=DeliveryStatus.UNDELIVERED_OTHER)))
    assert (failure.http_status_code, failure.api_error) == (404, APIError.TRANSACTION_ID_NOT_FOUND)

    path = "/inApps/v2/transactions/consumption/14001"
    valid = {"customerConsented": True, "sampleContentProvided": True, "deliveryStatus": "DELIVERED"}
    for body, expected in [({**valid, "sampleContentProvided": None}, 4000041),
                           ({**valid, "deliveryStatus": "LOST"}, 4000036),
                           ({k: v for k, v in valid.items() if k != "deliveryStatus"}, 4000036),
                           ({**valid, "consumptionPercentage": 100_001}, 4000000),
                           ({**valid, "refundPreference": "MAYBE"}, 4000000),
                           ({**valid, "refundPreference": "GRANT_PRORATED"}, 4000000)]:
        response = raw(fake, keys, "PUT", path, json=body)
        assert (response.status_code, response.json()["errorCode"]) == (400, expected), body
    assert len(fake.consumption) == 1


# --- test notifications


def test_request_test_notification_and_status(fake, client):
    sent = {}

    def send(token: str) -> str:
        sent[token] = notification(now_ms(), "TEST")
        return sent[token]

    fake.on_test_notification = send
    token = client.request_test_notification().testNotificationToken
    assert token in sent and fake.requests[-1][:2] == ("POST", "/inApps/v1/notifications/test")
    status = client.get_test_notification_status(token)
    assert status.signedPayload == sent[token]
    assert status.sendAttempts[0].sendAttemptResult == SendAttemptResult.SUCCESS
    assert abs(status.sendAttempts[0].attemptDate - now_ms()) < 60_000

    fake.on_test_notification, fake.test_send_result = None, "TLS_ISSUE"
    second = client.request_test_notification().testNotificationToken
    assert second != token
    status = client.get_test_notification_status(second)
    assert status.signedPayload is None and status.sendAttempts[0].sendAttemptResult == SendAttemptResult.TLS_ISSUE

    failure = api_error(lambda: client.get_test_notification_status("unknown-token"))
    assert (failure.http_status_code, failure.api_error) == (404, APIError.TEST_NOTIFICATION_NOT_FOUND)
    fake.test_notification_refusal = 4040007
    failure = api_error(client.request_test_notification)
    assert (failure.http_status_code, failure.api_error) == (404, APIError.SERVER_NOTIFICATION_URL_NOT_FOUND)


# --- failure injection


def test_fail_next_answers_apple_errors(fake, client):
    fake.transactions["15001"] = transaction("15001")
    retry_after = now_ms() + 30_000
    fake.fail_next("GET", "/inApps/v1/transactions/", 429,
                   {"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}, {"Retry-After": retry_after})
    failure = api_error(lambda: client.get_transaction_info("15001"))
    assert (failure.http_status_code, failure.api_error) == (429, APIError.RATE_LIMIT_EXCEEDED)
    assert client.last_response.headers["Retry-After"] == str(retry_after)
    assert client.get_transaction_info("15001").signedTransactionInfo == fake.transactions["15001"]

    fake.fail_next("GET", "/inApps/v1/transactions/15001", 500,
                   {"errorCode": 5000000, "errorMessage": "An unknown error occurred."})
    fake.fail_next("GET", "/inApps/v1/transactions/15001", 401)
    failure = api_error(lambda: client.get_transaction_info("15001"))
    assert (failure.http_status_code, failure.api_error) == (500, APIError.GENERAL_INTERNAL)
    failure = api_error(lambda: client.get_transaction_info("15001"))
    assert (failure.http_status_code, failure.raw_api_error) == (401, None)
    assert fake.requests[-1][2] is not None  # the token itself was good
    client.get_transaction_info("15001")


def test_fail_next_history_page_missing_then_present(fake, client):
    fake.page_size = 1
    fake.add_history([transaction("16000"), transaction("16001", "16000")])
    first = client.get_transaction_history("16000", None, TransactionHistoryRequest(), V2)
    fake.fail_next("GET", "/inApps/v2/history/", 404, {"errorCode": 4040010, "errorMessage": "Not found."}, times=2)
    fake.fail_next("PUT", "/inApps/v2/history/", 500)  # other methods do not match
    for _ in range(2):
        failure = api_error(lambda: client.get_transaction_history("16000", first.revision,
                                                                   TransactionHistoryRequest(), V2))
        assert failure.api_error == APIError.TRANSACTION_ID_NOT_FOUND
    second = client.get_transaction_history("16000", first.revision, TransactionHistoryRequest(), V2)
    assert [decode(t)["transactionId"] for t in second.signedTransactions] == ["16001"] and not second.hasMore
    assert sum(1 for _, path, _ in fake.requests if path.startswith("/inApps/v2/history/")) == 4


def test_fail_next_is_not_consumed_by_refused_tokens_and_is_thread_safe(fake, client, keys):
    fake.transactions["17001"] = transaction("17001")
    fake.fail_next("GET", "/inApps/v1/transactions/", 503, times=5)
    other = client_for(fake, keys[1])
    assert api_error(lambda: other.get_transaction_info("17001")).http_status_code == 401
    statuses, lock = [], threading.Lock()

    def call():
        response = raw(fake, keys, "GET", "/inApps/v1/transactions/17001")
        with lock:
            statuses.append(response.status_code)

    threads = [threading.Thread(target=call) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(statuses) == [200] * 7 + [503] * 5
    assert len(fake.requests) == 13
