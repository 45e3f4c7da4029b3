"""Every method of entitlements.v1.EntitlementService and entitlements.v1.AdminService called through the Connect
protocol and answered as through gRPC (grpcio), on one server.

Each method has a case (parametrized by its name) that calls it by gRPC and then through Python's `connectrpc` with a
JSON body over HTTP/1.1, a binary one over HTTP/2 and, for the methods marked side-effect free, a binary GET. Every
Connect answer must equal gRPC's: the same message once the fields that differ between two calls are cleared (named
per method; CustomerStatus.server_time always), or the same error code (Connect's name for it) and message. Methods
with side effects are compared on a repeat of one call (the same answer), or on the same call for fresh customers (the
same shape), and each case also compares a refusal. The App Store methods run against a local fake of Apple's App
Store Server API, the webhook ones against a local receiver; Google Play and Stripe ones are compared on refusals.
Each case checks that /metrics counted its Connect calls under protocol="connect", and `test_every_rpc_has_a_case`
fails when either service gains a method without a case here."""

from __future__ import annotations

import copy
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import grpc
import pytest
from connectrpc.client import ConnectClientSync
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from google.protobuf import descriptor_pb2, json_format
from google.protobuf.descriptor import FieldDescriptor
from pyqwest import HTTPVersion, SyncClient, SyncHTTPTransport

from appstore_support import BUNDLE_ID, MONTHLY, PRODUCTS, SigningCA, app_store_settings
from conftest import RPC_TIMEOUT
from entitlement_support import new_tenant, unique_id, write_tenants
from fake_app_store_api import FakeAppStoreAPI, write_key
from test_metrics import Samples, scrape
from webhook_receiver import Receiver

ENTITLEMENT = "entitlements.v1.EntitlementService"
ADMIN = "entitlements.v1.AdminService"
PACKAGE = "entitlements.v1"
KEY_ID, ISSUER_ID = "CONNECTEVR", "0f6f3b2e-5a4c-4e0b-9d1a-3c2b1a0f9e8d"
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

# Purchases are signed with these dates, so that two customers' purchases differ only in their IDs.
BOUGHT = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)
EXPIRES = BOUGHT + timedelta(days=30)
# Grants end then, for the same reason.
GRANT_ENDS = int((BOUGHT + timedelta(days=7)).timestamp())


def rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------------------------------
# Tenants and server


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("every-method-ca") / "ca")


@pytest.fixture(scope="module")
def apple(tmp_path_factory):
    key = write_key(tmp_path_factory.mktemp("every-method-key") / "SubscriptionKey.p8")
    fake = FakeAppStoreAPI(key, KEY_ID, ISSUER_ID, BUNDLE_ID)
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def receiver():
    receiver = Receiver(secrets=[SECRET])
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def tenants(ca, apple, receiver) -> dict:
    """"store": the App Store in both environments, with Apple's server API (the fake) and one promotional offer;
    "hooks": one webhook endpoint (the receiver), so that its deliveries change nobody else's answers."""
    store = app_store_settings(ca.root, "transfer")
    store["environments"] = ["Production", "Sandbox"]
    store["app_apple_id"] = 1234567890
    store["server_api"] = {"key_file": str(apple.key_file), "key_id": KEY_ID, "issuer_id": ISSUER_ID,
                           "production_url": apple.url, "sandbox_url": apple.url, "reconcile_minutes": 0}
    store["offers"] = {"promotional": {"welcome": {"products": [MONTHLY]}}}
    return {
        "store": new_tenant("connect-every-store", products=dict(PRODUCTS), app_store=store),
        "hooks": new_tenant("connect-every-hooks",
                            webhooks=[{"id": "backend", "url": receiver.url, "secrets": [SECRET]}]),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("connect-every-method") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def env(server, protos, tenants, ca, apple):
    environment = Env(server, protos, tenants, ca, apple)
    yield environment
    environment.close()


# --------------------------------------------------------------------------------------------------
# Calling a method both ways


class StrictCodec:
    """connectrpc's codec interface over Google's protobuf runtime; JSON answers are parsed strictly (a field the schema
    does not have is an error, not ignored)."""

    def __init__(self, name: str):
        self._name = name

    def name(self) -> str:
        return self._name

    def encode(self, message) -> bytes:
        return json_format.MessageToJson(message).encode() if self._name == "json" else message.SerializeToString()

    def decode(self, data, message_class):
        message = message_class()
        if self._name == "json":
            json_format.Parse(bytes(data), message)
        else:
            message.ParseFromString(bytes(data))
        return message


@dataclass(frozen=True)
class Variant:
    """One way of calling through Connect."""
    codec: str
    http: str
    get: bool = False


VARIANTS = [Variant("json", "http1"), Variant("proto", "http2"), Variant("proto", "http1", get=True)]


@dataclass
class Answer:
    """What a call answered: its messages, and the error it ended with as (Connect's code name, message)."""
    messages: list
    error: tuple[str, str] | None = None

    @property
    def message(self):
        assert self.error is None and len(self.messages) == 1, self
        return self.messages[0]

    @property
    def code(self) -> str:
        return self.error[0] if self.error else "ok"


def grpc_code_name(code: grpc.StatusCode) -> str:
    """Connect's name for a gRPC status code (the same words, but "canceled")."""
    return "canceled" if code == grpc.StatusCode.CANCELLED else code.name.lower()


def rpc_methods(protos) -> dict[str, object]:
    """Every method of both services by name, as the descriptor set has them."""
    methods = {}
    for service in (ENTITLEMENT, ADMIN):
        for method in protos.pool.FindServiceByName(service).methods:
            assert method.name not in methods, f"{method.name} is in both services"
            methods[method.name] = method
    return methods


def read_only(method) -> bool:
    return method.GetOptions().idempotency_level == descriptor_pb2.MethodOptions.NO_SIDE_EFFECTS


def without_server_time(message):
    """`message` with every CustomerStatus.server_time in it cleared (the time of the call)."""
    if message.DESCRIPTOR.full_name == f"{PACKAGE}.CustomerStatus":
        message.ClearField("server_time")
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in (value if field.is_repeated else [value]):
                without_server_time(item)
    return message


def at_path(message, path: str):
    """(message, field name) for each field a dotted path names, through repeated fields."""
    head, _, rest = path.partition(".")
    if not rest:
        yield message, head
        return
    value = getattr(message, head)
    repeated = message.DESCRIPTOR.fields_by_name[head].is_repeated
    for item in (value if repeated else [value]):
        yield from at_path(item, rest)


def cleared(*paths: str, echo: tuple[tuple[str, str], ...] = ()):
    """A `clear` for `Env.compare`: clears the fields at `paths`, and those of `echo`'s (response path, request field)
    pairs once each is checked to hold the request's value."""

    def clear(message, request):
        for path, request_field in echo:
            for parent, name in at_path(message, path):
                assert getattr(parent, name) == getattr(request, request_field), (path, message)
                parent.ClearField(name)
        for path in paths:
            for parent, name in at_path(message, path):
                parent.ClearField(name)
        return message

    return clear


class Env:
    """One test's gRPC channel and Connect clients to the module's server, and the setup calls (by gRPC) the cases
    make. The store tenant's public key calls EntitlementService and its secret key AdminService."""

    def __init__(self, server, protos, tenants, ca: SigningCA, apple: FakeAppStoreAPI):
        self.server, self.protos, self.tenants, self.ca, self.apple = server, protos, tenants, ca, apple
        self.methods = rpc_methods(protos)
        self.channel = server.channel()
        grpc.channel_ready_future(self.channel).result(timeout=RPC_TIMEOUT)
        self.clients = {
            variant: ConnectClientSync(
                f"http://{server.target}", codec=StrictCodec(variant.codec),
                http_client=SyncClient(SyncHTTPTransport(
                    http_version=HTTPVersion.HTTP2 if variant.http == "http2" else HTTPVersion.HTTP1,
                    timeout=RPC_TIMEOUT)))
            for variant in VARIANTS}
        #: Connect calls made, by method.
        self.connect_calls: dict[str, int] = {}

    def close(self) -> None:
        for client in self.clients.values():
            client.close()
        self.channel.close()
        assert self.server.process.poll() is None, f"server died:\n{self.server.describe()}"

    # Messages and keys

    def message(self, full_name: str, **fields):
        return self.protos.message(full_name)(**fields)

    def request(self, name: str, **fields):
        return self.protos.message(self.methods[name].input_type.full_name)(**fields)

    def key(self, name: str, tenant: str) -> str:
        spec = self.tenants[tenant]
        return spec.public_key if self.methods[name].containing_service.full_name == ENTITLEMENT else spec.secret_key

    # The two protocols

    def grpc(self, name: str, request, tenant: str = "store", take: int | None = None) -> Answer:
        """`name` called by gRPC: every message (the first `take` of a stream, which is then cancelled)."""
        method = self.methods[name]
        response_class = self.protos.message(method.output_type.full_name)
        path = f"/{method.containing_service.full_name}/{name}"
        metadata = [("authorization", f"Bearer {self.key(name, tenant)}")]
        messages = []
        try:
            if not method.server_streaming:
                callable_ = self.channel.unary_unary(
                    path, request_serializer=lambda m: m.SerializeToString(),
                    response_deserializer=response_class.FromString)
                return Answer([callable_(request, timeout=RPC_TIMEOUT, metadata=metadata)])
            callable_ = self.channel.unary_stream(
                path, request_serializer=lambda m: m.SerializeToString(),
                response_deserializer=response_class.FromString)
            call = callable_(request, timeout=RPC_TIMEOUT, metadata=metadata)
            for message in call:
                messages.append(message)
                if len(messages) == take:
                    call.cancel()
                    break
            return Answer(messages)
        except grpc.RpcError as error:
            return Answer(messages, (grpc_code_name(error.code()), error.details()))

    def connect(self, name: str, request, variant: Variant, tenant: str = "store", take: int | None = None) -> Answer:
        """`name` called through Connect as `variant` says, read as `grpc` reads it."""
        method = self.methods[name]
        info = MethodInfo(
            name=name, service_name=method.containing_service.full_name,
            input=self.protos.message(method.input_type.full_name),
            output=self.protos.message(method.output_type.full_name),
            idempotency_level=IdempotencyLevel.NO_SIDE_EFFECTS if read_only(method) else IdempotencyLevel.UNKNOWN,
            stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY)
        client, headers = self.clients[variant], {"authorization": f"Bearer {self.key(name, tenant)}"}
        self.connect_calls[name] = self.connect_calls.get(name, 0) + 1
        messages = []
        try:
            if not method.server_streaming:
                return Answer([client.execute_unary(
                    request=request, method=info, headers=headers, use_get=variant.get)])
            stream = client.execute_server_stream(request=request, method=info, headers=headers)
            try:
                for message in stream:
                    messages.append(message)
                    if len(messages) == take:
                        break
            finally:
                stream.close()
            return Answer(messages)
        except ConnectError as error:
            return Answer(messages, (error.code.value, error.message))

    def compare(self, name: str, request, clear: Callable | None = None, *, tenant: str = "store",
                take: int | None = None) -> list[Answer]:
        """Calls `name` by gRPC, then through Connect in each variant that fits it (GET for side-effect free unary
        methods only), and asserts each Connect answer equals gRPC's once `clear(message, request)` (a copy of each
        message; it returns what to compare) has cleared what differs between two calls; every CustomerStatus's
        server_time is cleared first. `request` is a message sent each time, or a function making one for each call.
        Returns the answers as they came, gRPC's first."""
        method = self.methods[name]
        make = request if callable(request) else lambda: request
        clear = clear or (lambda message, _: message)

        def seen(answer: Answer, sent) -> tuple:
            return [clear(without_server_time(copy.deepcopy(m)), sent) for m in answer.messages], answer.error

        sent = make()
        answers = [self.grpc(name, sent, tenant, take)]
        expected = seen(answers[0], sent)
        for variant in VARIANTS:
            if variant.get and (method.server_streaming or not read_only(method)):
                continue
            sent = make()
            answers.append(self.connect(name, sent, variant, tenant, take))
            assert seen(answers[-1], sent) == expected, f"{name} through Connect ({variant}) differs from gRPC"
        return answers

    # Setup, by gRPC

    def call(self, name: str, request=None, tenant: str = "store", **fields):
        """`name` called by gRPC with `request` (or one of `fields`); its answer, which must not be an error."""
        return self.grpc(name, request if request is not None else self.request(name, **fields), tenant).message

    def user(self, tenant: str = "store", grant: bool = False) -> str:
        """A new customer, holding a "pro" grant when `grant`."""
        user = unique_id("every")
        self.call("Identify", tenant=tenant, app_user_id=user)
        if grant:
            self.call("GrantEntitlement", tenant=tenant, **self.grant_fields(user))
        return user

    def grant_fields(self, user: str) -> dict:
        return {"app_user_id": user, "entitlement_id": "pro", "reason": "connect",
                "expires_at": self.message("google.protobuf.Timestamp", seconds=GRANT_ENDS)}

    def signed_purchase(self) -> tuple[str, str]:
        """(original transaction ID, signed transaction) of a new monthly subscription Apple (the fake) knows, bought
        at BOUGHT until EXPIRES."""
        original = str(3 * 10**15 + secrets.randbelow(10**15))
        token = self.ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", original,
                             "--purchase-date", rfc3339(BOUGHT), "--signed-date", rfc3339(BOUGHT),
                             "--expires", rfc3339(EXPIRES))
        self.apple.transactions[original] = token
        self.apple.subscriptions[original] = {"status": 1, "signedTransactionInfo": token}
        return original, token

    def purchase_request(self, user: str, token: str):
        request = self.request("Purchase", app_user_id=user)
        request.app_store.signed_transaction = token
        return request

    def subscriber(self) -> tuple[str, str, str]:
        """A new customer holding a monthly subscription: (app user ID, original transaction ID, signed transaction)."""
        user = self.user()
        original, token = self.signed_purchase()
        self.call("Purchase", self.purchase_request(user, token))
        return user, original, token

    def connect_handled(self, name: str) -> float:
        """grpc_server_handled_total of `name` over Connect, every code."""
        service = self.methods[name].containing_service.full_name
        return sum(value for (metric, labels), value in Samples(scrape(self.server)).values.items()
                   if metric == "grpc_server_handled_total" and {("grpc_service", service), ("grpc_method", name),
                                                                  ("protocol", "connect")} <= labels)


# --------------------------------------------------------------------------------------------------
# One case per method

CASES: dict[str, Callable[[Env], None]] = {}


def case(function):
    """Registers a case under its method's name (the function's name in CamelCase)."""
    CASES["".join(part.capitalize() for part in function.__name__.split("_"))] = function
    return function


def utc_date(days: int = 0) -> str:
    return (datetime.now(timezone.utc) + timedelta(days=days)).strftime("%Y-%m-%d")


# EntitlementService


@case
def identify(env: Env):
    # A new app user ID each time: created, with its own app account token.
    answer = env.compare("Identify", lambda: env.request("Identify", app_user_id=unique_id("every")),
                         cleared("app_account_token", echo=(("customer.app_user_id", "app_user_id"),)))[0]
    assert answer.message.created and not answer.message.merged
    # An ID known already: nothing created, the same token.
    answers = env.compare("Identify", env.request("Identify", app_user_id=env.user()))
    assert not answers[0].message.created and UUID.match(answers[0].message.app_account_token)
    assert env.compare("Identify", env.request("Identify", app_user_id=""))[0].code == "invalid_argument"


@case
def sync_status(env: Env):
    answer = env.compare("SyncStatus", env.request("SyncStatus", app_user_id=env.user(grant=True)))[0]
    assert [e.id for e in answer.message.customer.status.entitlements] == ["pro"]
    assert env.compare("SyncStatus", env.request("SyncStatus", app_user_id=unique_id("nobody")))[0].code == "not_found"


@case
def purchase(env: Env):
    def fresh():
        return env.purchase_request(env.user(), env.signed_purchase()[1])

    # A new customer's new purchase each time: the same outcome but for the IDs.
    answer = env.compare("Purchase", fresh, cleared(
        "result.original_transaction_id", "result.transaction_id", echo=(("customer.app_user_id", "app_user_id"),)))[0]
    assert answer.message.result.outcome == 1 and list(answer.message.result.entitlement_ids) == ["pro"]  # NEW
    # The same purchase again: unchanged, the same answer.
    user, _, token = env.subscriber()
    assert env.compare("Purchase", env.purchase_request(user, token))[0].message.result.outcome == 3  # UNCHANGED
    assert env.compare("Purchase", env.purchase_request(user, "not-a-jws"))[0].code == "invalid_argument"


@case
def restore(env: Env):
    user, _, token = env.subscriber()
    request = env.request("Restore", app_user_id=user)
    request.app_store.add().signed_transaction = token
    (result,) = env.compare("Restore", request)[0].message.results
    assert result.outcome == 3  # UNCHANGED
    too_many = env.request("Restore", app_user_id=user, app_store_transaction_ids=[str(n + 1) for n in range(11)])
    assert env.compare("Restore", too_many)[0].code == "invalid_argument"


@case
def stream_status(env: Env):
    user, _, _ = env.subscriber()
    (snapshot,) = env.compare("StreamStatus", env.request("StreamStatus", app_user_id=user), take=1)[0].messages
    assert snapshot.kind == 1 and [e.id for e in snapshot.customer.status.entitlements] == ["pro"]  # SNAPSHOT
    unknown = env.request("StreamStatus", app_user_id=unique_id("nobody"))
    assert env.compare("StreamStatus", unknown, take=1)[0].code == "not_found"


def attribute(env: Env, key: str, value: str):
    return env.message(f"{PACKAGE}.Attribute", key=key, value=value)


@case
def set_attributes(env: Env):
    def fresh():
        return env.request("SetAttributes", app_user_id=env.user(),
                           attributes=[attribute(env, "$email", "a@example.com")])

    answer = env.compare("SetAttributes", fresh,
                         cleared("attributes.updated_at", echo=(("app_user_id", "app_user_id"),)))
    assert list(answer[0].message.changed_keys) == ["$email"]
    # The same values again: nothing changes, the same answer.
    user = env.user()
    request = env.request("SetAttributes", app_user_id=user, attributes=[attribute(env, "$locale", "fr_FR")])
    env.call("SetAttributes", request)
    assert list(env.compare("SetAttributes", request)[0].message.changed_keys) == []
    refused = env.request("SetAttributes", app_user_id=user, attributes=[attribute(env, "plan", "gold")])
    assert env.compare("SetAttributes", refused)[0].code == "permission_denied"


@case
def get_offer_eligibility(env: Env):
    user, _, _ = env.subscriber()
    request = env.request("GetOfferEligibility", app_user_id=user, product_ids=[MONTHLY])
    answer = env.compare("GetOfferEligibility", request)
    (introductory,) = answer[0].message.introductory_offers
    assert introductory.reason == 3 and [o.offer_id for o in answer[0].message.promotional_offers] == ["welcome"]
    unknown = env.request("GetOfferEligibility", app_user_id=user, product_ids=["com.example.nothing"])
    assert env.compare("GetOfferEligibility", unknown)[0].code == "invalid_argument"


@case
def sign_offer(env: Env):
    user = env.user()
    request = env.request("SignOffer", app_user_id=user, product_id=MONTHLY, offer_id="welcome")
    # Each signature has its own nonce, time, signature and JWS; the rest is the same.
    answers = env.compare("SignOffer", request, cleared("nonce", "timestamp", "signature", "compact_jws"))
    nonces = {answer.message.nonce for answer in answers}
    assert len(nonces) == len(answers) and all(UUID.match(nonce) for nonce in nonces)
    assert answers[0].message.key_id == KEY_ID and UUID.match(answers[0].message.app_account_token)
    unknown = env.request("SignOffer", app_user_id=user, product_id=MONTHLY, offer_id="nope")
    assert env.compare("SignOffer", unknown)[0].code == "not_found"


# AdminService


@case
def grant_entitlement(env: Env):
    answer = env.compare("GrantEntitlement", lambda: env.request("GrantEntitlement", **env.grant_fields(env.user())),
                         cleared("grant_id", "starts_at", echo=(("app_user_id", "app_user_id"),)))[0]
    assert answer.message.entitlement_id == "pro" and answer.message.expires_at.seconds == GRANT_ENDS
    # A retry with the idempotency key of a grant made: that grant.
    request = env.request("GrantEntitlement", **env.grant_fields(env.user()), idempotency_key=unique_id("key"))
    grant = env.call("GrantEntitlement", request)
    assert env.compare("GrantEntitlement", request)[0].message.grant_id == grant.grant_id
    undeclared = env.request("GrantEntitlement", app_user_id=env.user(), entitlement_id="gold")
    assert env.compare("GrantEntitlement", undeclared)[0].code == "invalid_argument"


@case
def revoke_grant(env: Env):
    def fresh():
        grant = env.call("GrantEntitlement", **env.grant_fields(env.user()))
        return env.request("RevokeGrant", grant_id=grant.grant_id, reason="refund")

    answer = env.compare("RevokeGrant", fresh, cleared("app_user_id", "starts_at", "revoked_at",
                                                       echo=(("grant_id", "grant_id"),)))[0]
    assert answer.message.revocation_reason == "refund"
    # Revoking a revoked grant again: the same grant.
    request = fresh()
    env.call("RevokeGrant", request)
    assert env.compare("RevokeGrant", request)[0].message.revoked_at.seconds > 0
    assert env.compare("RevokeGrant", env.request("RevokeGrant", grant_id="nope"))[0].code == "not_found"


@case
def get_customer(env: Env):
    user, original, _ = env.subscriber()
    env.call("GrantEntitlement", **env.grant_fields(user))
    customer = env.compare("GetCustomer", env.request("GetCustomer", app_user_id=user))[0].message
    assert [t.original_transaction_id for t in customer.transactions] == [original] and len(customer.grants) == 1
    unknown = env.request("GetCustomer", app_user_id=unique_id("nobody"))
    assert env.compare("GetCustomer", unknown)[0].code == "not_found"


@case
def set_customer_attributes(env: Env):
    def fresh():
        return env.request("SetCustomerAttributes", app_user_id=env.user(), attributes=[attribute(env, "plan", "gold")])

    answer = env.compare("SetCustomerAttributes", fresh,
                         cleared("attributes.updated_at", echo=(("app_user_id", "app_user_id"),)))[0]
    assert list(answer.message.changed_keys) == ["plan"]
    too_long = env.request("SetCustomerAttributes", app_user_id=env.user(),
                           attributes=[attribute(env, "plan", "x" * 501)])
    assert env.compare("SetCustomerAttributes", too_long)[0].code == "invalid_argument"


@case
def export_customer(env: Env):
    def without_export_time(chunk, _):
        chunk.data = re.sub(rb'"exported_at":"[^"]*"', b'"exported_at":""', chunk.data)
        return chunk

    # The same chunks, but for the time of the export (in the first).
    user, original, _ = env.subscriber()
    chunks = env.compare("ExportCustomer", env.request("ExportCustomer", app_user_id=user), without_export_time)[0]
    document = json.loads(b"".join(chunk.data for chunk in chunks.messages))
    assert document["app_user_id"] == user
    assert [purchase["original_transaction_id"] for purchase in document["purchases"]] == [original]
    unknown = env.request("ExportCustomer", app_user_id=unique_id("nobody"))
    assert env.compare("ExportCustomer", unknown)[0].code == "not_found"


@case
def delete_customer(env: Env):
    def fresh():
        user = env.user(grant=True)
        return env.request("DeleteCustomer", app_user_id=user, confirm_app_user_id=user)

    def erased(response, _):
        assert response.subject.startswith("erased_"), response
        response.ClearField("subject")
        return response

    answer = env.compare("DeleteCustomer", fresh, erased)[0].message
    assert not answer.already_deleted and answer.events_deleted == 2
    # Erasing an erased ID again: already deleted, the same subject.
    request = fresh()
    env.call("DeleteCustomer", request)
    assert env.compare("DeleteCustomer", request)[0].message.already_deleted
    user = env.user()
    mismatch = env.request("DeleteCustomer", app_user_id=user, confirm_app_user_id=user.upper())
    assert env.compare("DeleteCustomer", mismatch)[0].code == "invalid_argument"
    never = unique_id("nobody")
    never_known = env.request("DeleteCustomer", app_user_id=never, confirm_app_user_id=never)
    assert env.compare("DeleteCustomer", never_known)[0].code == "not_found"


@case
def list_audit_events(env: Env):
    user = env.user()
    assert env.grpc("ExportCustomer", env.request("ExportCustomer", app_user_id=user)).error is None
    page = env.compare("ListAuditEvents", env.request("ListAuditEvents", page_size=3))[0].message
    assert page.events[0].action == 1 and page.events[0].subject == user  # CUSTOMER_EXPORTED
    bad_token = env.request("ListAuditEvents", page_token="nope")
    assert env.compare("ListAuditEvents", bad_token)[0].code == "invalid_argument"


@case
def list_customer_events(env: Env):
    user = env.user(grant=True)
    page = env.compare("ListCustomerEvents", env.request("ListCustomerEvents", app_user_id=user))[0].message
    assert [event.cause for event in page.events] == [9, 1]  # GRANT, CREATED
    unknown = env.request("ListCustomerEvents", app_user_id=unique_id("nobody"))
    assert env.compare("ListCustomerEvents", unknown)[0].code == "not_found"


@case
def refresh_store_purchase(env: Env):
    # The store tenant sells on the App Store only: refused before Google is asked.
    app_store = env.request("RefreshStorePurchase", store=1, purchase_id="token")
    assert env.compare("RefreshStorePurchase", app_store)[0].code == "invalid_argument"
    play = env.request("RefreshStorePurchase", store=2, purchase_id="a" * 40, product_id="com.example.play")
    assert env.compare("RefreshStorePurchase", play)[0].code == "failed_precondition"


@case
def get_redemption_code(env: Env):
    not_stripe = env.request("GetRedemptionCode", stripe_id="order-7")
    assert env.compare("GetRedemptionCode", not_stripe)[0].code == "invalid_argument"
    # The store tenant takes no Stripe purchases.
    session = env.request("GetRedemptionCode", stripe_id="cs_test_" + secrets.token_hex(8))
    assert env.compare("GetRedemptionCode", session)[0].code == "failed_precondition"


@case
def send_test_webhook(env: Env):
    answers = env.compare("SendTestWebhook", env.request("SendTestWebhook", endpoint_id="backend"),
                          cleared("webhook_id", "duration"), tenant="hooks")
    assert answers[0].message.delivered and answers[0].message.status_code == 200
    assert len({answer.message.webhook_id for answer in answers}) == len(answers)
    # The refusal names the endpoint asked for: text beyond ASCII in gRPC's percent-encoded grpc-message and in
    # Connect's JSON error alike.
    unknown = env.request("SendTestWebhook", endpoint_id="nöpe ✓")
    assert env.compare("SendTestWebhook", unknown, tenant="hooks")[0].error == (
        "not_found", "Tenant 'connect-every-hooks' has no webhook endpoint 'nöpe ✓'; its endpoints: backend.")


def delivered_deliveries(env: Env, user: str, count: int) -> list:
    """The hooks tenant's deliveries about `user` once `count` are there and none is pending."""
    deadline = time.monotonic() + RPC_TIMEOUT
    while True:
        deliveries = env.call("ListWebhookDeliveries", tenant="hooks", app_user_id=user).deliveries
        if len(deliveries) >= count and all(d.state == 2 for d in deliveries):  # DELIVERED
            return list(deliveries)
        assert time.monotonic() < deadline, f"deliveries about {user} not delivered: {deliveries}"
        time.sleep(0.1)


@case
def list_webhook_deliveries(env: Env):
    user = env.user("hooks", grant=True)
    delivered = delivered_deliveries(env, user, 2)
    request = env.request("ListWebhookDeliveries", app_user_id=user)
    assert list(env.compare("ListWebhookDeliveries", request, tenant="hooks")[0].message.deliveries) == delivered
    unknown = env.request("ListWebhookDeliveries", endpoint_id="nope")
    assert env.compare("ListWebhookDeliveries", unknown, tenant="hooks")[0].code == "not_found"


@case
def redeliver_webhooks(env: Env):
    user = env.user("hooks", grant=True)
    delivery = delivered_deliveries(env, user, 2)[0]
    request = env.request("RedeliverWebhooks", delivery_id=delivery.delivery_id)
    assert env.compare("RedeliverWebhooks", request, tenant="hooks")[0].message.requeued == 1
    unknown = env.request("RedeliverWebhooks", delivery_id=2**62)
    assert env.compare("RedeliverWebhooks", unknown, tenant="hooks")[0].code == "not_found"


@case
def list_customers(env: Env):
    since = env.message("google.protobuf.Timestamp", seconds=int(time.time()) - 1)
    users = [env.user(grant=True), env.user(grant=True)]
    request = env.request("ListCustomers", entitlement_id="pro", changed_since=since, page_size=1000)
    listed = env.compare("ListCustomers", request)[0].message.customers
    assert set(users) <= {item.customer.app_user_id for item in listed}
    inactive = env.request("ListCustomers", entitlement_id="pro", state=2)  # INACTIVE
    assert env.compare("ListCustomers", inactive)[0].code == "invalid_argument"


@case
def count_customers(env: Env):
    env.user(grant=True)
    counts = env.compare("CountCustomers", env.request("CountCustomers"), cleared("counted_at"))[0].message
    assert counts.active_customers >= 1 and "pro" in [count.id for count in counts.entitlements]


@case
def find_customers(env: Env):
    user, email = env.user(), f"{unique_id('mail')}@example.com"
    env.call("SetCustomerAttributes", app_user_id=user, attributes=[attribute(env, "$email", email)])
    (match,) = env.compare("FindCustomers", env.request("FindCustomers", query=email.upper()))[0].message.matches
    assert match.app_user_id == user and match.matched_by == 6  # EMAIL
    assert env.compare("FindCustomers", env.request("FindCustomers", query=""))[0].code == "invalid_argument"


@case
def describe_key(env: Env):
    key = env.compare("DescribeKey", env.request("DescribeKey"))[0].message
    assert key.tenant_id == "connect-every-store" and key.scope == 2 and list(key.entitlements) == ["premium", "pro"]
    hooks = env.compare("DescribeKey", env.request("DescribeKey"), tenant="hooks")[0].message
    assert list(hooks.webhook_endpoints) == ["backend"]


@case
def describe_trust(env: Env):
    trust = env.compare("DescribeTrust", env.request("DescribeTrust"), cleared("user_tokens.counted_since"))[0].message
    assert trust.user_tokens.mode == 1 and not trust.HasField("signed_status")  # OFF, and no signing


def timestamp(env: Env, moment: datetime):
    return env.message("google.protobuf.Timestamp", seconds=int(moment.timestamp()))


@case
def reconcile_app_store(env: Env):
    window = env.request("ReconcileAppStore", start_time=timestamp(env, BOUGHT - timedelta(days=1)),
                         end_time=timestamp(env, BOUGHT))
    reports = env.compare("ReconcileAppStore", window)[0].message.environments
    assert [report.environment for report in reports] == [1, 2]  # PRODUCTION, SANDBOX
    backwards = env.request("ReconcileAppStore", start_time=timestamp(env, BOUGHT), end_time=timestamp(env, BOUGHT))
    assert env.compare("ReconcileAppStore", backwards)[0].code == "invalid_argument"


@case
def look_up_order(env: Env):
    user, original, token = env.subscriber()
    order = "ORD" + secrets.token_hex(5).upper()
    env.apple.orders[order] = [token]
    found = env.compare("LookUpOrder", env.request("LookUpOrder", order_id=order, reason="ticket"))[0].message
    assert found.found and [(t.original_transaction_id, t.owner_app_user_id) for t in found.transactions] == [
        (original, user)]
    assert not env.compare("LookUpOrder", env.request("LookUpOrder", order_id="UNKNOWN1"))[0].message.found
    assert env.compare("LookUpOrder", env.request("LookUpOrder", order_id="../x"))[0].code == "invalid_argument"


@case
def extend_subscription(env: Env):
    def fresh():
        _, original, _ = env.subscriber()
        return env.request("ExtendSubscription", original_transaction_id=original, extend_by_days=3, reason_code=1,
                           request_identifier="connect-every")

    # A new subscriber's subscription each time: the same new expiry (they were bought alike).
    answer = env.compare("ExtendSubscription", fresh, cleared(
        "customer.app_user_id", echo=(("web_order_line_item_id", "original_transaction_id"),)))[0].message
    assert answer.expires_at.seconds == int((EXPIRES + timedelta(days=3)).timestamp())
    too_long = env.request("ExtendSubscription", original_transaction_id="1", extend_by_days=91,
                           request_identifier="connect-every")
    assert env.compare("ExtendSubscription", too_long)[0].code == "invalid_argument"


@case
def send_consumption_info(env: Env):
    user, original, _ = env.subscriber()
    request = env.request("SendConsumptionInfo", transaction_id=original, customer_consented=True, reason="ticket")
    sent = env.compare("SendConsumptionInfo", request)[0].message
    assert sent.delivery_status == 1 and sent.owner_app_user_id == user  # DELIVERED
    no_consent = env.request("SendConsumptionInfo", transaction_id=original)
    assert env.compare("SendConsumptionInfo", no_consent)[0].code == "failed_precondition"


@case
def request_test_notification(env: Env):
    answers = env.compare("RequestTestNotification", env.request("RequestTestNotification"),
                          cleared("test_notification_token"))
    assert answers[0].message.environment == 1  # PRODUCTION, the first the tenant accepts
    assert len({answer.message.test_notification_token for answer in answers}) == len(answers)
    xcode = env.request("RequestTestNotification", environment=3)
    assert env.compare("RequestTestNotification", xcode)[0].code == "invalid_argument"


@case
def get_test_notification_status(env: Env):
    token = env.call("RequestTestNotification", environment=2).test_notification_token
    request = env.request("GetTestNotificationStatus", test_notification_token=token, environment=2)
    status = env.compare("GetTestNotificationStatus", request)[0].message
    assert [attempt.result for attempt in status.send_attempts] == ["SUCCESS"] and not status.received
    no_token = env.request("GetTestNotificationStatus")
    assert env.compare("GetTestNotificationStatus", no_token)[0].code == "invalid_argument"


@case
def check_app_store_setup(env: Env):
    # No waiting: the fake reports a send attempt, and no notification reaches the server.
    request = env.request("CheckAppStoreSetup", wait=env.message("google.protobuf.Duration"))
    checks = env.compare("CheckAppStoreSetup", request)[0].message.checks
    assert [(check.environment, check.name, check.ok) for check in checks] == [
        (1, "key", True), (1, "notification_url", False), (2, "key", True), (2, "notification_url", False)]
    too_long = env.request("CheckAppStoreSetup", wait=env.message("google.protobuf.Duration", seconds=61))
    assert env.compare("CheckAppStoreSetup", too_long)[0].code == "invalid_argument"


def metric_range(env: Env, name: str, **fields):
    # REVENUE, in sandbox (the signed purchases' environment).
    return env.request(name, metric=1, start_date=utc_date(-2), end_date=utc_date(1), environment=2, **fields)


@case
def get_metrics(env: Env):
    env.subscriber()
    metrics = env.compare("GetMetrics", metric_range(env, "GetMetrics", group_by=[1]))[0].message  # by STORE
    assert [(series.group[0].value, series.currency) for series in metrics.series] == [("app_store", "USD")]
    unspecified = env.request("GetMetrics", start_date=utc_date(), end_date=utc_date())
    assert env.compare("GetMetrics", unspecified)[0].code == "invalid_argument"


@case
def list_metric_rows(env: Env):
    user, original, _ = env.subscriber()
    rows = env.compare("ListMetricRows", metric_range(env, "ListMetricRows", page_size=1000))[0].message.rows
    assert (original, user) in [(row.original_transaction_id, row.app_user_id) for row in rows]
    backwards = env.request("ListMetricRows", metric=1, start_date=utc_date(1), end_date=utc_date())
    assert env.compare("ListMetricRows", backwards)[0].code == "invalid_argument"


# --------------------------------------------------------------------------------------------------
# Tests


def test_every_rpc_has_a_case(protos):
    assert set(CASES) == set(rpc_methods(protos))


@pytest.mark.parametrize("name", sorted(CASES))
def test_connect_answers_as_grpc(env, name):
    before = env.connect_handled(name)
    CASES[name](env)
    calls = env.connect_calls.get(name, 0)
    assert calls, f"the case of {name} made no Connect call"
    # Each Connect call is counted once it has ended (a stream the client closed, once the server saw it go).
    deadline = time.monotonic() + 5
    while (counted := env.connect_handled(name) - before) < calls and time.monotonic() < deadline:
        time.sleep(0.05)
    assert counted == calls, f"/metrics counted {counted} Connect calls of {name}, {calls} were made"
