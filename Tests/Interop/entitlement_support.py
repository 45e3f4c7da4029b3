"""Helpers for the entitlement interop tests (test_entitlements.py, test_durability.py, the App Store and Google Play
tests).

Not a test module: the tests import from it. Servers are the real `interop-server` started by conftest
(`tenants_server`, `start_server`), with `[storage] tenants` pointing at a tenants JSON file written here, whose
keys are generated per run (`pk_`/`sk_` + 64 hex digits, configured as `pk_sha256:`/`sk_sha256:` + SHA-256 of the
whole key).

Messages come from conftest's `ProtoSet` (descriptor set compiled from Protos/), so the RPCs are called by path.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import secrets
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from conftest import RPC_TIMEOUT, ServerProcess

ENTITLEMENT_SERVICE = "entitlements.v1.EntitlementService"
ADMIN_SERVICE = "entitlements.v1.AdminService"
PACKAGE = "entitlements.v1"

# method -> (service, request type, response type, server streaming)
METHODS = {
    "Identify": (ENTITLEMENT_SERVICE, "IdentifyRequest", "IdentifyResponse", False),
    "SyncStatus": (ENTITLEMENT_SERVICE, "SyncStatusRequest", "SyncStatusResponse", False),
    "StreamStatus": (ENTITLEMENT_SERVICE, "StreamStatusRequest", "StatusEvent", True),
    "SetAttributes": (ENTITLEMENT_SERVICE, "SetAttributesRequest", "SetAttributesResponse", False),
    "GrantEntitlement": (ADMIN_SERVICE, "GrantEntitlementRequest", "Grant", False),
    "RevokeGrant": (ADMIN_SERVICE, "RevokeGrantRequest", "Grant", False),
    "GetCustomer": (ADMIN_SERVICE, "GetCustomerRequest", "Customer", False),
    "SetCustomerAttributes": (ADMIN_SERVICE, "SetCustomerAttributesRequest", "SetCustomerAttributesResponse", False),
    "ExportCustomer": (ADMIN_SERVICE, "ExportCustomerRequest", "ExportCustomerChunk", True),
    "DeleteCustomer": (ADMIN_SERVICE, "DeleteCustomerRequest", "DeleteCustomerResponse", False),
    "ListAuditEvents": (ADMIN_SERVICE, "ListAuditEventsRequest", "ListAuditEventsResponse", False),
    "ListCustomerEvents": (ADMIN_SERVICE, "ListCustomerEventsRequest", "ListCustomerEventsResponse", False),
    "SendTestWebhook": (ADMIN_SERVICE, "SendTestWebhookRequest", "SendTestWebhookResponse", False),
    "ListWebhookDeliveries": (ADMIN_SERVICE, "ListWebhookDeliveriesRequest", "ListWebhookDeliveriesResponse", False),
    "RedeliverWebhooks": (ADMIN_SERVICE, "RedeliverWebhooksRequest", "RedeliverWebhooksResponse", False),
    "ListCustomers": (ADMIN_SERVICE, "ListCustomersRequest", "ListCustomersResponse", False),
    "CountCustomers": (ADMIN_SERVICE, "CountCustomersRequest", "CountCustomersResponse", False),
    "FindCustomers": (ADMIN_SERVICE, "FindCustomersRequest", "FindCustomersResponse", False),
    "DescribeKey": (ADMIN_SERVICE, "DescribeKeyRequest", "KeyDescription", False),
    "DescribeTrust": (ADMIN_SERVICE, "DescribeTrustRequest", "TrustDescription", False),
    "ReconcileAppStore": (ADMIN_SERVICE, "ReconcileAppStoreRequest", "ReconcileAppStoreResponse", False),
    "LookUpOrder": (ADMIN_SERVICE, "LookUpOrderRequest", "LookUpOrderResponse", False),
    "ExtendSubscription": (ADMIN_SERVICE, "ExtendSubscriptionRequest", "ExtendSubscriptionResponse", False),
    "SendConsumptionInfo": (ADMIN_SERVICE, "SendConsumptionInfoRequest", "SendConsumptionInfoResponse", False),
    "RequestTestNotification": (ADMIN_SERVICE, "RequestTestNotificationRequest", "RequestTestNotificationResponse",
                                False),
    "GetTestNotificationStatus": (ADMIN_SERVICE, "GetTestNotificationStatusRequest",
                                  "GetTestNotificationStatusResponse", False),
    "CheckAppStoreSetup": (ADMIN_SERVICE, "CheckAppStoreSetupRequest", "CheckAppStoreSetupResponse", False),
    "GetMetrics": (ADMIN_SERVICE, "GetMetricsRequest", "GetMetricsResponse", False),
    "ListMetricRows": (ADMIN_SERVICE, "ListMetricRowsRequest", "ListMetricRowsResponse", False),
}
ENTITLEMENT_METHODS = [name for name, spec in METHODS.items() if spec[0] == ENTITLEMENT_SERVICE]
ADMIN_METHODS = [name for name, spec in METHODS.items() if spec[0] == ADMIN_SERVICE]

# Enum values (status.proto / admin_service.proto).
ACTIVE, INACTIVE = 1, 2
SNAPSHOT, STATUS_CHANGED, CUSTOMER_INFO_CHANGED = 1, 2, 3
STORE_GRANT = 4
CAUSE = {
    "CREATED": 1, "MERGED": 2, "PURCHASE": 3, "RESTORE": 4, "TRANSFERRED_IN": 5, "TRANSFERRED_OUT": 6,
    "APP_STORE_NOTIFICATION": 7, "PLAY_STORE_NOTIFICATION": 8, "GRANT": 9, "REVOKE": 10, "EXPIRY": 11,
}
KIND_NAMES = {0: "KIND_UNSPECIFIED", SNAPSHOT: "SNAPSHOT", STATUS_CHANGED: "STATUS_CHANGED",
              CUSTOMER_INFO_CHANGED: "CUSTOMER_INFO_CHANGED"}

# How long a stream may take to deliver a change that has been committed (the issue asks for milliseconds).
PUSH_TIMEOUT = 5.0


def unique_id(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def anon_id() -> str:
    return f"$anon:{uuid.uuid4()}"


# --------------------------------------------------------------------------------------------------
# Keys and tenants


def make_key(kind: str) -> tuple[str, str]:
    """A new `pk`/`sk` key and the hash string the tenants file lists for it."""
    key = f"{kind}_" + secrets.token_hex(32)
    return key, f"{kind}_sha256:" + hashlib.sha256(key.encode()).hexdigest()


def key_hash(key: str) -> str:
    kind = key[:2]
    return f"{kind}_sha256:" + hashlib.sha256(key.encode()).hexdigest()


@dataclass
class TenantSpec:
    id: str
    public_keys: list[str]
    secret_keys: list[str]
    entitlements: list[str] = field(default_factory=lambda: ["pro", "premium"])
    products: dict[str, list[str]] = field(default_factory=dict)
    allow_undeclared_entitlements: bool = False
    app_store: dict | None = None
    play_store: dict | None = None
    web: dict | None = None
    webhooks: list[dict] | None = None
    reporting_currency: dict | None = None
    # More secret keys, listed as objects: {"key": "sk_...", "name": ..., "scope": ...} (name and scope optional).
    named_secret_keys: list[dict] = field(default_factory=list)
    # The tenant's "attributes" settings ({"app_keys": [...], "backend_keys": [...]}); None: not listed.
    attributes: dict | None = None
    # The tenant's "user_tokens" settings ({"mode": ..., "issuer": ..., ...}); None: not listed.
    user_tokens: dict | None = None
    # The tenant's "signed_status" settings ({"keys": [{"kid": ..., "key_file": ...}], ...}); None: not listed.
    signed_status: dict | None = None

    @property
    def public_key(self) -> str:
        return self.public_keys[0]

    @property
    def secret_key(self) -> str:
        return self.secret_keys[0]

    def entry(self) -> dict:
        entry = {
            "id": self.id,
            "public_keys": [key_hash(key) for key in self.public_keys],
            "secret_keys": [key_hash(key) for key in self.secret_keys] + [
                {"hash": key_hash(named["key"]), **{k: v for k, v in named.items() if k != "key"}}
                for named in self.named_secret_keys],
            "entitlements": list(self.entitlements),
            "allow_undeclared_entitlements": self.allow_undeclared_entitlements,
            "products": {product: list(ids) for product, ids in self.products.items()},
        }
        if self.app_store is not None:
            entry["app_store"] = self.app_store
        if self.play_store is not None:
            entry["play_store"] = self.play_store
        if self.web is not None:
            entry["web"] = self.web
        if self.webhooks is not None:
            entry["webhooks"] = self.webhooks
        if self.reporting_currency is not None:
            entry["reporting_currency"] = self.reporting_currency
        if self.attributes is not None:
            entry["attributes"] = self.attributes
        if self.user_tokens is not None:
            entry["user_tokens"] = self.user_tokens
        if self.signed_status is not None:
            entry["signed_status"] = self.signed_status
        return entry


def new_tenant(tenant_id: str, public_keys: int = 1, **kwargs) -> TenantSpec:
    return TenantSpec(
        id=tenant_id,
        public_keys=[make_key("pk")[0] for _ in range(public_keys)],
        secret_keys=[make_key("sk")[0]],
        **kwargs,
    )


def write_tenants(path: Path, tenants: Iterable[TenantSpec]) -> None:
    """Writes the tenants file atomically (a reload never reads half a file)."""
    write_file_atomically(path, json.dumps({"tenants": [tenant.entry() for tenant in tenants]}, indent=2))


def write_file_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def sigkill(server: ServerProcess) -> None:
    """SIGKILL, no grace: what `kill -9` does."""
    server.process.kill()
    server.process.wait(timeout=10)
    server._log.close()


# --------------------------------------------------------------------------------------------------
# Calls


def ts_seconds(timestamp) -> float:
    return timestamp.seconds + timestamp.nanos / 1e9


def ts_millis(timestamp) -> int:
    return timestamp.seconds * 1000 + timestamp.nanos // 1_000_000


def rpc_error(call) -> grpc.RpcError:
    """The RpcError `call()` raises; fails the test when it succeeds."""
    try:
        result = call()
    except grpc.RpcError as error:
        return error
    pytest.fail(f"expected an RPC error, got a response: {result!r}")


class Api:
    """The entitlement RPCs over one channel with one key (None: no authorization metadata)."""

    def __init__(self, channel: grpc.Channel, protos, key: str | None, streams: list | None = None):
        self.channel, self.protos, self.key = channel, protos, key
        self._streams = streams if streams is not None else []

    def with_key(self, key: str | None) -> "Api":
        return Api(self.channel, self.protos, key, self._streams)

    def message(self, name: str, **fields):
        return self.protos.message(f"{PACKAGE}.{name}")(**fields)

    def _metadata(self, metadata):
        if metadata is not None:
            return list(metadata)
        return [("authorization", f"Bearer {self.key}")] if self.key is not None else []

    def request(self, method: str, **fields):
        return self.message(METHODS[method][1], **fields)

    def call(self, method: str, request=None, *, metadata=None, timeout: float = RPC_TIMEOUT, **fields):
        service, request_type, response_type, streaming = METHODS[method]
        assert not streaming, method
        request = request if request is not None else self.message(request_type, **fields)
        response_class = self.protos.message(f"{PACKAGE}.{response_type}")
        callable_ = self.channel.unary_unary(
            f"/{service}/{method}", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString,
        )
        return callable_(request, timeout=timeout, metadata=self._metadata(metadata))

    def call_streaming(self, method: str, request=None, *, metadata=None, timeout: float = RPC_TIMEOUT,
                       **fields) -> list:
        """Every message of a server-streaming call that ends by itself (ExportCustomer), once it has ended."""
        service, request_type, response_type, streaming = METHODS[method]
        assert streaming and method != "StreamStatus", method
        request = request if request is not None else self.message(request_type, **fields)
        callable_ = self.channel.unary_stream(
            f"/{service}/{method}", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=self.protos.message(f"{PACKAGE}.{response_type}").FromString,
        )
        return list(callable_(request, timeout=timeout, metadata=self._metadata(metadata)))

    def error(self, method: str, request=None, **kwargs) -> grpc.RpcError:
        """The error a unary call ends with (or the first result of a stream); fails when it succeeds."""
        if method == "StreamStatus":
            stream = self.stream(request=request, **kwargs)
            return stream.error()
        if METHODS[method][3]:
            return rpc_error(lambda: self.call_streaming(method, request, **kwargs))
        return rpc_error(lambda: self.call(method, request, **kwargs))

    def stream(self, app_user_id: str | None = None, after_version: int = 0, *, request=None, metadata=None,
               timeout: float = 120.0) -> "StatusStream":
        response_class = self.protos.message(f"{PACKAGE}.StatusEvent")
        if request is None:
            request = self.message("StreamStatusRequest", app_user_id=app_user_id, after_version=after_version)
        callable_ = self.channel.unary_stream(
            f"/{ENTITLEMENT_SERVICE}/StreamStatus", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString,
        )
        stream = StatusStream(callable_(request, timeout=timeout, metadata=self._metadata(metadata)))
        self._streams.append(stream)
        return stream

    def cancel_streams(self) -> None:
        for stream in self._streams:
            stream.cancel()
        self._streams.clear()

    # Conveniences

    def identify(self, app_user_id: str, anonymous_id: str = ""):
        return self.call("Identify", app_user_id=app_user_id, anonymous_id=anonymous_id)

    def sync(self, app_user_id: str):
        return self.call("SyncStatus", app_user_id=app_user_id).customer

    def is_unknown(self, app_user_id: str) -> bool:
        """Whether no customer has `app_user_id` in this key's tenant: SyncStatus answers NOT_FOUND (as StreamStatus,
        GetCustomer and ListCustomerEvents do), rather than a status."""
        try:
            self.sync(app_user_id)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND, (error.code(), error.details())
            assert "call Identify first" in error.details(), error.details()
            return True
        return False

    def grant_request(self, app_user_id: str, entitlement_id: str = "pro", *, duration: float | None = None,
                      expires_at: float | None = None, reason: str = "", idempotency_key: str = ""):
        request = self.request(
            "GrantEntitlement", app_user_id=app_user_id, entitlement_id=entitlement_id, reason=reason,
            idempotency_key=idempotency_key,
        )
        if duration is not None:
            millis = round(duration * 1000)
            request.duration.seconds, request.duration.nanos = divmod(millis, 1000)
            request.duration.nanos *= 1_000_000
        if expires_at is not None:
            millis = round(expires_at * 1000)
            request.expires_at.seconds, rest = divmod(millis, 1000)
            request.expires_at.nanos = rest * 1_000_000
        return request

    def grant(self, app_user_id: str, entitlement_id: str = "pro", **kwargs):
        return self.call("GrantEntitlement", self.grant_request(app_user_id, entitlement_id, **kwargs))

    def revoke(self, grant_id: str, reason: str = ""):
        return self.call("RevokeGrant", grant_id=grant_id, reason=reason)

    def customer(self, app_user_id: str):
        return self.call("GetCustomer", app_user_id=app_user_id)

    def events_page(self, app_user_id: str, page_size: int = 0, page_token: str = ""):
        return self.call("ListCustomerEvents", app_user_id=app_user_id, page_size=page_size, page_token=page_token)

    def all_events(self, app_user_id: str) -> list:
        """Every event, newest first (following next_page_token)."""
        events, token = [], ""
        for _ in range(1000):
            page = self.events_page(app_user_id, page_size=100, page_token=token)
            events.extend(page.events)
            token = page.next_page_token
            if not token:
                return events
        pytest.fail("ListCustomerEvents never returned an empty next_page_token")


class Clients:
    """Channels and `Api`s to one server for one test. `close()` cancels their streams, closes the channels and fails
    the test when the server died meanwhile."""

    api_class = Api

    def __init__(self, server: ServerProcess, protos):
        self.server, self.protos = server, protos
        self._channels: list[grpc.Channel] = []
        self._apis: list[Api] = []

    def channel(self) -> grpc.Channel:
        """A new channel (a new HTTP/2 connection: grpcio does not share subchannels across these options)."""
        channel = self.server.channel(options=[("grpc.use_local_subchannel_pool", 1)])
        grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT)
        self._channels.append(channel)
        return channel

    def api(self, key: str | None, channel: grpc.Channel | None = None) -> Api:
        """An `api_class` with `key`, on `channel` or else the first channel made."""
        api = self.api_class(channel or self._channels[0], self.protos, key, streams=[])
        self._apis.append(api)
        return api

    def close(self) -> None:
        for api in self._apis:
            api.cancel_streams()
        for channel in self._channels:
            channel.close()
        assert self.server.process.poll() is None, f"server died:\n{self.server.describe()}"


_END = object()


class StatusStream:
    """A StreamStatus call read by a thread: each message is queued with the wall-clock time it arrived."""

    def __init__(self, call):
        self.call = call
        self._queue: "queue.Queue[tuple[float, object]]" = queue.Queue()
        self.received: list = []
        self.ended_with: grpc.RpcError | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for message in self.call:
                self._queue.put((time.time(), message))
        except grpc.RpcError as error:
            self._queue.put((time.time(), error))
        finally:
            self._queue.put((time.time(), _END))

    def next_timed(self, timeout: float = PUSH_TIMEOUT) -> tuple[float, object]:
        """The next event and the wall-clock time it arrived; fails on timeout, error or end of stream."""
        try:
            arrived, item = self._queue.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no StatusEvent within {timeout}s (received so far: {self.describe()})")
        if item is _END:
            pytest.fail(f"stream ended without an error after {self.describe()}")
        if isinstance(item, grpc.RpcError):
            self.ended_with = item
            pytest.fail(f"stream failed with {item.code()}: {item.details()} after {self.describe()}")
        self.received.append(item)
        return arrived, item

    def next(self, timeout: float = PUSH_TIMEOUT):
        return self.next_timed(timeout)[1]

    def expect_quiet(self, seconds: float) -> None:
        """Asserts no message (and no end) arrives within `seconds`."""
        try:
            _, item = self._queue.get(timeout=seconds)
        except queue.Empty:
            return
        if isinstance(item, grpc.RpcError):
            pytest.fail(f"stream unexpectedly failed: {item.code()} {item.details()}")
        if item is _END:
            pytest.fail("stream unexpectedly ended")
        pytest.fail(f"unexpected StatusEvent: {describe_event(item)}")

    def error(self, timeout: float = RPC_TIMEOUT) -> grpc.RpcError:
        """The error the stream ends with before sending anything; fails when a message arrives first."""
        try:
            _, item = self._queue.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"stream neither failed nor sent anything within {timeout}s")
        if isinstance(item, grpc.RpcError):
            self.ended_with = item
            return item
        if item is _END:
            pytest.fail("stream ended with OK and no message; expected an error")
        pytest.fail(f"expected the stream to fail, got a message first: {describe_event(item)}")

    def describe(self) -> str:
        return "[" + ", ".join(describe_event(event) for event in self.received) + "]"

    def cancel(self) -> None:
        self.call.cancel()

    def is_active(self) -> bool:
        return self.call.is_active()


def describe_event(event) -> str:
    customer = event.customer
    ids = ",".join(entitlement.id for entitlement in customer.status.entitlements)
    return f"{KIND_NAMES.get(event.kind, event.kind)}(v{customer.version} {customer.app_user_id} [{ids}])"


def active_ids(customer_status) -> list[str]:
    return [entitlement.id for entitlement in customer_status.status.entitlements]


@contextmanager
def secret_key_apis(server: ServerProcess, protos, tenants: dict[str, TenantSpec]) -> Iterator[dict[str, Api]]:
    """An `Api` with each tenant's secret key, by the same names, on one channel; closed afterwards."""
    clients = Clients(server, protos)
    channel = clients.channel()
    try:
        yield {name: clients.api(tenant.secret_key, channel) for name, tenant in tenants.items()}
    finally:
        clients.close()

