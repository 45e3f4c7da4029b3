"""AdminService.DeleteCustomer through the real interop-server, on SQLite and on PostgreSQL: a customer erased with
everything that names them, what stays for the tenant's accounts, and what a later store notification does.

Tenant "a" sells on the App Store (signed by a CA `entctl dev init` made; purchases move between users) and on the
web (Stripe webhooks signed with its secret), keeps an erased customer's purchases (the default), has three webhook
endpoints (every kind, only "grant", only "deleted"), a read-only key ("auditor") and a named write key
("privacy-bot"). The module builds one customer there with every kind of record (`story`), each carrying a marker
string of its own: an anonymous customer with the app's and the backend's attributes merged by Identify into an
identified one with attributes of its own, an App Store purchase carrying the customer's app account token, an
anonymous web checkout redeemed with a code, a Stripe subscription whose checkout named the app user ID as
client_reference_id, a purchase moved from another customer to them and one moved from them to the other customer
(so the other customer's history names them), grants with reasons and an idempotency key, the webhook deliveries of
all of it, and an export (an audit entry naming them). It is erased (`erased`) by its alias with streams open; the
tests then look at the response, the other RPCs, the webhooks, the audit log and the database itself: the SQLite file
and its write-ahead log byte by byte, or every row of every table of the PostgreSQL schema.

"acct" erases accounting records too (`privacy.erase_accounting_records`); "b" is another tenant (isolation); "flaky"
has an endpoint that fails the customer.deleted delivery and then answers 410.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import grpc
import pytest

import fake_stripe as fs
from appstore_support import (
    LIFETIME as APP_LIFETIME, MONTHLY as APP_MONTHLY, PASS as APP_PASS, PRODUCTS as APP_PRODUCTS, SigningCA,
    app_store_settings, payload,
)
from conftest import ON_POSTGRES, query_database
from entitlement_support import (
    ACTIVE, ADMIN_SERVICE, CAUSE, PACKAGE, SNAPSHOT, active_ids, anon_id, make_key, new_tenant, write_tenants,
)
from stripe_support import PRICE_LIFETIME, StripeEnv, StripeTenantSpec, stripe_tenant, subscription_for
from test_customer_export import ExportApi, audit_entry, wait_for
from test_notifications import body_of as notification_body, notification, post_body as post_notification_body
from webhook_receiver import Receiver

Code = grpc.StatusCode
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
READER, _ = make_key("sk")
WRITER, _ = make_key("sk")
CUSTOMER_EXPORTED, CUSTOMER_DELETED = 1, 2
PENDING = 1  # WebhookDeliveryState
DELETED_TYPE = "customer.deleted"
SUBJECT = re.compile(r"^erased_[A-Za-z0-9_-]{22}$")
APP_STORE, WEB = 1, 3  # Store
ORIGINAL_TRANSACTION_ID = 3  # CustomerMatch.MatchedBy
# Tenant b's hash of an ID tenant a erases too, by the ID.
OTHER_TENANT_HASHES: dict[str, str] = {}


def marker(kind: str) -> str:
    """A string nothing else in the database contains."""
    return f"{kind}-{uuid.uuid4().hex[:20]}"


# --------------------------------------------------------------------------------------------------
# Calls


class ErasureApi(ExportApi):
    """The export module's calls, with DeleteCustomer."""

    def delete_call(self, app_user_id: str, confirm: str | None = None, request_id: str | None = None):
        """DeleteCustomer, confirmed with `app_user_id` itself unless `confirm` says otherwise; `request_id` is sent
        as `x-request-id`."""
        callable_ = self.channel.unary_unary(
            f"/{ADMIN_SERVICE}/DeleteCustomer", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=self.protos.message(f"{PACKAGE}.DeleteCustomerResponse").FromString,
        )
        request = self.message("DeleteCustomerRequest", app_user_id=app_user_id,
                               confirm_app_user_id=app_user_id if confirm is None else confirm)
        metadata = self._metadata(None) + ([("x-request-id", request_id)] if request_id else [])
        return callable_(request, timeout=60.0, metadata=metadata)

    def delete(self, app_user_id: str, confirm: str | None = None, request_id: str | None = None):
        return self.delete_call(app_user_id, confirm, request_id)

    def delete_error(self, app_user_id: str, confirm: str | None = None) -> grpc.RpcError:
        try:
            result = self.delete_call(app_user_id, confirm)
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected DeleteCustomer({app_user_id!r}, {confirm!r}) to fail, got {result}")

    def exists(self, app_user_id: str) -> bool:
        try:
            self.customer(app_user_id)
        except grpc.RpcError as error:
            assert error.code() == Code.NOT_FOUND, (error.code(), error.details())
            return False
        return True

    def owners(self, query: str) -> list[tuple]:
        """FindCustomers: (owner, matched_by, store, original transaction ID) of each match."""
        return [(m.app_user_id, m.matched_by, m.store, m.original_transaction_id)
                for m in self.call("FindCustomers", query=query).matches]


class Env(StripeEnv):
    api_class = ErasureApi


@dataclass
class ErasureTenantSpec(StripeTenantSpec):
    privacy: dict | None = None

    def entry(self) -> dict:
        entry = super().entry()
        if self.privacy is not None:
            entry["privacy"] = self.privacy
        return entry


def erasure_tenant(tenant_id: str, ca: SigningCA, privacy: dict | None = None, **fields) -> ErasureTenantSpec:
    web = stripe_tenant(tenant_id)
    spec = ErasureTenantSpec(**{name: getattr(web, name) for name in web.__dataclass_fields__}, privacy=privacy,
                             **fields)
    spec.products.update({product: list(ids) for product, ids in APP_PRODUCTS.items()})
    spec.app_store = app_store_settings(ca.root, "transfer")
    return spec


# --------------------------------------------------------------------------------------------------
# The database, read behind the server's back


def server_directory(server) -> Path:
    return server.config.parent


def stored_data(server) -> tuple[bytes, str]:
    """Everything the database holds: on SQLite the bytes of the file and of its write-ahead log; on PostgreSQL every
    row of every table of the server's schema as JSON (bytea as hex). Returned as (bytes, lower-case text)."""
    directory = server_directory(server)
    if ON_POSTGRES:
        tables = [row[0] for row in query_database(
            directory, "SELECT table_name FROM information_schema.tables "
                       "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1")]
        assert {"customers", "events", "webhook_deliveries", "transactions", "audit_log"} <= set(tables), tables
        sql = " UNION ALL ".join(f"SELECT row_to_json(t)::text FROM {name} t" for name in tables)
        text = "\n".join("\t".join(row) for row in query_database(directory, sql))
        return text.encode(), text.lower()
    database = directory / "entitlements.db"
    data = b""
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-journal")):
        if path.exists():
            data += path.read_bytes()
    assert len(data) > 4096, f"{database} holds {len(data)} bytes"
    return data, ""


def found(data: tuple[bytes, str], needle: str) -> bool:
    raw, lowered = data
    encoded = needle.encode()
    return encoded in raw or (ON_POSTGRES and encoded.hex() in lowered)


def assert_absent(server, needles: dict[str, str]) -> None:
    data = stored_data(server)
    left = {name: needle for name, needle in needles.items() if found(data, needle)}
    where = "in the PostgreSQL tables" if ON_POSTGRES else "in the SQLite file or its WAL"
    assert left == {}, f"still {where}: {left}"


def assert_present(server, needles: dict[str, str]) -> None:
    data = stored_data(server)
    missing = {name: needle for name, needle in needles.items() if not found(data, needle)}
    assert missing == {}, f"not found in the database (the scan would not see them): {missing}"


def renew_app_store(ca, server, tenant_id: str, original: str, token: str) -> str:
    """Posts a DID_RENEW notification of `original` whose transaction carries `token`; the new transaction's ID."""
    renewed = ca.sign(APP_MONTHLY, "--original-transaction-id", original, "--app-account-token", token,
                      "--purchase-date", "-1m", "--expires", "+30d")
    status, text = post_notification_body(server, tenant_id,
                                          notification_body(notification(ca, "DID_RENEW", transaction=renewed)))
    assert 200 <= status < 300, (status, text)
    return payload(renewed)["transactionId"]


def answers_deleted(api, app_user_id: str) -> bool:
    """SyncStatus of an erased ID: NOT_FOUND saying it was deleted (not "call Identify first")."""
    error = api.error("SyncStatus", app_user_id=app_user_id)
    return error.code() == Code.NOT_FOUND and error.details().startswith("customer deleted")


def sql_rows(server, sql: str) -> list[tuple[str, ...]]:
    return query_database(server_directory(server), sql)


def quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("erasure-ca") / "ca")


@pytest.fixture(scope="module")
def receivers():
    made = {name: Receiver(secrets=[SECRET]) for name in ("backend", "grants", "privacy", "flaky")}
    yield made
    for receiver in made.values():
        receiver.close()


@pytest.fixture(scope="module")
def tenants(ca, receivers):
    a = erasure_tenant("erase-a", ca)
    a.webhooks = [
        {"id": "backend", "url": receivers["backend"].url, "secrets": [SECRET]},
        {"id": "grants", "url": receivers["grants"].url, "secrets": [SECRET], "events": ["grant"]},
        {"id": "privacy", "url": receivers["privacy"].url, "secrets": [SECRET], "events": ["deleted"]},
    ]
    a.named_secret_keys = [{"key": READER, "name": "auditor", "scope": "read"},
                           {"key": WRITER, "name": "privacy-bot"}]
    return {
        "a": a,
        "acct": erasure_tenant("erase-acct", ca, privacy={"erase_accounting_records": True}),
        "b": new_tenant("erase-b"),
        "flaky": new_tenant("erase-flaky", webhooks=[
            {"id": "flaky", "url": receivers["flaky"].url, "secrets": [SECRET]}]),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("erasure") / "tenants.json"
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


def settle(admin) -> list:
    """The delivery log once nothing in it is pending any more."""
    return wait_for(lambda: (lambda log: log if all(d.state != PENDING for d in log) else None)(admin.deliveries()),
                    "webhook deliveries still pending")


@dataclass
class Story:
    """What the module wrote about its customer in tenant "a"."""

    user: str
    anon: str
    other: str  # the customer purchases moved from and to
    token: str  # the user's app account token (Identify)
    app_store: str  # the original transaction ID of the App Store subscription carrying the token
    from_other: str  # a lifetime purchase moved from `other` to the user
    to_other: str  # a pass moved from the user to `other` (signed with the user's token)
    pi: str  # the redeemed web purchase (payment intent)
    sub: dict  # the Stripe subscription a checkout named the user for
    session: dict  # that checkout
    markers: dict[str, str]
    anon_export_request_id: str  # the export of the anonymous customer before the merge


@pytest.fixture(scope="module")
def story(shared_env, ca, receivers) -> Story:
    env = shared_env
    writer = env.api(WRITER)
    user, anon, other = marker("erase-user"), anon_id(), marker("erase-other")
    markers = {
        "user": user, "anon": anon.split(":", 1)[1], "email": marker("mail") + "@example.com",
        "display_name": marker("Ana Silva"), "app_attribute": marker("crm"), "anon_attribute": marker("newsletter"),
        "grant_reason": marker("goodwill"), "revoke_reason": marker("mistake"), "kept_grant_reason": marker("beta"),
        "idempotency_key": marker("idem"), "losing_attribute": marker("crm-anon"),
    }
    # The anonymous customer: the app's attributes, then the backend's (one the identified customer's value of the
    # same key replaces in the merge); an export of it, which the audit log records under its own ID.
    env.a.set_attributes(anon, {"$email": markers["email"], "$displayName": markers["display_name"]})
    writer.set_customer_attributes(anon, {"referrer": markers["anon_attribute"], "crm_id": markers["losing_attribute"]})
    anon_export_request_id = f"erasure-export-anon-{uuid.uuid4().hex[:12]}"
    env.a_admin.export(anon, request_id=anon_export_request_id)
    # The identified customer with an attribute of its own; Identify merges the anonymous one into it.
    identified = env.a.identify(user)
    assert identified.created
    token = identified.app_account_token
    markers["token"] = token
    writer.set_customer_attributes(user, {"crm_id": markers["app_attribute"]})
    assert env.a.identify(user, anonymous_id=anon).merged
    # An App Store subscription with the customer's app account token.
    subscription = ca.sign(APP_MONTHLY, "--app-account-token", token)
    env.a.purchase(user, subscription)
    # The other customer's lifetime purchase moves to the user; the user's pass (with its token) moves to them.
    lifetime = ca.sign(APP_LIFETIME, "--type", "non-consumable")
    env.a.purchase(other, lifetime)
    assert env.a.purchase(user, lifetime).transferred_from_app_user_id == other
    a_pass = ca.sign(APP_PASS, "--type", "non-renewing", "--app-account-token", token)
    env.a.purchase(user, a_pass)
    assert env.a.purchase(other, a_pass).transferred_from_app_user_id == user
    # An anonymous web checkout, redeemed with a code from GetRedemptionCode.
    pi = fs.new_id("pi")
    anonymous_checkout = fs.checkout_session(mode="payment", payment_intent=pi, metadata={"price_id": PRICE_LIFETIME},
                                             created=fs.now() - 60)
    env.post_ok("a", fs.event("checkout.session.completed", anonymous_checkout), "recorded")
    env.a.redeem(user, env.a_admin.redemption_code(pi).code)
    # A Stripe subscription whose checkout named the user (client_reference_id); its own events name nobody.
    sub = subscription_for(None, period_start=fs.now() - 120)
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"],
                                  customer=sub["customer"], invoice=sub["latest_invoice"], created=fs.now() - 100)
    env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 100), "buyer is kept")
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 90), "applied to", user)
    # Grants: one revoked, one in force with an idempotency key.
    revoked = env.a_admin.grant(user, "premium", duration=3600, reason=markers["grant_reason"]).grant_id
    env.a_admin.revoke(revoked, reason=markers["revoke_reason"])
    env.a_admin.grant(user, "pro", duration=86400, reason=markers["kept_grant_reason"],
                      idempotency_key=markers["idempotency_key"])
    settle(env.a_admin)
    customer = env.a_admin.customer(user)
    assert list(customer.aliases) == [anon]
    assert sorted(active_ids(customer.customer)) == ["premium", "pro"]
    assert len(customer.transactions) == 4, customer.transactions
    assert dict((a.key, a.value) for a in customer.attributes)["crm_id"] == markers["app_attribute"]
    return Story(
        user=user, anon=anon, other=other, token=token, app_store=payload(subscription)["originalTransactionId"],
        from_other=payload(lifetime)["originalTransactionId"], to_other=payload(a_pass)["originalTransactionId"],
        pi=pi, sub=sub, session=session, markers=markers, anon_export_request_id=anon_export_request_id)


@dataclass
class Erased:
    response: object
    request_id: str
    export: dict  # the export made just before
    export_request_id: str
    deliveries_before: list  # the delivery log just before
    other_events_before: list
    other_deliveries: list  # the other customer's deliveries about events that named the user
    count_before: object  # CountCustomers
    streams: dict
    started: float
    finished: float
    returned: float  # time.monotonic() when the call returned


@pytest.fixture(scope="module")
def erased(shared_env, story, server) -> Erased:
    """The story's customer exported, then erased by its alias with the named write key, streams open."""
    env = shared_env
    export_request_id = f"erasure-export-{uuid.uuid4().hex[:12]}"
    export = env.a_admin.export(story.user, request_id=export_request_id)
    # Every marker is in the database now, where the scan finds it.
    assert_present(server, story.markers)
    deliveries = settle(env.a_admin)
    other_events = env.a_admin.all_events(story.other)
    naming = {e.version for e in other_events if e.related_app_user_id in (story.user, story.anon)}
    assert len(naming) == 2, [(e.version, e.cause, e.related_app_user_id) for e in other_events]
    other_deliveries = [d for d in deliveries if d.app_user_id == story.other and d.version in naming]
    assert other_deliveries, "the transfers' webhooks to the other customer"
    count = env.a_admin.call("CountCustomers")
    streams = {}
    for name, app_user_id in (("user", story.user), ("alias", story.anon), ("other", story.other)):
        stream = env.api(env.tenants["a"].public_key, env.channel()).stream(app_user_id)
        assert stream.next().kind == SNAPSHOT
        streams[name] = stream
    request_id = f"erasure-{uuid.uuid4().hex[:12]}"
    started = time.time()
    response = env.api(WRITER).delete(story.anon, request_id=request_id)
    returned = time.monotonic()
    return Erased(response=response, request_id=request_id, export=export, export_request_id=export_request_id,
                  deliveries_before=deliveries, other_events_before=other_events, other_deliveries=other_deliveries,
                  count_before=count, streams=streams, started=started, finished=time.time(), returned=returned)


def state(admin, user: str) -> tuple:
    """What a refused call must leave as it was."""
    customer = admin.customer(user)
    return (customer.customer.version, [(a.key, a.value) for a in customer.attributes], list(customer.aliases),
            [g.grant_id for g in customer.grants], len(admin.all_events(user)))


# --------------------------------------------------------------------------------------------------
# Refusals


def test_refused_calls_change_nothing(env, receivers):
    """A confirmation that does not repeat the ID exactly, a read-only, public, unknown or missing key: refused, and
    the customer, the audit log and the webhooks are as they were."""
    writer, keep, alias = env.api(WRITER), marker("keep"), anon_id()
    env.a.set_attributes(alias, {"$displayName": "Keep"})
    env.a.identify(keep, anonymous_id=alias)
    writer.set_customer_attributes(keep, {"plan": "gold"})
    env.a_admin.grant(keep, "pro", duration=3600, reason="kept")
    before, audit_before = state(env.a_admin, keep), env.a_admin.newest_audit_id()
    settle(env.a_admin)
    deleted_before = len([d for d in receivers["privacy"].deliveries])
    for app_user_id, confirm in [(keep, keep.upper()), (keep, ""), (keep, keep + " "), (keep, " " + keep),
                                 (alias, keep), (keep, alias), (keep, keep[:-1])]:
        error = writer.delete_error(app_user_id, confirm)
        assert error.code() == Code.INVALID_ARGUMENT, (app_user_id, confirm, error.code(), error.details())
        assert "confirm_app_user_id" in error.details(), error.details()
    reader = env.api(READER)
    assert reader.customer(keep).customer.version == before[0]  # the key reads
    assert reader.delete_error(keep).code() == Code.PERMISSION_DENIED
    assert env.a.delete_error(keep).code() == Code.PERMISSION_DENIED
    for key in (None, make_key("sk")[0]):
        assert env.api(key).delete_error(keep).code() == Code.UNAUTHENTICATED
    # Malformed and unknown IDs.
    assert writer.delete_error("").code() == Code.INVALID_ARGUMENT
    assert writer.delete_error("x" * 257).code() == Code.INVALID_ARGUMENT
    unknown = marker("nobody")
    error = writer.delete_error(unknown)
    assert error.code() == Code.NOT_FOUND and unknown in error.details(), error.details()
    assert not env.a_admin.exists(unknown)
    assert state(env.a_admin, keep) == before
    assert env.a_admin.newest_audit_id() == audit_before
    time.sleep(0.3)
    assert len(receivers["privacy"].deliveries) == deleted_before
    assert DELETED_TYPE not in [d.type for d in env.a_admin.deliveries()]


def test_another_tenants_key_cannot_delete_and_erases_only_its_own(env, story):
    """b's secret key finds none of a's customers; b's own customer with the same ID is b's to erase, and a's is
    untouched (and its hash under b's key says nothing of a's)."""
    before = state(env.a_admin, story.user)
    for app_user_id in (story.user, story.anon, story.other):
        error = env.b_admin.delete_error(app_user_id)
        assert error.code() == Code.NOT_FOUND, (app_user_id, error.code(), error.details())
    assert state(env.a_admin, story.user) == before
    env.b.identify(story.user)
    deleted = env.b_admin.delete(story.user)
    assert SUBJECT.match(deleted.subject) and not deleted.already_deleted
    assert (deleted.events_deleted, deleted.purchases_kept, deleted.purchases_deleted) == (1, 0, 0)
    assert not env.b_admin.exists(story.user)
    assert state(env.a_admin, story.user) == before
    assert [(e.action, e.subject) for e in env.b_admin.audit_log()] == [(CUSTOMER_DELETED, deleted.subject)]
    assert deleted.subject not in [e.subject for e in env.a_admin.audit_log()]
    OTHER_TENANT_HASHES[story.user] = deleted.subject  # compared with a's own hash of the ID below


# --------------------------------------------------------------------------------------------------
# The erasure


def test_the_response_counts_what_went_and_what_stayed(env, story, erased):
    response = erased.response
    assert SUBJECT.match(response.subject), response.subject
    assert story.user not in response.subject and story.anon not in response.subject
    assert not response.already_deleted
    # Every event of the customer and of the anonymous customer merged into it.
    events = erased.export["events"]
    assert {e["app_user_id"] for e in events} == {story.user, story.anon}
    assert response.events_deleted == len(events)
    # The four purchases it owned stay, for the tenant's accounts; none is deleted.
    assert (response.purchases_kept, response.purchases_deleted) == (4, 0)
    # Every delivery about either customer, and the other customer's about the transfers that named the user.
    ours = [d for d in erased.deliveries_before if d.app_user_id in (story.user, story.anon)]
    assert len(ours) == len(erased.export["webhook_deliveries"])
    assert response.webhook_deliveries_deleted == len(ours) + len(erased.other_deliveries)
    # The call waited for the customer.deleted webhook (the receivers answer at once) but not much longer.
    assert erased.finished - erased.started < 5


def test_the_customer_is_unknown_by_every_id(env, story, erased):
    for app_user_id in (story.user, story.anon):
        for api in (env.a_admin, env.api(READER)):
            error = api.error("GetCustomer", app_user_id=app_user_id)
            assert error.code() == Code.NOT_FOUND, (app_user_id, error.code())
        assert env.a_admin.error("ListCustomerEvents", app_user_id=app_user_id).code() == Code.NOT_FOUND
        assert env.a_admin.export_error(app_user_id).code() == Code.NOT_FOUND
        # The status calls say it was deleted (the SDKs log out on it rather than identify the ID again).
        for error in (env.a.error("SyncStatus", app_user_id=app_user_id), env.a.stream(app_user_id).error()):
            assert error.code() == Code.NOT_FOUND and error.details().startswith("customer deleted"), error.details()
        assert env.a_admin.owners(app_user_id) == []
    assert env.a_admin.owners(story.markers["email"]) == []
    listed = [c.customer.app_user_id for c in env.a_admin.call("ListCustomers", page_size=1000).customers]
    assert story.user not in listed and story.anon not in listed and story.other in listed
    # One customer fewer holds premium and pro; the other customer still holds its pass.
    before, after = erased.count_before, env.a_admin.call("CountCustomers")
    assert after.active_customers == before.active_customers - 1
    by_id = lambda counts: {c.id: c.customers for c in counts.entitlements}  # noqa: E731
    assert by_id(after)["pro"] == by_id(before)["pro"] - 1
    assert by_id(after).get("premium", 0) == by_id(before)["premium"] - 1


def test_the_purchases_stay_with_nobody(env, story, erased, server):
    for original, store in [(story.app_store, APP_STORE), (story.from_other, APP_STORE), (story.pi, WEB),
                            (story.sub["id"], WEB)]:
        assert env.a_admin.owners(original) == [("", ORIGINAL_TRANSACTION_ID, store, original)], original
    # Stripe's other IDs still name the subscription, for nobody.
    assert [m[0] for m in env.a_admin.owners(story.session["id"])] == [""]
    # In the tables: no owner, no app account token, the erasure's hash as the tombstone; the ledger keeps its rows.
    ids = ", ".join(quoted(i) for i in (story.app_store, story.from_other, story.pi, story.sub["id"]))
    rows = sql_rows(server, f"SELECT original_transaction_id, customer_id, app_account_token, erased_owner "
                            f"FROM transactions WHERE original_transaction_id IN ({ids}) ORDER BY 1")
    assert sorted(rows) == sorted((i, "", "", erased.response.subject) for i in (
        story.app_store, story.from_other, story.pi, story.sub["id"]))
    # Each ledger row names the customer who paid: the user's rows name nobody now (those of the pass they bought and
    # moved to the other customer too); the other customer's payment for the lifetime purchase is still theirs.
    (other_id,) = sql_rows(server, f"SELECT id FROM customers WHERE app_user_id = {quoted(story.other)}")
    ledger = dict(sql_rows(server, f"SELECT original_transaction_id, customer_id FROM revenue_ledger WHERE "
                                   f"original_transaction_id IN ({ids}, {quoted(story.to_other)})"))
    assert ledger == {story.app_store: "", story.from_other: other_id[0], story.pi: "", story.to_other: ""}, ledger
    # The codes used by them or issued for their purchases are gone; the references name no buyer.
    assert sql_rows(server, f"SELECT code_hash FROM redemption_codes WHERE original_transaction_id IN ({ids})") == []
    references = sql_rows(server, f"SELECT reference_id, app_user_id FROM purchase_references "
                                  f"WHERE original_transaction_id IN ({ids})")
    assert story.session["id"] in [r[0] for r in references]
    assert all(buyer == "" for _, buyer in references), references


def test_no_marker_is_left_in_the_database(env, story, erased, server):
    """Every string that named the person (IDs, e-mail, attribute values, the app account token, grant reasons and the
    grant's idempotency key) is gone from the SQLite file and its WAL, or from every row on PostgreSQL; the other
    customer's ID is still there (the scan sees what is there)."""
    markers = dict(story.markers, token_upper=story.token.upper())
    assert_absent(server, markers)
    assert_present(server, {"other": story.other, "subject": erased.response.subject})
    if not ON_POSTGRES:
        wal = server_directory(server) / "entitlements.db-wal"
        assert not wal.exists() or wal.stat().st_size < 64 * 1024, "the WAL was emptied before the call returned"


def test_the_other_customer_keeps_its_purchase_and_history_without_the_id(env, story, erased, server):
    customer = env.a_admin.customer(story.other)
    assert customer.customer.status.state == ACTIVE and active_ids(customer.customer) == ["pro"]
    assert [(t.original_transaction_id, t.owner_app_user_id) for t in customer.transactions] == [
        (story.to_other, story.other)]
    events = env.a_admin.all_events(story.other)
    before = {e.version: e for e in erased.other_events_before}
    assert [e.version for e in events] == sorted(before, reverse=True)  # not one event lost
    for event in events:
        old = before[event.version]
        assert event.related_app_user_id not in (story.user, story.anon)
        assert story.user not in event.reason and story.anon not in event.reason
        if old.related_app_user_id in (story.user, story.anon):
            assert event.related_app_user_id == ""
            assert event.reason == old.reason.replace(old.related_app_user_id, "(erased)"), (old.reason, event.reason)
            assert (event.cause, event.status, event.reference_id) == (old.cause, old.status, old.reference_id)
        else:
            assert event == old
    causes = {e.cause for e in events if before[e.version].related_app_user_id}
    assert causes == {CAUSE["TRANSFERRED_IN"], CAUSE["TRANSFERRED_OUT"]}
    (moved_out,) = [e for e in events if e.cause == CAUSE["TRANSFERRED_OUT"]]
    assert "(erased)" in moved_out.reason, moved_out.reason
    # The user's app account token left the pass it signed, now the other customer's.
    assert sql_rows(server, f"SELECT app_account_token FROM transactions "
                            f"WHERE original_transaction_id = {quoted(story.to_other)}") == [("",)]
    # Its deliveries about the transfers are gone; the others stay.
    gone = {d.delivery_id for d in erased.other_deliveries}
    kept = [d.delivery_id for d in erased.deliveries_before
            if d.app_user_id == story.other and d.delivery_id not in gone]
    assert kept
    now = [d.delivery_id for d in env.a_admin.deliveries() if d.app_user_id == story.other]
    assert sorted(now) == sorted(kept)
    # Its stream stays open, and quiet.
    erased.streams["other"].expect_quiet(0.3)
    assert erased.streams["other"].is_active()


def test_the_delivery_log_holds_nothing_about_them(env, story, erased):
    log = env.a_admin.deliveries()
    assert [d for d in log if d.app_user_id in (story.user, story.anon)] == []
    assert [d for d in log if story.user in d.body or story.anon in d.body] == []
    # The customer.deleted deliveries were deleted once delivered.
    assert DELETED_TYPE not in [d.type for d in log]
    for app_user_id in (story.user, story.anon):
        assert list(env.a_admin.call("ListWebhookDeliveries", app_user_id=app_user_id).deliveries) == []


def test_the_audit_log_names_the_erasure_and_the_earlier_export_by_hash(env, story, erased, server):
    entries = env.api(READER).audit_log()
    subject = erased.response.subject
    assert audit_entry(entries[0]) == (CUSTOMER_DELETED, "privacy-bot", erased.request_id, subject)
    assert erased.started - 1 <= entries[0].occurred_at.seconds <= erased.finished + 1
    (export,) = [e for e in entries if e.request_id == erased.export_request_id]
    assert (export.action, export.subject) == (CUSTOMER_EXPORTED, subject)
    # The export of the anonymous customer before the merge named the anonymous ID: the same hash now.
    (anon_export,) = [e for e in entries if e.request_id == story.anon_export_request_id]
    assert (anon_export.action, anon_export.subject) == (CUSTOMER_EXPORTED, subject)
    assert [e for e in entries if story.user in e.subject or story.anon in e.subject] == []
    # The hash is the tenant's own: b's hash of the same ID differs.
    if story.user in OTHER_TENANT_HASHES:
        assert OTHER_TENANT_HASHES[story.user] != subject
    # The call's log line names the hash, never the ID.
    lines = wait_for(lambda: [line for line in server.log().splitlines()
                              if f"request_id={erased.request_id} " in line and "DeleteCustomer" in line],
                     "no log line of the erasure", timeout=15)
    assert all(subject in line and story.user not in line and story.anon not in line for line in lines), lines


def test_a_customer_deleted_webhook_names_the_canonical_id(env, story, erased, receivers, tenants):
    def deleted(name):
        return [d for d in receivers[name].deliveries if d.json.get("type") == DELETED_TYPE]

    (backend,) = deleted("backend")
    (privacy,) = deleted("privacy")
    assert deleted("grants") == [] and all(d.json["type"] != DELETED_TYPE for d in receivers["grants"].deliveries)
    # The deleted-only endpoint got nothing else.
    assert [d.json["type"] for d in receivers["privacy"].deliveries] == [DELETED_TYPE]
    for delivery in (backend, privacy):
        assert delivery.verified_with == [0], delivery.headers
        body = delivery.json
        assert body["type"] == DELETED_TYPE
        data = body["data"]
        assert set(data) == {"event_id", "tenant", "app_user_id", "erased_at", "subject"}, data
        assert (data["tenant"], data["app_user_id"], data["subject"]) == (
            tenants["a"].id, story.user, erased.response.subject)
        assert data["event_id"].startswith("evt_") and len(data["event_id"]) == 26, data["event_id"]
        erased_at = datetime.strptime(data["erased_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        assert erased.started - 2 <= erased_at.timestamp() <= erased.finished + 2, data["erased_at"]
        # Nothing else of what was erased.
        assert story.anon not in delivery.body.decode() and story.markers["email"] not in delivery.body.decode()
    assert backend.json["data"]["event_id"] == privacy.json["data"]["event_id"]
    assert backend.headers["webhook-id"] != privacy.headers["webhook-id"]
    # DeleteCustomer waited for the first attempts: both had arrived when it returned.
    assert backend.at <= erased.returned and privacy.at <= erased.returned


def test_open_streams_end_with_not_found(env, story, erased):
    for name in ("user", "alias"):
        error = erased.streams[name].error(timeout=10)
        assert error.code() == Code.NOT_FOUND, (name, error.code(), error.details())
        # The contract the SDKs act on (they continue as a new user).
        assert re.search(r"(?i)\bcustomer (was )?deleted\b", error.details()), error.details()


def test_deleting_again_answers_already_deleted_and_changes_nothing(env, story, erased, receivers, server):
    audit = env.a_admin.newest_audit_id()
    webhooks = len(receivers["backend"].deliveries)
    again = env.api(WRITER).delete(story.user)
    assert again.already_deleted and again.subject == erased.response.subject
    assert (again.events_deleted, again.purchases_kept, again.purchases_deleted,
            again.webhook_deliveries_deleted) == (0, 0, 0, 0)
    assert env.a_admin.newest_audit_id() == audit
    time.sleep(0.3)
    assert len(receivers["backend"].deliveries) == webhooks
    assert_absent(server, story.markers)
    # Another tenant never knew the ID: still NOT_FOUND there.
    assert env.b_admin.delete_error(story.anon).code() == Code.NOT_FOUND
    # The tenant's secret key (not only the named one) may ask; the confirmation is still required.
    assert env.a_admin.delete(story.user).already_deleted
    assert env.a_admin.delete_error(story.user, story.user.upper()).code() == Code.INVALID_ARGUMENT


def test_deleting_again_by_the_alias_names_the_same_subject(env, story, erased):
    """The response's subject is "the erased canonical app user ID's keyed hash, as the audit log records it",
    whichever of the customer's IDs the call names."""
    again = env.api(WRITER).delete(story.anon)
    assert again.already_deleted
    assert again.subject == erased.response.subject


def test_a_later_app_store_notification_applies_to_nobody(env, story, erased, ca, server, tenants):
    """A renewal of the App Store subscription, carrying the erased customer's app account token: 2xx, stored for
    nobody (its new transaction, no token, still the tombstone), and nobody is created."""
    transaction_id = renew_app_store(ca, server, tenants["a"].id, story.app_store, story.token)
    assert env.a_admin.owners(story.app_store) == [("", ORIGINAL_TRANSACTION_ID, APP_STORE, story.app_store)]
    rows = sql_rows(server, f"SELECT transaction_id, app_account_token, erased_owner, customer_id FROM transactions "
                            f"WHERE original_transaction_id = {quoted(story.app_store)}")
    assert rows == [(transaction_id, "", erased.response.subject, "")], rows
    assert not env.a_admin.exists(story.user) and answers_deleted(env.a, story.user)
    assert_absent(server, dict(story.markers, token_upper=story.token.upper()))


def test_later_stripe_events_apply_to_nobody(env, story, erased, server):
    """The subscription renews, and Stripe sends an event of the checkout that named the user again: 2xx, nobody is
    created or gets the subscription, and the buyer's ID is not stored again."""
    t = fs.now()
    renewed = dict(story.sub, latest_invoice=fs.new_id("in"))
    renewed["items"] = {**story.sub["items"], "data": [dict(story.sub["items"]["data"][0],
                                                            current_period_start=t - 5,
                                                            current_period_end=t + 30 * fs.DAY)]}
    text = env.post_ok("a", fs.event("customer.subscription.updated", renewed, created=t))
    assert "applied to" not in text, text
    text = env.post_ok("a", fs.event("checkout.session.async_payment_succeeded", story.session, created=t))
    assert "applied to" not in text and story.user not in text, text
    text = env.post_ok("a", fs.event("invoice.paid", fs.invoice(subscription_id=story.sub["id"],
                                                                invoice_id=renewed["latest_invoice"],
                                                                customer=story.sub["customer"],
                                                                payment_intent=fs.new_id("pi"))))
    assert "applied to" not in text, text
    assert env.a_admin.owners(story.sub["id"]) == [("", ORIGINAL_TRANSACTION_ID, WEB, story.sub["id"])]
    assert not env.a_admin.exists(story.user) and answers_deleted(env.a, story.user)
    assert_absent(server, story.markers)


def test_a_new_user_presenting_a_kept_purchase_claims_it(env, story, erased, ca, server):
    newcomer, restorer, redeemer = marker("new-owner"), marker("restorer"), marker("redeemer")
    # The App Store subscription, presented with its (stale) token.
    token = ca.sign(APP_MONTHLY, "--original-transaction-id", story.app_store, "--app-account-token", story.token,
                    "--purchase-date", "-1m", "--expires", "+30d")
    response = env.a.purchase(newcomer, token)
    assert response.transferred_from_app_user_id == ""
    assert response.customer.status.state == ACTIVE and active_ids(response.customer) == ["pro"]
    assert env.a_admin.owners(story.app_store) == [(newcomer, ORIGINAL_TRANSACTION_ID, APP_STORE, story.app_store)]
    assert sql_rows(server, f"SELECT erased_owner FROM transactions "
                            f"WHERE original_transaction_id = {quoted(story.app_store)}") == [("",)]
    (event,) = [e for e in env.a_admin.all_events(newcomer) if e.reference_id == story.app_store]
    assert event.cause == CAUSE["PURCHASE"] and event.related_app_user_id == ""
    # The lifetime purchase, restored.
    lifetime = ca.sign(APP_LIFETIME, "--type", "non-consumable", "--original-transaction-id", story.from_other)
    restored = env.a.restore(restorer, [lifetime])
    assert list(restored.transferred_from_app_user_ids) == []
    assert active_ids(env.a.sync(restorer)) == ["premium"]
    # The web subscription, with a code issued now.
    code = env.a_admin.redemption_code(story.sub["id"]).code
    env.a.redeem(redeemer, code)
    assert env.a_admin.owners(story.sub["id"]) == [(redeemer, ORIGINAL_TRANSACTION_ID, WEB, story.sub["id"])]
    assert active_ids(env.a.sync(redeemer)) == ["pro"]
    # Nothing of the erased customer came back with them.
    assert not env.a_admin.exists(story.user)
    assert_absent(server, {name: value for name, value in story.markers.items() if name != "token"})


def test_the_erased_id_identifies_afresh_as_a_new_user(env, story, erased, server):
    identified = env.a.identify(story.user)
    assert identified.created
    customer = env.a_admin.customer(story.user)
    assert (customer.customer.version, list(customer.aliases), list(customer.attributes), list(customer.grants),
            list(customer.transactions)) == (1, [], [], [], [])
    assert [e.cause for e in env.a_admin.all_events(story.user)] == [CAUSE["CREATED"]]
    assert env.a_admin.owners(story.anon) == []
    # The new customer is erased like any other (not answered as erased before), under the same hash.
    again = env.a_admin.delete(story.user)
    assert not again.already_deleted and again.subject == erased.response.subject
    assert (again.events_deleted, again.purchases_kept) == (1, 0)
    assert not env.a_admin.exists(story.user)
    assert env.a_admin.delete(story.user).already_deleted
    assert_absent(server, {"user": story.user})


# --------------------------------------------------------------------------------------------------
# privacy.erase_accounting_records


@dataclass
class AccountingStory:
    user: str
    token: str
    app_store: str
    sub: dict
    pi: str
    session: dict
    response: object


@pytest.fixture(scope="module")
def accounting(shared_env, ca, server) -> AccountingStory:
    env = shared_env
    user = marker("acct-user")
    token = env.acct.identify(user).app_account_token
    signed = ca.sign(APP_MONTHLY, "--app-account-token", token)
    env.acct.purchase(user, signed)
    # A subscription whose metadata names the user, and a one-time checkout naming them as client_reference_id.
    sub = subscription_for(user, period_start=fs.now() - 120)
    env.post_ok("acct", fs.event("customer.subscription.created", sub, created=fs.now() - 90), "applied to", user)
    env.post_ok("acct", fs.event("invoice.paid", fs.invoice(subscription_id=sub["id"], invoice_id=sub["latest_invoice"],
                                                             customer=sub["customer"], payment_intent=fs.new_id("pi"),
                                                             billing_reason="subscription_create"),
                                 created=fs.now() - 80))
    pi = fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  metadata={"price_id": PRICE_LIFETIME})
    env.post_ok("acct", fs.event("checkout.session.completed", session), "applied to", user)
    customer = env.acct_admin.customer(user)
    assert len(customer.transactions) == 3 and sorted(active_ids(customer.customer)) == ["premium", "pro"]
    originals = (payload(signed)["originalTransactionId"], sub["id"], pi)
    ids = ", ".join(quoted(i) for i in originals)
    ledger = sql_rows(server, f"SELECT DISTINCT original_transaction_id FROM revenue_ledger "
                              f"WHERE original_transaction_id IN ({ids})")
    assert sorted(r[0] for r in ledger) == sorted(originals), ledger
    assert_present(server, {"user": user, "token": token})
    response = env.acct_admin.delete(user)
    return AccountingStory(user=user, token=token, app_store=originals[0], sub=sub, pi=pi, session=session,
                           response=response)


def test_erasing_accounting_records_deletes_the_purchases_and_their_ledger_rows(env, accounting, server):
    story, response = accounting, accounting.response
    assert SUBJECT.match(response.subject) and not response.already_deleted
    assert (response.purchases_kept, response.purchases_deleted) == (0, 3)
    assert response.events_deleted >= 4
    for query in (story.app_store, story.sub["id"], story.sub["customer"], story.pi, story.session["id"],
                  story.user):
        assert env.acct_admin.owners(query) == [], query
    ids = ", ".join(quoted(i) for i in (story.app_store, story.sub["id"], story.pi))
    for table in ("transactions", "revenue_ledger", "purchase_references", "redemption_codes",
                  "billing_observations", "subscription_events"):
        assert sql_rows(server, f"SELECT * FROM {table} WHERE original_transaction_id IN ({ids})") == [], table
    assert not env.acct_admin.exists(story.user)
    assert_absent(server, {"user": story.user, "token": story.token, "token_upper": story.token.upper()})
    again = env.acct_admin.delete(story.user)
    assert again.already_deleted and again.subject == response.subject and again.purchases_deleted == 0


def test_with_accounting_records_erased_a_later_app_store_notification_applies_to_nobody(env, accounting, ca, server,
                                                                                        tenants):
    story = accounting
    renew_app_store(ca, server, tenants["acct"].id, story.app_store, story.token)
    assert not env.acct_admin.exists(story.user) and answers_deleted(env.acct, story.user)
    assert [m[0] for m in env.acct_admin.owners(story.app_store)] in ([], [""])
    assert_absent(server, {"user": story.user})


def test_with_accounting_records_erased_a_later_app_store_notification_stores_no_token(env, accounting, ca, server,
                                                                                      tenants):
    story = accounting
    renew_app_store(ca, server, tenants["acct"].id, story.app_store, story.token)
    assert_absent(server, {"token": story.token, "token_upper": story.token.upper()})


def test_with_accounting_records_erased_a_later_stripe_renewal_creates_nobody(env, accounting, server):
    """The subscription's metadata still names the erased user: a renewal must not create a customer for them."""
    story = accounting
    t = fs.now()
    renewed = dict(story.sub, latest_invoice=fs.new_id("in"))
    renewed["items"] = {**story.sub["items"], "data": [dict(story.sub["items"]["data"][0],
                                                            current_period_start=t - 5,
                                                            current_period_end=t + 30 * fs.DAY)]}
    status, text = env.post("acct", fs.event("customer.subscription.updated", renewed, created=t))
    assert 200 <= status < 300, (status, text)
    assert not env.acct_admin.exists(story.user), f"the erased user is a customer again: {text}"
    assert [m[0] for m in env.acct_admin.owners(story.sub["id"])] in ([], [""])
    assert_absent(server, {"user": story.user})


# --------------------------------------------------------------------------------------------------
# The customer.deleted delivery when its endpoint fails


def test_a_customer_deleted_webhook_given_up_when_its_endpoint_is_disabled_is_not_kept(env, receivers, server):
    """The endpoint fails the customer.deleted delivery (503, retry in 2 minutes), then answers 410 to another
    delivery: the endpoint is disabled and its pending deliveries fail. The customer.deleted one was given up, so it
    must not stay in the log, body and all, for the failed deliveries' retention."""
    flaky, admin = receivers["flaky"], env.flaky_admin
    user, bystander = marker("flaky-user"), marker("flaky-bystander")
    admin.set_customer_attributes(user, {"plan": "gold"})
    settle(admin)
    flaky.retry_after, flaky.statuses = "120", [503]
    response = admin.delete(user)
    assert not response.already_deleted
    (row,) = [d for d in admin.deliveries() if d.type == DELETED_TYPE]
    assert (row.state, row.attempts, row.last_status_code) == (PENDING, 1, 503)
    flaky.statuses = [410]
    admin.set_customer_attributes(bystander, {"plan": "gold"})
    wait_for(lambda: any(d.type == "webhook.disabled" for d in admin.deliveries()), "the endpoint was not disabled")
    left = [(d.type, d.state, d.last_error) for d in admin.deliveries() if d.type == DELETED_TYPE]
    assert left == []
    assert_absent(server, {"user": user})
