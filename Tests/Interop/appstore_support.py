"""Helpers for the App Store interop tests (test_purchases.py, test_notifications.py, test_entctl_dev.py).

Not a test module: the tests import from it. Tokens are signed at test time by `entctl dev` with a CA made by
`entctl dev init`; tenants trust that CA's root for Sandbox only (`app_store_settings`).
"""

from __future__ import annotations

import base64
import json
import time
from datetime import datetime, timezone
from pathlib import Path

import grpc

from conftest import RPC_TIMEOUT
from entctl_support import entctl, entctl_ok
from entitlement_support import ENTITLEMENT_SERVICE, PACKAGE, Api, Clients, rpc_error

BUNDLE_ID = "com.example.app"
MONTHLY, LIFETIME, COINS, PASS = "com.example.pro.monthly", "com.example.lifetime", "com.example.coins", "com.example.pass"
# What each product grants in the tenants of these tests.
PRODUCTS = {MONTHLY: ["pro"], LIFETIME: ["premium"], PASS: ["pro"]}
DAY_MS = 86_400_000

PURCHASE_METHODS = {
    "Purchase": ("PurchaseRequest", "PurchaseResponse"),
    "Restore": ("RestoreRequest", "RestoreResponse"),
}


# --------------------------------------------------------------------------------------------------
# Signing


class SigningCA:
    """A CA made by `entctl dev init`, and `entctl dev` signing with it."""

    def __init__(self, directory: Path):
        self.dir = directory
        entctl_ok("dev", "init", "--dir", str(directory))
        self.root = (directory / "root.pem").resolve()

    def signed(self, command: str, *args: str) -> str:
        """The token `entctl dev COMMAND ARGS` signs with this CA."""
        result = entctl("--json", "dev", command, *args, "--dir", str(self.dir))
        assert result.returncode == 0, f"entctl dev {command} {args}: {result.stderr}"
        return json.loads(result.stdout.strip())["token"]

    def sign(self, product: str = MONTHLY, *args: str, bundle_id: str = BUNDLE_ID) -> str:
        """A signed transaction for `product`."""
        return self.signed("sign-transaction", "--product", product, "--bundle-id", bundle_id, *args)


def payload(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def now_ms() -> int:
    return int(time.time() * 1000)


def rfc3339(milliseconds: int) -> str:
    """Whole seconds (the signer's resolution for absolute times)."""
    return datetime.fromtimestamp(milliseconds / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def app_store_settings(ca_root: Path, policy: str) -> dict:
    """A tenant's `app_store` settings: BUNDLE_ID in Sandbox, trusting `ca_root`, one product of each type."""
    return {
        "bundle_id": BUNDLE_ID,
        "environments": ["Sandbox"],
        "root_certificates": [str(ca_root)],
        "transfer_policy": policy,
        "products": {
            MONTHLY: {"type": "auto_renewable"},
            LIFETIME: {"type": "non_consumable"},
            COINS: {"type": "consumable"},
            PASS: {"type": "non_renewing", "duration_days": 30},
        },
    }


# --------------------------------------------------------------------------------------------------
# Calls


class StoreApi(Api):
    """`Api` with Purchase and Restore of App Store signed transactions."""

    def purchase_request(self, app_user_id: str, token: str | None):
        request = self.message("PurchaseRequest", app_user_id=app_user_id)
        if token is not None:
            request.app_store.signed_transaction = token
        return request

    def store_call(self, method: str, request, headers=()):
        """`headers`: more request metadata beside the key (a proxy's X-Forwarded-For)."""
        request_type, response_type = PURCHASE_METHODS[method]
        callable_ = self.channel.unary_unary(
            f"/{ENTITLEMENT_SERVICE}/{method}", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=self.protos.message(f"{PACKAGE}.{response_type}").FromString,
        )
        return callable_(request, timeout=RPC_TIMEOUT, metadata=self._metadata(None) + list(headers))

    def purchase(self, app_user_id: str, token: str):
        return self.store_call("Purchase", self.purchase_request(app_user_id, token))

    def purchase_error(self, app_user_id: str, token: str | None = None, request=None) -> grpc.RpcError:
        request = request if request is not None else self.purchase_request(app_user_id, token)
        return rpc_error(lambda: self.store_call("Purchase", request))

    def restore_request(self, app_user_id: str, tokens: list[str]):
        request = self.message("RestoreRequest", app_user_id=app_user_id)
        for token in tokens:
            request.app_store.add().signed_transaction = token
        return request

    def restore(self, app_user_id: str, tokens: list[str]):
        return self.store_call("Restore", self.restore_request(app_user_id, tokens))

    def restore_error(self, app_user_id: str, tokens: list[str]) -> grpc.RpcError:
        return rpc_error(lambda: self.restore(app_user_id, tokens))


class StoreEnv(Clients):
    """The tenants of a module's server by name: `env.a` holds tenant "a"'s public key, `env.a_admin` its secret key."""

    api_class = StoreApi

    def __init__(self, server, tenants: dict, protos):
        super().__init__(server, protos)
        self.tenants = tenants
        channel = self.channel()
        for name, tenant in tenants.items():
            setattr(self, name, self.api(tenant.public_key, channel))
            setattr(self, f"{name}_admin", self.api(tenant.secret_key, channel))
