"""A customer the cache does not hold is read from PostgreSQL off the event loop: while such reads wait, the loop
answers cached customers; callers of one customer share one read; the reads at once and the customers waiting are
bounded, and a caller beyond them is answered UNAVAILABLE at once. Needs ENTITLEMENTD_TEST_POSTGRES, as
test_postgres_instances.py."""

from __future__ import annotations

import subprocess
import time
import urllib.request

import grpc

from conftest import RPC_TIMEOUT
from entitlement_support import ENTITLEMENT_SERVICE, unique_id
from test_postgres_instances import BASE, ca, cluster, psql, pytestmark  # noqa: F401 (fixtures and the skip mark)

SNAPSHOT_READS = (
    "entitlementd_snapshot_reads_total", "entitlementd_snapshot_reads_coalesced_total",
    "entitlementd_snapshot_reads_refused_total", "entitlementd_snapshot_reads_in_flight",
    "entitlementd_snapshot_reads_waiting",
)


def snapshot_reads(server) -> dict[str, int]:
    with urllib.request.urlopen(f"http://{server.target}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples = dict(line.split() for line in text.splitlines() if line.split(" ")[0] in SNAPSHOT_READS)
    return {name.removeprefix("entitlementd_snapshot_reads_").removesuffix("_total"): int(float(samples[name]))
            for name in SNAPSHOT_READS}


def wait_for(server, **expected: int) -> dict[str, int]:
    """Polls the metrics until they show `expected` (a condition, not a timing: the reads are held by a lock)."""
    deadline = time.time() + RPC_TIMEOUT
    while True:
        seen = snapshot_reads(server)
        if all(seen[name] == value for name, value in expected.items()):
            return seen
        assert time.time() < deadline, f"metrics stayed at {seen}, expected {expected}"
        time.sleep(0.02)


class TableLock:
    """A psql session holding ACCESS EXCLUSIVE on a table: every read of it waits until `release()`."""

    def __init__(self, conninfo: str, table: str):
        self.process = subprocess.Popen(
            ["psql", conninfo, "-qAt", "-v", "ON_ERROR_STOP=1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            text=True)
        self.process.stdin.write(f"BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE;\n")
        self.process.stdin.flush()
        held = f"SELECT count(*) FROM pg_locks WHERE relation = '{table}'::regclass AND mode = 'AccessExclusiveLock' AND granted"
        deadline = time.time() + RPC_TIMEOUT
        while psql(conninfo, held) != "1":
            assert self.process.poll() is None and time.time() < deadline, "psql did not take the lock"
            time.sleep(0.02)

    def release(self) -> None:
        self.process.stdin.write("COMMIT;\n")
        self.process.stdin.close()
        assert self.process.wait(timeout=RPC_TIMEOUT) == 0


def test_cache_misses_wait_off_the_event_loop_one_read_per_customer_and_bounded(cluster, protos):
    # One event loop: every connection shares the thread a read on it would stall. Reads wait on the lock for as
    # long as it is held (no lock timeout), two at once, one more customer waiting.
    cluster.settings = {
        "server": {"event_loop_threads": 1},
        "storage": {"postgres_lock_timeout_seconds": 0, "max_snapshot_reads": 2, "max_waiting_snapshot_reads": 1},
    }
    users = [unique_id() for _ in range(5)]
    # Created through another instance, before `a` starts: none of them is in a's cache.
    seed = cluster("seed")
    for user in users:
        seed.admin.identify(user)
    a = cluster("a")
    cached = users[0]
    assert a.public.sync(cached).app_user_id == cached
    before = wait_for(a.server, total=1, in_flight=0, waiting=0)
    response_class = protos.message("entitlements.v1.SyncStatusResponse")
    metadata = [("authorization", f"Bearer {cluster.tenant.public_key}")]

    def call(user: str, channel=a.channel):
        """SyncStatus for `user`, not waited for."""
        sync = channel.unary_unary(
            f"/{ENTITLEMENT_SERVICE}/SyncStatus", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString)
        request = protos.message("entitlements.v1.SyncStatusRequest")(app_user_id=user)
        return sync.future(request, timeout=120, metadata=metadata)

    lock = TableLock(cluster.conninfo, "app_user_ids")
    try:
        # Twenty callers of one cold customer share its one read, held by the lock.
        shared = [call(users[1]) for _ in range(20)]
        wait_for(a.server, coalesced=before["coalesced"] + 19, in_flight=1)
        # A second customer takes the second read, a third waits for one.
        second = call(users[2])
        wait_for(a.server, in_flight=2)
        third = call(users[3])
        wait_for(a.server, waiting=1)
        # A fourth is refused at once, while every read is still held.
        try:
            call(users[4]).result(timeout=RPC_TIMEOUT)
            raise AssertionError("a customer beyond the waiting limit was answered")
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, (error.code(), error.details())
            assert "retry shortly" in error.details(), error.details()
        # The loop answers the cached customer meanwhile, on this connection and on a new one.
        assert a.public.sync(cached).app_user_id == cached
        other = a.server.channel()
        try:
            assert call(cached, other).result(timeout=RPC_TIMEOUT).customer.app_user_id == cached
        finally:
            other.close()
        held = [future for future in shared + [second, third] if future.done()]
        assert not held, "a call for a customer being read ended while the database held the read"
    finally:
        lock.release()
    assert {future.result(timeout=RPC_TIMEOUT).customer.app_user_id for future in shared} == {users[1]}
    assert second.result(timeout=RPC_TIMEOUT).customer.app_user_id == users[2]
    assert third.result(timeout=RPC_TIMEOUT).customer.app_user_id == users[3]
    after = wait_for(a.server, in_flight=0, waiting=0)
    assert after["total"] - before["total"] == 3, after
    assert after["refused"] - before["refused"] == 1, after
    # Now cached: no further read.
    assert a.public.sync(users[1]).app_user_id == users[1]
    assert snapshot_reads(a.server)["total"] == after["total"]
