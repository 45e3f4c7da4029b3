"""Crash safety of the webhook outbox: SIGKILL the server with over 1,000 events queued for an endpoint that is down;
after a restart on the same database every one is delivered, none is lost, and any sent twice carries the same
`webhook-id` and body both times."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

from conftest import free_port, start_server, stop_and_check
from entitlement_support import Clients, new_tenant, sigkill, unique_id, write_tenants
from webhook_receiver import Receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
USERS, GRANTS = 20, 1000
# 30 attempts 3 s apart: no event runs out of attempts (and fails for good) while a slow machine queues the rest.
SETTINGS = {"webhooks": {"retry_delays": ",".join(["3s"] * 30), "max_in_flight_per_endpoint": 16}}


def test_a_killed_server_delivers_every_queued_event_after_it_restarts(tmp_path, protos):
    port = free_port()
    tenant = new_tenant("wd-crash", webhooks=[
        {"id": "backend", "url": f"http://127.0.0.1:{port}/hooks", "secrets": [SECRET]}])
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [tenant])
    directory = tmp_path / "server"
    server = start_server(directory, tenants_file, SETTINGS)
    users = [unique_id() for _ in range(USERS)]
    clients = Clients(server, protos)
    try:
        admin = clients.api(tenant.secret_key, clients.channel())
        # Nothing listens at the endpoint: every event stays queued, tried again and again.
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: admin.grant(users[n % USERS], "pro" if n % 2 else "premium"), range(GRANTS)))
        pending = admin.call("ListWebhookDeliveries", state=1, page_size=500)
        assert len(pending.deliveries) == 500 and pending.next_page_token
    finally:
        clients.close()
    sigkill(server)

    receiver = Receiver(secrets=[SECRET], port=port)
    restarted = start_server(directory, tenants_file, SETTINGS)
    try:
        expected = USERS + GRANTS  # each user's creation, and every grant
        # On PostgreSQL the attempts in flight at the kill stay leased for their 60 s (another instance may hold them):
        # those customers' events wait that long before the backlog drains.
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and len({d.headers["webhook-id"] for d in receiver.deliveries}) < expected:
            time.sleep(0.1)
        by_id: dict[str, set[bytes]] = {}
        for delivery in receiver.deliveries:
            assert delivery.verified_with == [0]
            by_id.setdefault(delivery.headers["webhook-id"], set()).add(delivery.body)
        assert len(by_id) == expected, f"{len(by_id)} of {expected} events arrived"
        # A duplicate is the same message: the same webhook-id always carried the same body.
        assert all(len(bodies) == 1 for bodies in by_id.values())
        versions: dict[str, set[int]] = {}
        for (body,) in by_id.values():
            data = json.loads(body)["data"]
            versions.setdefault(data["app_user_id"], set()).add(data["version"])
        assert set(versions) == set(users)
        for user, seen in versions.items():
            assert seen == set(range(1, 1 + 1 + GRANTS // USERS)), (user, sorted(seen))
        clients = Clients(restarted, protos)
        admin = clients.api(tenant.secret_key, clients.channel())
        assert list(admin.call("ListWebhookDeliveries", state=1).deliveries) == []
        clients.close()
    finally:
        receiver.close()
        stop_and_check(restarted)
