"""A stand-in for Stripe's API on a loopback port, and Stripe objects, events and signatures as Stripe makes them.

`FakeStripe` serves the GETs entitlementd makes when a tenant has an API key (`api_key_file` + `api_base_url`):

    GET /v1/subscriptions/{id}
    GET /v1/checkout/sessions/{id}      (with `expand[]=line_items`: the session's `line_items` list)
    GET /v1/invoices/{id}
    GET /v1/charges/{id}
    GET /v1/disputes/{id}

Tests put objects first (`put_subscription(...)`, ...), as Stripe would hold them, then post the event. Requests need
`Authorization: Bearer <the fake's key>` (else 401 as Stripe answers it), unknown IDs get Stripe's 404
`resource_missing` error; every request is recorded (`requests`, `requests_to(path)`) so tests can assert what the
server sent. `fail(n, status)` answers the next n matching requests with a 5xx; `down()` closes every connection
without an answer until `up()`.

The builders below make objects in the shapes of API version 2026-10-28.endive (stripe-python 16.1.0's pinned
version): a subscription's billing period on `items.data[]`, an invoice's subscription at
`parent.subscription_details.subscription` and its payment intents at `payments.data[].payment.payment_intent`.
Signatures are made by stripe-python itself (`sign`) or by hand (`signature_header`) for the cases stripe-python
cannot make (several `v1`, a `v0`, a wrong secret).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import stripe

API_VERSION = "2026-10-28.endive"
DAY = 86_400


def new_id(prefix: str) -> str:
    """A Stripe-looking ID: the object's prefix and 24 random letters and digits."""
    return f"{prefix}_" + secrets.token_hex(12)


def new_webhook_secret() -> str:
    return "whsec_" + secrets.token_hex(16)


def new_api_key() -> str:
    return "sk_test_" + secrets.token_hex(24)


def now() -> int:
    return int(time.time())


# --------------------------------------------------------------------------------------------------
# Objects


def price(price_id: str, product: str = "prod_default", recurring: bool = True) -> dict:
    return {
        "id": price_id, "object": "price", "active": True, "currency": "usd", "product": product,
        "type": "recurring" if recurring else "one_time", "unit_amount": 999,
        "recurring": {"interval": "month", "interval_count": 1} if recurring else None,
    }


def subscription(*, price_id: str, product: str = "prod_default", status: str = "active", sub_id: str | None = None,
                 customer: str | None = None, period_start: int | None = None, period_end: int | None = None,
                 cancel_at_period_end: bool = False, cancel_at: int | None = None, canceled_at: int | None = None,
                 ended_at: int | None = None, metadata: dict | None = None, latest_invoice: str | None = None,
                 livemode: bool = False, legacy_period: bool = False) -> dict:
    """A Subscription. `legacy_period` puts the period on the subscription itself (API versions before 2025-03-31)
    instead of on its item."""
    start = period_start if period_start is not None else now() - 60
    end = period_end if period_end is not None else start + 30 * DAY
    item = {
        "id": new_id("si"), "object": "subscription_item", "price": price(price_id, product), "quantity": 1,
    }
    sub = {
        "id": sub_id or new_id("sub"), "object": "subscription", "status": status,
        "customer": customer or new_id("cus"), "cancel_at_period_end": cancel_at_period_end, "cancel_at": cancel_at,
        "canceled_at": canceled_at, "ended_at": ended_at, "created": start, "start_date": start,
        "trial_end": end if status == "trialing" else None, "currency": "usd",
        "items": {"object": "list", "data": [item], "has_more": False, "url": "/v1/subscription_items"},
        "latest_invoice": latest_invoice or new_id("in"), "livemode": livemode, "metadata": dict(metadata or {}),
    }
    if legacy_period:
        sub["current_period_start"], sub["current_period_end"] = start, end
    else:
        item["current_period_start"], item["current_period_end"] = start, end
    return sub


def checkout_session(*, mode: str, session_id: str | None = None, payment_status: str = "paid",
                     client_reference_id: str | None = None, metadata: dict | None = None,
                     customer: str | None = None, subscription_id: str | None = None,
                     payment_intent: str | None = None, invoice: str | None = None, line_items: list | None = None,
                     livemode: bool = False, created: int | None = None, amount_total: int = 999, tax: int = 0,
                     discount: int = 0, country: str | None = None, currency: str = "usd") -> dict:
    """A Checkout Session as a webhook carries it (no `line_items`); `line_items` (prices) only where the API was
    asked to expand them (FakeStripe adds them for `expand[]=line_items`). `amount_total` includes `tax`, less
    `discount`; `country` is the buyer's billing address's."""
    session = {
        "id": session_id or new_id("cs_test"), "object": "checkout.session", "mode": mode, "status": "complete",
        "payment_status": payment_status, "client_reference_id": client_reference_id, "metadata": dict(metadata or {}),
        "customer": customer, "subscription": subscription_id, "payment_intent": payment_intent, "invoice": invoice,
        "created": created if created is not None else now(), "livemode": livemode, "currency": currency,
        "amount_total": amount_total,
        "total_details": {"amount_discount": discount, "amount_shipping": 0, "amount_tax": tax},
        "customer_details": {"address": {"country": country} if country else None, "email": None},
    }
    if line_items is not None:
        session["line_items"] = line_items
    return session


def line_items(*prices: dict) -> dict:
    return {
        "object": "list", "has_more": False, "url": "/v1/checkout/sessions/line_items",
        "data": [{"id": new_id("li"), "object": "item", "price": p, "quantity": 1} for p in prices],
    }


def invoice(*, subscription_id: str, invoice_id: str | None = None, customer: str | None = None,
            period_start: int | None = None, period_end: int | None = None, payment_intent: str | None = None,
            status: str = "paid", billing_reason: str = "subscription_cycle", attempt_count: int = 1,
            livemode: bool = False, amount: int = 999, tax: int = 0, country: str | None = None,
            discounts: list | None = None, currency: str = "usd") -> dict:
    """An Invoice of a subscription (API 2025-03-31 and later): `amount` (tax `tax` included) collected once paid;
    `country` the buyer's address's, where collected; `discounts` coupon or promotion-code IDs."""
    start = period_start if period_start is not None else now()
    end = period_end if period_end is not None else start + 30 * DAY
    payments = [] if payment_intent is None else [{
        "id": new_id("inpay"), "object": "invoice_payment", "status": "paid" if status == "paid" else "open",
        "payment": {"type": "payment_intent", "payment_intent": payment_intent},
    }]
    return {
        "id": invoice_id or new_id("in"), "object": "invoice", "status": status, "billing_reason": billing_reason,
        "customer": customer or new_id("cus"), "attempt_count": attempt_count,
        "next_payment_attempt": None if status == "paid" else now() + DAY,
        "parent": {"type": "subscription_details", "quote_details": None,
                   "subscription_details": {"subscription": subscription_id, "metadata": {}}},
        "lines": {"object": "list", "has_more": False, "data": [
            {"id": new_id("il"), "object": "line_item", "period": {"start": start, "end": end}}]},
        "payments": {"object": "list", "has_more": False, "data": payments},
        "created": start, "livemode": livemode, "currency": currency,
        "amount_due": amount, "amount_paid": amount if status == "paid" else 0, "total": amount,
        "total_taxes": [{"amount": tax, "tax_behavior": "exclusive", "taxability_reason": "standard_rated",
                         "type": "tax_rate_details"}] if tax else [],
        "customer_address": {"country": country} if country else None, "discounts": list(discounts or []),
    }


def charge(*, payment_intent: str, charge_id: str | None = None, amount: int = 999, amount_refunded: int | None = None,
           customer: str | None = None, livemode: bool = False) -> dict:
    refunded_amount = amount if amount_refunded is None else amount_refunded
    return {
        "id": charge_id or new_id("ch"), "object": "charge", "amount": amount, "amount_refunded": refunded_amount,
        "refunded": refunded_amount >= amount, "payment_intent": payment_intent, "customer": customer,
        "created": now(), "livemode": livemode, "currency": "usd", "status": "succeeded", "paid": True,
    }


def dispute(*, charge_id: str, payment_intent: str | None, status: str = "needs_response",
            dispute_id: str | None = None, livemode: bool = False) -> dict:
    return {
        "id": dispute_id or new_id("dp"), "object": "dispute", "charge": charge_id, "payment_intent": payment_intent,
        "amount": 999, "reason": "fraudulent", "status": status, "created": now(), "livemode": livemode,
        "currency": "usd",
    }


def event(event_type: str, obj: dict, *, created: int | None = None, event_id: str | None = None,
          livemode: bool | None = None) -> dict:
    """An Event as Stripe posts it to a webhook endpoint, `obj` as its `data.object`."""
    return {
        "id": event_id or new_id("evt"), "object": "event", "api_version": API_VERSION,
        "created": created if created is not None else now(), "data": {"object": obj},
        "livemode": obj.get("livemode", False) if livemode is None else livemode, "pending_webhooks": 1,
        "request": {"id": None, "idempotency_key": None}, "type": event_type,
    }


# --------------------------------------------------------------------------------------------------
# Signatures


def body_of(evt: dict) -> str:
    """The JSON text posted (and signed): Stripe's pretty-printed form, so signatures are over exactly these bytes."""
    return json.dumps(evt, indent=2)


def sign(payload: str, secret: str, timestamp: int | None = None) -> str:
    """The `Stripe-Signature` header for `payload`, made by stripe-python (the independent implementation)."""
    return stripe.WebhookSignature.generate_signature_header(payload, secret, timestamp=timestamp)


def hmac_v1(payload: bytes, secret: str, timestamp: int) -> str:
    """One `v1` value, by hand: HMAC-SHA256 over `"{t}.{body}"`, keyed with the whole secret string."""
    return hmac.new(secret.encode(), str(timestamp).encode() + b"." + payload, hashlib.sha256).hexdigest()


def signature_header(payload: bytes, secrets_: list[str], timestamp: int | None = None, extra: str = "") -> str:
    """`t=...` and one `v1=` per secret, in order (what Stripe sends while a secret is rolled), plus `extra`."""
    t = timestamp if timestamp is not None else now()
    parts = [f"t={t}"] + [f"v1={hmac_v1(payload, secret, t)}" for secret in secrets_]
    if extra:
        parts.append(extra)
    return ",".join(parts)


# --------------------------------------------------------------------------------------------------
# The fake API


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    time: float = field(default_factory=time.time)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def expanded(self) -> list[str]:
        """What `expand[]=` (or stripe-python's indexed `expand[0]=`) asks for: Stripe reads both."""
        return [v for key, values in self.query.items() if re.fullmatch(r"expand\[\d*\]", key) for v in values]


@dataclass
class _Fault:
    remaining: int
    status: int
    pattern: re.Pattern


COLLECTIONS = {
    "subscriptions": "subscription", "checkout/sessions": "checkout session", "invoices": "invoice",
    "charges": "charge", "disputes": "dispute",
}
PATH = re.compile(r"^/v1/(subscriptions|checkout/sessions|invoices|charges|disputes)/([^/]+)$")


def stripe_error(status: int, message: str, error_type: str = "invalid_request_error", **extra) -> tuple[int, dict]:
    return status, {"error": {"type": error_type, "message": message, **extra}}


class FakeStripe:
    """Stripe's API for one account (one API key), on 127.0.0.1; use as a context manager."""

    def __init__(self, api_key: str | None = None):
        self.api_key = api_key or new_api_key()
        self.objects: dict[str, dict[str, dict]] = {name: {} for name in COLLECTIONS}
        self.requests: list[Request] = []
        self._faults: list[_Fault] = []
        self._down = False
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeStripe":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # Objects

    def _put(self, collection: str, obj: dict) -> dict:
        with self._lock:
            self.objects[collection][obj["id"]] = json.loads(json.dumps(obj))
        return obj

    def put_subscription(self, obj: dict) -> dict:
        return self._put("subscriptions", obj)

    def put_session(self, obj: dict, line_items_: dict | None = None) -> dict:
        """A Checkout Session; `line_items_` is what `expand[]=line_items` adds (a list object)."""
        stored = dict(obj)
        if line_items_ is not None:
            stored["_line_items"] = line_items_
        self._put("checkout/sessions", stored)
        return obj

    def put_invoice(self, obj: dict) -> dict:
        return self._put("invoices", obj)

    def put_charge(self, obj: dict) -> dict:
        return self._put("charges", obj)

    def put_dispute(self, obj: dict) -> dict:
        return self._put("disputes", obj)

    # Faults

    def fail(self, times: int, status: int = 500, path: str = ".*") -> None:
        """Answers the next `times` requests whose path matches `path` (a regex) with `status` and Stripe's error."""
        with self._lock:
            self._faults.append(_Fault(times, status, re.compile(path)))

    def down(self) -> None:
        """Every connection is closed without an answer (as a dead host behind a proxy would) until `up()`."""
        self._down = True

    def up(self) -> None:
        self._down = False

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
            self._down = False

    # Recorded requests

    def requests_to(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    # Serving

    def _answer(self, request: Request) -> tuple[int, dict] | None:
        with self._lock:
            self.requests.append(request)
            if self._down:
                return None
            for fault in self._faults:
                if fault.remaining > 0 and fault.pattern.search(request.path):
                    fault.remaining -= 1
                    return stripe_error(fault.status, "An unexpected error occurred.", "api_error")
        authorization = request.header("authorization") or ""
        if not hmac.compare_digest(authorization.encode(), f"Bearer {self.api_key}".encode()):
            return stripe_error(401, "Invalid API Key provided.")
        if request.method != "GET":
            return stripe_error(405, f"Unrecognized request URL ({request.method}: {request.path}).")
        match = PATH.match(request.path)
        if match is None:
            return stripe_error(404, f"Unrecognized request URL (GET: {request.path}).")
        collection, object_id = match.group(1), unquote(match.group(2))
        with self._lock:
            obj = self.objects[collection].get(object_id)
            obj = json.loads(json.dumps(obj)) if obj is not None else None
        if obj is None:
            return stripe_error(
                404, f"No such {COLLECTIONS[collection]}: '{object_id}'", code="resource_missing", param="id")
        expanded = obj.pop("_line_items", None)
        if "line_items" in request.expanded() and expanded is not None:
            obj["line_items"] = expanded
        return 200, obj


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, fake: FakeStripe):
        self.fake = fake
        super().__init__(address, _Handler)

    def handle_error(self, request, client_address) -> None:
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60
    server: _Server

    def log_message(self, format, *args) -> None:
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        url = urlsplit(self.path)
        request = Request(
            method=self.command, path=url.path, query=parse_qs(url.query, keep_blank_values=True),
            headers={k.lower(): v for k, v in self.headers.items()},
        )
        answer = self.server.fake._answer(request)
        if answer is None:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        status, body = answer
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Request-Id", "req_" + secrets.token_hex(7))
        self.send_header("Stripe-Version", request.header("stripe-version") or API_VERSION)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _serve
