"""AdminService.ExportCustomer and ListAuditEvents through the real interop-server: everything stored about one
customer as one JSON document, streamed in chunks of at most 1 MiB, and the tenant's audit log of exports.

Tenant "a" sells on the App Store (signed by a CA `entctl dev init` made) and on the web (Stripe webhooks signed with
its secret), has a webhook endpoint at a `Receiver` that wants every event, a read-only key ("auditor") and a named
write key ("crm-sync"). The module builds one customer there with every kind of record (`story`): an identified
customer with attributes from the backend, an anonymous one with attributes of its own merged into it by Identify (an
alias and a merged customer with its own events), attributes from the app, an App Store purchase carrying the
customer's app account token, an anonymous web checkout redeemed with a code (Stripe's other IDs, revenue, codes), a
grant in force, a revoked one, and the webhook deliveries of all of it. Each test exports it (or another customer)
with a stock grpcio streaming call and compares the document field by field with what was written, and with what the
other RPCs and the receiver saw.

"b" is another tenant (isolation), "pages" one whose audit log only the paging test writes, "long" one for customers
with more events than a page of the export (500), "big" one with an endpoint of its own for an export larger than
a chunk (1 MiB)."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

import grpc
import pytest

import fake_stripe as fs
from appstore_support import MONTHLY as APP_MONTHLY, PRODUCTS as APP_PRODUCTS, SigningCA, app_store_settings, payload
from conftest import MIB
from entitlement_support import (
    ADMIN_SERVICE, PACKAGE, anon_id, key_hash, make_key, new_tenant, unique_id, write_tenants,
)
from stripe_support import LIFETIME as WEB_LIFETIME, PRICE_LIFETIME, StripeEnv, WebApi, stripe_tenant
from test_customer_attributes import AttrApi
from webhook_receiver import Receiver

Code = grpc.StatusCode
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
READER, _ = make_key("sk")
WRITER, _ = make_key("sk")
CUSTOMER_EXPORTED = 1
DELIVERED = 2  # WebhookDeliveryState
EXPORT_TIMEOUT = 60.0
NOTE = 'She said "hi" \\ </script> {"not": "json"} ☃'
GOODWILL = 'goodwill "after" the outage \\ 🎉'


# --------------------------------------------------------------------------------------------------
# Calls


class ExportApi(AttrApi, WebApi):
    """The attribute, App Store and web calls, with ExportCustomer and ListAuditEvents."""

    def export_call(self, app_user_id: str, request_id: str | None = None, channel: grpc.Channel | None = None):
        """The ExportCustomer call (a stock grpcio server-streaming call), iterable over its chunks; `request_id` is
        sent as `x-request-id`."""
        chunk_class = self.protos.message(f"{PACKAGE}.ExportCustomerChunk")
        callable_ = (channel or self.channel).unary_stream(
            f"/{ADMIN_SERVICE}/ExportCustomer", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=chunk_class.FromString,
        )
        metadata = self._metadata(None) + ([("x-request-id", request_id)] if request_id else [])
        return callable_(self.message("ExportCustomerRequest", app_user_id=app_user_id), timeout=EXPORT_TIMEOUT,
                         metadata=metadata)

    def export_chunks(self, app_user_id: str, **kwargs) -> list[bytes]:
        return [chunk.data for chunk in self.export_call(app_user_id, **kwargs)]

    def export(self, app_user_id: str, **kwargs) -> dict:
        """The document: the chunks joined in order, as UTF-8 JSON."""
        return document(self.export_chunks(app_user_id, **kwargs))

    def export_error(self, app_user_id: str, **kwargs) -> grpc.RpcError:
        """The error the export ends with; fails when it succeeds or sends a chunk first."""
        chunks = []
        try:
            for chunk in self.export_call(app_user_id, **kwargs):
                chunks.append(chunk)
        except grpc.RpcError as error:
            assert chunks == [], f"{len(chunks)} chunks before {error.code()}"
            return error
        pytest.fail(f"expected the export of {app_user_id!r} to fail, got {sum(len(c.data) for c in chunks)} bytes")

    def audit_page(self, page_size: int = 0, page_token: str = ""):
        response_class = self.protos.message(f"{PACKAGE}.ListAuditEventsResponse")
        callable_ = self.channel.unary_unary(
            f"/{ADMIN_SERVICE}/ListAuditEvents", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString,
        )
        request = self.message("ListAuditEventsRequest", page_size=page_size, page_token=page_token)
        return callable_(request, timeout=EXPORT_TIMEOUT, metadata=self._metadata(None))

    def audit_error(self, page_size: int = 0, page_token: str = "") -> grpc.RpcError:
        try:
            result = self.audit_page(page_size, page_token)
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected ListAuditEvents to fail, got {result}")

    def audit_log(self) -> list:
        """Every entry, newest first (following next_page_token)."""
        entries, token = [], ""
        for _ in range(100):
            page = self.audit_page(page_size=100, page_token=token)
            entries.extend(page.events)
            token = page.next_page_token
            if not token:
                return entries
        pytest.fail("ListAuditEvents never returned an empty next_page_token")

    def newest_audit_id(self) -> int:
        events = self.audit_page(page_size=1).events
        return events[0].id if events else 0

    def deliveries(self) -> list:
        """The tenant's webhook delivery log (one page of 500, newest first)."""
        return list(self.call("ListWebhookDeliveries", page_size=500).deliveries)


class Env(StripeEnv):
    api_class = ExportApi


def document(chunks: list[bytes]) -> dict:
    return json.loads(b"".join(chunks).decode("utf-8"))


def without_time(doc: dict) -> dict:
    return {key: value for key, value in doc.items() if key != "exported_at"}


def stamp(message, name: str) -> str | None:
    """A Timestamp field as the export writes times (RFC 3339, UTC, milliseconds), None when unset."""
    if not message.HasField(name):
        return None
    value = getattr(message, name)
    return millis_stamp(value.seconds * 1000 + value.nanos // 1_000_000)


def millis_stamp(milliseconds: int) -> str:
    seconds, rest = divmod(milliseconds, 1000)
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{rest:03d}Z"


def parse(text: str) -> float:
    assert text.endswith("Z") and len(text) == 24, text
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


def enum_name(message, name: str) -> str:
    """An enum field's value by its name in lower case: how the export (and the webhooks) name it."""
    field = message.DESCRIPTOR.fields_by_name[name]
    return field.enum_type.values_by_number[getattr(message, name)].name.lower()


def default_key_name(key: str) -> str:
    """What a key listed as a bare hash is called: "sk_sha256:" and the first 8 hex digits of the hash."""
    return key_hash(key)[:len("sk_sha256:") + 8]


def audit_entry(entry) -> tuple:
    return entry.action, entry.key_name, entry.request_id, entry.subject


def wait_for(condition, what: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    pytest.fail(f"{what} within {timeout} s")


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("export-ca") / "ca")


@pytest.fixture(scope="module")
def receivers():
    made = {name: Receiver(secrets=[SECRET]) for name in ("a", "big")}
    yield made
    for receiver in made.values():
        receiver.close()


@pytest.fixture(scope="module")
def tenants(ca, receivers):
    a = stripe_tenant("export-a")
    a.products.update({product: list(ids) for product, ids in APP_PRODUCTS.items()})
    a.app_store = app_store_settings(ca.root, "transfer")
    a.webhooks = [{"id": "backend", "url": receivers["a"].url, "secrets": [SECRET]}]
    a.named_secret_keys = [{"key": READER, "name": "auditor", "scope": "read"}, {"key": WRITER, "name": "crm-sync"}]
    return {
        "a": a,
        "b": new_tenant("export-b"),
        "pages": new_tenant("export-pages"),
        "long": new_tenant("export-long"),
        "big": new_tenant("export-big", webhooks=[{"id": "big", "url": receivers["big"].url, "secrets": [SECRET]}]),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("export") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture(scope="module")
def shared_env(server, tenants, protos):
    made = Env(server, tenants, protos)
    yield made
    made.close()


@pytest.fixture
def env(shared_env, server):
    yield shared_env
    assert server.process.poll() is None, f"server died:\n{server.describe()}"


@dataclass
class Story:
    """What the module wrote about its customer in tenant "a"."""

    user: str
    anon: str
    token: str  # the user's app account token (Identify)
    app_store: dict  # the signed transaction's payload
    pi: str  # the web purchase: its payment intent (original transaction ID) ...
    cs: str  # ... and checkout session
    checkout_created: int
    code_expires_at: str  # the redeemed code's expiry, as GetRedemptionCode said
    revoked_grant: str
    kept_grant: str
    attributes: dict
    started: float
    finished: float


USER_EVENTS = [  # (version, cause, kind) of the identified customer
    (1, "created", "customer_info_changed"),
    (2, "attributes", "customer_info_changed"),
    (3, "merged", "customer_info_changed"),
    (4, "attributes", "customer_info_changed"),
    (5, "purchase", "status_changed"),
    (6, "redemption", "status_changed"),
    (7, "grant", "customer_info_changed"),
    (8, "grant", "customer_info_changed"),
    (9, "revoke", "customer_info_changed"),
]
ANON_EVENTS = [  # and of the anonymous customer merged into it
    (1, "created", "customer_info_changed"),
    (2, "attributes", "customer_info_changed"),
    (3, "attributes", "customer_info_changed"),
    (4, "transferred_out", "customer_info_changed"),
]
USER_DELIVERIES = ["customer.customer_info_changed", "customer.attributes_changed", "customer.merge",
                   "customer.attributes_changed", "customer.purchase", "customer.purchase", "customer.grant",
                   "customer.grant", "customer.grant"]  # by version
ANON_DELIVERIES = ["customer.customer_info_changed", "customer.attributes_changed", "customer.attributes_changed",
                   "customer.merge"]


@pytest.fixture(scope="module")
def story(shared_env, ca, receivers) -> Story:
    env = shared_env
    writer = env.api(WRITER, env._channels[0])
    started = time.time()
    # Quotes, a backslash, a slash and characters beyond ASCII: the document must escape them as JSON does.
    user, anon = f'export "Ana" \\ Silva/é🎉-{uuid.uuid4().hex[:12]}', anon_id()
    # The identified customer (1), the backend's attributes (2).
    identified = env.a.identify(user)
    assert identified.created
    writer.set_customer_attributes(user, {"plan": "gold", "crm_id": "C-1001", "note": NOTE})
    # The anonymous one: the app's attributes (1 created, 2), the backend's (3).
    env.a.set_attributes(anon, {"$email": "Ana.Silva@Example.com", "$locale": "pt_br"})
    writer.set_customer_attributes(anon, {"plan": "trial", "referrer": "newsletter"})
    # Identify merges it (3; the anonymous customer's 4); the identified customer's plan wins.
    merged = env.a.identify(user, anonymous_id=anon)
    assert merged.merged and merged.app_account_token == identified.app_account_token
    env.a.set_attributes(user, {"$displayName": "Ana Silva 🎉"})  # 4
    # An App Store purchase with the customer's app account token (5).
    token = identified.app_account_token
    signed = ca.sign(APP_MONTHLY, "--app-account-token", token)
    env.a.purchase(user, signed)
    # An anonymous web checkout (a code issued with it for the backend), a code from GetRedemptionCode replacing that
    # one, redeemed (6).
    pi, created = fs.new_id("pi"), fs.now() - 60
    session = fs.checkout_session(mode="payment", payment_intent=pi, metadata={"price_id": PRICE_LIFETIME},
                                  created=created)
    env.post_ok("a", fs.event("checkout.session.completed", session), "recorded")
    code = env.a_admin.redemption_code(pi)
    env.a.redeem(user, code.code)
    # Grants (7, 8) and a revocation (9).
    revoked = env.a_admin.grant(user, "premium", duration=3600, reason=GOODWILL).grant_id
    kept = env.a_admin.grant(user, "pro", duration=7 * 86400, reason="beta tester").grant_id
    env.a_admin.revoke(revoked, reason="granted by mistake")
    # Every webhook about the two customers delivered (and the log says so).
    ours = {user, anon}
    wait_for(lambda: len([d for d in receivers["a"].bodies() if d["data"].get("app_user_id") in ours]) == 13,
             "13 deliveries about the customer did not arrive")
    wait_for(lambda: [d.state for d in env.a_admin.deliveries() if d.app_user_id in ours] == [DELIVERED] * 13,
             "the delivery log did not show the 13 deliveries delivered")
    return Story(
        user=user, anon=anon, token=token, app_store=payload(signed), pi=pi, cs=session["id"], checkout_created=created,
        code_expires_at=stamp(code, "expires_at"), revoked_grant=revoked, kept_grant=kept,
        attributes={"$displayName": "Ana Silva 🎉", "$email": "Ana.Silva@Example.com", "$locale": "pt-BR",
                    "crm_id": "C-1001", "note": NOTE, "plan": "gold", "referrer": "newsletter"},
        started=started, finished=time.time())


@pytest.fixture(scope="module")
def exported(shared_env, story) -> tuple[dict, list[bytes], float, float]:
    """The story's customer exported once with the tenant's secret key: the document, its chunks, and when."""
    before = time.time()
    chunks = shared_env.a_admin.export_chunks(story.user)
    return document(chunks), chunks, before, time.time()


# --------------------------------------------------------------------------------------------------
# The document


def test_the_document_names_its_format_tenant_and_customer(env, story, exported):
    doc, chunks, before, after = exported
    assert all(0 < len(chunk) <= MIB for chunk in chunks), [len(chunk) for chunk in chunks]
    assert list(doc) == ["format", "format_version", "exported_at", "tenant", "app_user_id", "customer", "status",
                         "attributes", "purchases", "grants", "redemption_codes_used", "offer_signatures", "events",
                         "webhook_deliveries"]
    assert (doc["format"], doc["format_version"], doc["tenant"], doc["app_user_id"]) == (
        "entitlementd.customer_export", 1, "export-a", story.user)
    assert before - 1 <= parse(doc["exported_at"]) <= after + 1
    customer = doc["customer"]
    first_events = {(e["app_user_id"], e["version"]): e for e in doc["events"] if e["version"] == 1}
    assert customer["app_user_id"] == story.user and customer["anonymous"] is False
    assert customer["version"] == 9 == env.a_admin.customer(story.user).customer.version
    assert customer["created_at"] == first_events[(story.user, 1)]["occurred_at"]
    # Both IDs: the user's with its app account token, the merged anonymous ID (an alias) with none.
    ids = {entry["app_user_id"]: entry for entry in customer["app_user_ids"]}
    assert set(ids) == {story.user, story.anon} and len(customer["app_user_ids"]) == 2
    assert ids[story.user]["app_account_token"] == story.token and ids[story.anon]["app_account_token"] is None
    assert ids[story.user]["added_at"] == customer["created_at"]
    assert story.started - 1 <= parse(ids[story.anon]["added_at"]) <= story.finished + 1
    assert list(env.a_admin.customer(story.user).aliases) == [story.anon]
    # The anonymous customer merged into it, at its last version (the merge).
    assert customer["merged_customers"] == [{
        "app_user_id": story.anon, "created_at": first_events[(story.anon, 1)]["occurred_at"], "version": 4}]


def test_status_and_attributes_are_what_get_customer_says(env, story, exported):
    doc = exported[0]
    customer = env.a_admin.customer(story.user)
    assert doc["status"]["state"] == "active"
    assert doc["status"]["entitlements"] == [{
        "id": e.id, "source": enum_name(e, "source"), "product_id": e.product_id, "expires_at": stamp(e, "expires_at"),
        "will_renew": e.will_renew, "in_grace_period": e.in_grace_period, "in_billing_retry": e.in_billing_retry,
    } for e in customer.customer.status.entitlements]
    assert sorted(e["id"] for e in doc["status"]["entitlements"]) == ["premium", "pro"]
    # Every attribute, by key, with its time: the backend's, the app's, and the merged customer's other keys.
    assert doc["attributes"] == [
        {"key": a.key, "value": a.value, "updated_at": stamp(a, "updated_at")} for a in customer.attributes]
    assert {a["key"]: a["value"] for a in doc["attributes"]} == story.attributes
    assert [a["key"] for a in doc["attributes"]] == sorted(story.attributes)


def test_the_app_store_purchase_with_its_token_price_and_revenue(env, story, exported):
    signed = story.app_store
    (purchase,) = [p for p in exported[0]["purchases"] if p["store"] == "app_store"]
    (transaction,) = [t for t in env.a_admin.customer(story.user).transactions if enum_name(t, "store") == "app_store"]
    purchased, expires = millis_stamp(signed["purchaseDate"]), millis_stamp(signed["expiresDate"])
    assert {key: purchase[key] for key in (
        "product_id", "original_transaction_id", "transaction_id", "environment", "entitlement_ids", "purchased_at",
        "expires_at", "revoked_at", "will_renew", "ownership", "original_purchase_at", "app_account_token",
        "price")} == {
        "product_id": APP_MONTHLY, "original_transaction_id": signed["originalTransactionId"],
        "transaction_id": signed["transactionId"], "environment": "sandbox", "entitlement_ids": ["pro"],
        "purchased_at": purchased, "expires_at": expires, "revoked_at": None, "will_renew": True,
        "ownership": "purchased", "original_purchase_at": millis_stamp(signed["originalPurchaseDate"]),
        "app_account_token": story.token, "price": {"amount_milliunits": signed["price"], "currency": "USD"}}
    assert (purchase["original_transaction_id"], purchase["purchased_at"], purchase["expires_at"],
            purchase["original_purchase_at"]) == (
        transaction.original_transaction_id, stamp(transaction, "purchased_at"), stamp(transaction, "expires_at"),
        stamp(transaction, "original_purchase_at"))
    assert purchase["store_references"] == [] and purchase["redemption_codes"] == []
    (row,) = purchase["revenue"]
    assert {key: row[key] for key in (
        "kind", "direction", "store", "transaction_id", "original_transaction_id", "product_id", "environment",
        "amount_milliunits", "currency", "period_start", "period_end")} == {
        "kind": "purchase", "direction": "payment", "store": "app_store", "transaction_id": signed["transactionId"],
        "original_transaction_id": signed["originalTransactionId"], "product_id": APP_MONTHLY,
        "environment": "sandbox", "amount_milliunits": signed["price"], "currency": "USD", "period_start": purchased,
        "period_end": expires}
    assert 0 < row["proceeds_milliunits"] < signed["price"]


def test_the_redeemed_web_purchase_with_stripes_ids_revenue_and_codes(env, story, exported):
    doc = exported[0]
    (purchase,) = [p for p in doc["purchases"] if p["store"] == "web"]
    bought = millis_stamp(story.checkout_created * 1000)
    assert {key: purchase[key] for key in (
        "product_id", "original_transaction_id", "transaction_id", "entitlement_ids", "purchased_at", "expires_at",
        "original_purchase_at", "app_account_token", "price")} == {
        "product_id": WEB_LIFETIME, "original_transaction_id": story.pi, "transaction_id": story.cs,
        "entitlement_ids": ["premium"], "purchased_at": bought, "expires_at": None, "original_purchase_at": bought,
        "app_account_token": "", "price": {"amount_milliunits": 9990, "currency": "USD"}}
    assert sorted(purchase["store_references"]) == sorted([story.cs, story.pi])
    (row,) = purchase["revenue"]
    assert (row["kind"], row["store"], row["transaction_id"], row["original_transaction_id"], row["amount_milliunits"],
            row["currency"], row["occurred_at"]) == ("one_time", "web", story.cs, story.pi, 9990, "USD", bought)
    # The code issued with the checkout (for the backend), replaced by GetRedemptionCode's, which the user redeemed.
    replaced, used = purchase["redemption_codes"]
    assert (replaced["original_transaction_id"], replaced["used_at"], replaced["used_by"]) == (story.pi, None, "")
    assert replaced["replaced_at"] is not None and parse(replaced["created_at"]) <= parse(replaced["replaced_at"])
    assert (used["store"], used["original_transaction_id"], used["used_by"], used["replaced_at"],
            used["expires_at"]) == ("web", story.pi, story.user, None, story.code_expires_at)
    assert parse(replaced["replaced_at"]) <= parse(used["created_at"]) <= parse(used["used_at"]) <= story.finished + 1
    # A code the customer used for a purchase it holds is listed with the purchase, not again.
    assert doc["redemption_codes_used"] == []
    # Two purchases, in the order GetCustomer lists them.
    assert [p["original_transaction_id"] for p in doc["purchases"]] == [
        t.original_transaction_id for t in env.a_admin.customer(story.user).transactions]


def test_grants_with_their_reasons(env, story, exported):
    grants = env.a_admin.customer(story.user).grants
    assert exported[0]["grants"] == [{
        "grant_id": g.grant_id, "entitlement_id": g.entitlement_id, "starts_at": stamp(g, "starts_at"),
        "expires_at": stamp(g, "expires_at"), "revoked_at": stamp(g, "revoked_at"), "reason": g.reason,
        "revocation_reason": g.revocation_reason} for g in grants]
    revoked, kept = exported[0]["grants"]
    assert (revoked["grant_id"], revoked["entitlement_id"], revoked["reason"], revoked["revocation_reason"]) == (
        story.revoked_grant, "premium", GOODWILL, "granted by mistake")
    assert revoked["revoked_at"] is not None and parse(revoked["revoked_at"]) < parse(revoked["expires_at"])
    assert (kept["grant_id"], kept["entitlement_id"], kept["reason"], kept["revoked_at"],
            kept["revocation_reason"]) == (story.kept_grant, "pro", "beta tester", None, "")
    assert abs(parse(kept["expires_at"]) - parse(kept["starts_at"]) - 7 * 86400) < 0.002


def test_every_event_of_the_customer_and_of_the_merged_one_oldest_first(env, story, tenants, exported):
    events = exported[0]["events"]
    assert [(e["app_user_id"], e["version"], e["cause"], e["kind"]) for e in events] == [
        (story.user, *event) for event in USER_EVENTS] + [(story.anon, *event) for event in ANON_EVENTS]
    # The identified customer's are what ListCustomerEvents lists, field by field.
    listed = list(reversed(env.a_admin.all_events(story.user)))
    assert [e.version for e in listed] == [v for v, _, _ in USER_EVENTS]
    for event, record in zip(events, listed):
        assert event == {
            "app_user_id": story.user, "version": record.version, "cause": enum_name(record, "cause"),
            "kind": enum_name(record, "change"), "reason": record.reason, "occurred_at": stamp(record, "occurred_at"),
            "related_app_user_id": record.related_app_user_id, "reference_id": record.reference_id,
            "key_name": record.key_name, "status": {
                "state": enum_name(record.status, "state"),
                "entitlements": [{
                    "id": e.id, "source": enum_name(e, "source"), "product_id": e.product_id,
                    "expires_at": stamp(e, "expires_at"), "will_renew": e.will_renew,
                    "in_grace_period": e.in_grace_period, "in_billing_retry": e.in_billing_retry,
                } for e in record.status.entitlements]}}, event
    # Who made each change, and what it points at.
    app, admin = default_key_name(tenants["a"].public_key), default_key_name(tenants["a"].secret_key)
    assert [e["key_name"] for e in events] == [
        app, "crm-sync", app, app, app, app, admin, admin, admin, app, app, "crm-sync", app]
    by = {(e["app_user_id"], e["version"]): e for e in events}
    assert by[(story.user, 3)]["related_app_user_id"] == story.anon
    assert by[(story.anon, 4)]["related_app_user_id"] == story.user
    assert by[(story.user, 5)]["reference_id"] == story.app_store["transactionId"]
    assert by[(story.user, 6)]["reference_id"] == story.pi
    assert [by[(story.user, v)]["reference_id"] for v in (7, 8, 9)] == [
        story.revoked_grant, story.kept_grant, story.revoked_grant]
    assert by[(story.user, 9)]["reason"] == "granted by mistake"
    assert by[(story.anon, 2)]["reason"] == "Attributes changed: $email, $locale."
    assert by[(story.anon, 3)]["reason"] == "Attributes changed: plan, referrer."
    assert [e["id"] for e in by[(story.user, 5)]["status"]["entitlements"]] == ["pro"]
    assert sorted(e["id"] for e in by[(story.user, 6)]["status"]["entitlements"]) == ["premium", "pro"]
    times = [parse(e["occurred_at"]) for e in events]
    assert times[:9] == sorted(times[:9]) and times[9:] == sorted(times[9:])
    assert all(story.started - 1 <= t <= story.finished + 1 for t in times)


def test_every_webhook_delivery_with_the_body_the_receiver_got(env, story, receivers, exported):
    deliveries = exported[0]["webhook_deliveries"]
    # Newest first, the customer's then the merged customer's.
    assert [(d["app_user_id"], d["version"], d["type"]) for d in deliveries] == [
        (story.user, v, USER_DELIVERIES[v - 1]) for v in range(9, 0, -1)] + [
        (story.anon, v, ANON_DELIVERIES[v - 1]) for v in range(4, 0, -1)]
    # Exactly the deliveries the receiver got about either ID (not the unclaimed purchase's, which was nobody's).
    received = {d.headers["webhook-id"]: d for d in receivers["a"].deliveries
                if d.json["data"].get("app_user_id") in (story.user, story.anon)}
    assert sorted(d["webhook_id"] for d in deliveries) == sorted(received)
    logged = {d.delivery_id: d for d in env.a_admin.deliveries()}
    for delivery in deliveries:
        arrived = received[delivery["webhook_id"]]
        assert arrived.verified_with == [0]
        assert delivery["body"] == arrived.json, delivery["webhook_id"]
        assert (delivery["body"]["type"], delivery["body"]["data"]["version"],
                delivery["body"]["data"]["app_user_id"]) == (delivery["type"], delivery["version"],
                                                             delivery["app_user_id"])
        assert (delivery["endpoint_id"], delivery["state"], delivery["attempts"], delivery["last_status"],
                delivery["last_error"]) == ("backend", "delivered", 1, 200, "")
        row = logged[delivery["id"]]
        assert (row.webhook_id, row.type, row.version, row.app_user_id, row.endpoint_id, row.attempts,
                row.last_status_code) == (delivery["webhook_id"], delivery["type"], delivery["version"],
                                          delivery["app_user_id"], "backend", 1, 200)
        assert (stamp(row, "created_at"), stamp(row, "delivered_at")) == (delivery["created_at"],
                                                                          delivery["delivered_at"])
        assert json.loads(row.body) == delivery["body"]
    # The last change of attributes (the customer's version 4) carries every attribute the document lists.
    (last,) = [d for d in deliveries if (d["app_user_id"], d["version"]) == (story.user, 4)]
    assert last["body"]["data"]["attributes"] == {"changed_keys": ["$displayName"], "values": story.attributes}


def test_text_is_utf8_json_with_every_value_as_written(env, story, exported):
    """Quotes, backslashes, a slash, "</script>", JSON-looking text and characters beyond ASCII in the app user ID,
    an attribute and a grant's reason come back as written."""
    text = b"".join(exported[1]).decode("utf-8")  # strict: fails on a byte sequence that is not UTF-8
    doc = json.loads(text)
    assert doc["app_user_id"] == doc["customer"]["app_user_id"] == story.user
    assert story.user in {e["app_user_id"] for e in doc["events"]} and "é🎉" in story.user
    assert {a["key"]: a["value"] for a in doc["attributes"]}["note"] == NOTE
    assert doc["grants"][0]["reason"] == GOODWILL
    assert {d["body"]["data"]["app_user_id"] for d in doc["webhook_deliveries"]} == {story.user, story.anon}
    # Characters beyond ASCII are UTF-8 in the text, or JSON escapes of them; never anything else.
    assert "🎉" in text or "\\ud83c\\udf89" in text.lower()


# --------------------------------------------------------------------------------------------------
# Who may export, and the audit log


def test_an_alias_exports_the_same_document_and_the_audit_names_the_canonical_id(env, story, exported, tenants):
    request_id = f"export-alias-{uuid.uuid4().hex[:12]}"
    by_alias = env.a_admin.export(story.anon, request_id=request_id)
    assert without_time(by_alias) == without_time(exported[0])
    newest = env.a_admin.audit_page(page_size=1).events[0]
    assert audit_entry(newest) == (
        CUSTOMER_EXPORTED, default_key_name(tenants["a"].secret_key), request_id, story.user)


def test_a_read_only_key_exports_and_the_audit_entry_names_it(env, story, exported, server):
    reader = env.api(READER, env._channels[0])
    before = env.a_admin.newest_audit_id()
    started = time.time()
    call = reader.export_call(story.user)
    chunks = [chunk.data for chunk in call]
    assert without_time(document(chunks)) == without_time(exported[0])
    # The server's own request ID (none was sent), echoed in the response headers.
    (request_id,) = [value for key, value in call.initial_metadata() if key == "x-request-id"]
    # The read-only key reads the log too; the export is its newest entry.
    (newest, *_) = reader.audit_page(page_size=5).events
    assert newest.id > before
    assert audit_entry(newest) == (CUSTOMER_EXPORTED, "auditor", request_id, story.user)
    assert started - 1 <= newest.occurred_at.seconds + newest.occurred_at.nanos / 1e9 <= time.time() + 1
    # The call's log line carries the same request ID and key.
    wait_for(lambda: any(f"request_id={request_id} " in line and "ExportCustomer" in line and "key=auditor" in line
                         for line in server.log().splitlines()), "no log line of the export", timeout=15)


def test_unknown_and_malformed_ids_are_refused_and_not_audited(env, story):
    before = env.a_admin.newest_audit_id()
    unknown = unique_id("nobody")
    error = env.a_admin.export_error(unknown)
    assert error.code() == Code.NOT_FOUND and unknown in error.details(), error.details()
    assert env.api(READER, env._channels[0]).export_error(unique_id()).code() == Code.NOT_FOUND
    assert env.a_admin.export_error("").code() == Code.INVALID_ARGUMENT
    assert env.a_admin.export_error("x" * 257).code() == Code.INVALID_ARGUMENT
    assert env.a_admin.newest_audit_id() == before


def test_public_unknown_and_missing_keys_are_refused_as_for_other_admin_calls(env, story, tenants):
    before = env.a_admin.newest_audit_id()
    public = env.a
    expected = env.a.error("GetCustomer", app_user_id=story.user).code()
    assert expected == Code.PERMISSION_DENIED
    assert public.export_error(story.user).code() == expected
    assert public.audit_error().code() == expected
    for key in (None, make_key("sk")[0]):
        api = env.api(key, env._channels[0])
        expected = api.error("GetCustomer", app_user_id=story.user).code()
        assert expected == Code.UNAUTHENTICATED
        assert api.export_error(story.user).code() == expected
        assert api.audit_error().code() == expected
    assert env.a_admin.newest_audit_id() == before


def test_another_tenants_key_finds_nothing_and_its_audit_log_holds_nothing_of_a(env, story, exported):
    b = env.b_admin
    for app_user_id in (story.user, story.anon):
        error = b.export_error(app_user_id)
        assert error.code() == Code.NOT_FOUND, (error.code(), error.details())
    assert b.audit_log() == []
    # A customer of b's own with the same app user ID is b's, and so is its export.
    env.b.identify(story.user)
    request_id = f"export-b-{uuid.uuid4().hex[:12]}"
    doc = b.export(story.user, request_id=request_id)
    assert (doc["tenant"], doc["app_user_id"], doc["customer"]["version"]) == ("export-b", story.user, 1)
    assert (doc["attributes"], doc["purchases"], doc["grants"], doc["webhook_deliveries"]) == ([], [], [], [])
    assert [(e["version"], e["cause"]) for e in doc["events"]] == [(1, "created")]
    assert [a["app_user_id"] for a in doc["customer"]["app_user_ids"]] == [story.user]
    assert [audit_entry(e)[2:] for e in b.audit_log()] == [(request_id, story.user)]
    # Neither log shows the other's exports.
    assert request_id not in [e.request_id for e in env.a_admin.audit_log()]
    assert len(env.a_admin.export(story.user)["purchases"]) == 2


def test_the_audit_log_pages_newest_first(env):
    admin = env.pages_admin
    users = [unique_id("paged") for _ in range(3)]
    for user in users:
        admin.set_customer_attributes(user, {"plan": "basic"})
    assert admin.audit_log() == []
    started = time.time()
    exports = [(users[i], f"page-{n}-{uuid.uuid4().hex[:8]}") for n, i in enumerate([0, 1, 2, 0, 1])]
    for n, (user, request_id) in enumerate(exports):
        admin.export(user, request_id=request_id)
        if n == 2:  # refusals in between write nothing
            assert admin.export_error(unique_id()).code() == Code.NOT_FOUND
            assert admin.export_error("").code() == Code.INVALID_ARGUMENT
    expected = [(CUSTOMER_EXPORTED, default_key_name(env.tenants["pages"].secret_key), request_id, user)
                for user, request_id in reversed(exports)]
    pages, token = [], ""
    for _ in range(4):
        page = admin.audit_page(page_size=2, page_token=token)
        pages.append(page.events)
        token = page.next_page_token
        if not token:
            break
    assert [len(page) for page in pages] == [2, 2, 1]
    entries = [entry for page in pages for entry in page]
    assert [audit_entry(e) for e in entries] == expected
    ids = [e.id for e in entries]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 5
    times = [e.occurred_at.seconds + e.occurred_at.nanos / 1e9 for e in entries]
    assert times == sorted(times, reverse=True) and started - 1 <= times[-1] <= times[0] <= time.time() + 1
    # The default page (50) and a size of 0 or less hold them all; a page of exactly the rest ends the log.
    for size in (0, -3, 500, 5):
        page = admin.audit_page(page_size=size)
        assert ([audit_entry(e) for e in page.events], page.next_page_token) == (expected, ""), size
    page = admin.audit_page(page_size=4)
    assert [audit_entry(e) for e in page.events] == expected[:4] and page.next_page_token
    assert [audit_entry(e) for e in admin.audit_page(page_size=4, page_token=page.next_page_token).events] == [
        expected[4]]
    for token in ("abc", "0", "-1", "1.5"):
        error = admin.audit_error(page_token=token)
        assert error.code() == Code.INVALID_ARGUMENT and "page_token" in error.details(), (token, error.details())


# --------------------------------------------------------------------------------------------------
# Long and large customers


def test_more_events_than_a_page_all_in_order_the_merged_customers_too(env):
    """600 attribute changes (601 events, and the merge's: 602) cross the export's page of 500 events; the merged
    customer has exactly 500 (a full page, then none)."""
    admin, user, anon = env.long_admin, unique_id("long"), anon_id()
    admin.set_customer_attributes(anon, {"flip": "a"})  # 1 created, 2
    for n in range(497):  # 3..499
        admin.set_customer_attributes(anon, {"flip": "b" if n % 2 == 0 else "a"})
    admin.set_customer_attributes(user, {"flip": "a"})  # 1 created, 2
    for n in range(599):  # 3..601
        admin.set_customer_attributes(user, {"flip": "b" if n % 2 == 0 else "a"})
    assert env.long.identify(user, anonymous_id=anon).merged  # 602; the anonymous customer's 500
    chunks = admin.export_chunks(user)
    assert len(chunks) > 2 and all(len(chunk) <= MIB for chunk in chunks)
    doc = document(chunks)
    events = doc["events"]
    assert [(e["app_user_id"], e["version"]) for e in events] == [
        (user, v) for v in range(1, 603)] + [(anon, v) for v in range(1, 501)]
    assert [e["cause"] for e in events] == (
        ["created"] + ["attributes"] * 600 + ["merged"] + ["created"] + ["attributes"] * 498 + ["transferred_out"])
    assert {e["reason"] for e in events if e["cause"] == "attributes"} == {"Attributes changed: flip."}
    times = [parse(e["occurred_at"]) for e in events]
    assert times[:602] == sorted(times[:602]) and times[602:] == sorted(times[602:])
    assert (doc["customer"]["version"], doc["customer"]["merged_customers"][0]["version"]) == (602, 500)
    assert doc["attributes"][0]["value"] == "b" and doc["webhook_deliveries"] == []
    # The same history ListCustomerEvents gives.
    listed = env.long_admin.all_events(user)
    assert [(e.version, e.reason) for e in reversed(listed)] == [(e["version"], e["reason"]) for e in events[:602]]


def big_value(index: int, turn: int) -> str:
    """500 bytes of UTF-8 with 2-byte and 4-byte characters."""
    value = f"{index:02}{turn % 2}" + "é" * 199 + "🎉" * 24 + "xxx"
    assert len(value.encode()) == 500
    return value


def test_a_large_export_crosses_the_chunk_size_over_a_channel_with_default_limits(env, server, receivers):
    """50 attributes of 500 bytes, changed 110 times: 112 deliveries of ~30 KB bodies (more than one page of the
    export's deliveries), some 3 MB in all, read over a channel with grpcio's default 4 MiB message limit."""
    admin, user = env.big_admin, unique_id("big")
    values = {f"k{i:02}": big_value(i, 0) for i in range(50)}
    admin.set_customer_attributes(user, values)  # 1 created, 2
    for turn in range(1, 111):  # 3..112
        values["k07"] = big_value(7, turn)
        admin.set_customer_attributes(user, {"k07": values["k07"]})
    ours = lambda: [d for d in receivers["big"].deliveries if d.json["data"]["app_user_id"] == user]  # noqa: E731
    wait_for(lambda: len(ours()) == 112, "the 112 deliveries did not arrive", timeout=60)
    with grpc.insecure_channel(server.target, options=[("grpc.enable_http_proxy", 0)]) as stock:
        call = admin.export_call(user, channel=stock)
        chunks = [chunk.data for chunk in call]
    sizes = [len(chunk) for chunk in chunks]
    assert sum(sizes) > 2 * MIB and len(chunks) >= 3 and max(sizes) <= MIB, sizes
    doc = document(chunks)
    assert {a["key"]: a["value"] for a in doc["attributes"]} == values
    assert [e["version"] for e in doc["events"]] == list(range(1, 113))
    deliveries = doc["webhook_deliveries"]
    assert [d["version"] for d in deliveries] == list(range(112, 0, -1))
    ids = [d["id"] for d in deliveries]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 112
    received = {d.headers["webhook-id"]: d.json for d in ours()}
    assert sorted(received) == sorted(d["webhook_id"] for d in deliveries)
    for delivery in deliveries:
        assert delivery["body"] == received[delivery["webhook_id"]], delivery["version"]
    assert deliveries[0]["body"]["data"]["attributes"] == {"changed_keys": ["k07"], "values": values}
