"""Helpers for the Stripe interop tests (test_stripe_*.py, test_redemption.py, test_web_cross_platform.py).

Not a test module: the tests import from it. The server is the real `interop-server`; Stripe is two things here:
the webhook sender (events built and signed by fake_stripe.py, posted over HTTP/1.1 with http.client or HTTP/2 with
the raw h2 client) and, for tenants with an API key, `FakeStripe` on a loopback port as Stripe's API.

Every tenant here maps the same Stripe prices and products:

    PRICE_MONTHLY ("price_pro_monthly")   price → MONTHLY ("pro_monthly_web"): "pro"
    PROD_ANNUAL ("prod_pro_annual")       product (any of its prices) → ANNUAL ("pro_annual_web"): "pro", "premium"
    PRICE_LIFETIME ("price_lifetime")     price → LIFETIME ("lifetime_web"): "premium"
    PRICE_UNMAPPED ("price_other_app")    mapped to nothing
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

import fake_stripe as fs
from appstore_support import StoreApi
from conftest import RPC_TIMEOUT
from entitlement_support import ADMIN_SERVICE, PACKAGE, Clients, TenantSpec, make_key, write_tenants
from webhook_posting import POSTERS

PRICE_MONTHLY, PROD_ANNUAL, PRICE_ANNUAL = "price_pro_monthly", "prod_pro_annual", "price_pro_annual_2026"
PRICE_LIFETIME, PRICE_UNMAPPED = "price_lifetime", "price_other_app"
MONTHLY, ANNUAL, LIFETIME = "pro_monthly_web", "pro_annual_web", "lifetime_web"
PRODUCTS = {MONTHLY: ["pro"], ANNUAL: ["pro", "premium"], LIFETIME: ["premium"]}

# status.proto / admin_service.proto values.
APP_STORE_SOURCE, PLAY_STORE_SOURCE, WEB_SOURCE = 1, 2, 3
WEB_STORE = 3
PRODUCTION, SANDBOX = 1, 2
STRIPE_WEBHOOK, REDEMPTION = 13, 14
VIAS = ["http1", "h2"]


# --------------------------------------------------------------------------------------------------
# Tenants


@dataclass
class StripeTenantSpec(TenantSpec):
    stripe: dict | None = None

    def entry(self) -> dict:
        entry = super().entry()
        if self.stripe is not None:
            entry["stripe"] = self.stripe
        return entry

    @property
    def webhook_secret(self) -> str:
        return self.stripe["webhook_secrets"][0]


def stripe_settings(*, secrets: int = 1, environments=("test",), policy: str | None = None,
                    grace_days: int | None = None, code_days: int | None = None, tolerance: int | None = None,
                    api: "fs.FakeStripe | None" = None, key_file: Path | None = None) -> dict:
    """A tenant's `stripe` settings with new webhook secrets; with `api`, its key (written to `key_file`) and its URL,
    so every event is applied by fetching the object from the fake."""
    settings = {
        "webhook_secrets": [fs.new_webhook_secret() for _ in range(secrets)],
        "environments": list(environments),
        "prices": {PRICE_MONTHLY: MONTHLY, PRICE_LIFETIME: LIFETIME},
        "products": {PROD_ANNUAL: ANNUAL},
    }
    for key, value in [("transfer_policy", policy), ("past_due_grace_days", grace_days),
                       ("redemption_code_days", code_days), ("signature_tolerance_seconds", tolerance)]:
        if value is not None:
            settings[key] = value
    if api is not None:
        assert key_file is not None
        key_file.write_text(api.api_key + "\n")
        settings["api_key_file"] = str(key_file)
        settings["api_base_url"] = api.base_url
    return settings


def stripe_tenant(tenant_id: str, **settings) -> StripeTenantSpec:
    return StripeTenantSpec(
        id=tenant_id, public_keys=[make_key("pk")[0]], secret_keys=[make_key("sk")[0]],
        entitlements=["pro", "premium"], products={k: list(v) for k, v in PRODUCTS.items()},
        stripe=stripe_settings(**settings))


def subscription_for(user: str | None, **fields) -> dict:
    """A subscription (monthly unless `price_id` says otherwise) whose metadata names `user` (None: nobody)."""
    fields.setdefault("price_id", PRICE_MONTHLY)
    return fs.subscription(metadata={"app_user_id": user} if user else {}, **fields)


# --------------------------------------------------------------------------------------------------
# Fixtures the test modules import; each module defines `tenants` (a dict of names to TenantSpec)


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    """A server for the module's tenants, shared by its tests."""
    path = tmp_path_factory.mktemp("stripe") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def env(server, tenants, protos):
    environment = StripeEnv(server, tenants, protos)
    yield environment
    environment.close()


# --------------------------------------------------------------------------------------------------
# Webhooks


def webhook_path(tenant_id: str) -> str:
    return f"/v1/stripe/webhooks/{tenant_id}"


def post(server, tenant_id: str, body: bytes, signature: str | None, via: str = "http1") -> tuple[int, str]:
    headers = {"content-type": "application/json; charset=utf-8", "user-agent": "Stripe/1.0"}
    if signature is not None:
        headers["stripe-signature"] = signature
    return POSTERS[via](server, webhook_path(tenant_id), body, headers)


# --------------------------------------------------------------------------------------------------
# Calls


class WebApi(StoreApi):
    """`StoreApi` with AdminService.GetRedemptionCode and Purchase(web_redemption)."""

    def redemption_code(self, stripe_id: str):
        response_class = self.protos.message(f"{PACKAGE}.RedemptionCode")
        callable_ = self.channel.unary_unary(
            f"/{ADMIN_SERVICE}/GetRedemptionCode", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString,
        )
        request = self.message("GetRedemptionCodeRequest", stripe_id=stripe_id)
        return callable_(request, timeout=RPC_TIMEOUT, metadata=self._metadata(None))

    def redemption_code_error(self, stripe_id: str) -> grpc.RpcError:
        try:
            result = self.redemption_code(stripe_id)
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected GetRedemptionCode to fail, got {result}")

    def redeem(self, app_user_id: str, code: str, headers=()):
        request = self.message("PurchaseRequest", app_user_id=app_user_id)
        request.web_redemption.code = code
        return self.store_call("Purchase", request, headers)

    def redeem_error(self, app_user_id: str, code: str, headers=()) -> grpc.RpcError:
        try:
            result = self.redeem(app_user_id, code, headers)
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected the redemption to fail, got {result}")


class StripeEnv(Clients):
    """The module's server and tenants by name: `env.a` holds tenant "a"'s public key, `env.a_admin` its secret key;
    `env.post("a", event)` delivers an event as Stripe would (signed with the tenant's first secret)."""

    api_class = WebApi

    def __init__(self, server, tenants: dict, protos, fake: "fs.FakeStripe | None" = None):
        super().__init__(server, protos)
        self.tenants, self.fake = tenants, fake
        channel = self.channel()
        for name, tenant in tenants.items():
            setattr(self, name, self.api(tenant.public_key, channel))
            setattr(self, f"{name}_admin", self.api(tenant.secret_key, channel))

    def tenant_id(self, tenant: str) -> str:
        return self.tenants[tenant].id if tenant in self.tenants else tenant

    def post(self, tenant: str, evt: dict | None = None, *, via: str = "http1", body: bytes | None = None,
             signature: str | None | object = ..., timestamp: int | None = None) -> tuple[int, str]:
        """POSTs `evt` (or `body` as it is), signed by stripe-python with the tenant's first secret unless
        `signature` says otherwise (None: no header)."""
        if body is None:
            body = fs.body_of(evt).encode()
        if signature is ...:
            signature = fs.sign(body.decode(), self.tenants[tenant].webhook_secret, timestamp)
        return post(self.server, self.tenant_id(tenant), body, signature, via)

    def post_ok(self, tenant: str, evt: dict, *needles: str, **kwargs) -> str:
        status, text = self.post(tenant, evt, **kwargs)
        assert status == 200, f"{status}: {text}\n{self.server.log()[-2000:]}"
        for needle in needles:
            assert needle in text, f"{needle!r} not in {text!r}"
        return text


# --------------------------------------------------------------------------------------------------
# Reading results


def web_transaction(admin, user: str, original_id: str):
    """The customer's web Transaction `original_id` (asserting there is exactly one)."""
    found = [t for t in admin.customer(user).transactions if t.original_transaction_id == original_id]
    assert len(found) == 1, f"{len(found)} transactions {original_id} in {admin.customer(user).transactions}"
    return found[0]


def entitlement_ids(customer) -> list[str]:
    return sorted(entitlement.id for entitlement in customer.status.entitlements)


def has_customer(admin, user: str) -> bool:
    try:
        admin.customer(user)
    except grpc.RpcError as error:
        if error.code() == grpc.StatusCode.NOT_FOUND:
            return False
        raise
    return True
