"""A local stand-in for Apple's App Store Server API, for the interop tests. Not a test module.

Authentication: it checks every request's bearer token with PyJWT against the public half of the tenant's In-App
Purchase key the way Apple documents it (ES256, `kid`, `typ` JWT, `iss`, `exp`, `aud` appstoreconnect-v1, `bid`;
`exp` at most 60 minutes after `iat`, or, for a token without `iat` as Apple's own library signs, at most 60 minutes
from now) and answers Apple's 401 with no body to anything else. Every request is recorded in `requests`.

It serves (error bodies are Apple's `{"errorCode", "errorMessage"}`, HTTP status = the code's first three digits):
- Get Transaction Info `GET /inApps/v1/transactions/{id}` from `transactions`;
- Get All Subscription Statuses `GET /inApps/v1/subscriptions/{id}` from `subscriptions` (by original ID);
- Get Transaction History v2 `GET /inApps/v2/history/{id}` from the histories registered with `add_history`: pages
  of `page_size`, an HMAC'd `revision` holding the offset and bound to the other query parameters, filters `sort`,
  `revoked`, `productType`, `productId`, `subscriptionGroupIdentifier`, `inAppOwnershipType`, `startDate`/`endDate`
  (on `purchaseDate`, start inclusive, end exclusive);
- Get Notification History `POST /inApps/v1/notifications/history` from `notifications` (`add_notification`), with
  Apple's filters, date checks and an HMAC'd `paginationToken` bound to the body;
- Look Up Order ID `GET /inApps/v1/lookup/{orderId}` from `orders`;
- Extend a Subscription Renewal Date `PUT /inApps/v1/subscriptions/extend/{originalId}` into `extensions`
  (idempotent per requestIdentifier, refusals from `extension_refusals`, `on_extend` hook);
- Send Consumption Information v2 `PUT /inApps/v2/transactions/consumption/{id}` into `consumption` (202);
- Request a Test Notification `POST /inApps/v1/notifications/test` (`on_test_notification` hook,
  `test_notification_refusal`) and Get Test Notification Status `GET /inApps/v1/notifications/test/{token}` from
  `test_notifications`;
- anything else: 404 with Apple's general bad request (4000000).
`fail_next` makes the next matching requests answer a given status, body and headers instead (after the token
check). Signed values (JWS) are never verified here: their payloads are only decoded.

Not a test module: tests import it (`from fake_app_store_api import FakeAppStoreAPI`), and it runs as a tool, as
`Scripts/fake-app-store-api` (see there; `--demo` for the README's demo), printing one JSON line
`{"url", "key_id", "issuer_id", "bundle_id", ...}` once it listens and serving until SIGTERM or SIGINT. Run so, it
delivers each requested test notification as Apple does: signed with `--signing-dir` (a CA `entctl dev init` made,
which the tenant trusts) and posted to `--notification-url`, its send attempt recorded as the server answered.

Control API (no token; JSON bodies), so another process (the README demo) can say what "Apple" knows:

    POST /_fake/transactions {signedTransactions: [JWS, ...]}    one customer's history, oldest first; each is served
                                                                  by Get Transaction Info too     -> {transactions}
    POST /_fake/notifications {signedPayload, sendAttempts?}     a notification Apple sent (default: one NO_RESPONSE
                                                                  attempt), for Get Notification History
    GET  /_fake/requests                                         [{method, path, accepted}] of the API's requests
    GET  /_fake/test-notifications                               {token: {signedPayload, sendAttempts}}
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import re
import secrets
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qsl, urlsplit

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

TRANSACTION_PATH = re.compile(r"^/inApps/v1/transactions/([0-9]+)$")
STATUSES_PATH = re.compile(r"^/inApps/v1/subscriptions/([0-9]+)$")
HISTORY_PATH = re.compile(r"^/inApps/v2/history/([0-9]+)$")
NOTIFICATION_HISTORY_PATH = "/inApps/v1/notifications/history"
LOOKUP_PATH = re.compile(r"^/inApps/v1/lookup/([A-Za-z0-9]+)$")
EXTEND_PATH = re.compile(r"^/inApps/v1/subscriptions/extend/([0-9]+)$")
CONSUMPTION_PATH = re.compile(r"^/inApps/v2/transactions/consumption/([0-9]+)$")
TEST_NOTIFICATION_PATH = "/inApps/v1/notifications/test"
TEST_STATUS_PATH = re.compile(r"^/inApps/v1/notifications/test/([^/]+)$")

PRODUCT_TYPES = {"AUTO_RENEWABLE": "Auto-Renewable Subscription", "NON_RENEWABLE": "Non-Renewing Subscription",
                 "CONSUMABLE": "Consumable", "NON_CONSUMABLE": "Non-Consumable"}
DELIVERY_STATUSES = {"DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
                     "UNDELIVERED_OTHER"}
REFUND_PREFERENCES = {"DECLINE", "GRANT_FULL", "GRANT_PRORATED"}
DAY_MS = 86_400_000

# Apple's error codes (names as in appstoreserverlibrary's APIError) with their messages.
ERRORS = {
    4000000: "Bad request.",
    4000005: "Invalid request revision.",
    4000009: "Invalid extend by days value.",
    4000010: "Invalid extend reason code.",
    4000011: "Invalid request identifier.",
    4000012: "Start date too far in the past.",
    4000013: "Start date after end date.",
    4000014: "Invalid pagination token.",
    4000015: "Invalid start date.",
    4000016: "Invalid end date.",
    4000018: "Invalid notification type.",
    4000019: "Multiple filters supplied.",
    4000021: "Invalid sort.",
    4000022: "Invalid product type.",
    4000026: "Invalid in-app ownership type.",
    4000030: "Invalid revoked.",
    4000035: "Invalid customer consented.",
    4000036: "Invalid delivery status.",
    4000041: "Invalid sample content provided.",
    4030004: "Subscription extension ineligible.",
    4030005: "Subscription max extension.",
    4030007: "Family shared subscription extension ineligible.",
    4040005: "Original transaction id not found.",
    4040007: "Server notification URL not found.",
    4040008: "Test notification not found.",
    4040010: "Transaction id not found.",
}


def payload(token: str) -> dict:
    """The payload of a JWS, decoded without verifying it."""
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def original_id(token: str) -> str:
    return payload(token)["originalTransactionId"]


def now_ms() -> int:
    return int(time.time() * 1000)


def error(code: int, message: str | None = None) -> tuple[int, dict]:
    return code // 10000, {"errorCode": code, "errorMessage": message or ERRORS.get(code, "Error.")}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class AppleSigner:
    """Signs App Store JWS values as Apple does (ES256, the leaf, intermediate and root in `x5c`), with the chain
    `entctl dev init` made in `directory` (leaf-key.pem, leaf.pem, intermediate.pem, root.pem)."""

    def __init__(self, directory):
        directory = Path(directory)
        self.key = serialization.load_pem_private_key((directory / "leaf-key.pem").read_bytes(), password=None)
        chain = []
        for name in ("leaf", "intermediate", "root"):
            pem = (directory / f"{name}.pem").read_text()
            chain.append("".join(line for line in pem.splitlines() if not line.startswith("-----")))
        self.header = b64url(json.dumps({"alg": "ES256", "x5c": chain}).encode())

    def sign(self, payload: dict) -> str:
        signing_input = self.header + "." + b64url(json.dumps(payload).encode())
        r, s = decode_dss_signature(self.key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def write_key(path: Path) -> Path:
    """A new P-256 In-App Purchase key, as App Store Connect's .p8 (PKCS#8 PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return path


@dataclass
class _Failure:
    method: str
    path_prefix: str
    status: int
    body: dict | None
    headers: dict
    times: int


class _Server(ThreadingHTTPServer):
    # A listen backlog for many connections at once (the default 5 drops SYNs, which clients retry seconds later).
    request_queue_size = 256
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that hung up (a benchmark ending, a retry) is not the fake's error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class FakeAppStoreAPI:
    key_file: Path
    key_id: str
    issuer_id: str
    bundle_id: str
    #: transaction ID -> signed transaction (JWS) served by Get Transaction Info.
    transactions: dict[str, str] = field(default_factory=dict)
    #: original transaction ID -> its `lastTransactions` entry: {"status", "signedTransactionInfo",
    #: "signedRenewalInfo"} (the original transaction ID is added).
    subscriptions: dict[str, dict] = field(default_factory=dict)
    #: (method, path with query, claims or None when the token was refused) per request, in order.
    requests: list[tuple[str, str, dict | None]] = field(default_factory=list)
    #: `environment` of responses when no signed payload says otherwise.
    environment: str = "Sandbox"
    #: `appAppleId` of history responses; omitted when None (as in sandbox).
    app_apple_id: int | None = None
    #: records per page of Get Transaction History and Get Notification History.
    page_size: int = 20
    #: {"signedPayload", "sendAttempts"} per notification sent, served by Get Notification History.
    notifications: list[dict] = field(default_factory=list)
    #: how far back Get Notification History's startDate may go.
    notification_history_days: int = 180
    #: order ID -> signed transactions, served by Look Up Order ID.
    orders: dict[str, list[str]] = field(default_factory=dict)
    #: original transaction ID -> Apple error code Extend a Subscription Renewal Date answers (e.g. 4030005).
    extension_refusals: dict[str, int] = field(default_factory=dict)
    #: (original transaction ID, extendByDays, extendReasonCode, requestIdentifier) per extension granted.
    extensions: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: called with (original transaction ID, days, effectiveDate) after an extension is recorded.
    on_extend: Callable[[str, int, int], None] | None = None
    #: (transaction ID, request body) per Send Consumption Information accepted.
    consumption: list[tuple[str, dict]] = field(default_factory=list)
    #: test notification token -> {"signedPayload", "sendAttempts"}, served by Get Test Notification Status.
    test_notifications: dict[str, dict] = field(default_factory=dict)
    #: called with a new test notification token; returns the signed payload the test sent (or None).
    on_test_notification: Callable[[str], str | None] | None = None
    #: `sendAttemptResult` recorded for test notifications.
    test_send_result: str = "SUCCESS"
    #: Apple error code Request a Test Notification answers instead (e.g. 4040007), when set.
    test_notification_refusal: int | None = None
    #: The port to listen on (loopback); 0: any free one.
    port: int = 0

    def __post_init__(self):
        self.public_key = serialization.load_pem_private_key(self.key_file.read_bytes(), password=None).public_key()
        self.lock = threading.RLock()
        self._secret = secrets.token_bytes(32)
        self._histories: list[list[str]] = []
        self._history_of: dict[str, int] = {}  # transaction or original transaction ID -> index in _histories
        self._failures: list[_Failure] = []
        self._extended: dict[tuple[str, str], dict] = {}  # (original, requestIdentifier) -> response
        fake = self

        class Handler(BaseHTTPRequestHandler):
            # Keep-alive, as Apple's hosts: every answer has a content-length.
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, status: int, body: dict | None = None, headers: dict | None = None):
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                if body is not None:
                    self.send_header("content-type", "application/json")
                for name, value in (headers or {}).items():
                    self.send_header(name, str(value))
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def serve(self, method: str):
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.path.startswith("/_fake/"):
                    try:
                        body = json.loads(raw) if raw else None
                    except ValueError:
                        return self.answer(400, {"error": "the body is not JSON"})
                    return self.answer(*fake._control(method, urlsplit(self.path).path, body))
                claims = fake.check(self.headers.get("authorization", ""))
                with fake.lock:
                    fake.requests.append((method, self.path, claims))
                if claims is None:
                    return self.answer(401)
                url = urlsplit(self.path)
                failure = fake._take_failure(method, url.path)
                if failure:
                    return self.answer(failure.status, failure.body, failure.headers)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    return self.answer(*error(4000000))
                self.answer(*fake._route(method, url.path, url.query, body))

            def do_GET(self):
                self.serve("GET")

            def do_POST(self):
                self.serve("POST")

            def do_PUT(self):
                self.serve("PUT")

        self.server = _Server(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def check(self, authorization: str) -> dict | None:
        """The token's claims when it is what Apple accepts from this key; None otherwise."""
        if not authorization.startswith("Bearer "):
            return None
        token = authorization[len("Bearer "):]
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") != "ES256" or header.get("kid") != self.key_id or header.get("typ") != "JWT":
                return None
            claims = jwt.decode(token, self.public_key, algorithms=["ES256"], audience="appstoreconnect-v1",
                                issuer=self.issuer_id, options={"require": ["iss", "exp", "aud", "bid"]})
        except jwt.PyJWTError:
            return None
        if claims["bid"] != self.bundle_id:
            return None
        # Apple's library signs no `iat`; then `exp` itself must be within the hour.
        lifetime = claims["exp"] - claims["iat"] if "iat" in claims else claims["exp"] - time.time()
        if not 0 < lifetime <= 3600:
            return None
        return claims

    # --- storage

    def add_history(self, tokens: list[str]) -> None:
        """Registers one customer's transaction history (signed transactions in modification order) for Get
        Transaction History; each is also served by Get Transaction Info (a later token with the same transactionId
        replaces an earlier one there). Tokens whose transaction or original transaction ID already belongs to a
        registered history are appended to it instead."""
        with self.lock:
            ids = [(p["transactionId"], p.get("originalTransactionId")) for p in map(payload, tokens)]
            known = [self._history_of[i] for pair in ids for i in pair if i in self._history_of]
            if known:
                index = known[0]
                self._histories[index].extend(tokens)
            else:
                index = len(self._histories)
                self._histories.append(list(tokens))
            for token, (transaction_id, original) in zip(tokens, ids):
                self.transactions[transaction_id] = token
                self._history_of[transaction_id] = index
                if original:
                    self._history_of.setdefault(original, index)

    def add_notification(self, signed_payload: str, send_attempts: list[dict] | None = None) -> None:
        """Records a notification as sent, for Get Notification History (default: one NO_RESPONSE attempt)."""
        decoded = payload(signed_payload)
        attempts = send_attempts if send_attempts is not None else [
            {"attemptDate": decoded["signedDate"], "sendAttemptResult": "NO_RESPONSE"}]
        with self.lock:
            # The decoded payload is kept (not served) so that listing does not decode every record again.
            self.notifications.append({"signedPayload": signed_payload, "sendAttempts": attempts, "_payload": decoded})

    def fail_next(self, method: str, path_prefix: str, status: int, body: dict | None = None,
                  headers: dict | None = None, times: int = 1) -> None:
        """The next `times` requests with this method whose path (without query) starts with `path_prefix` answer
        this status, JSON body (none when None) and headers instead, once their token passed."""
        with self.lock:
            self._failures.append(_Failure(method.upper(), path_prefix, status, body, dict(headers or {}), times))

    def _take_failure(self, method: str, path: str) -> _Failure | None:
        with self.lock:
            for failure in self._failures:
                if failure.method == method and path.startswith(failure.path_prefix):
                    failure.times -= 1
                    if failure.times <= 0:
                        self._failures.remove(failure)
                    return failure
        return None

    def deliver_test_notifications(self, url: str, signer: AppleSigner) -> None:
        """Makes each requested test notification reach `url` as Apple's does: a TEST notification signed by
        `signer`, posted as `{"signedPayload"}`, its send attempt recorded as the server answered."""
        def deliver(token: str) -> str:
            signed = signer.sign({
                "notificationType": "TEST", "notificationUUID": str(uuid.uuid4()), "version": "2.0",
                "signedDate": now_ms(), "data": {"bundleId": self.bundle_id, "environment": self.environment}})
            request = urllib.request.Request(url, data=json.dumps({"signedPayload": signed}).encode(),
                                             headers={"content-type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    result = "SUCCESS" if 200 <= response.status < 300 else "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
            except urllib.error.HTTPError:
                result = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
            except OSError:
                result = "NO_RESPONSE"
            with self.lock:
                self.test_notifications[token]["sendAttempts"] = [{"attemptDate": now_ms(), "sendAttemptResult": result}]
            return signed
        self.on_test_notification = deliver

    # --- control API (for another process: the README demo)

    def _control(self, method: str, path: str, body) -> tuple:
        body = body if isinstance(body, dict) else {}
        if method == "POST" and path == "/_fake/transactions":
            tokens = body.get("signedTransactions")
            if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
                return 400, {"error": "signedTransactions must be a non-empty list of signed transactions"}
            try:
                self.add_history(tokens)
            except (ValueError, KeyError, IndexError) as error:
                return 400, {"error": f"not a signed transaction: {error}"}
            return 200, {"transactions": len(tokens)}
        if method == "POST" and path == "/_fake/notifications":
            signed = body.get("signedPayload")
            if not isinstance(signed, str):
                return 400, {"error": "signedPayload must be a signed notification"}
            try:
                self.add_notification(signed, body.get("sendAttempts"))
            except (ValueError, KeyError, IndexError) as error:
                return 400, {"error": f"not a signed notification: {error}"}
            return 200, {}
        if method == "GET" and path == "/_fake/requests":
            with self.lock:
                return 200, [{"method": m, "path": p, "accepted": claims is not None} for m, p, claims in self.requests]
        if method == "GET" and path == "/_fake/test-notifications":
            with self.lock:
                return 200, dict(self.test_notifications)
        return 404, {"error": f"no control endpoint {method} {path}"}

    # --- opaque tokens: base64url(JSON state) "." HMAC, so garbled or foreign ones are recognised

    def _seal(self, state: dict) -> str:
        data = base64.urlsafe_b64encode(json.dumps(state, sort_keys=True).encode()).decode().rstrip("=")
        mac = hmac.new(self._secret, data.encode(), hashlib.sha256).hexdigest()[:32]
        return f"{data}.{mac}"

    def _unseal(self, token: str) -> dict | None:
        data, _, mac = token.partition(".")
        if not hmac.compare_digest(mac, hmac.new(self._secret, data.encode(), hashlib.sha256).hexdigest()[:32]):
            return None
        try:
            return json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
        except ValueError:
            return None

    @staticmethod
    def _digest(value) -> str:
        return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:32]

    # --- endpoints; each returns (status, body or None); hooks run outside the lock

    def _route(self, method: str, path: str, query: str, body) -> tuple:
        if method == "POST" and path == TEST_NOTIFICATION_PATH:
            return self._test_notification()
        if method == "PUT" and (match := EXTEND_PATH.match(path)):
            with self.lock:
                status, response, hook = self._extend(match.group(1), body)
            if hook:
                hook()
            return status, response
        with self.lock:
            return self._locked_route(method, path, query, body)

    def _locked_route(self, method: str, path: str, query: str, body) -> tuple:
        if method == "GET":
            if match := STATUSES_PATH.match(path):
                return self._statuses(match.group(1))
            if match := TRANSACTION_PATH.match(path):
                if match.group(1) in self.transactions:
                    return 200, {"signedTransactionInfo": self.transactions[match.group(1)]}
                return error(4040010)
            if match := HISTORY_PATH.match(path):
                return self._history(match.group(1), query)
            if match := LOOKUP_PATH.match(path):
                if match.group(1) in self.orders:
                    return 200, {"status": 0, "signedTransactions": list(self.orders[match.group(1)])}
                return 200, {"status": 1}
            if match := TEST_STATUS_PATH.match(path):
                if match.group(1) in self.test_notifications:
                    return 200, self.test_notifications[match.group(1)]
                return error(4040008)
        elif method == "POST":
            if path == NOTIFICATION_HISTORY_PATH:
                return self._notification_history(query, body)
        elif method == "PUT":
            if match := CONSUMPTION_PATH.match(path):
                return self._consumption(match.group(1), body)
        return 404, {"errorCode": 4000000, "errorMessage": "Bad request."}

    def _statuses(self, transaction_id: str) -> tuple:
        if transaction_id not in self.transactions:
            return error(4040010)
        original = original_id(self.transactions[transaction_id])
        entries = [{"originalTransactionId": original, **self.subscriptions[original]}] \
            if original in self.subscriptions else []
        return 200, {"environment": self.environment, "bundleId": self.bundle_id, "data": [
            {"subscriptionGroupIdentifier": "group-1", "lastTransactions": entries}]}

    def _history(self, transaction_id: str, query: str) -> tuple:
        if transaction_id not in self._history_of:
            return error(4040010)
        index = self._history_of[transaction_id]
        history = self._histories[index]
        params = parse_qsl(query, keep_blank_values=True)
        values: dict[str, list[str]] = {}
        for name, value in params:
            values.setdefault(name, []).append(value)
        offset = 0
        if "revision" in values:
            state = self._unseal(values["revision"][-1])
            bound = self._digest(sorted(p for p in params if p[0] != "revision"))
            if state is None or state.get("h") != index or state.get("q") != bound:
                return error(4000005)
            offset = state["o"]
        sort = values.get("sort", ["ASCENDING"])[-1]
        if sort not in ("ASCENDING", "DESCENDING"):
            return error(4000021)
        types = values.get("productType", [])
        if any(t not in PRODUCT_TYPES for t in types):
            return error(4000022)
        revoked = values.get("revoked", [None])[-1]
        if revoked is not None and revoked.lower() not in ("true", "false"):  # Apple's library sends "True"
            return error(4000030)
        ownership = values.get("inAppOwnershipType", [None])[-1]
        if ownership not in (None, "PURCHASED", "FAMILY_SHARED"):
            return error(4000026)
        try:
            start = int(values["startDate"][-1]) if "startDate" in values else None
        except ValueError:
            return error(4000015)
        try:
            end = int(values["endDate"][-1]) if "endDate" in values else None
        except ValueError:
            return error(4000016)
        if start is not None and end is not None and start > end:
            return error(4000013)

        def wanted(token: str) -> bool:
            p = payload(token)
            return ((not types or p.get("type") in {PRODUCT_TYPES[t] for t in types})
                    and ("productId" not in values or p.get("productId") in values["productId"])
                    and ("subscriptionGroupIdentifier" not in values
                         or p.get("subscriptionGroupIdentifier") in values["subscriptionGroupIdentifier"])
                    and (ownership is None or p.get("inAppOwnershipType") == ownership)
                    and (revoked is None or ("revocationDate" in p) == (revoked.lower() == "true"))
                    and (start is None or p.get("purchaseDate", 0) >= start)
                    and (end is None or p.get("purchaseDate", 0) < end))

        selected = [token for token in history if wanted(token)]
        if sort == "DESCENDING":
            selected.reverse()
        page = selected[offset:offset + self.page_size]
        next_offset = offset + len(page)
        revision = self._seal({"o": next_offset, "h": index,
                               "q": self._digest(sorted(p for p in params if p[0] != "revision"))})
        response = {"revision": revision, "hasMore": next_offset < len(selected), "bundleId": self.bundle_id,
                    "environment": (payload(history[0]).get("environment") if history else None) or self.environment,
                    "signedTransactions": page}
        if self.app_apple_id is not None:
            response["appAppleId"] = self.app_apple_id
        return 200, response

    def _notification_history(self, query: str, body) -> tuple:
        if not isinstance(body, dict):
            return error(4000000)
        start, end = body.get("startDate"), body.get("endDate")
        if not isinstance(start, int) or isinstance(start, bool):
            return error(4000015)
        if not isinstance(end, int) or isinstance(end, bool):
            return error(4000016)
        if start > end:
            return error(4000013)
        now = now_ms()
        if start < now - self.notification_history_days * DAY_MS:
            return error(4000012)
        kind, subtype, transaction_id = body.get("notificationType"), body.get("notificationSubtype"), \
            body.get("transactionId")
        if subtype is not None and kind is None:
            return error(4000018)
        if transaction_id is not None and kind is not None:
            return error(4000019)
        offset, limit = 0, min(end, now)  # a future endDate is clamped to now (kept while paging)
        tokens = dict(parse_qsl(query, keep_blank_values=True))
        if "paginationToken" in tokens:
            state = self._unseal(tokens["paginationToken"])
            if state is None or state.get("b") != self._digest(body):
                return error(4000014)
            offset, limit = state["o"], state["e"]
        same_original = None
        if transaction_id is not None and transaction_id in self.transactions:
            same_original = original_id(self.transactions[transaction_id])

        def wanted(record: dict) -> bool:
            p = record.get("_payload") or payload(record["signedPayload"])
            if not start <= p.get("signedDate", 0) <= limit:
                return False
            if kind is not None and p.get("notificationType") != kind:
                return False
            if subtype is not None and p.get("subtype") != subtype:
                return False
            if transaction_id is not None:
                signed = (p.get("data") or {}).get("signedTransactionInfo")
                info = payload(signed) if signed else {}
                if not (info.get("transactionId") == transaction_id
                        or (same_original is not None and info.get("originalTransactionId") == same_original)):
                    return False
            if body.get("onlyFailures"):
                attempts = record.get("sendAttempts") or []
                if attempts and attempts[-1].get("sendAttemptResult") == "SUCCESS":
                    return False
            return True

        selected = sorted((r for r in self.notifications if wanted(r)),
                          key=lambda r: (r.get("_payload") or payload(r["signedPayload"])).get("signedDate", 0))
        page = selected[offset:offset + self.page_size]
        next_offset = offset + len(page)
        response = {"notificationHistory": [{"signedPayload": r["signedPayload"], "sendAttempts": r["sendAttempts"]}
                                            for r in page],
                    "hasMore": next_offset < len(selected)}
        if response["hasMore"]:
            response["paginationToken"] = self._seal({"o": next_offset, "e": limit, "b": self._digest(body)})
        return 200, response

    def _extend(self, original: str, body) -> tuple:
        """(status, body, hook to call once the lock is released or None)."""
        body = body if isinstance(body, dict) else {}
        days, reason, request_id = body.get("extendByDays"), body.get("extendReasonCode"), \
            body.get("requestIdentifier")
        if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 90:
            return (*error(4000009), None)
        if not isinstance(reason, int) or isinstance(reason, bool) or not 0 <= reason <= 3:
            return (*error(4000010), None)
        if not isinstance(request_id, str) or not 1 <= len(request_id) <= 128:
            return (*error(4000011), None)
        if (original, request_id) in self._extended:  # Apple: reuse the identifier to retry
            return 200, self._extended[(original, request_id)], None
        own = [payload(t) for t in self.transactions.values()]
        own = [p for p in own if p.get("originalTransactionId") == original]
        if original not in self.subscriptions and not own:
            return (*error(4040005), None)
        if original in self.extension_refusals:
            return (*error(self.extension_refusals[original]), None)
        signed = self.subscriptions.get(original, {}).get("signedTransactionInfo")
        current = payload(signed) if signed else max(own, key=lambda p: p.get("purchaseDate", 0), default={})
        if "expiresDate" not in current:
            return (*error(4030004), None)
        effective = current["expiresDate"] + days * DAY_MS
        response = {"originalTransactionId": original, "webOrderLineItemId": current.get("webOrderLineItemId"),
                    "success": True, "effectiveDate": effective}
        self._extended[(original, request_id)] = response
        self.extensions.append((original, days, reason, request_id))
        hook = self.on_extend
        return 200, response, (lambda: hook(original, days, effective)) if hook else None

    def _consumption(self, transaction_id: str, body) -> tuple:
        body = body if isinstance(body, dict) else {}
        if body.get("customerConsented") is not True:
            return error(4000035)
        if not isinstance(body.get("sampleContentProvided"), bool):
            return error(4000041)
        if body.get("deliveryStatus") not in DELIVERY_STATUSES:
            return error(4000036)
        percentage = body.get("consumptionPercentage")
        # The library names no codes for these two: Apple's general bad request.
        if percentage is not None and (not isinstance(percentage, int) or isinstance(percentage, bool)
                                       or not 0 <= percentage <= 100_000):
            return error(4000000, "Invalid consumption percentage.")
        preference = body.get("refundPreference")
        if preference is not None and (preference not in REFUND_PREFERENCES
                                       or (preference == "GRANT_PRORATED" and not percentage)):
            return error(4000000, "Invalid refund preference.")
        if transaction_id not in self.transactions:
            return error(4040010)
        self.consumption.append((transaction_id, body))
        return 202, None

    def _test_notification(self) -> tuple:
        with self.lock:
            if self.test_notification_refusal is not None:
                return error(self.test_notification_refusal)
            token = f"{uuid.uuid4()}_{now_ms()}"
            record = {"sendAttempts": [{"attemptDate": now_ms(), "sendAttemptResult": self.test_send_result}]}
            self.test_notifications[token] = record
        # Outside the lock: the hook may make the server under test call this fake.
        signed = self.on_test_notification(token) if self.on_test_notification else None
        if signed is not None:
            with self.lock:  # the hook may have recorded its own send attempt
                self.test_notifications[token] = {**self.test_notifications[token], "signedPayload": signed}
        return 200, {"testNotificationToken": token}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A local fake of Apple's App Store Server API.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (the JSON line says which)")
    parser.add_argument("--key-file", type=Path, required=True, help="the In-App Purchase key (.p8) tokens are signed with")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--issuer-id", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--environment", default="Sandbox", help="the environment answers name (default Sandbox)")
    parser.add_argument("--notification-url", help="where test notifications go (the server's App Store endpoint)")
    parser.add_argument("--signing-dir", type=Path, help="the CA test notifications are signed with (entctl dev init)")
    args = parser.parse_args(argv)
    if (args.notification_url is None) != (args.signing_dir is None):
        parser.error("--notification-url and --signing-dir go together")
    fake = FakeAppStoreAPI(args.key_file, args.key_id, args.issuer_id, args.bundle_id, environment=args.environment,
                           port=args.port)
    if args.notification_url:
        fake.deliver_test_notifications(args.notification_url, AppleSigner(args.signing_dir))
    print(json.dumps({"url": fake.url, "key_id": args.key_id, "issuer_id": args.issuer_id, "bundle_id": args.bundle_id,
                      "environment": args.environment, "notification_url": args.notification_url}), flush=True)
    stopped = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stopped.set())
    stopped.wait()
    fake.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
