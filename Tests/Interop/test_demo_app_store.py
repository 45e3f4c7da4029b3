"""The README's App Store walkthrough, automated: the demo tenant trusts Config/dev-ca for Sandbox, `entctl dev`
signs, the Swift client (`entctl purchase`) buys, the webhook takes notifications, and a StreamStatus on another
connection (grpcio) sees every change."""

from __future__ import annotations

import json
import queue
import threading
import uuid

import grpc

from conftest import REPO_ROOT, RPC_TIMEOUT
from test_entctl import entctl

CA = str(REPO_ROOT / "Config" / "dev-ca")
PUBLIC_KEY = "pk_demo_public_key_for_local_testing_only"


def sign_transaction(original: str, transaction: str, expires: str) -> str:
    result = entctl(
        "dev", "sign-transaction", "--dir", CA, "--product", "com.example.pro.monthly", "--bundle-id",
        "com.example.app", "--original-transaction-id", original, "--transaction-id", transaction, "--expires", expires,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def stream_events(server, protos, user: str) -> "queue.Queue":
    """StreamStatus for `user` over grpcio, its events (kind, active entitlement IDs) put on a queue."""
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    request = protos.message("entitlements.v1.StreamStatusRequest")(app_user_id=user)
    response_class = protos.message("entitlements.v1.StatusEvent")
    call = channel.unary_stream(
        "/entitlements.v1.EntitlementService/StreamStatus",
        request_serializer=lambda message: message.SerializeToString(),
        response_deserializer=response_class.FromString,
    )(request, metadata=[("authorization", f"Bearer {PUBLIC_KEY}")], timeout=30)
    events: queue.Queue = queue.Queue()

    def read() -> None:
        try:
            for event in call:
                events.put((event.kind, sorted(e.id for e in event.customer.status.entitlements)))
        except grpc.RpcError:
            pass

    threading.Thread(target=read, daemon=True).start()
    events.call = call  # keep it alive and cancellable
    return events


def test_purchase_notification_and_push_with_the_demo_tenant(demo_tenants_server, protos):
    server = demo_tenants_server
    user = "readme-" + uuid.uuid4().hex[:8]
    original = str(3_000_000_000_000_000 + uuid.uuid4().int % 1_000_000_000)
    addr = f"127.0.0.1:{server.port}"
    assert entctl("--addr", addr, "identify", user).returncode == 0
    events = stream_events(server, protos, user)
    kind = protos.message("entitlements.v1.StatusEvent").Kind
    snapshot_kind = kind.Value("SNAPSHOT")
    status_changed = kind.Value("STATUS_CHANGED")
    info_changed = kind.Value("CUSTOMER_INFO_CHANGED")
    assert events.get(timeout=RPC_TIMEOUT) == (snapshot_kind, [])

    bought = entctl("--addr", addr, "--json", "purchase", user, sign_transaction(original, original, "+30d"))
    assert bought.returncode == 0, bought.stderr
    assert json.loads(bought.stdout)["customer"]["status"]["state"] == "ACTIVE"
    assert events.get(timeout=RPC_TIMEOUT) == (status_changed, ["pro"])

    renewal = sign_transaction(original, original + "1", "+60d")
    renewed = entctl("--addr", addr, "dev", "notify", "DID_RENEW", "--tenant", "demo", "--dir", CA, "--transaction", renewal)
    assert renewed.returncode == 0 and renewed.stdout.startswith("200"), renewed.stdout + renewed.stderr
    assert events.get(timeout=RPC_TIMEOUT) == (info_changed, ["pro"])

    lapsed = sign_transaction(original, original + "1", "-1m")
    expired = entctl(
        "--addr", addr, "dev", "notify", "EXPIRED", "VOLUNTARY", "--tenant", "demo", "--dir", CA, "--transaction", lapsed
    )
    assert expired.returncode == 0, expired.stdout + expired.stderr
    assert events.get(timeout=RPC_TIMEOUT) == (status_changed, [])
    events.call.cancel()
