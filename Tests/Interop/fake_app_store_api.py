"""A local stand-in for Apple's App Store Server API, for the interop tests: it checks every request's bearer token
with PyJWT against the public half of the tenant's In-App Purchase key the way Apple documents it (ES256, `kid`,
`typ` JWT, `iss`, `iat`, `exp` at most 60 minutes after `iat`, `aud` appstoreconnect-v1, `bid`) and answers
Apple's 401 with no body to anything else; it serves Get Transaction Info from the signed transactions a test puts
in `transactions`, Get All Subscription Statuses from `subscriptions` (by original transaction ID), and Apple's
`TransactionIdNotFoundError` body for IDs it does not hold. Not a test module."""

from __future__ import annotations

import base64
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

TRANSACTION_PATH = re.compile(r"^/inApps/v1/transactions/([0-9]+)$")
STATUSES_PATH = re.compile(r"^/inApps/v1/subscriptions/([0-9]+)$")


def original_id(token: str) -> str:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["originalTransactionId"]


def write_key(path: Path) -> Path:
    """A new P-256 In-App Purchase key, as App Store Connect's .p8 (PKCS#8 PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return path


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
    #: (method, path, claims or None when the token was refused) per request, in order.
    requests: list[tuple[str, str, dict | None]] = field(default_factory=list)

    def __post_init__(self):
        self.public_key = serialization.load_pem_private_key(self.key_file.read_bytes(), password=None).public_key()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status: int, body: dict | None = None):
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                if body is not None:
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                claims = fake.check(self.headers.get("authorization", ""))
                fake.requests.append(("GET", self.path, claims))
                if claims is None:
                    return self.answer(401)
                statuses = STATUSES_PATH.match(self.path)
                if statuses:
                    if statuses.group(1) not in fake.transactions:
                        return self.answer(404, {"errorCode": 4040010, "errorMessage": "Transaction id not found."})
                    original = original_id(fake.transactions[statuses.group(1)])
                    entries = [{"originalTransactionId": original, **fake.subscriptions[original]}] \
                        if original in fake.subscriptions else []
                    return self.answer(200, {"environment": "Sandbox", "bundleId": fake.bundle_id, "data": [
                        {"subscriptionGroupIdentifier": "group-1", "lastTransactions": entries}]})
                match = TRANSACTION_PATH.match(self.path)
                if match and match.group(1) in fake.transactions:
                    return self.answer(200, {"signedTransactionInfo": fake.transactions[match.group(1)]})
                if match:
                    return self.answer(404, {"errorCode": 4040010, "errorMessage": "Transaction id not found."})
                return self.answer(404, {"errorCode": 4000000, "errorMessage": "Bad request."})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
                                issuer=self.issuer_id, options={"require": ["iss", "iat", "exp", "aud", "bid"]})
        except jwt.PyJWTError:
            return None
        if claims["bid"] != self.bundle_id or not 0 < claims["exp"] - claims["iat"] <= 3600:
            return None
        return claims

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
