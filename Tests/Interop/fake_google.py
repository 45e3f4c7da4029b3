"""A local fake of the Google services entitlementd talks to for Google Play, for the interop tests and the README demo.

It serves, on one loopback HTTP/1.1 port (optionally TLS):

- the OAuth 2.0 token endpoint of the service-account flow (`POST /token`), which checks the signed JWT assertion the
  way Google does and grants `ya29.`-style access tokens;
- the Play Developer API purchase calls (`/androidpublisher/v3/applications/{packageName}/purchases/...`):
  `subscriptionsv2.get`, `products.get`, `subscriptions.acknowledge`, `products.acknowledge`, `products.consume`,
  `voidedpurchases.list`, and `orders.get` (what Google charged for an order), answering Google's JSON shapes and
  Google's error bodies;
- Google's OIDC signing keys, as Pub/Sub push authentication uses them: a JWKS at `GET /oauth2/v3/certs` (the shape of
  https://www.googleapis.com/oauth2/v3/certs), the same keys as X.509 certificates at `GET /oauth2/v1/certs`, and
  `/.well-known/openid-configuration`; `mint_push_token` signs the `Authorization: Bearer` token Pub/Sub would send;
- a control API under `/_fake/` (below), so another process (the README demo, `entctl`) can drive it.

Not a test module: tests import it (`from fake_google import FakeGoogle`), and it runs as a tool:

    python Tests/Interop/fake_google.py --port 8091 --service-account-out /tmp/sa.json [--package com.example.app]
    Scripts/fake-google --port 8091 --service-account-out /tmp/sa.json          (the same, with the repo's .venv)

which prints one JSON line `{"base_url": ..., "token_uri": ..., "jwks_url": ..., ...}` on stdout once it listens and
serves until SIGTERM or SIGINT. `--tls-cert/--tls-key` serve HTTPS. `--extra-service-account PATH` and
`--ungranted-service-account PATH` write more key files (another tenant's account; an account whose calls get 401
"insufficient permissions", as during Google's 24-48 h propagation).

Python API (all of it thread-safe; times are aware datetimes, or milliseconds where Google uses milliseconds):

    fake = FakeGoogle(host="127.0.0.1", port=0, tls=None | (cert_path, key_path), package=None, expires_in=3599)
    fake.base_url, fake.token_uri, fake.jwks_url, fake.api_url(package, "purchases/...")
    fake.close()                                  # also `with FakeGoogle() as fake:`
    # service accounts
    fake.service_account                          # the default ServiceAccount (granted, every package)
    fake.add_service_account(name, granted=True, packages=None, project_id=None) -> ServiceAccount
    fake.set_granted(account_or_email, granted)
    fake.service_account_info(account=None) -> dict        # the JSON key file's contents
    fake.write_service_account(path, account=None) -> Path
    # tokens
    fake.grants (list of Grant), fake.token_grant_count, fake.expire_tokens(), fake.expires_in = N
    fake.accepted_audiences                       # the assertion `aud` values the token endpoint takes
    # state
    fake.put_subscription(package, token, resource=None, **subscription_fields) -> dict
    fake.put_product(package, token, resource=None, **product_fields) -> dict
    fake.put_order(package, order_id, resource=None, **order_fields) -> dict
    fake.get_subscription(package, token), fake.get_product(package, token), fake.get_order(package, order_id)
    fake.void(token, order_id=None, product_type=None, voided_time=None, source=0, reason=0, quantity=None,
              package=None, revoke=True) -> VoidedPurchase
    fake.acknowledgements (list of Acknowledgement), fake.acknowledgements_of(token)
    fake.reacknowledge = "error" | "ok"; fake.acknowledge_status = 204
    # requests and faults
    fake.requests(method=None, path=None) -> [Request]   # every request but /_fake ones, as they were answered
    fake.wait_for_requests(method, path, count=1, timeout=10.0) -> [Request]
    fake.clear_requests()
    fake.fail_next(method, path_regex, status, count=1, headers=None, body=None)
    fake.drop_next(method, path_regex, count=1, reset=False)    # read the request, close without answering
    fake.delay_next(method, path_regex, seconds, count=1)       # answer late (to hit client timeouts)
    fake.clear_faults()
    fake.stop_listening(), fake.start_listening(), fake.listening   # unreachable, then back on the same port
    fake.wait_until_listening(listening=True, timeout=10.0)
    # Pub/Sub push
    fake.push_kids, fake.rotate_push_key() -> kid, fake.retire_push_key(kid)
    fake.jwks_max_age = 19800                     # Cache-Control max-age of the key endpoints
    fake.mint_push_token(audience, email, email_verified=True, issuer="https://accounts.google.com",
                         lifetime=3600, kid=None, key=None, iat=None, exp=None, extra_claims=None) -> str
    # module level
    subscription(...), product(...), order(...)   # realistic resources with sane defaults; money(milliunits, currency)
    push_envelope(data, message_id=None, subscription="projects/p/subscriptions/s", ...)
    subscription_notification(...), one_time_product_notification(...), voided_purchase_notification(...),
    test_notification(...)
    google_error(code, message, reason, ...), rfc3339(dt), new_purchase_token(), new_order_id()

Control API (JSON bodies and answers; times as milliseconds, RFC 3339 strings, or relative "+30d", "-2h", "+90s"):

    GET    /_fake/state                                        summary: URLs, accounts, packages, grant count
    GET    /_fake/service-accounts                             [{client_email, granted, packages, key}]
    POST   /_fake/service-accounts {name, granted?, packages?}        -> {client_email, granted, packages, key}
    POST   /_fake/service-accounts/{email}/granted {granted}
    PUT    /_fake/applications/{pkg}/subscriptions/{token} {subscription() fields | resource}  -> the resource
    PUT    /_fake/applications/{pkg}/products/{token} {product() fields | resource}            -> the resource
    PUT    /_fake/applications/{pkg}/orders/{order_id} {order() fields | resource}              -> the resource
    GET    /_fake/applications/{pkg}/subscriptions/{token}, .../products/{token}, .../orders/{order_id} (404 if absent)
    POST   /_fake/applications/{pkg}/voided {token, order_id?, product_type?, voided_time?, source?, reason?,
                                            quantity?, revoke?}                              -> the voided record
    POST   /_fake/faults {action: fail|drop|delay, method?, path, status?, count?, headers?, body?, seconds?, reset?}
    DELETE /_fake/faults
    POST   /_fake/outage {seconds}                     answers, then stops listening for that long, then listens again
    GET    /_fake/requests?method=&path=, DELETE /_fake/requests
    GET    /_fake/acknowledgements
    POST   /_fake/tokens/expire                        every access token granted so far stops working
    POST   /_fake/tokens                               -> {access_token}: one granted without an assertion (benchmarks)
    POST   /_fake/push-keys/rotate                     -> {kid}
    POST   /_fake/push-token {audience, email, email_verified?, issuer?, lifetime?}   -> {token}
    POST   /_fake/rtdn {package, subscription: {token, type} | one_time_product: {token, sku, type}
                        | voided: {token, order_id, product_type, refund_type?} | test: {},
                        audience?, email?, message_id?, subscription_name?}
                        -> {data, body, authorization}: the notification, the Pub/Sub push body, and (with audience
                           and email) the "Bearer ..." header value to send with it

Answers chosen where Google's behaviour is not pinned down by its reference (each is one constant or switch here):

- Unknown purchase token, a token of another package, or a product token mismatched with `productId` / a
  subscription's `subscriptionId`: 400 `Invalid Value` (reason `invalid`, domain `global`). That is what developers
  report for bad tokens on both purchase endpoints (jnbt/candy_check#51, googleapis/google-api-go-client#2491,
  imdhemy/laravel-in-app-purchases#68, whose maintainer names "another package name or another subscription ID");
  404 `purchaseTokenNotFound` was only reported for the old API (googlesamples/android-play-publisher-api#21).
- A one-time product's token on `subscriptionsv2.get`: 400 `Your request is invalid for this subscription purchase.`
  (reason `subscriptionInvalidArgument`, aporat/store-receipt-validator#167).
- A subscription expired for 60 days or more: 410 `subscriptionPurchaseNoLongerAvailable` (Google's announcement of
  May 2018, quoted on Stack Overflow 45688494).
- Acknowledging an already acknowledged purchase: 400 `The product purchase is not owned by the user.`
  (`productNotOwnedByUser`, aporat/store-receipt-validator#110, reported for exactly this) and, by the same rule for
  subscriptions, `The subscription purchase is not owned by the user.` (`subscriptionNotOwnedByUser`, Stack Overflow
  57919134). Clients should treat either as "already acknowledged"; set `fake.reacknowledge = "ok"` to answer success.
  Acknowledging (or consuming) a purchase that is not purchased: 400 `The purchase is not in a valid state to perform
  the desired operation.` (`invalidPurchaseState`, googleapis/google-api-dotnet-client#1987).
- A successful acknowledge answers 204 with no body: Google documents "the response body is empty", and a developer's
  log of the live API shows "Acknowledge Response received (Status 204)". `fake.acknowledge_status = 200` answers
  200 with an empty body (Content-Length: 0) instead.
- A service account not (yet) granted in Play Console, or not for this app: 401 `The current user has insufficient
  permissions to perform the requested operation.` (reason `permissionDenied`, domain `androidpublisher`:
  googleapis/google-api-java-client#1256, aporat/store-receipt-validator#114).
- Access token missing: 401 "Request is missing required authentication credential..." (reason `required`); unknown
  or expired: 401 "Request had invalid authentication credentials..." (reason `authError`), both with
  `WWW-Authenticate: Bearer realm="https://accounts.google.com/"`; a token without the androidpublisher scope: 403
  "Request had insufficient authentication scopes." (Google's ESF answers for every API).
- Token endpoint: 400 `invalid_grant` with Google's descriptions ("Invalid JWT Signature.", "Invalid JWT: Token must
  be a short-lived token (60 minutes) and in a reasonable timeframe...", "Invalid JWT: Failed audience check. The
  right audience is ...", "Invalid grant: account not found"), `invalid_scope` for a missing scope,
  `unsupported_grant_type` otherwise. A scope that does not include androidpublisher still gets a token, which the API
  then refuses with 403, as Google does. The assertion's `kid` must be the key's `private_key_id` (google-auth and
  Google's other libraries always send it; a signer that omits it is worth catching). The audience may be the key
  file's `token_uri` or Google's `https://oauth2.googleapis.com/token` (google-auth signs for the latter whatever
  `token_uri` says).
- `voidedpurchases.list`: `startTime` older than 30 days, `endTime` in the future, `startTime > endTime`, an unknown
  page `token` or a `type` other than 0/1: 400 INVALID_ARGUMENT (the reference says these "cannot" be; the exact
  message is not documented). A query parameter the method does not have: 400 INVALID_ARGUMENT "Invalid JSON payload
  received. Unknown name ...", Google's answer to a name it cannot bind. `type` 0 (the default) lists one-time
  products only, 1 subscriptions too; the times filter on when the void was recorded (here `voided_time`), and a page
  `token` carries the first request's filters, whatever else comes with it. `maxResults` defaults to 1000 and is
  capped at 1000 (the v3 reference of 2019). The answer has `tokenPagination.nextPageToken` only when there is a next
  page and omits empty fields, so no voided purchase at all is `{}` (googleapis/google-api-php-client#2211 shows an
  empty response object).
- `orders.get` of an order the fake does not hold: 404 `Order not found.` (reason `notFound`); the reference
  documents no error body. A void with `revoke` marks the order's refund as Google's Orders API shows one:
  `state` REFUNDED with `orderHistory.refundEvent` (the whole total), or PARTIALLY_REFUNDED with a
  `partialRefundEvents` entry for a quantity-based partial refund (that share of the total).
- Pub/Sub push bodies omit `attributes` when a message has none (proto3 JSON omits empty maps); pass `attributes=`
  to include them.
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import json
import re
import secrets
import signal
import socket
import ssl
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import IntEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, quote, unquote, urlsplit

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

ANDROIDPUBLISHER_SCOPE = "https://www.googleapis.com/auth/androidpublisher"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
API_PREFIX = "/androidpublisher/v3/applications/"
GOOGLE_ISSUER = "https://accounts.google.com"
# The token endpoint's URL and its older names, which Google accepts as an assertion's audience.
GOOGLE_TOKEN_AUDIENCES = (
    "https://oauth2.googleapis.com/token",
    "https://www.googleapis.com/oauth2/v4/token",
    "https://accounts.google.com/o/oauth2/token",
)
DEFAULT_PACKAGE = "com.example.app"
DEFAULT_PROJECT = "entitlementd-fake"

# Assertion timing: Google allows at most an hour between iat and exp; iat may be a little in the future (clock
# skew) and, as here, a few minutes in the past (some signers backdate iat to tolerate skew).
ASSERTION_MAX_LIFETIME = 3600
ASSERTION_FUTURE_LEEWAY = 60
ASSERTION_PAST_LEEWAY = 300
VOIDED_WINDOW = timedelta(days=30)
VOIDED_MAX_RESULTS = 1000
VOIDED_CLOCK_LEEWAY = timedelta(seconds=60)
# voidedpurchases.list's query parameters (the page selection under its flat and its `pageSelection.` names), and
# the system parameters every Google API takes; any other is refused, as Google refuses a name it cannot bind.
VOIDED_LIST_PARAMETERS = frozenset({
    "startTime", "endTime", "type", "includeQuantityBasedPartialRefund", "maxResults", "startIndex", "token",
    "pageSelection.maxResults", "pageSelection.startIndex", "pageSelection.token",
})
SYSTEM_PARAMETERS = frozenset({
    "$.xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint", "quotaUser",
    "upload_protocol", "uploadType",
})
EXPIRED_QUERY_LIMIT = timedelta(days=60)
# Google's public keys are served with a long max-age; a verifier must still refetch on an unknown kid.
JWKS_MAX_AGE = 19800

DAY = timedelta(days=1)


# --------------------------------------------------------------------------------------------------
# Time


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def rfc3339(moment: datetime) -> str:
    """Google's timestamp JSON: UTC with `Z`, and 0, 3 or 6 fractional digits as the value needs."""
    moment = moment.astimezone(timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond == 0:
        return text + "Z"
    if moment.microsecond % 1000 == 0:
        return f"{text}.{moment.microsecond // 1000:03d}Z"
    return f"{text}.{moment.microsecond:06d}Z"


def millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def from_millis(value: int) -> datetime:
    return datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)


_RELATIVE = re.compile(r"^([+-])(\d+)([smhd])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def to_datetime(value: Any, now: datetime | None = None) -> datetime:
    """A datetime from a datetime, milliseconds since the epoch, an RFC 3339 string, or "+30d"/"-2h"/"+90s"
    (relative to now): the forms the control API accepts."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return from_millis(int(value))
    if isinstance(value, str):
        match = _RELATIVE.match(value.strip())
        if match:
            sign = 1 if match.group(1) == "+" else -1
            return (now or utcnow()) + sign * timedelta(seconds=int(match.group(2)) * _UNITS[match.group(3)])
        if value.strip().isdigit():
            return from_millis(int(value))
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
    raise ValueError(f"not a time: {value!r}")


def _optional_time(value: Any) -> datetime | None:
    return None if value is None else to_datetime(value)


# --------------------------------------------------------------------------------------------------
# Google's error bodies

STATUS_NAMES = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "ABORTED",
    429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 501: "NOT_IMPLEMENTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}
WWW_AUTHENTICATE = 'Bearer realm="https://accounts.google.com/"'


def google_error(
    code: int, message: str, reason: str, domain: str = "global", status: str | None = "",
    location: str | None = None, location_type: str | None = None,
) -> dict:
    """`{"error": {"code", "message", "errors": [{"message", "domain", "reason", ...}], "status"}}` as Google's API
    front end answers. `status=""` picks the canonical name for `code`; `status=None` leaves it out (410 has none)."""
    item: dict[str, Any] = {"message": message, "domain": domain, "reason": reason}
    if location is not None:
        item["location"] = location
        item["locationType"] = location_type or "parameter"
    error: dict[str, Any] = {"code": code, "message": message, "errors": [item]}
    if status == "":
        status = STATUS_NAMES.get(code)
    if status:
        error["status"] = status
    return {"error": error}


def invalid_value() -> dict:
    return google_error(400, "Invalid Value", "invalid")


def insufficient_permissions() -> dict:
    message = "The current user has insufficient permissions to perform the requested operation."
    return google_error(401, message, "permissionDenied", domain="androidpublisher")


def missing_credentials() -> dict:
    return google_error(
        401,
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other "
        "valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        "required", location="Authorization", location_type="header",
    )


def invalid_credentials() -> dict:
    body = google_error(
        401,
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
        "authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        "authError", location="Authorization", location_type="header",
    )
    body["error"]["errors"][0]["message"] = "Invalid Credentials"
    return body


def insufficient_scopes() -> dict:
    body = google_error(403, "Request had insufficient authentication scopes.", "insufficientPermissions")
    body["error"]["errors"][0]["message"] = "Insufficient Permission"
    return body


def default_error(code: int) -> dict:
    """The body Google sends with `code` when nothing more specific applies (fault injection's default)."""
    if code == 401:
        return invalid_credentials()
    if code == 403:
        return google_error(403, "The caller does not have permission", "forbidden")
    if code == 404:
        return google_error(404, "Requested entity was not found.", "notFound")
    if code == 409:
        return google_error(
            409, "The operation could not be performed since the object was already in the process of being updated.",
            "concurrentUpdate", domain="androidpublisher",
        )
    if code == 429:
        return google_error(
            429,
            "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service "
            "'androidpublisher.googleapis.com' for consumer 'project_number:1234567890'.",
            "rateLimitExceeded",
        )
    if code == 503:
        return google_error(503, "The service is currently unavailable.", "backendError")
    if code >= 500:
        return google_error(code, "Internal error encountered.", "backendError")
    return invalid_value() if code == 400 else google_error(code, "Request failed.", "failed")


def oauth_error(error: str, description: str) -> dict:
    """The token endpoint's error body (RFC 6749 section 5.2, as Google fills it)."""
    return {"error": error, "error_description": description}


class GoogleHTTPError(Exception):
    """An answer other than success, raised inside a handler."""

    def __init__(self, status: int, body: dict, headers: list[tuple[str, str]] | None = None):
        super().__init__(f"{status} {body}")
        self.status, self.body, self.headers = status, body, list(headers or [])


def _invalid(message: str = "Invalid Value") -> GoogleHTTPError:
    return GoogleHTTPError(400, google_error(400, message, "invalid"))


# --------------------------------------------------------------------------------------------------
# Keys and service accounts


def new_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def private_key_pem(key: rsa.RSAPrivateKey) -> str:
    """PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), as in Google's JSON key files."""
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def public_key_pem(key: rsa.RSAPrivateKey) -> str:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def self_signed_certificate(key: rsa.RSAPrivateKey, common_name: str) -> str:
    """A PEM certificate for `key`, the form of Google's /oauth2/v1/certs and /robot/v1/metadata/x509 answers."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    start = utcnow() - DAY
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(start + 30 * DAY)
        .sign(key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM).decode()


def _b64url_uint(value: int) -> str:
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def jwk(key: rsa.RSAPrivateKey, kid: str) -> dict:
    numbers = key.public_key().public_numbers()
    return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": _b64url_uint(numbers.n),
            "e": _b64url_uint(numbers.e)}


def _digits(count: int) -> str:
    return str(secrets.randbelow(9) + 1) + "".join(str(secrets.randbelow(10)) for _ in range(count - 1))


@dataclass
class ServiceAccount:
    """One service account: its key, and whether Play Console grants it access (all packages, or `packages`)."""

    email: str
    project_id: str
    client_id: str
    private_key_id: str
    key: rsa.RSAPrivateKey
    granted: bool = True
    packages: set[str] | None = None

    @classmethod
    def create(cls, name: str, project_id: str, granted: bool = True, packages=None) -> "ServiceAccount":
        return cls(
            email=f"{name}@{project_id}.iam.gserviceaccount.com", project_id=project_id, client_id=_digits(21),
            private_key_id=secrets.token_hex(20), key=new_rsa_key(), granted=granted,
            packages=set(packages) if packages is not None else None,
        )

    @classmethod
    def from_info(cls, info: dict) -> "ServiceAccount":
        """The account of an existing JSON key file (the demo's, committed under Config/dev-play)."""
        key = serialization.load_pem_private_key(info["private_key"].encode(), password=None)
        return cls(email=info["client_email"], project_id=info.get("project_id", DEFAULT_PROJECT),
                   client_id=info.get("client_id", _digits(21)), private_key_id=info["private_key_id"], key=key)

    def may_access(self, package: str) -> bool:
        return self.granted and (self.packages is None or package in self.packages)

    def info(self, base_url: str) -> dict:
        """The JSON key file Google's console downloads, every URL pointing at the fake."""
        return {
            "type": "service_account",
            "project_id": self.project_id,
            "private_key_id": self.private_key_id,
            "private_key": private_key_pem(self.key),
            "client_email": self.email,
            "client_id": self.client_id,
            "auth_uri": f"{base_url}/o/oauth2/auth",
            "token_uri": f"{base_url}/token",
            "auth_provider_x509_cert_url": f"{base_url}/oauth2/v1/certs",
            "client_x509_cert_url": f"{base_url}/robot/v1/metadata/x509/{quote(self.email, safe='')}",
            "universe_domain": "googleapis.com",
        }

    def describe(self, base_url: str) -> dict:
        return {"client_email": self.email, "granted": self.granted,
                "packages": sorted(self.packages) if self.packages is not None else None, "key": self.info(base_url)}


# --------------------------------------------------------------------------------------------------
# Resources


def new_purchase_token() -> str:
    """A token shaped like Play's (letters, then a long `.AO-J1O...` tail)."""
    letters = "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(24))
    return f"{letters}.AO-J1O{secrets.token_urlsafe(96)}"


def new_order_id(renewal: int | None = None) -> str:
    """`GPA.1234-5678-9012-34567`, with `..N` for the Nth renewal."""
    base = f"GPA.{_digits(4)}-{_digits(4)}-{_digits(4)}-{_digits(5)}"
    return base if renewal is None else f"{base}..{renewal}"


SUBSCRIPTION_STATES = (
    "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_ACTIVE", "SUBSCRIPTION_STATE_PAUSED",
    "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_CANCELED",
    "SUBSCRIPTION_STATE_EXPIRED", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED",
)
_RENEWING_STATES = {
    "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_ACTIVE", "SUBSCRIPTION_STATE_PAUSED",
    "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_ON_HOLD",
}
CANCELLATIONS = ("user", "system", "developer", "replacement")


def subscription_state(state: str) -> str:
    """The full enum name: "ACTIVE" and "SUBSCRIPTION_STATE_ACTIVE" both give the latter."""
    name = state.upper()
    if not name.startswith("SUBSCRIPTION_STATE_"):
        name = "SUBSCRIPTION_STATE_" + name
    if name not in SUBSCRIPTION_STATES:
        raise ValueError(f"unknown subscription state {state!r}")
    return name


def _account_identifiers(account_id: str | None, profile_id: str | None) -> dict:
    identifiers = {}
    if account_id is not None:
        identifiers["obfuscatedExternalAccountId"] = account_id
    if profile_id is not None:
        identifiers["obfuscatedExternalProfileId"] = profile_id
    return identifiers


def subscription(
    state: str = "SUBSCRIPTION_STATE_ACTIVE",
    product_id: str = "premium",
    base_plan: str = "monthly",
    offer_id: str | None = None,
    offer_tags: list[str] | None = None,
    expiry: Any = None,
    start: Any = None,
    auto_renew: bool | None = None,
    test: bool = False,
    linked: str | None = None,
    account_id: str | None = None,
    profile_id: str | None = None,
    out_of_app_previous: Any = None,
    acknowledged: bool = False,
    region: str = "US",
    order_id: str | None = None,
    cancellation: str | None = None,
    cancel_time: Any = None,
    auto_resume: Any = None,
    prepaid: bool = False,
    price: dict | None = None,
) -> dict:
    """A SubscriptionPurchaseV2 as `purchases.subscriptionsv2.get` returns it, consistent with `state`.

    Defaults: started a day ago, expiring in 30 days (a day ago when EXPIRED), auto-renewing in the renewing states
    (PENDING, ACTIVE, PAUSED, IN_GRACE_PERIOD, ON_HOLD) and not otherwise, `canceledStateContext` for CANCELED (user
    cancellation) and EXPIRED (system cancellation) unless `cancellation` names another ("user", "system",
    "developer", "replacement", or "none"), `pausedStateContext.autoResumeTime` for PAUSED. `out_of_app_previous` is
    the expired purchase a Play Store re-subscription follows: `{"token", "account_id", "profile_id"}` or a
    `(token, account_id)` pair. Times accept what `to_datetime` does."""
    state = subscription_state(state)
    now = utcnow()
    now = now.replace(microsecond=now.microsecond // 1000 * 1000)  # Google's times have millisecond precision
    started = _optional_time(start) or now - DAY
    expires = _optional_time(expiry) or (now - DAY if state == "SUBSCRIPTION_STATE_EXPIRED" else now + 30 * DAY)
    renewing = state in _RENEWING_STATES if auto_renew is None else auto_renew
    order = order_id or new_order_id()

    offer: dict[str, Any] = {"basePlanId": base_plan}
    if offer_id is not None:
        offer["offerId"] = offer_id
    if offer_tags:
        offer["offerTags"] = list(offer_tags)
    item: dict[str, Any] = {"productId": product_id, "expiryTime": rfc3339(expires)}
    if prepaid:
        item["prepaidPlan"] = {}
    else:
        plan: dict[str, Any] = {"autoRenewEnabled": renewing}
        if price is not None:
            plan["recurringPrice"] = dict(price)
        item["autoRenewingPlan"] = plan
    item["offerDetails"] = offer
    if state not in ("SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"):
        item["latestSuccessfulOrderId"] = order

    resource: dict[str, Any] = {"kind": "androidpublisher#subscriptionPurchaseV2"}
    if state != "SUBSCRIPTION_STATE_PENDING":
        resource["startTime"] = rfc3339(started)
    resource["regionCode"] = region
    resource["subscriptionState"] = state
    # Deprecated for lineItems[].latestSuccessfulOrderId and gone from the newest discovery document, but still in
    # answers clients see: keep it, so a client that reads either works.
    resource["latestOrderId"] = order
    if linked is not None:
        resource["linkedPurchaseToken"] = linked
    if state == "SUBSCRIPTION_STATE_PAUSED":
        resource["pausedStateContext"] = {"autoResumeTime": rfc3339(_optional_time(auto_resume) or expires)}
    kind = cancellation
    if kind is None:
        kind = {"SUBSCRIPTION_STATE_CANCELED": "user", "SUBSCRIPTION_STATE_EXPIRED": "system"}.get(state)
    if kind and kind != "none":
        if kind not in CANCELLATIONS:
            raise ValueError(f"unknown cancellation {kind!r}: one of {CANCELLATIONS} or 'none'")
        context: dict[str, Any]
        if kind == "user":
            context = {"userInitiatedCancellation": {
                "cancelSurveyResult": {"reason": "CANCEL_SURVEY_REASON_NOT_ENOUGH_USAGE"},
                "cancelTime": rfc3339(_optional_time(cancel_time) or min(now, expires) - timedelta(hours=1)),
            }}
        else:
            context = {f"{kind}InitiatedCancellation" if kind != "replacement" else "replacementCancellation": {}}
        resource["canceledStateContext"] = context
    if test:
        resource["testPurchase"] = {}
    resource["acknowledgementState"] = (
        "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" if acknowledged else "ACKNOWLEDGEMENT_STATE_PENDING"
    )
    identifiers = _account_identifiers(account_id, profile_id)
    if identifiers:
        resource["externalAccountIdentifiers"] = identifiers
    if out_of_app_previous is not None:
        previous = out_of_app_previous
        if isinstance(previous, (tuple, list)):
            previous = {"token": previous[0], "account_id": previous[1] if len(previous) > 1 else None}
        context = {"expiredPurchaseToken": previous["token"]}
        expired_ids = _account_identifiers(previous.get("account_id"), previous.get("profile_id"))
        if expired_ids:
            context["expiredExternalAccountIdentifiers"] = expired_ids
        resource["outOfAppPurchaseContext"] = context
    resource["lineItems"] = [item]
    return resource


def product(
    product_id: str = "coins_100",
    state: int = 0,
    consumed: bool = False,
    acknowledged: bool = False,
    purchase_time: Any = None,
    order_id: str | None = None,
    quantity: int | None = None,
    refundable_quantity: int | None = None,
    purchase_type: int | None = None,
    test: bool = False,
    account_id: str | None = None,
    profile_id: str | None = None,
    region: str = "US",
    developer_payload: str = "",
) -> dict:
    """A ProductPurchase as `purchases.products.get` returns it. `state`: 0 purchased, 1 canceled, 2 pending.
    `purchaseType` only when set (`test=True` sets 0, a license tester's purchase); `quantity` only when given (Google
    leaves it out for 1)."""
    if state not in (0, 1, 2):
        raise ValueError("purchaseState is 0 (purchased), 1 (canceled) or 2 (pending)")
    bought = _optional_time(purchase_time) or utcnow() - timedelta(minutes=5)
    resource: dict[str, Any] = {
        "kind": "androidpublisher#productPurchase",
        "purchaseTimeMillis": str(millis(bought)),
        "purchaseState": state,
        "consumptionState": 1 if consumed else 0,
        "developerPayload": developer_payload,
    }
    if state != 2:
        resource["orderId"] = order_id or new_order_id()
    if test and purchase_type is None:
        purchase_type = 0
    if purchase_type is not None:
        resource["purchaseType"] = purchase_type
    resource["acknowledgementState"] = 1 if acknowledged else 0
    resource["productId"] = product_id
    if quantity is not None:
        resource["quantity"] = quantity
    resource.update(_account_identifiers(account_id, profile_id))
    resource["regionCode"] = region
    if refundable_quantity is None:
        refundable_quantity = (quantity or 1) if state == 0 else 0
    resource["refundableQuantity"] = refundable_quantity
    return resource


def money(milliunits: int, currency: str = "USD") -> dict:
    """A google.type.Money: whole units as a string (an int64), nanos with the same sign."""
    units, rest = divmod(abs(milliunits), 1000)
    sign = -1 if milliunits < 0 else 1
    return {"currencyCode": currency, "units": str(sign * units), "nanos": sign * rest * 1_000_000}


def money_milliunits(value: dict | None) -> int:
    """The amount of a google.type.Money in thousandths, as `money` writes it."""
    if not value:
        return 0
    return int(value.get("units", "0")) * 1000 + int(value.get("nanos", 0)) // 1_000_000


OFFER_PHASES = ("base", "free_trial", "introductory", "proration")


def order(
    order_id: str,
    token: str,
    product_id: str = "premium",
    total: int = 9990,
    currency: str = "USD",
    tax: int | None = None,
    revenue: int | None = None,
    country: str = "US",
    phase: str | None = "base",
    base_plan: str = "monthly",
    offer_id: str | None = None,
    period_start: Any = None,
    period_end: Any = None,
    state: str = "PROCESSED",
    created: Any = None,
) -> dict:
    """An Order as `orders.get` returns it. Amounts in thousandths of `currency` (`total` includes `tax`); `revenue`
    (developerRevenueInBuyerCurrency) defaults to 85% of the total less tax. `phase` (one of OFFER_PHASES, or None
    for a one-time product) makes it a subscription's order with `subscriptionDetails` for that pricing phase."""
    tax = 0 if tax is None else tax
    revenue = (total - tax) * 85 // 100 if revenue is None else revenue
    made = _optional_time(created) or utcnow()
    item: dict[str, Any] = {"productId": product_id, "productTitle": product_id, "total": money(total, currency),
                            "tax": money(tax, currency), "listingPrice": money(total - tax, currency)}
    if phase is not None:
        if phase not in OFFER_PHASES:
            raise ValueError(f"unknown offer phase {phase!r}: one of {OFFER_PHASES}")
        details_key = {"base": "baseDetails", "free_trial": "freeTrialDetails",
                       "introductory": "introductoryPriceDetails", "proration": "prorationPeriodDetails"}[phase]
        details: dict[str, Any] = {"basePlanId": base_plan, "offerPhaseDetails": {details_key: {}}}
        if offer_id is not None:
            details["offerId"] = offer_id
        start = _optional_time(period_start) or made
        details["servicePeriodStartTime"] = rfc3339(start)
        details["servicePeriodEndTime"] = rfc3339(_optional_time(period_end) or start + 30 * DAY)
        item["subscriptionDetails"] = details
    else:
        item["oneTimePurchaseDetails"] = {"quantity": 1}
    return {
        "lineItems": [item], "orderId": order_id, "purchaseToken": token, "state": state,
        "createTime": rfc3339(made), "lastEventTime": rfc3339(made), "buyerAddress": {"buyerCountry": country},
        "total": money(total, currency), "tax": money(tax, currency), "orderDetails": {"taxInclusive": True},
        "orderHistory": {"processedEvent": {"eventTime": rfc3339(made)}},
        "developerRevenueInBuyerCurrency": money(revenue, currency), "salesChannel": "IN_APP",
    }


# --------------------------------------------------------------------------------------------------
# Real-time developer notifications and Pub/Sub push


class SubscriptionNotificationType(IntEnum):
    RECOVERED = 1
    RENEWED = 2
    CANCELED = 3
    PURCHASED = 4
    ON_HOLD = 5
    IN_GRACE_PERIOD = 6
    RESTARTED = 7
    PRICE_CHANGE_CONFIRMED = 8
    DEFERRED = 9
    PAUSED = 10
    PAUSE_SCHEDULE_CHANGED = 11
    REVOKED = 12
    EXPIRED = 13
    ITEMS_CHANGED = 17
    CANCELLATION_SCHEDULED = 18
    PRICE_CHANGE_UPDATED = 19
    PENDING_PURCHASE_CANCELED = 20
    PRICE_STEP_UP_CONSENT_UPDATED = 22


class OneTimeProductNotificationType(IntEnum):
    PURCHASED = 1
    CANCELED = 2


class ProductType(IntEnum):
    """voidedPurchaseNotification.productType."""

    SUBSCRIPTION = 1
    ONE_TIME = 2


def developer_notification(package: str, event_time: Any = None, **payload: Any) -> dict:
    """The DeveloperNotification envelope: `version` "1.0", `packageName`, `eventTimeMillis` as a string."""
    moment = _optional_time(event_time) or utcnow()
    return {"version": "1.0", "packageName": package, "eventTimeMillis": str(millis(moment)), **payload}


def subscription_notification(
    package: str, token: str, notification_type: int, event_time: Any = None, subscription_id: str | None = None
) -> dict:
    """`subscriptionId` is deprecated (Google stopped documenting it): included only when given."""
    body: dict[str, Any] = {"version": "1.0", "notificationType": int(notification_type), "purchaseToken": token}
    if subscription_id is not None:
        body["subscriptionId"] = subscription_id
    return developer_notification(package, event_time, subscriptionNotification=body)


def one_time_product_notification(
    package: str, token: str, sku: str, notification_type: int = OneTimeProductNotificationType.PURCHASED,
    event_time: Any = None,
) -> dict:
    body = {"version": "1.0", "notificationType": int(notification_type), "purchaseToken": token, "sku": sku}
    return developer_notification(package, event_time, oneTimeProductNotification=body)


def voided_purchase_notification(
    package: str, token: str, order_id: str, product_type: int, refund_type: int = 1, event_time: Any = None
) -> dict:
    """`product_type` 1 subscription, 2 one-time; `refund_type` 1 full, 2 quantity-based partial."""
    body = {"purchaseToken": token, "orderId": order_id, "productType": int(product_type),
            "refundType": int(refund_type)}
    return developer_notification(package, event_time, voidedPurchaseNotification=body)


def test_notification(package: str, event_time: Any = None) -> dict:
    return developer_notification(package, event_time, testNotification={"version": "1.0"})


test_notification.__test__ = False  # not a pytest test, despite its name


def push_envelope(
    data: Any,
    message_id: str | None = None,
    subscription: str = "projects/p/subscriptions/s",
    publish_time: Any = None,
    attributes: dict[str, str] | None = None,
    delivery_attempt: int | None = None,
) -> dict:
    """The body of a Pub/Sub push request: the message's data base64-encoded (a dict is sent as its JSON), its id and
    publish time under both the camelCase and the snake_case names Pub/Sub sends, and the subscription's name.
    `deliveryAttempt` appears only with dead-lettering, so only when given."""
    if isinstance(data, (dict, list)):
        data = json.dumps(data, separators=(",", ":"))
    if isinstance(data, str):
        data = data.encode()
    message_id = message_id or _digits(16)
    published = rfc3339(_optional_time(publish_time) or utcnow())
    message: dict[str, Any] = {}
    if attributes:
        message["attributes"] = dict(attributes)
    message.update({"data": base64.b64encode(data).decode(), "messageId": message_id, "message_id": message_id,
                    "publishTime": published, "publish_time": published})
    body: dict[str, Any] = {"message": message, "subscription": subscription}
    if delivery_attempt is not None:
        body["deliveryAttempt"] = delivery_attempt
    return body


def decode_push_data(envelope: dict) -> Any:
    """The JSON a push envelope carries (the inverse of `push_envelope` for JSON data)."""
    return json.loads(base64.b64decode(envelope["message"]["data"]))


# --------------------------------------------------------------------------------------------------
# Records


@dataclass
class Request:
    """One request as the fake received it. `status` is what it answered (None when the connection was dropped)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: list[tuple[str, str]]
    body: bytes
    time: float
    status: int | None = None
    # Run by the connection's thread once the answer is sent (the control API's outage uses it).
    after: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        for key, value in self.headers:
            if key.lower() == lowered:
                return value
        return None

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def describe(self) -> dict:
        return {"method": self.method, "path": self.path, "query": self.query, "headers": self.headers,
                "body": self.body.decode("utf-8", "replace"), "time": self.time, "status": self.status}


@dataclass
class Grant:
    access_token: str
    account: ServiceAccount
    scopes: list[str]
    issued_at: float
    expires_at: float
    claims: dict


@dataclass
class Acknowledgement:
    package: str
    kind: str  # "subscription" or "product"
    product_id: str
    token: str
    developer_payload: str | None
    time: float

    def describe(self) -> dict:
        return {"package": self.package, "kind": self.kind, "product_id": self.product_id, "token": self.token,
                "developer_payload": self.developer_payload, "time": self.time}


@dataclass
class VoidedPurchase:
    package: str
    token: str
    order_id: str
    product_type: int
    purchase_time: datetime
    voided_time: datetime
    source: int
    reason: int
    quantity: int | None

    def resource(self) -> dict:
        resource: dict[str, Any] = {
            "kind": "androidpublisher#voidedPurchase",
            "purchaseToken": self.token,
            "purchaseTimeMillis": str(millis(self.purchase_time)),
            "voidedTimeMillis": str(millis(self.voided_time)),
            "orderId": self.order_id,
            "voidedSource": self.source,
            "voidedReason": self.reason,
        }
        if self.quantity is not None:
            resource["voidedQuantity"] = self.quantity
        return resource


@dataclass
class _Package:
    subscriptions: dict[str, dict] = field(default_factory=dict)
    products: dict[str, dict] = field(default_factory=dict)
    orders: dict[str, dict] = field(default_factory=dict)
    voided: list[VoidedPurchase] = field(default_factory=list)


@dataclass
class _Rule:
    action: str  # fail, drop, delay
    method: str | None
    pattern: re.Pattern
    count: int
    status: int = 500
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None
    seconds: float = 0.0
    reset: bool = False

    def matches(self, request: Request) -> bool:
        return (self.method in (None, "*", request.method)) and self.pattern.search(request.path) is not None


@dataclass
class _Drop:
    reset: bool


Response = tuple[int, list[tuple[str, str]], bytes]

JSON_TYPE = ("Content-Type", "application/json; charset=UTF-8")


def json_response(status: int, body: Any, headers: list[tuple[str, str]] | None = None) -> Response:
    return status, [JSON_TYPE, *(headers or [])], json.dumps(body, indent=2).encode() + b"\n"


def not_found_page(path: str) -> Response:
    """Google's front end answers an unknown URL with an HTML page, not JSON."""
    page = (
        "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 404 (Not Found)!!1</title>\n"
        f"  <p><b>404.</b> <ins>That\u2019s an error.</ins>\n  <p>The requested URL <code>{path}</code> was not found "
        "on this server.  <ins>That\u2019s all we know.</ins>\n"
    )
    return 404, [("Content-Type", "text/html; charset=UTF-8")], page.encode()


# --------------------------------------------------------------------------------------------------
# HTTP plumbing


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, fake: "FakeGoogle", ssl_context: ssl.SSLContext | None):
        self.fake = fake
        self.ssl_context = ssl_context
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)

    def handle_error(self, request, client_address) -> None:
        # A client going away mid-request, a failed TLS handshake, a connection cut by stop_listening: not news.
        self.fake.last_connection_error = sys.exc_info()[1]

    def cut_connections(self) -> None:
        with self.connections_lock:
            connections = list(self.connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # An idle keep-alive connection ends after this long.
    timeout = 60
    server: _Server

    def version_string(self) -> str:
        return "ESF"

    def log_message(self, format, *args) -> None:
        pass

    def setup(self) -> None:
        # TLS is set up here, in the connection's thread, so a slow handshake never blocks accepting others.
        if self.server.ssl_context is not None:
            self.request.settimeout(self.timeout)
            self.request = self.server.ssl_context.wrap_socket(self.request, server_side=True)
        with self.server.connections_lock:
            self.server.connections.add(self.request)
        super().setup()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with self.server.connections_lock:
                self.server.connections.discard(self.request)
            if isinstance(self.request, ssl.SSLSocket):
                self.request.close()

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline(65537).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline(65537)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _serve(self) -> None:
        try:
            body = self._read_body()
        except ValueError:
            self.close_connection = True
            self._send(*json_response(400, google_error(400, "Bad Request", "badRequest")))
            return
        url = urlsplit(self.path)
        request = Request(
            method=self.command, path=url.path, query=parse_qs(url.query, keep_blank_values=True),
            headers=list(self.headers.items()), body=body, time=time.time(),
        )
        answer = self.server.fake._dispatch(request)
        if isinstance(answer, _Drop):
            self._drop(answer.reset)
        else:
            self._send(*answer)
        if request.after is not None:
            request.after()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def _drop(self, reset: bool) -> None:
        """Ends the connection without a response: a FIN, or with `reset` an RST (SO_LINGER 0, then close)."""
        self.close_connection = True
        try:
            if reset:
                self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.request.close()
            else:
                self.request.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _send(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status == 204 or status < 200:
            body = b""
        else:
            # Always a length, never chunked: clients must not have to guess where an answer ends.
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)
        self.wfile.flush()


# --------------------------------------------------------------------------------------------------
# The fake


def _refund_order(charged: dict, when: datetime, quantity: int | None, product_resource: dict | None) -> None:
    """Marks an order refunded as the Orders API shows it: in full, or `quantity` of the product's units."""
    total = money_milliunits(charged.get("total"))
    tax = money_milliunits(charged.get("tax"))
    currency = charged.get("total", {}).get("currencyCode", "USD")
    history = charged.setdefault("orderHistory", {})
    if quantity is None:
        charged["state"] = "REFUNDED"
        history["refundEvent"] = {"eventTime": rfc3339(when), "refundReason": "OTHER",
                                  "refundDetails": {"total": money(total, currency), "tax": money(tax, currency)}}
    else:
        units = max(1, int((product_resource or {}).get("quantity", 1)))
        share, share_tax = total * quantity // units, tax * quantity // units
        charged["state"] = "PARTIALLY_REFUNDED"
        history.setdefault("partialRefundEvents", []).append({
            "createTime": rfc3339(when), "processTime": rfc3339(when), "state": "PROCESSED_SUCCESSFULLY",
            "refundDetails": {"total": money(share, currency), "tax": money(share_tax, currency)}})
    charged["lastEventTime"] = rfc3339(when)


class FakeGoogle:
    """Google's token endpoint, Play Developer API purchase calls and OIDC keys on one local port (see the module
    docstring). Starts listening on construction; `close()` stops it."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        tls: tuple[str | Path, str | Path] | None = None,
        package: str | None = None,
        expires_in: int = 3599,
        public_host: str | None = None,
    ):
        self.host = host
        self.public_host = public_host or host
        self.expires_in = expires_in
        self.reacknowledge = "error"
        self.acknowledge_status = 204
        self.jwks_max_age = JWKS_MAX_AGE
        self.last_connection_error: BaseException | None = None
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._closing = threading.Event()
        self._ssl_context = None
        if tls is not None:
            self._ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self._ssl_context.load_cert_chain(str(tls[0]), str(tls[1]))
        self._accounts: list[ServiceAccount] = []
        self._grants: dict[str, Grant] = {}
        self.grants: list[Grant] = []
        self._packages: dict[str, _Package] = {}
        self._requests: list[Request] = []
        self._rules: list[_Rule] = []
        self._page_tokens: dict[str, dict] = {}
        self.acknowledgements: list[Acknowledgement] = []
        self._push_keys: list[tuple[str, rsa.RSAPrivateKey, str]] = []
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self.port = port
        self.start_listening()
        self.add_service_account("entitlementd")
        self.rotate_push_key()
        if package:
            self.add_package(package)

    # ---- lifecycle

    @property
    def scheme(self) -> str:
        return "https" if self._ssl_context else "http"

    @property
    def base_url(self) -> str:
        host = f"[{self.public_host}]" if ":" in self.public_host else self.public_host
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def token_uri(self) -> str:
        return f"{self.base_url}/token"

    @property
    def accepted_audiences(self) -> list[str]:
        """What an assertion's `aud` may be: the key file's `token_uri`, or Google's token endpoint URLs. google-auth
        always signs for `https://oauth2.googleapis.com/token`, whatever `token_uri` says, and Google accepts it."""
        return [self.token_uri, *GOOGLE_TOKEN_AUDIENCES]

    @property
    def jwks_url(self) -> str:
        return f"{self.base_url}/oauth2/v3/certs"

    def api_url(self, package: str, rest: str = "") -> str:
        """`{base}/androidpublisher/v3/applications/{package}/{rest}`."""
        return f"{self.base_url}{API_PREFIX}{quote(package, safe='')}/{rest.lstrip('/')}"

    @property
    def listening(self) -> bool:
        return self._httpd is not None

    def start_listening(self) -> None:
        """Listens (again) on the same port; the first call picks the port when it is 0."""
        with self._lock:
            if self._httpd is not None:
                return
            httpd = _Server((self.host, self.port), self, self._ssl_context)
            self.port = httpd.server_address[1]
            self._httpd = httpd
            self._thread = threading.Thread(
                target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=f"fake-google:{self.port}",
                daemon=True,
            )
            self._thread.start()
            self._changed.notify_all()

    def stop_listening(self) -> None:
        """Closes the listening socket and every open connection: connecting is refused until `start_listening`."""
        with self._lock:
            httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        httpd.cut_connections()
        with self._changed:
            self._changed.notify_all()

    def wait_until_listening(self, listening: bool = True, timeout: float = 10.0) -> None:
        """Blocks until the fake is (or, with False, is not) listening, as after a control API outage."""
        with self._changed:
            if not self._changed.wait_for(lambda: self.listening == listening, timeout):
                raise TimeoutError(f"still {'not ' if listening else ''}listening after {timeout}s")

    def close(self) -> None:
        self._closing.set()
        self.stop_listening()

    def __enter__(self) -> "FakeGoogle":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- service accounts and tokens

    @property
    def service_account(self) -> ServiceAccount:
        return self._accounts[0]

    @property
    def service_accounts(self) -> list[ServiceAccount]:
        with self._lock:
            return list(self._accounts)

    def add_service_account(
        self, name: str, granted: bool = True, packages=None, project_id: str | None = None
    ) -> ServiceAccount:
        account = ServiceAccount.create(name, project_id or DEFAULT_PROJECT, granted, packages)
        with self._lock:
            if any(existing.email == account.email for existing in self._accounts):
                raise ValueError(f"a service account {account.email} exists already")
            self._accounts.append(account)
        return account

    def use_service_account(self, info: dict) -> ServiceAccount:
        """Makes the account of an existing key file the default one (its `token_uri` must point at this fake)."""
        account = ServiceAccount.from_info(info)
        with self._lock:
            self._accounts = [account] + [a for a in self._accounts if a.email != account.email]
        return account

    def account(self, email: str) -> ServiceAccount | None:
        with self._lock:
            return next((account for account in self._accounts if account.email == email), None)

    def set_granted(self, account: ServiceAccount | str, granted: bool) -> None:
        """Grants (or withdraws) Play Console access; takes effect on the next call, unlike Google's 24-48 h."""
        target = self.account(account) if isinstance(account, str) else account
        if target is None:
            raise KeyError(account)
        with self._lock:
            target.granted = granted

    def service_account_info(self, account: ServiceAccount | None = None) -> dict:
        return (account or self.service_account).info(self.base_url)

    def write_service_account(self, path: str | Path, account: ServiceAccount | None = None) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.service_account_info(account), indent=2) + "\n")
        path.chmod(0o600)
        return path

    @property
    def token_grant_count(self) -> int:
        with self._lock:
            return len(self.grants)

    def grant_access_token(self, account: ServiceAccount | None = None) -> str:
        """An access token for the default account without the assertion exchange (benchmarks read the fake directly)."""
        now = time.time()
        grant = Grant(
            access_token="ya29.fake-" + secrets.token_urlsafe(48), account=account or self.service_account,
            scopes=["https://www.googleapis.com/auth/androidpublisher"], issued_at=now, expires_at=now + self.expires_in,
            claims={})
        with self._lock:
            self._grants[grant.access_token] = grant
            self.grants.append(grant)
        return grant.access_token

    def expire_tokens(self) -> None:
        """Every access token granted so far stops working (as when they expire or are revoked)."""
        with self._lock:
            for grant in self._grants.values():
                grant.expires_at = min(grant.expires_at, time.time())

    # ---- state

    def add_package(self, package: str) -> None:
        with self._lock:
            self._packages.setdefault(package, _Package())

    def put_subscription(self, package: str, token: str, resource: dict | None = None, **fields: Any) -> dict:
        """Stores a subscription purchase: `resource` as given, else `subscription(**fields)`. Returns a copy. Its
        latest order gets an order (`orders.get`) unless the fake holds one: its recurring price, or 9.99 USD, for
        the pricing phase its `offerPhase` names (base price when none)."""
        stored = copy.deepcopy(resource) if resource is not None else subscription(**fields)
        with self._changed:
            self._packages.setdefault(package, _Package()).subscriptions[token] = stored
            self._add_default_order(package, token, stored, subscription=True)
            self._packages[package].products.pop(token, None)
            self._changed.notify_all()
            return copy.deepcopy(stored)

    def put_product(self, package: str, token: str, resource: dict | None = None, **fields: Any) -> dict:
        """Stores a one-time product purchase: `resource` as given, else `product(**fields)` with `purchaseToken`."""
        stored = copy.deepcopy(resource) if resource is not None else {**product(**fields), "purchaseToken": token}
        with self._changed:
            self._packages.setdefault(package, _Package()).products[token] = stored
            self._add_default_order(package, token, stored, subscription=False)
            self._packages[package].subscriptions.pop(token, None)
            self._changed.notify_all()
            return copy.deepcopy(stored)

    def _add_default_order(self, package: str, token: str, resource: dict, subscription: bool) -> None:
        """Google holds an order for every order ID it names: one at 9.99 USD (a subscription's recurring price
        where it has one) unless the fake holds that order already. Callers hold the lock."""
        orders = self._packages[package].orders
        items = resource.get("lineItems") or [{}]
        if subscription:
            order_id = items[0].get("latestSuccessfulOrderId") or resource.get("latestOrderId")
        else:
            order_id = resource.get("orderId")
        if not order_id or order_id in orders:
            return
        region = resource.get("regionCode", "US")
        if not subscription:
            orders[order_id] = order(order_id, token, resource.get("productId", ""), country=region, phase=None,
                                     created=_optional_time(int(resource.get("purchaseTimeMillis", "0")) or None))
            return
        price = (items[0].get("autoRenewingPlan") or {}).get("recurringPrice")
        phases = {"basePrice": "base", "freeTrial": "free_trial", "introductoryPrice": "introductory",
                  "prorationPeriod": "proration"}
        phase = next((phases[name] for name in items[0].get("offerPhase") or {} if name in phases), "base")
        total = 0 if phase == "free_trial" else money_milliunits(price) if price else 9990
        currency = price.get("currencyCode", "USD") if price else "USD"
        orders[order_id] = order(
            order_id, token, items[0].get("productId", ""), total=total, currency=currency, country=region,
            phase=phase, base_plan=(items[0].get("offerDetails") or {}).get("basePlanId", "monthly"),
            # A first order's period began with the subscription; a renewal's (`..N`) about now.
            period_start=None if ".." in order_id else resource.get("startTime"),
            created=None if ".." in order_id else resource.get("startTime"), period_end=items[0].get("expiryTime"))

    def put_order(self, package: str, order_id: str, resource: dict | None = None, **fields: Any) -> dict:
        """Stores what Google charged for an order: `resource` as given, else `order(order_id, **fields)` (which
        needs `token`). Returns a copy."""
        stored = copy.deepcopy(resource) if resource is not None else order(order_id, **fields)
        with self._changed:
            self._packages.setdefault(package, _Package()).orders[order_id] = stored
            self._changed.notify_all()
            return copy.deepcopy(stored)

    def get_order(self, package: str, order_id: str) -> dict | None:
        with self._lock:
            found = self._packages.get(package, _Package()).orders.get(order_id)
            return copy.deepcopy(found) if found is not None else None

    def get_subscription(self, package: str, token: str) -> dict | None:
        with self._lock:
            found = self._packages.get(package, _Package()).subscriptions.get(token)
            return copy.deepcopy(found) if found is not None else None

    def get_product(self, package: str, token: str) -> dict | None:
        with self._lock:
            found = self._packages.get(package, _Package()).products.get(token)
            return copy.deepcopy(found) if found is not None else None

    def void(
        self,
        token: str,
        order_id: str | None = None,
        product_type: int | None = None,
        voided_time: Any = None,
        source: int = 0,
        reason: int = 0,
        quantity: int | None = None,
        package: str | None = None,
        revoke: bool = True,
        purchase_time: Any = None,
    ) -> VoidedPurchase:
        """Records a voided purchase (refund, chargeback, cancellation with revoke), which `voidedpurchases.list` then
        returns. The purchase is looked up by token (in `package`, or any); `product_type` (1 subscription, 2 one-time),
        `order_id` and the purchase time default to the stored purchase's. `quantity` makes it a quantity-based partial
        refund (listed only with includeQuantityBasedPartialRefund). With `revoke`, the purchase itself changes as
        Google revokes it: a product becomes purchaseState 1, a subscription EXPIRED now with auto-renew off."""
        voided = _optional_time(voided_time) or utcnow()
        with self._changed:
            names = [package] if package is not None else list(self._packages)
            found_package, sub, prod = package, None, None
            for name in names:
                state = self._packages.get(name)
                if state and (token in state.subscriptions or token in state.products):
                    found_package, sub, prod = name, state.subscriptions.get(token), state.products.get(token)
                    break
            if found_package is None:
                raise KeyError(f"no purchase with token {token!r}: pass package= to void an unknown one")
            if product_type is None:
                product_type = ProductType.SUBSCRIPTION if sub is not None else ProductType.ONE_TIME
            if sub is not None:
                bought = to_datetime(sub.get("startTime") or rfc3339(voided))
                order_id = order_id or sub.get("latestOrderId") or new_order_id()
            elif prod is not None:
                bought = from_millis(int(prod["purchaseTimeMillis"]))
                order_id = order_id or prod.get("orderId") or new_order_id()
            else:
                bought, order_id = voided, order_id or new_order_id()
            if purchase_time is not None:
                bought = to_datetime(purchase_time)
            record = VoidedPurchase(found_package, token, order_id, int(product_type), bought, voided, int(source),
                                    int(reason), quantity)
            self._packages.setdefault(found_package, _Package()).voided.append(record)
            charged = self._packages[found_package].orders.get(order_id)
            if revoke and charged is not None:
                _refund_order(charged, voided, quantity, prod)
            if revoke and quantity is None:
                if prod is not None:
                    prod["purchaseState"] = 1
                    prod["refundableQuantity"] = 0
                if sub is not None:
                    sub["subscriptionState"] = "SUBSCRIPTION_STATE_EXPIRED"
                    sub.pop("pausedStateContext", None)
                    sub["canceledStateContext"] = {"developerInitiatedCancellation": {}}
                    for item in sub.get("lineItems", []):
                        item["expiryTime"] = rfc3339(min(voided, utcnow()))
                        if "autoRenewingPlan" in item:
                            item["autoRenewingPlan"]["autoRenewEnabled"] = False
            self._changed.notify_all()
            return copy.deepcopy(record)

    def acknowledgements_of(self, token: str) -> list[Acknowledgement]:
        with self._lock:
            return [ack for ack in self.acknowledgements if ack.token == token]

    # ---- requests and faults

    def requests(self, method: str | None = None, path: str | None = None) -> list[Request]:
        """The requests received (control API ones excepted), in the order they were answered; `path` is a regular
        expression searched in the path (without the query)."""
        pattern = re.compile(path) if path else None
        with self._lock:
            return [r for r in self._requests
                    if (method is None or r.method == method) and (pattern is None or pattern.search(r.path))]

    def wait_for_requests(
        self, method: str | None, path: str | None, count: int = 1, timeout: float = 10.0
    ) -> list[Request]:
        """Blocks until at least `count` matching requests have been answered (or dropped); raises TimeoutError."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = self.requests(method, path)
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"{len(found)} of {count} {method or ''} {path or ''} requests in {timeout}s")
                self._changed.wait(remaining)

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def _add_rule(self, rule: _Rule) -> None:
        with self._lock:
            self._rules.append(rule)

    def fail_next(
        self, method: str | None, path_regex: str, status: int, count: int = 1,
        headers: dict[str, str] | list[tuple[str, str]] | None = None, body: Any = None,
    ) -> None:
        """The next `count` matching requests get `status` with `headers` and `body` (a dict is sent as JSON, bytes or
        str as they are; None: Google's body for that status) instead of their answer. Rules apply in the order
        added; `method` None matches any."""
        pairs = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
        self._add_rule(_Rule("fail", method, re.compile(path_regex), count, status=status, headers=pairs, body=body))

    def drop_next(self, method: str | None, path_regex: str, count: int = 1, reset: bool = False) -> None:
        """The next `count` matching requests are read and the connection closed without an answer (`reset`: with
        an RST rather than a FIN), as an unreachable or failing proxy would."""
        self._add_rule(_Rule("drop", method, re.compile(path_regex), count, reset=reset))

    def delay_next(self, method: str | None, path_regex: str, seconds: float, count: int = 1) -> None:
        """The next `count` matching requests are answered only after `seconds` (to exercise client timeouts)."""
        self._add_rule(_Rule("delay", method, re.compile(path_regex), count, seconds=seconds))

    def clear_faults(self) -> None:
        with self._lock:
            self._rules.clear()

    def _take_rule(self, request: Request) -> _Rule | None:
        with self._lock:
            for rule in self._rules:
                if rule.matches(request):
                    rule.count -= 1
                    if rule.count <= 0:
                        self._rules.remove(rule)
                    return rule
        return None

    # ---- Pub/Sub push signing

    @property
    def push_kids(self) -> list[str]:
        with self._lock:
            return [kid for kid, _, _ in self._push_keys]

    def rotate_push_key(self) -> str:
        """Adds a signing key (newest first in the JWKS, and the default signer from now on); returns its kid."""
        key = new_rsa_key()
        kid = secrets.token_hex(20)
        certificate = self_signed_certificate(key, "fake-google-oidc")
        with self._lock:
            self._push_keys.insert(0, (kid, key, certificate))
        return kid

    def retire_push_key(self, kid: str) -> None:
        """Removes a key from the JWKS: tokens it signed no longer verify."""
        with self._lock:
            self._push_keys = [entry for entry in self._push_keys if entry[0] != kid]

    def push_key(self, kid: str | None = None) -> rsa.RSAPrivateKey:
        with self._lock:
            for entry_kid, key, _ in self._push_keys:
                if kid is None or entry_kid == kid:
                    return key
        raise KeyError(kid)

    def jwks(self) -> dict:
        with self._lock:
            return {"keys": [jwk(key, kid) for kid, key, _ in self._push_keys]}

    def mint_push_token(
        self,
        audience: str | None,
        email: str | None,
        email_verified: bool | None = True,
        issuer: str | None = GOOGLE_ISSUER,
        lifetime: int = 3600,
        kid: str | None = None,
        key: rsa.RSAPrivateKey | None = None,
        iat: int | None = None,
        exp: int | None = None,
        extra_claims: dict | None = None,
    ) -> str:
        """The OIDC token Pub/Sub puts in `Authorization: Bearer` for an authenticated push: RS256 by the current push
        key (or `kid`'s, or any `key` to sign with a key the JWKS lacks), claims aud, azp, email, email_verified,
        exp, iat, iss, sub. Every value may be made wrong on purpose; a None claim is left out."""
        signing_kid = kid if kid is not None else self.push_kids[0]
        if key is None:
            key = self.push_key(signing_kid if kid is None or kid in self.push_kids else None)
        issued = int(time.time()) if iat is None else iat
        subject = str(int(hashlib.sha256((email or "").encode()).hexdigest(), 16) % 10**21)
        claims: dict[str, Any] = {
            "aud": audience, "azp": subject, "email": email, "email_verified": email_verified,
            "exp": issued + lifetime if exp is None else exp, "iat": issued, "iss": issuer, "sub": subject,
        }
        claims = {name: value for name, value in claims.items() if value is not None}
        claims.update(extra_claims or {})
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": signing_kid, "typ": "JWT"})

    # ---- dispatch

    def _dispatch(self, request: Request) -> Response | _Drop:
        if request.path.startswith("/_fake/"):
            return self._control(request)
        rule = self._take_rule(request)
        answer: Response | _Drop
        if rule is not None and rule.action == "drop":
            answer = _Drop(rule.reset)
        elif rule is not None and rule.action == "fail":
            answer = self._fault_answer(request, rule)
        else:
            if rule is not None and rule.action == "delay":
                self._closing.wait(rule.seconds)
            try:
                answer = self._route(request)
            except GoogleHTTPError as error:
                answer = json_response(error.status, error.body, error.headers)
        with self._changed:
            request.status = None if isinstance(answer, _Drop) else answer[0]
            self._requests.append(request)
            self._changed.notify_all()
        return answer

    def _fault_answer(self, request: Request, rule: _Rule) -> Response:
        body = rule.body
        if body is None:
            if request.path == "/token":
                body = oauth_error("invalid_grant" if rule.status == 400 else "internal_failure", "Backend Error")
            else:
                body = default_error(rule.status)
        headers = list(rule.headers)
        if rule.status == 401 and not any(name.lower() == "www-authenticate" for name, _ in headers):
            headers.append(("WWW-Authenticate", WWW_AUTHENTICATE))
        if isinstance(body, (dict, list)):
            return json_response(rule.status, body, headers)
        raw = body.encode() if isinstance(body, str) else bytes(body)
        if not any(name.lower() == "content-type" for name, _ in headers):
            headers.insert(0, ("Content-Type", "text/plain; charset=UTF-8"))
        return rule.status, headers, raw

    def _route(self, request: Request) -> Response:
        path, method = request.path, request.method
        if path == "/token" and method == "POST":
            return self._token(request)
        if path == "/oauth2/v3/certs" and method == "GET":
            return json_response(200, self.jwks(), self._certs_headers())
        if path == "/oauth2/v1/certs" and method == "GET":
            with self._lock:
                certificates = {kid: certificate for kid, _, certificate in self._push_keys}
            return json_response(200, certificates, self._certs_headers())
        if path.startswith("/robot/v1/metadata/x509/") and method == "GET":
            account = self.account(unquote(path.rsplit("/", 1)[1]))
            if account is None:
                return not_found_page(path)
            return json_response(200, {account.private_key_id: self_signed_certificate(account.key, account.email)})
        if path == "/.well-known/openid-configuration" and method == "GET":
            return json_response(200, {
                "issuer": GOOGLE_ISSUER, "jwks_uri": self.jwks_url, "token_endpoint": self.token_uri,
                "id_token_signing_alg_values_supported": ["RS256"], "response_types_supported": ["id_token"],
                "subject_types_supported": ["public"],
            })
        if path.startswith(API_PREFIX):
            return self._api(request)
        return not_found_page(path)

    def _certs_headers(self) -> list[tuple[str, str]]:
        return [("Cache-Control", f"public, max-age={self.jwks_max_age}, must-revalidate, no-transform")]

    # ---- token endpoint

    def _token(self, request: Request) -> Response:
        form = parse_qs(request.body.decode("utf-8", "replace"), keep_blank_values=True)
        grant_type = (form.get("grant_type") or [""])[0]
        if grant_type != JWT_BEARER:
            return self._oauth_failure("unsupported_grant_type", f"Invalid grant_type: {grant_type}")
        assertion = (form.get("assertion") or [""])[0]
        if not assertion:
            return self._oauth_failure("invalid_request", "Missing required parameter: assertion")
        try:
            header = jwt.get_unverified_header(assertion)
            claims = jwt.decode(assertion, options={"verify_signature": False})
        except jwt.PyJWTError:
            return self._oauth_failure("invalid_grant", "Invalid JWT: the assertion is not a signed JWT.")
        account = self.account(claims.get("iss")) if isinstance(claims.get("iss"), str) else None
        if account is None:
            return self._oauth_failure("invalid_grant", "Invalid grant: account not found")
        if header.get("alg") != "RS256" or header.get("kid") != account.private_key_id:
            return self._oauth_failure("invalid_grant", "Invalid JWT Signature.")
        try:
            # The signature alone, by an implementation independent of the signer's; the claims are checked below.
            jwt.PyJWS().decode(assertion, key=account.key.public_key(), algorithms=["RS256"])
        except jwt.PyJWTError:
            return self._oauth_failure("invalid_grant", "Invalid JWT Signature.")
        if claims.get("aud") not in self.accepted_audiences:
            return self._oauth_failure(
                "invalid_grant", f"Invalid JWT: Failed audience check. The right audience is {self.token_uri}"
            )
        now = time.time()
        iat, exp = claims.get("iat"), claims.get("exp")
        if (
            not isinstance(iat, (int, float)) or not isinstance(exp, (int, float))
            or exp <= now or exp - iat > ASSERTION_MAX_LIFETIME or exp <= iat
            or iat > now + ASSERTION_FUTURE_LEEWAY or iat < now - ASSERTION_PAST_LEEWAY
        ):
            return self._oauth_failure(
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your "
                "iat and exp values in the JWT claim.",
            )
        if "sub" in claims and claims["sub"] != account.email:
            return self._oauth_failure(
                "unauthorized_client",
                "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any "
                "of the scopes requested.",
            )
        scopes = str(claims.get("scope") or "").split()
        if not scopes or not all(scope.startswith("https://www.googleapis.com/auth/") for scope in scopes):
            return self._oauth_failure("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        grant = Grant(
            access_token="ya29.fake-" + secrets.token_urlsafe(48), account=account, scopes=scopes,
            issued_at=now, expires_at=now + self.expires_in, claims=claims,
        )
        with self._lock:
            self._grants[grant.access_token] = grant
            self.grants.append(grant)
        return json_response(
            200, {"access_token": grant.access_token, "expires_in": self.expires_in, "token_type": "Bearer"},
            [("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate"), ("Pragma", "no-cache")],
        )

    @staticmethod
    def _oauth_failure(error: str, description: str) -> Response:
        return json_response(400, oauth_error(error, description), [("Cache-Control", "no-store")])

    # ---- Play Developer API

    _API_ROUTES: list[tuple[str, re.Pattern, str]] = [
        ("GET", re.compile(r"purchases/subscriptionsv2/tokens/([^/:]+)"), "_get_subscription"),
        ("POST", re.compile(r"purchases/subscriptions/([^/]+)/tokens/([^/:]+):acknowledge"),
         "_acknowledge_subscription"),
        ("GET", re.compile(r"purchases/products/([^/]+)/tokens/([^/:]+)"), "_get_product"),
        ("POST", re.compile(r"purchases/products/([^/]+)/tokens/([^/:]+):acknowledge"), "_acknowledge_product"),
        ("POST", re.compile(r"purchases/products/([^/]+)/tokens/([^/:]+):consume"), "_consume_product"),
        ("GET", re.compile(r"purchases/voidedpurchases"), "_list_voided"),
        ("GET", re.compile(r"orders/([^/:]+)"), "_get_order"),
    ]

    def _api(self, request: Request) -> Response:
        match = re.fullmatch(r"([^/]+)/((?:purchases|orders)/.+)", request.path[len(API_PREFIX):])
        if match is None:
            return not_found_page(request.path)
        package, rest = unquote(match.group(1)), match.group(2)
        for method, pattern, handler_name in self._API_ROUTES:
            route = pattern.fullmatch(rest)
            if route is not None and method == request.method:
                break
        else:
            return not_found_page(request.path)
        self._authorize(request, package)
        with self._lock:
            state = self._packages.get(package)
            if state is None:
                raise GoogleHTTPError(404, google_error(
                    404, "No application was found for the given package name.", "applicationNotFound",
                    location="packageName",
                ))
            handler: Callable[..., Response] = getattr(self, handler_name)
            return handler(request, package, state, *(unquote(group) for group in route.groups()))

    def _authorize(self, request: Request, package: str) -> Grant:
        authorization = request.header("Authorization")
        token = request.param("access_token")
        if authorization is not None:
            scheme, _, value = authorization.partition(" ")
            token = value.strip() if scheme.lower() == "bearer" else None
        elif token is None:
            raise GoogleHTTPError(401, missing_credentials(), [("WWW-Authenticate", WWW_AUTHENTICATE)])
        with self._lock:
            grant = self._grants.get(token or "")
            if grant is None or grant.expires_at <= time.time():
                raise GoogleHTTPError(
                    401, invalid_credentials(), [("WWW-Authenticate", WWW_AUTHENTICATE + ', error="invalid_token"')]
                )
            if ANDROIDPUBLISHER_SCOPE not in grant.scopes:
                raise GoogleHTTPError(403, insufficient_scopes(), [(
                    "WWW-Authenticate",
                    WWW_AUTHENTICATE + f', error="insufficient_scope", scope="{ANDROIDPUBLISHER_SCOPE}"',
                )])
            if not grant.account.may_access(package):
                raise GoogleHTTPError(401, insufficient_permissions())
            return grant

    def _get_subscription(self, request: Request, package: str, state: _Package, token: str) -> Response:
        resource = state.subscriptions.get(token)
        if resource is None:
            if token in state.products:
                raise GoogleHTTPError(400, google_error(
                    400, "Your request is invalid for this subscription purchase.", "subscriptionInvalidArgument",
                    domain="androidpublisher",
                ))
            raise GoogleHTTPError(400, invalid_value())
        if resource.get("subscriptionState") == "SUBSCRIPTION_STATE_EXPIRED":
            items = resource.get("lineItems", [])
            expiries = [to_datetime(item["expiryTime"]) for item in items if "expiryTime" in item]
            if expiries and max(expiries) <= utcnow() - EXPIRED_QUERY_LIMIT:
                message = (
                    "The subscription purchase is no longer available for query because it has been expired for too "
                    "long."
                )
                raise GoogleHTTPError(410, google_error(
                    410, message, "subscriptionPurchaseNoLongerAvailable", domain="androidpublisher", status=None
                ))
        return json_response(200, resource)

    def _get_order(self, request: Request, package: str, state: _Package, order_id: str) -> Response:
        resource = state.orders.get(order_id)
        if resource is None:
            raise GoogleHTTPError(404, google_error(404, "Order not found.", "notFound"))
        return json_response(200, resource)

    def _get_product(self, request: Request, package: str, state: _Package, product_id: str, token: str) -> Response:
        return json_response(200, self._product_for(state, product_id, token))

    @staticmethod
    def _product_for(state: _Package, product_id: str, token: str) -> dict:
        resource = state.products.get(token)
        if resource is None or resource.get("productId", product_id) != product_id:
            raise GoogleHTTPError(400, invalid_value())
        return resource

    @staticmethod
    def _request_body(request: Request, allowed: set[str]) -> dict:
        """The optional JSON body, checked as Google's front end does: valid JSON, an object, known fields only."""
        if not request.body.strip():
            return {}
        try:
            body = json.loads(request.body)
        except ValueError as error:
            raise GoogleHTTPError(400, google_error(400, f"Invalid JSON payload received. {error}", "invalid"))
        if not isinstance(body, dict):
            raise GoogleHTTPError(400, google_error(
                400, "Invalid JSON payload received. Expected an object.", "invalid"
            ))
        for name in body:
            if name not in allowed:
                raise GoogleHTTPError(400, google_error(
                    400, f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.', "invalid"
                ))
        return body

    def _acknowledged(
        self, request: Request, package: str, kind: str, product_id: str, token: str, payload: str | None
    ) -> Response:
        self.acknowledgements.append(Acknowledgement(package, kind, product_id, token, payload, time.time()))
        self._changed.notify_all()
        return self.acknowledge_status, [JSON_TYPE], b""

    def _acknowledge_subscription(
        self, request: Request, package: str, state: _Package, subscription_id: str, token: str
    ) -> Response:
        body = self._request_body(request, {"developerPayload", "externalAccountIds"})
        resource = state.subscriptions.get(token)
        if resource is None:
            raise GoogleHTTPError(400, invalid_value())
        if subscription_id not in {item.get("productId") for item in resource.get("lineItems", [])}:
            raise GoogleHTTPError(400, invalid_value())
        if resource.get("subscriptionState") in (
            "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
        ):
            raise GoogleHTTPError(400, _invalid_purchase_state())
        if resource.get("acknowledgementState") == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED":
            if self.reacknowledge != "ok":
                raise GoogleHTTPError(400, google_error(
                    400, "The subscription purchase is not owned by the user.", "subscriptionNotOwnedByUser",
                    domain="androidpublisher",
                ))
        resource["acknowledgementState"] = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
        # "This field will be removed after you acknowledge the subscription." (SubscriptionPurchaseV2 reference)
        resource.pop("outOfAppPurchaseContext", None)
        ids = body.get("externalAccountIds") or {}
        linked = _account_identifiers(ids.get("obfuscatedAccountId"), ids.get("obfuscatedProfileId"))
        if linked:
            resource.setdefault("externalAccountIdentifiers", {}).update(linked)
        return self._acknowledged(request, package, "subscription", subscription_id, token,
                                  body.get("developerPayload"))

    def _acknowledge_product(
        self, request: Request, package: str, state: _Package, product_id: str, token: str
    ) -> Response:
        body = self._request_body(request, {"developerPayload"})
        resource = self._product_for(state, product_id, token)
        if resource.get("purchaseState") != 0:
            raise GoogleHTTPError(400, _invalid_purchase_state())
        if resource.get("acknowledgementState") == 1 and self.reacknowledge != "ok":
            raise GoogleHTTPError(400, google_error(
                400, "The product purchase is not owned by the user.", "productNotOwnedByUser",
                domain="androidpublisher",
            ))
        resource["acknowledgementState"] = 1
        if "developerPayload" in body:
            resource["developerPayload"] = body["developerPayload"]
        return self._acknowledged(request, package, "product", product_id, token, body.get("developerPayload"))

    def _consume_product(
        self, request: Request, package: str, state: _Package, product_id: str, token: str
    ) -> Response:
        resource = self._product_for(state, product_id, token)
        if resource.get("purchaseState") != 0 or resource.get("consumptionState") == 1:
            raise GoogleHTTPError(400, _invalid_purchase_state())
        resource["consumptionState"] = 1
        resource["acknowledgementState"] = 1
        self._changed.notify_all()
        return self.acknowledge_status, [JSON_TYPE], b""

    def _list_voided(self, request: Request, package: str, state: _Package) -> Response:
        def param(name: str) -> str | None:
            value = request.param(name)
            return value if value is not None else request.param(f"pageSelection.{name}")

        def integer(name: str, default: int) -> int:
            value = param(name)
            if value is None or value == "":
                return default
            try:
                return int(value)
            except ValueError:
                raise _invalid(f"Invalid value at '{name}' (TYPE_INT64), \"{value}\"")

        for name in request.query:
            if name not in VOIDED_LIST_PARAMETERS and name not in SYSTEM_PARAMETERS:
                raise _invalid(f"Invalid JSON payload received. Unknown name \"{name}\": Cannot bind query parameter. "
                               f"Field '{name}' could not be found in request message.")
        now = utcnow()
        max_results = integer("maxResults", VOIDED_MAX_RESULTS)
        if max_results <= 0:
            raise _invalid()
        max_results = min(max_results, VOIDED_MAX_RESULTS)
        page_token = param("token")
        if page_token:
            cursor = self._page_tokens.get(page_token)
            if cursor is None or cursor["package"] != package:
                raise _invalid()
            start, end, kind, partial, offset = (cursor["start"], cursor["end"], cursor["type"], cursor["partial"],
                                                 cursor["offset"])
        else:
            start = from_millis(integer("startTime", millis(now - VOIDED_WINDOW)))
            end = from_millis(integer("endTime", millis(now)))
            kind = integer("type", 0)
            partial = (request.param("includeQuantityBasedPartialRefund") or "false").lower() == "true"
            offset = 0
            if start < now - VOIDED_WINDOW - VOIDED_CLOCK_LEEWAY:
                raise _invalid("startTime must not be older than 30 days.")
            if end > now + VOIDED_CLOCK_LEEWAY:
                raise _invalid("endTime must not be in the future.")
            if start > end:
                raise _invalid("startTime must not be after endTime.")
            if kind not in (0, 1):
                raise _invalid()
        matching = sorted(
            (record for record in state.voided
             if start <= record.voided_time <= end
             and (kind == 1 or record.product_type == ProductType.ONE_TIME)
             and (partial or record.quantity is None)),
            key=lambda record: record.voided_time,
        )
        page = matching[offset:offset + max_results]
        answer: dict[str, Any] = {}
        if offset + max_results < len(matching):
            next_token = secrets.token_urlsafe(24)
            self._page_tokens[next_token] = {"package": package, "start": start, "end": end, "type": kind,
                                             "partial": partial, "offset": offset + max_results}
            answer["tokenPagination"] = {"nextPageToken": next_token}
        if page:
            answer["voidedPurchases"] = [record.resource() for record in page]
        return json_response(200, answer)

    # ---- control API

    def _control(self, request: Request) -> Response:
        try:
            return self._control_route(request)
        except (KeyError, ValueError, TypeError) as error:
            return json_response(400, {"error": f"{type(error).__name__}: {error}"})

    def _control_route(self, request: Request) -> Response:
        method, parts = request.method, [unquote(part) for part in request.path.split("/")[2:]]
        body = request.json() if request.body.strip() else {}
        if parts == ["state"] and method == "GET":
            with self._lock:
                packages = {name: {"subscriptions": sorted(p.subscriptions), "products": sorted(p.products),
                                   "voided": len(p.voided)} for name, p in self._packages.items()}
                return json_response(200, {
                    "base_url": self.base_url, "token_uri": self.token_uri, "jwks_url": self.jwks_url,
                    "accounts": [{"client_email": a.email, "granted": a.granted} for a in self._accounts],
                    "packages": packages, "token_grants": len(self.grants), "push_kids": self.push_kids,
                })
        if parts == ["service-accounts"]:
            if method == "GET":
                return json_response(200, [account.describe(self.base_url) for account in self.service_accounts])
            if method == "POST":
                account = self.add_service_account(
                    body["name"], body.get("granted", True), body.get("packages"), body.get("project_id")
                )
                return json_response(200, account.describe(self.base_url))
        if len(parts) == 3 and parts[0] == "service-accounts" and parts[2] == "granted" and method == "POST":
            self.set_granted(parts[1], bool(body["granted"]))
            return json_response(200, self.account(parts[1]).describe(self.base_url))
        if len(parts) == 4 and parts[0] == "applications" and parts[2] == "orders":
            if method == "PUT":
                fields = {name: value for name, value in body.items() if name != "resource"}
                return json_response(200, self.put_order(parts[1], parts[3], body.get("resource"), **fields))
            if method == "GET":
                found = self.get_order(parts[1], parts[3])
                return json_response(200, found) if found is not None else json_response(404, {"error": "not found"})
        if len(parts) == 4 and parts[0] == "applications" and parts[2] in ("subscriptions", "products"):
            package, kind, token = parts[1], parts[2], parts[3]
            if method == "PUT":
                fields = {name: value for name, value in body.items() if name != "resource"}
                if kind == "subscriptions":
                    return json_response(200, self.put_subscription(package, token, body.get("resource"), **fields))
                return json_response(200, self.put_product(package, token, body.get("resource"), **fields))
            if method == "GET":
                found = (self.get_subscription if kind == "subscriptions" else self.get_product)(package, token)
                return json_response(200, found) if found is not None else json_response(404, {"error": "not found"})
        if len(parts) == 3 and parts[0] == "applications" and parts[2] == "voided" and method == "POST":
            record = self.void(
                body["token"], body.get("order_id"), body.get("product_type"), body.get("voided_time"),
                body.get("source", 0), body.get("reason", 0), body.get("quantity"), package=parts[1],
                revoke=body.get("revoke", True), purchase_time=body.get("purchase_time"),
            )
            return json_response(200, record.resource())
        if parts == ["faults"]:
            if method == "DELETE":
                self.clear_faults()
                return json_response(200, {})
            if method == "POST":
                action, count = body.get("action", "fail"), int(body.get("count", 1))
                if action == "fail":
                    self.fail_next(body.get("method"), body["path"], int(body["status"]), count,
                                   body.get("headers"), body.get("body"))
                elif action == "drop":
                    self.drop_next(body.get("method"), body["path"], count, bool(body.get("reset", False)))
                elif action == "delay":
                    self.delay_next(body.get("method"), body["path"], float(body["seconds"]), count)
                else:
                    raise ValueError(f"unknown action {action!r}: fail, drop or delay")
                return json_response(200, {})
        if parts == ["outage"] and method == "POST":
            seconds = float(body["seconds"])

            def outage() -> None:
                self.stop_listening()
                if not self._closing.wait(seconds):
                    self.start_listening()

            # Started once this answer has been sent, so cutting the connections does not cut the answer.
            request.after = lambda: threading.Thread(target=outage, name="fake-google-outage", daemon=True).start()
            return json_response(200, {"seconds": seconds})
        if parts == ["requests"]:
            if method == "GET":
                found = self.requests(request.param("method"), request.param("path"))
                return json_response(200, [entry.describe() for entry in found])
            if method == "DELETE":
                self.clear_requests()
                return json_response(200, {})
        if parts == ["acknowledgements"] and method == "GET":
            with self._lock:
                return json_response(200, [ack.describe() for ack in self.acknowledgements])
        if parts == ["tokens", "expire"] and method == "POST":
            self.expire_tokens()
            return json_response(200, {})
        if parts == ["tokens"] and method == "POST":
            return json_response(200, {"access_token": self.grant_access_token()})
        if parts == ["push-keys", "rotate"] and method == "POST":
            return json_response(200, {"kid": self.rotate_push_key()})
        if parts == ["push-token"] and method == "POST":
            return json_response(200, {"token": self._push_token_from(body)})
        if parts == ["rtdn"] and method == "POST":
            return json_response(200, self._rtdn(body))
        return json_response(404, {"error": f"no control endpoint {method} {request.path}"})

    def _push_token_from(self, body: dict) -> str:
        return self.mint_push_token(
            body["audience"], body["email"], body.get("email_verified", True), body.get("issuer", GOOGLE_ISSUER),
            int(body.get("lifetime", 3600)),
        )

    def _rtdn(self, body: dict) -> dict:
        package = body.get("package", DEFAULT_PACKAGE)
        if "subscription" in body:
            spec = body["subscription"]
            data = subscription_notification(package, spec["token"], int(spec["type"]), spec.get("event_time"),
                                             spec.get("subscription_id"))
        elif "one_time_product" in body:
            spec = body["one_time_product"]
            data = one_time_product_notification(package, spec["token"], spec["sku"], int(spec.get("type", 1)),
                                                 spec.get("event_time"))
        elif "voided" in body:
            spec = body["voided"]
            data = voided_purchase_notification(package, spec["token"], spec["order_id"], int(spec["product_type"]),
                                                int(spec.get("refund_type", 1)), spec.get("event_time"))
        elif "test" in body:
            data = test_notification(package)
        else:
            raise ValueError("one of subscription, one_time_product, voided, test")
        answer: dict[str, Any] = {"data": data, "body": push_envelope(
            data, body.get("message_id"), body.get("subscription_name", "projects/p/subscriptions/s")
        )}
        if body.get("audience") and body.get("email"):
            answer["authorization"] = "Bearer " + self._push_token_from(body)
        return answer


def _invalid_purchase_state() -> dict:
    return google_error(
        400, "The purchase is not in a valid state to perform the desired operation.", "invalidPurchaseState",
        domain="androidpublisher", location="token",
    )


# --------------------------------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A local fake of Google's Play Developer API and OAuth endpoints.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (the JSON line says which)")
    parser.add_argument("--service-account-out", type=Path,
                        help="where to write the granted service account's JSON key")
    parser.add_argument("--service-account-in", type=Path,
                        help="use this existing JSON key file's account instead (its token_uri must name this fake)")
    parser.add_argument("--extra-service-account", type=Path, action="append", default=[],
                        help="write another granted account's key here (repeatable)")
    parser.add_argument("--ungranted-service-account", type=Path,
                        help="write the key of an account Play Console has not granted (its calls get 401)")
    parser.add_argument("--package", action="append", default=[], help="an app the fake knows (repeatable)")
    parser.add_argument("--tls-cert", type=Path)
    parser.add_argument("--tls-key", type=Path)
    parser.add_argument("--expires-in", type=int, default=3599, help="access token lifetime in seconds")
    args = parser.parse_args(argv)
    if (args.tls_cert is None) != (args.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    if (args.service_account_out is None) == (args.service_account_in is None):
        parser.error("give one of --service-account-out and --service-account-in")

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    tls = (args.tls_cert, args.tls_key) if args.tls_cert else None
    fake = FakeGoogle(args.host, args.port, tls=tls, expires_in=args.expires_in)
    try:
        for package in args.package or [DEFAULT_PACKAGE]:
            fake.add_package(package)
        if args.service_account_in:
            fake.use_service_account(json.loads(args.service_account_in.read_text()))
            accounts = {"service_account": str(args.service_account_in)}
        else:
            fake.write_service_account(args.service_account_out)
            accounts = {"service_account": str(args.service_account_out)}
        for index, path in enumerate(args.extra_service_account, start=2):
            fake.write_service_account(path, fake.add_service_account(f"entitlementd-{index}"))
        if args.ungranted_service_account:
            ungranted = fake.add_service_account("entitlementd-ungranted", granted=False)
            fake.write_service_account(args.ungranted_service_account, ungranted)
        print(json.dumps({
            "base_url": fake.base_url, "token_uri": fake.token_uri, "jwks_url": fake.jwks_url,
            "client_email": fake.service_account.email, **accounts,
        }), flush=True)
        stop.wait()
    finally:
        fake.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
