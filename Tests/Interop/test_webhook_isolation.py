"""A hanging webhook endpoint costs only its own share: while every request to tenant A's endpoint hangs past the
outbound timeout, tenant B's deliveries arrive as usual and SyncStatus answers as fast as without it (its p99 is
measured here against a run before the hanging endpoint had anything to send; the bound is loose on purpose, the
machine is shared: it catches a dispatcher that blocks calls, not a few milliseconds)."""

from __future__ import annotations

import time

from entitlement_support import Clients, new_tenant, unique_id, write_tenants
from webhook_receiver import Receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[int(len(ordered) * 0.99) - 1]


def sync_latencies(api, user: str, count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        api.sync(user)
        latencies.append(time.perf_counter() - started)
    return latencies


def test_a_hanging_endpoint_slows_neither_syncstatus_nor_another_tenants_deliveries(
        tenants_server, tmp_path, protos):
    hanging = Receiver(secrets=[SECRET], delay=30.0)
    healthy = Receiver(secrets=[SECRET])
    a = new_tenant("wd-hang-a", webhooks=[{"id": "slow", "url": hanging.url, "secrets": [SECRET]}])
    b = new_tenant("wd-hang-b", webhooks=[{"id": "fast", "url": healthy.url, "secrets": [SECRET]}])
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [a, b])
    server = tenants_server(tenants_file, {"outbound_http": {"timeout_seconds": 2, "max_attempts": 1},
                                           "webhooks": {"retry_delays": "100ms,100ms,100ms"}})
    clients = Clients(server, protos)
    try:
        channel = clients.channel()
        admin_a, admin_b = clients.api(a.secret_key, channel), clients.api(b.secret_key, channel)
        public_a = clients.api(a.public_key, clients.channel())
        reader = unique_id()
        admin_a.grant(reader, "pro")
        healthy_user = unique_id()
        admin_b.grant(healthy_user, "pro")
        healthy.received(2)
        sync_latencies(public_a, reader, 100)  # warm up
        before = sync_latencies(public_a, reader, 400)

        # Tenant A's endpoint now has 200 events to send, every attempt hanging until the timeout.
        for n in range(100):
            admin_a.grant(unique_id(), "pro")
        started = time.monotonic()
        users_b = [unique_id() for _ in range(20)]
        for user in users_b:
            admin_b.grant(user, "premium")
        during = sync_latencies(public_a, reader, 400)
        arrived = healthy.received(2 + 2 * len(users_b), timeout=15)
        took = max(d.at for d in arrived) - started
        assert took < 10, f"tenant B's deliveries took {took:.1f} s while tenant A's endpoint hung"
        assert {d.json["data"]["tenant"] for d in arrived} == {"wd-hang-b"}
        assert hanging.deliveries == []  # none of A's attempts got an answer yet
        pending = admin_a.call("ListWebhookDeliveries", state=1, page_size=500).deliveries
        assert len(pending) >= 150, len(pending)
        base, hung = p99(before), p99(during)
        print(f"SyncStatus p99 {base * 1000:.2f} ms before, {hung * 1000:.2f} ms with A's endpoint hanging")
        assert hung < 3 * base + 0.025, f"SyncStatus p99 went from {base * 1000:.2f} ms to {hung * 1000:.2f} ms"
    finally:
        clients.close()
        hanging.delay = 0
        hanging.close()
        healthy.close()
