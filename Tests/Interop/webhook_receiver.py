"""A tenant's backend, for the webhook tests: a local HTTP server that receives entitlementd's deliveries, checks
each with Python's `standardwebhooks` package (the Standard Webhooks reference library, independent of our signer)
against the secrets it is given, and records what came. Tests tell it how to answer: a list of statuses to give in
turn (then `default_status`), with an optional `Retry-After`, or to hang. Not a test module."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError


@dataclass
class Delivery:
    headers: dict[str, str]
    body: bytes
    #: The secrets (by position) whose `Webhook(secret).verify` accepted the delivery.
    verified_with: list[int]
    answered: int
    #: When it arrived (time.monotonic()).
    at: float

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    secrets: list[str]
    deliveries: list[Delivery] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    retry_after: str | None = None
    default_status: int = 200
    #: Seconds to wait before answering every request (a slow or hanging endpoint).
    delay: float = 0.0
    #: The port to listen on; 0: any free one.
    port: int = 0

    def __post_init__(self):
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {name.lower(): value for name, value in self.headers.items()}
                verified = []
                for index, secret in enumerate(receiver.secrets):
                    try:
                        Webhook(secret).verify(body, headers)
                        verified.append(index)
                    except WebhookVerificationError:
                        pass
                if receiver.delay:
                    time.sleep(receiver.delay)
                with receiver.lock:
                    status = receiver.statuses.pop(0) if receiver.statuses else receiver.default_status
                    receiver.deliveries.append(Delivery(headers, body, verified, status, time.monotonic()))
                self.send_response(status)
                if status >= 300 and receiver.retry_after is not None:
                    self.send_header("retry-after", receiver.retry_after)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/entitlements"

    def received(self, count: int, timeout: float = 20.0) -> list[Delivery]:
        """The deliveries once at least `count` have arrived (fails after `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.deliveries) >= count:
                    return list(self.deliveries)
            time.sleep(0.02)
        with self.lock:
            raise AssertionError(f"{len(self.deliveries)} deliveries arrived in {timeout} s, expected {count}")

    def bodies(self) -> list[dict]:
        """The JSON bodies of the deliveries that got a 2xx, in arrival order."""
        with self.lock:
            return [delivery.json for delivery in self.deliveries if 200 <= delivery.answered < 300]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
