"""An instance's pooled PostgreSQL sessions ended while idle (PostgreSQL restarted, the sessions terminated) cost
callers nothing once PostgreSQL is back: the pool replaces an ended session at checkout, and `/readyz` is 200 at
the first probe after the restart. Needs ENTITLEMENTD_TEST_POSTGRES, as test_postgres_instances.py."""

from __future__ import annotations

import os
import subprocess
import threading

import grpc

from entitlement_support import active_ids, unique_id
from test_metrics import Samples, scrape
from test_postgres_instances import BASE, ca, cluster, psql, pytestmark  # noqa: F401 (fixtures and the skip mark)
from test_readyz import readyz, wait_readyz

POOLED = "application_name = 'entitlementd'"


def on_threads(call, users: list[str]) -> list:
    """`call(user)` for every customer, each on a thread of its own, all at once; the calls that failed."""
    failures = []

    def run(user: str) -> None:
        try:
            call(user)
        except grpc.RpcError as error:
            failures.append(error)

    threads = [threading.Thread(target=run, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return failures


def fill_the_pool(instance, users: list[str]) -> int:
    """Reads on every customer at once, so that the pool holds several sessions; then how many sit idle."""
    assert on_threads(lambda user: [instance.admin.all_events(user) for _ in range(20)], users) == []
    return int(psql(BASE, f"SELECT count(*) FROM pg_stat_activity WHERE {POOLED} AND state = 'idle'"))


def calls_from_threads(instance, users: list[str]) -> list:
    """A write and two reads on every customer, all customers at once; the calls that failed."""
    def calls(user: str) -> None:
        instance.admin.grant(user, "premium", duration=3600)
        instance.admin.all_events(user)
        instance.admin.customer(user)

    return on_threads(calls, users)


def test_postgresql_restarted_while_the_pool_is_idle_fails_no_call_once_it_is_back(cluster):
    a = cluster("a")
    users = [unique_id() for _ in range(8)]
    for user in users:
        a.admin.grant(user, "pro", duration=3600)
    idle = fill_the_pool(a, users)
    assert idle >= 2, idle
    cluster_dir = BASE.split("host=", 1)[1].split()[0]
    script = os.path.join(os.path.dirname(__file__), "..", "..", "Scripts", "postgres")
    subprocess.run(["bash", script, "stop", cluster_dir], check=True, timeout=60)
    try:
        assert wait_readyz(a.server, 503).startswith("not ready: storage:")
    finally:
        # `start` returns once PostgreSQL accepts connections.
        subprocess.run(["bash", script, "start", cluster_dir], check=True, timeout=60, capture_output=True)
    # No wait for readiness or for the pool: the first probe and every call after the return succeed.
    assert readyz(a.server) == (200, "ready\n")
    assert calls_from_threads(a, users) == []
    for user in users:
        assert active_ids(a.admin.customer(user).customer) == ["premium", "pro"]
    # Sessions that were idle when PostgreSQL stopped were found ended and replaced before a call used them. Not
    # necessarily all of them: the instance's own background work (acknowledgements due, the outbox) may take one
    # while PostgreSQL is stopping, before its farewell arrives, and that one fails and is closed during the outage.
    replaced = Samples(scrape(a.server))["entitlementd_postgres_sessions_replaced_total", {"found": "at_checkout"}]
    assert replaced >= 1, (replaced, idle)


def test_idle_pooled_sessions_terminated_fail_no_call(cluster):
    a, b = cluster("a"), cluster("b")
    users = [unique_id() for _ in range(8)]
    for user in users:
        a.admin.grant(user, "pro", duration=3600)
    fill_the_pool(a, users)
    fill_the_pool(b, users)
    for _ in range(3):
        terminated = int(psql(BASE, f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {POOLED}"))
        assert terminated >= 2, terminated
        # At once, without waiting for the backends to exit (one that has not yet when a checkout looks at its
        # session ends before the call's first statement, which is then sent again on a fresh session).
        assert calls_from_threads(a, users) == []
        assert calls_from_threads(b, users) == []
    for user in users:
        assert active_ids(b.admin.customer(user).customer) == ["premium", "pro"]
        events = b.admin.all_events(user)
        assert [event.version for event in events] == list(range(len(events), 0, -1))
