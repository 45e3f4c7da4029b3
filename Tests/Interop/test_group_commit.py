"""Group commit through the real server: concurrent writes share commits and keep every guarantee of one write.

- A burst of concurrent GrantEntitlement calls (many customers, several writes in flight per customer) commits in
  fewer transactions than writes (the storage transaction histogram counts them), every call answered OK is there,
  and each customer's versions run 1, 2, 3... with no gap, matching its events one for one.
- In the same burst, calls that fail inside their transaction (an idempotency key reused for another entitlement:
  FAILED_PRECONDITION) fail alone: the writes grouped with them commit, and they leave nothing behind.
- SIGKILL in the middle of a burst: after a restart every acknowledged write is there and versions stay gap-free;
  writes in flight when the process died may or may not be, but never half.
"""

from __future__ import annotations

import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from conftest import start_server
from entitlement_support import Api, new_tenant, rpc_error, sigkill, unique_id, write_tenants

Code = grpc.StatusCode
WORKERS = 32


@pytest.fixture
def setup(tmp_path, protos):
    tenant = new_tenant("grouped", entitlements=["pro", "premium"])
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [tenant])
    servers = []

    def start():
        server = start_server(tmp_path / "server", tenants_file)
        servers.append(server)
        channel = server.channel()
        grpc.channel_ready_future(channel).result(timeout=30)
        return server, Api(channel, protos, tenant.secret_key)

    yield start
    for server in servers:
        server.kill()


def transactions_committed(server) -> float:
    host, port = server.target.rsplit(":", 1)
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    line = next(l for l in text.splitlines() if l.startswith("entitlementd_storage_transaction_seconds_count"))
    return float(line.split()[-1])


def check_versions(admin: Api, user: str) -> list:
    """The customer's events: versions 1...n with no gap or repeat, n being the customer's version."""
    events = admin.all_events(user)
    versions = sorted(event.version for event in events)
    customer = admin.customer(user).customer
    assert versions == list(range(1, len(versions) + 1)), (user, versions)
    assert customer.version == len(versions), (user, customer.version, versions)
    return events


def test_a_burst_shares_commits_and_a_failing_write_fails_alone(setup):
    server, admin = setup()
    users = [unique_id(f"burst{i}") for i in range(8)]
    # Each user's first grant carries an idempotency key that later calls reuse for another entitlement.
    keys = {user: unique_id("key") for user in users}
    for user in users:
        admin.grant(user, "pro", idempotency_key=keys[user])
    before = transactions_committed(server)

    def call(index: int):
        user = users[index % len(users)]
        if index % 5 == 4:
            return "refused", user, rpc_error(lambda: admin.grant(user, "premium", idempotency_key=keys[user]))
        return "granted", user, admin.grant(user, "premium", duration=3600, reason=f"burst {index}")

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = list(pool.map(call, range(400)))
    committed = transactions_committed(server) - before

    granted = [(user, answer) for kind, user, answer in outcomes if kind == "granted"]
    refused = [answer for kind, _, answer in outcomes if kind == "refused"]
    assert len(granted) == 320 and len(refused) == 80
    assert all(error.code() == Code.FAILED_PRECONDITION for error in refused), {e.code() for e in refused}
    assert committed < 400, f"{committed} transactions for 400 concurrent writes: nothing was grouped"
    for user in users:
        events = check_versions(admin, user)
        mine = {answer.grant_id for owner, answer in granted if owner == user}
        grants = admin.customer(user).grants
        # The first grant, then exactly the acknowledged ones: the refused calls added nothing.
        assert [g.entitlement_id for g in grants].count("pro") == 1
        assert {g.grant_id for g in grants if g.entitlement_id == "premium"} == mine
        assert len(events) == 2 + len(mine)  # created, the first grant, one event per acknowledged grant


def test_sigkill_during_a_burst_loses_no_acknowledged_write(setup):
    server, admin = setup()
    users = [unique_id(f"killed{i}") for i in range(16)]
    acknowledged: list[tuple[str, str]] = []
    lock = threading.Lock()
    enough = threading.Event()

    def worker(index: int):
        for round_ in range(10_000):
            user = users[(index + round_) % len(users)]
            try:
                grant = admin.grant(user, "pro", duration=3600, reason=f"worker {index} round {round_}")
            except grpc.RpcError:
                return  # the server is gone
            with lock:
                acknowledged.append((user, grant.grant_id))
                if len(acknowledged) >= 600:
                    enough.set()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    assert enough.wait(timeout=120), f"only {len(acknowledged)} grants acknowledged in 120 s"
    sigkill(server)
    for thread in threads:
        thread.join(timeout=60)
    with lock:
        survivors = list(acknowledged)

    server, admin = setup()
    for user in users:
        stored = {g.grant_id for g in admin.customer(user).grants} if any(u == user for u, _ in survivors) else set()
        expected = {grant_id for owner, grant_id in survivors if owner == user}
        assert expected <= stored, f"{user}: {len(expected - stored)} acknowledged grants lost"
        if stored:
            events = check_versions(admin, user)
            # One event per stored grant (plus the customer's creation): no grant without its event or the reverse.
            assert len(events) == 1 + len(stored), (user, len(events), len(stored))
    # The restarted server takes writes again.
    admin.grant(users[0], "premium")
