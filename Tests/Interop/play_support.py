"""Helpers for the Google Play interop tests (test_play_*.py).

Not a test module: the tests import from it. The server is the real `interop-server`; Google is `FakeGoogle`
(fake_google.py) on a loopback port: the tenants' `api_base_url`, their service-account key's `token_uri` and their
notifications' `jwks_url` all point at it. Purchases are put at the fake (`fake.put_subscription`/`put_product`) and
presented to the server by token, as Play Billing hands them to an app; notifications are Pub/Sub push requests with
an OIDC token the fake mints (PyJWT, independent of the server's JOSE code).

Every tenant here maps the same products:

    SUB ("pro_subscription")          subscription: "pro"; its ANNUAL base plan: "pro" and "premium"
    UPGRADE ("premium_subscription")  subscription: "premium" (what SUB is upgraded to)
    LIFETIME ("lifetime_unlock")      non-consumable: "premium"
    COINS ("coins_100")               consumable: nothing
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import grpc
import pytest

from appstore_support import StoreApi
from conftest import RPC_TIMEOUT
from entitlement_support import ADMIN_SERVICE, PACKAGE, Clients, TenantSpec, new_tenant
from fake_google import FakeGoogle, millis, push_envelope, to_datetime
from webhook_posting import POSTERS

APP = "com.example.app"
SUB, UPGRADE, LIFETIME, COINS = "pro_subscription", "premium_subscription", "lifetime_unlock", "coins_100"
MONTHLY, ANNUAL = "monthly", "annual"
PRODUCTS = {SUB: ["pro"], f"{SUB}:{ANNUAL}": ["pro", "premium"], UPGRADE: ["premium"], LIFETIME: ["premium"]}
PLAY_PRODUCTS = {
    SUB: {"type": "subscription"}, UPGRADE: {"type": "subscription"}, LIFETIME: {"type": "non_consumable"},
    COINS: {"type": "consumable"},
}
PUSH_EMAIL = "rtdn-push@entitlementd-fake.iam.gserviceaccount.com"

# status.proto / admin_service.proto values the Play tests use.
APP_STORE_SOURCE, PLAY_STORE_SOURCE = 1, 2
PLAY_STORE = 2
PRODUCTION, SANDBOX = 1, 2
NOT_REQUIRED, ACK_PENDING, ACKNOWLEDGED, ACK_FAILED = 1, 2, 3, 4
PURCHASE_CAUSE, RESTORE_CAUSE, TRANSFERRED_IN, TRANSFERRED_OUT = 3, 4, 5, 6
PLAY_STORE_NOTIFICATION, STORE_API = 8, 12
NEW, UPDATED, UNCHANGED = 1, 2, 3

# The server's settings in every Play test: acknowledgements retried after a second (then 2, 4, ... s).
SERVER_SETTINGS = {"google_play": {"acknowledgement_first_retry_seconds": 1}}


# --------------------------------------------------------------------------------------------------
# Tenants


def audience_for(tenant_id: str) -> str:
    """The push subscription's audience as Google's console sets it by default: the push endpoint's URL."""
    return f"https://entitlements.example.test/v1/google/notifications/{tenant_id}"


def play_settings(fake: FakeGoogle, key_file: Path, tenant_id: str, *, package: str = APP, policy: str = "transfer",
                  environments=("production", "test"), poll_minutes: int = 0, notifications: bool = True) -> dict:
    """A tenant's `play_store` settings, every Google URL at `fake`. The voided-purchases poll is off unless asked."""
    settings = {
        "package_name": package,
        "service_account_key_file": str(key_file),
        "environments": list(environments),
        "transfer_policy": policy,
        "products": json.loads(json.dumps(PLAY_PRODUCTS)),
        "api_base_url": fake.base_url + "/androidpublisher/v3/applications",
        "voided_purchases_poll_minutes": poll_minutes,
    }
    if notifications:
        settings["notifications"] = {
            "audience": audience_for(tenant_id), "push_service_account": PUSH_EMAIL, "jwks_url": fake.jwks_url,
        }
    return settings


def play_tenant(fake: FakeGoogle, key_file: Path, tenant_id: str, **settings) -> TenantSpec:
    tenant = new_tenant(tenant_id, entitlements=["pro", "premium"], products=dict(PRODUCTS))
    tenant.play_store = play_settings(fake, key_file, tenant_id, **settings)
    return tenant


# --------------------------------------------------------------------------------------------------
# Calls


class PlayApi(StoreApi):
    """`StoreApi` with Google Play purchases, restores and AdminService.RefreshStorePurchase."""

    def play_request(self, app_user_id: str, product_id: str, token: str):
        request = self.message("PurchaseRequest", app_user_id=app_user_id)
        request.play_store.product_id = product_id
        request.play_store.purchase_token = token
        return request

    def play_purchase(self, app_user_id: str, product_id: str, token: str):
        return self.store_call("Purchase", self.play_request(app_user_id, product_id, token))

    def play_purchase_error(self, app_user_id: str, product_id: str, token: str) -> grpc.RpcError:
        try:
            result = self.play_purchase(app_user_id, product_id, token)
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected Purchase to fail, got {result}")

    def play_restore(self, app_user_id: str, purchases: list[tuple[str, str]]):
        request = self.message("RestoreRequest", app_user_id=app_user_id)
        for product_id, token in purchases:
            entry = request.play_store.add()
            entry.product_id, entry.purchase_token = product_id, token
        return self.store_call("Restore", request)

    def refresh(self, token: str, product_id: str = "", store: int = PLAY_STORE):
        request = self.message("RefreshStorePurchaseRequest", store=store, purchase_id=token, product_id=product_id)
        response_class = self.protos.message(f"{PACKAGE}.RefreshStorePurchaseResponse")
        callable_ = self.channel.unary_unary(
            f"/{ADMIN_SERVICE}/RefreshStorePurchase", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString,
        )
        return callable_(request, timeout=RPC_TIMEOUT, metadata=self._metadata(None))


class PlayEnv(Clients):
    """The module's server, fake Google and tenants by name: `env.a` holds tenant "a"'s public key, `env.a_admin`
    its secret key; `env.push(...)` sends a notification as Pub/Sub would."""

    api_class = PlayApi

    def __init__(self, server, fake: FakeGoogle, tenants: dict, protos):
        super().__init__(server, protos)
        self.fake, self.tenants = fake, tenants
        channel = self.channel()
        for name, tenant in tenants.items():
            setattr(self, name, self.api(tenant.public_key, channel))
            setattr(self, f"{name}_admin", self.api(tenant.secret_key, channel))

    def tenant_id(self, tenant: str) -> str:
        return self.tenants[tenant].id if tenant in self.tenants else tenant

    def push_token(self, tenant: str, **claims) -> str:
        """A valid push token for `tenant` (any claim overridden by `claims`, as `mint_push_token` takes them)."""
        arguments = {"audience": audience_for(self.tenant_id(tenant)), "email": PUSH_EMAIL, **claims}
        return self.fake.mint_push_token(**arguments)

    def push(self, tenant: str, data, *, message_id: str | None = None, via: str = "http1",
             authorization: str | None | object = ..., body: bytes | None = None) -> tuple[int, str]:
        """POSTs `data` (a notification dict, wrapped in a Pub/Sub envelope) or `body` as it is to the tenant's
        notifications URL; with a valid push token unless `authorization` says otherwise (None: no header)."""
        if body is None:
            body = json.dumps(push_envelope(data, message_id=message_id)).encode()
        if authorization is ...:
            authorization = "Bearer " + self.push_token(tenant)
        return post(self.server, self.tenant_id(tenant), body, authorization, via)

    def push_ok(self, tenant: str, data, *needles: str, **kwargs) -> str:
        status, text = self.push(tenant, data, **kwargs)
        assert status == 200, f"{status}: {text}\n{self.server.log()[-2000:]}"
        for needle in needles:
            assert needle in text, f"{needle!r} not in {text!r}"
        return text


def notifications_path(tenant_id: str) -> str:
    return f"/v1/google/notifications/{tenant_id}"


def post(server, tenant_id: str, body: bytes, authorization: str | None, via: str = "http1") -> tuple[int, str]:
    headers = {"content-type": "application/json"}
    if authorization is not None:
        headers["authorization"] = authorization
    return POSTERS[via](server, notifications_path(tenant_id), body, headers)


# --------------------------------------------------------------------------------------------------
# Reading results


def wait_until(predicate, what: str, timeout: float = 15.0, interval: float = 0.05):
    """Polls `predicate` until it returns something truthy (returned) or `timeout` passes (failing, naming `what`).
    For state the server changes in the background with no event to await (its acknowledger, its poll)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout}s (last: {value!r})")
        time.sleep(interval)


def stored(admin, user: str, token: str):
    """The customer's Transaction for purchase token `token` (asserting there is exactly one)."""
    found = [t for t in admin.customer(user).transactions if t.original_transaction_id == token]
    assert len(found) == 1, f"{len(found)} transactions for the token in {admin.customer(user).transactions}"
    return found[0]


def entitlement_ids(customer) -> list[str]:
    return sorted(entitlement.id for entitlement in customer.status.entitlements)


def only_entitlement(customer):
    entitlements = list(customer.status.entitlements)
    assert len(entitlements) == 1, entitlements
    return entitlements[0]


def expiry_ms(resource: dict) -> int:
    """The latest line item expiry of a SubscriptionPurchaseV2, in milliseconds."""
    return max(millis(to_datetime(item["expiryTime"])) for item in resource["lineItems"])


def ack_path(token: str) -> str:
    """A fault/request path pattern matching the acknowledgement of this token only (other tests' acknowledgements,
    still being retried in the background, must not take a fault meant for this one)."""
    return re.escape(token) + ":acknowledge$"


def api_path(token: str) -> str:
    """A pattern matching the fetch (get) of this token only."""
    return "tokens/" + re.escape(token) + "$"


def wait_acknowledged(fake: FakeGoogle, admin, user: str, token: str, timeout: float = 15.0):
    """Waits until Google has taken the token's acknowledgement and the server has recorded it; the stored
    Transaction."""
    deadline = time.monotonic() + timeout
    wait_until(lambda: fake.acknowledgements_of(token), f"Google acknowledgement of {token[:16]}...", timeout)

    def recorded():
        transaction = stored(admin, user, token)
        return transaction if transaction.acknowledgement == ACKNOWLEDGED else None

    return wait_until(recorded, f"acknowledgement of {token[:16]}... recorded", max(0.5, deadline - time.monotonic()))
