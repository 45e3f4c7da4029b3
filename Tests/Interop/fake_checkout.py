"""A local stand-in for Stripe Checkout, for the demo web page and its browser test.

What Stripe Checkout does for a real tenant, shrunk to what a demo needs: a payment page for one price, and on "Pay"
the webhooks Stripe would send, signed with the tenant's endpoint secret by Stripe's own library
(`stripe.WebhookSignature.generate_signature_header`): `checkout.session.completed`, then for a subscription
`customer.subscription.created`. For a buyer who named no user (an anonymous checkout), it then plays the tenant's
own backend, asking entitlementd for a redemption code (`AdminService.GetRedemptionCode`, over gRPC-Web with the
secret key) and handing it to the page, as a real web flow would on its success page. Then it redirects the browser
to the `success_url` with `session_id` (and `redemption_code`) in the query.

    GET  /checkout?price=P&mode=subscription|payment&client_reference_id=U&success_url=S&cancel_url=C
    POST /checkout/pay         (the page's form)
    GET  /_fake/sessions       JSON: every session paid, with the webhook replies

Run with `Scripts/fake-checkout` (`--demo` for the demo tenant on 127.0.0.1:8092).
"""

from __future__ import annotations

import argparse
import html
import http.client
import json
import secrets
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import stripe

from proto_wire import fields, varint

DEMO_SECRET_KEY = "sk_demo_secret_key_for_local_testing_only"
DEMO_WEBHOOK_SECRET = "whsec_demoWebhookSecretForLocalTestingOnly"
PRICES = {
    "price_demo_pro_monthly": ("Pro, monthly", "subscription", "$4.99 / month"),
    "price_demo_premium_lifetime": ("Premium, for life", "payment", "$49.00 once"),
}


def grpc_web_unary(host: str, port: int, path: str, message: bytes, key: str, timeout: float = 10,
                   headers: dict[str, str] | None = None) -> tuple[bytes, str, str]:
    """One unary call over gRPC-Web (binary, HTTP/1.1), with `headers` added: the response message, grpc-status and
    grpc-message."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("POST", path, body=b"\0" + struct.pack(">I", len(message)) + message, headers={
            "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "authorization": f"Bearer {key}",
            **(headers or {})})
        response = connection.getresponse()
        body = response.read()
        status, detail = response.getheader("grpc-status"), response.getheader("grpc-message") or ""
        payload = b""
        offset = 0
        while offset + 5 <= len(body):
            flag, length = body[offset], struct.unpack(">I", body[offset + 1:offset + 5])[0]
            frame = body[offset + 5:offset + 5 + length]
            offset += 5 + length
            if flag & 0x80:
                for line in frame.decode().split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "grpc-status":
                        status = value.strip()
                    elif name.strip().lower() == "grpc-message":
                        detail = urllib.parse.unquote(value.strip())
            else:
                payload = frame
        return payload, status or "", detail
    finally:
        connection.close()


def proto_string(field: int, value: str) -> bytes:
    data = value.encode()
    return bytes([field << 3 | 2]) + varint(len(data)) + data


def first_string_field(message: bytes, field: int) -> str:
    """The first length-delimited `field` of a protobuf message (enough for RedemptionCode.code)."""
    return next((value.decode() for number, value in fields(message) if number == field and isinstance(value, bytes)),
                "")


class Checkout:
    """The sessions paid so far and where their webhooks go."""

    def __init__(self, server_host: str, server_port: int, tenant: str, webhook_secret: str, secret_key: str):
        self.server_host, self.server_port, self.tenant = server_host, server_port, tenant
        self.webhook_secret, self.secret_key = webhook_secret, secret_key
        self.sessions: list[dict] = []
        self.lock = threading.Lock()

    def post_event(self, event_type: str, obj: dict) -> tuple[int, str]:
        event = {"id": "evt_demo_" + secrets.token_hex(12), "object": "event", "api_version": "2026-10-28.endive",
                 "created": int(time.time()), "livemode": False, "type": event_type, "data": {"object": obj}}
        body = json.dumps(event)
        header = stripe.WebhookSignature.generate_signature_header(body, self.webhook_secret)
        connection = http.client.HTTPConnection(self.server_host, self.server_port, timeout=10)
        try:
            connection.request("POST", f"/v1/stripe/webhooks/{self.tenant}", body=body.encode(),
                               headers={"content-type": "application/json", "stripe-signature": header})
            response = connection.getresponse()
            return response.status, response.read().decode().strip()
        finally:
            connection.close()

    def pay(self, price: str, mode: str, user: str) -> dict:
        now = int(time.time())
        session_id, customer = "cs_test_demo_" + secrets.token_hex(10), "cus_demo_" + secrets.token_hex(6)
        record = {"session": session_id, "customer": customer, "mode": mode, "user": user, "replies": []}
        session = {"id": session_id, "object": "checkout.session", "mode": mode, "status": "complete",
                   "payment_status": "paid", "client_reference_id": user or None, "customer": customer,
                   "metadata": {}, "created": now, "livemode": False}
        if mode == "subscription":
            subscription_id = "sub_demo_" + secrets.token_hex(8)
            session["subscription"] = record["subscription"] = subscription_id
            record["replies"].append(self.post_event("checkout.session.completed", session))
            item = {"id": "si_demo_" + secrets.token_hex(6), "object": "subscription_item",
                    "price": {"id": price, "object": "price"}, "current_period_start": now,
                    "current_period_end": now + 30 * 86_400}
            subscription = {"id": subscription_id, "object": "subscription", "status": "active", "customer": customer,
                            "cancel_at_period_end": False, "start_date": now, "created": now,
                            "items": {"object": "list", "data": [item]}, "livemode": False,
                            "metadata": {"app_user_id": user} if user else {}}
            record["replies"].append(self.post_event("customer.subscription.created", subscription))
        else:
            session["payment_intent"] = record["payment_intent"] = "pi_demo_" + secrets.token_hex(8)
            session["metadata"] = {"price_id": price}
            record["replies"].append(self.post_event("checkout.session.completed", session))
        if not user:
            # The tenant's backend: a code for the buyer to redeem in the app once signed in.
            message, status, detail = grpc_web_unary(
                self.server_host, self.server_port, "/entitlements.v1.AdminService/GetRedemptionCode",
                proto_string(1, session_id), self.secret_key)
            record["redemption_code"] = first_string_field(message, 1) if status == "0" else ""
            record["redemption_error"] = "" if status == "0" else f"{status} {detail}"
        with self.lock:
            self.sessions.append(record)
        return record


def handler_for(checkout: Checkout):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet: the demo's terminal shows the server's log
            pass

        def send(self, status: int, body: bytes, content_type: str, headers: dict | None = None):
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            if url.path == "/_fake/sessions":
                with checkout.lock:
                    self.send(200, json.dumps(checkout.sessions).encode(), "application/json")
            elif url.path == "/checkout":
                self.send(200, self.page(query).encode(), "text/html; charset=utf-8")
            else:
                self.send(404, b"not found\n", "text/plain")

        def do_POST(self):
            if urllib.parse.urlsplit(self.path).path != "/checkout/pay":
                return self.send(404, b"not found\n", "text/plain")
            length = int(self.headers.get("content-length") or 0)
            form = dict(urllib.parse.parse_qsl(self.rfile.read(min(length, 65536)).decode()))
            price = form.get("price", "")
            if price not in PRICES:
                return self.send(400, b"unknown price\n", "text/plain")
            record = checkout.pay(price, PRICES[price][1], form.get("client_reference_id", ""))
            answer = {"session_id": record["session"]}
            if "redemption_code" in record:
                answer["redemption_code"] = record["redemption_code"]
            success = form.get("success_url", "")
            separator = "&" if "?" in success else "?"
            self.send(303, b"", "text/plain", {"location": success + separator + urllib.parse.urlencode(answer)})

        def page(self, query: dict) -> str:
            price = query.get("price", "")
            name, _, amount = PRICES.get(price, ("Unknown price", "", ""))
            user = query.get("client_reference_id", "")
            hidden = "".join(
                f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(query.get(k, ""))}">'
                for k in ("price", "client_reference_id", "success_url"))
            return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout (demo)</title>
<style>body{{font:16px system-ui;max-width:28em;margin:3em auto}} button{{font-size:1.1em;padding:.5em 2em}}</style>
</head><body><h1>Checkout</h1><p>A local stand-in for Stripe Checkout: no card, no money.</p>
<p id="product"><b>{html.escape(name)}</b> &middot; {html.escape(amount)}</p>
<p id="buyer">{("Buying as <b>" + html.escape(user) + "</b>") if user else "Buying without an account: you get a redemption code."}</p>
<form method="post" action="/checkout/pay">{hidden}<button id="pay" type="submit">Pay</button></form>
<p><a id="cancel" href="{html.escape(query.get("cancel_url", "/"))}">Cancel</a></p></body></html>"""

    return Handler


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--server", default="127.0.0.1:50051", help="entitlementd's HOST:PORT")
    parser.add_argument("--tenant", default="demo")
    parser.add_argument("--webhook-secret", default=DEMO_WEBHOOK_SECRET)
    parser.add_argument("--secret-key", default=DEMO_SECRET_KEY)
    arguments = parser.parse_args()
    host, _, port = arguments.server.rpartition(":")
    checkout = Checkout(host, int(port), arguments.tenant, arguments.webhook_secret, arguments.secret_key)
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), handler_for(checkout))
    print(json.dumps({"url": f"http://127.0.0.1:{server.server_address[1]}"}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
