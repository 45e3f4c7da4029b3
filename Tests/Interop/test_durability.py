"""Durability and configuration reloads through the real interop-server process.

- An acknowledged GrantEntitlement (or RevokeGrant, or Identify merge) survives SIGKILL right after the response.
- SIGHUP reloads the tenants file: a broken file keeps the old keys; a new key starts working without dropping
  open StreamStatus streams.
"""

from __future__ import annotations

import json
import signal
import time

import grpc
import pytest

from conftest import RPC_TIMEOUT, start_server
from entitlement_support import (
    ACTIVE, INACTIVE, SNAPSHOT, STATUS_CHANGED, Api, active_ids, anon_id, make_key, new_tenant, rpc_error, sigkill,
    ts_millis, unique_id, write_file_atomically, write_tenants,
)

Code = grpc.StatusCode


class Node:
    """One server process and a channel to it."""

    def __init__(self, server, protos, tenant):
        self.server = server
        self.channel = server.channel()
        grpc.channel_ready_future(self.channel).result(timeout=RPC_TIMEOUT)
        self.public = Api(self.channel, protos, tenant.public_key)
        self.admin = Api(self.channel, protos, tenant.secret_key)
        self.protos = protos

    def api(self, key) -> Api:
        return Api(self.channel, self.protos, key)

    def close(self) -> None:
        self.public.cancel_streams()
        self.channel.close()


@pytest.fixture
def setup(tmp_path, protos):
    tenant = new_tenant("durable", entitlements=["pro", "premium"], products={"com.example.pro": ["pro"]})
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [tenant])
    nodes: list[Node] = []

    def start() -> Node:
        node = Node(start_server(tmp_path / "server", tenants_file), protos, tenant)
        nodes.append(node)
        return node

    yield tenant, tenants_file, start
    for node in nodes:
        node.close()
        node.server.kill()


def test_grant_survives_sigkill_right_after_it_returns(setup):
    tenant, tenants_file, start = setup
    node = start()
    user = unique_id()
    grant = node.admin.grant(user, "pro", duration=3600, reason="durable")
    sigkill(node.server)

    node = start()
    customer = node.admin.customer(user)
    assert [g.grant_id for g in customer.grants] == [grant.grant_id]
    assert ts_millis(customer.grants[0].expires_at) == ts_millis(grant.expires_at)
    assert customer.grants[0].reason == "durable"
    status = node.public.sync(user)
    assert status.status.state == ACTIVE and active_ids(status) == ["pro"]
    assert status.version == 2
    assert [e.version for e in node.admin.all_events(user)] == [2, 1]


def test_every_acknowledged_write_survives_repeated_sigkill(setup):
    tenant, tenants_file, start = setup
    node = start()
    granted: list[tuple[str, object]] = []
    revoked: dict[str, object] = {}
    for round_ in range(5):
        user = unique_id(f"round{round_}")
        entitlement = "pro" if round_ % 2 == 0 else "premium"
        # The kill comes straight after the response, with writes of other kinds in some rounds.
        if round_ == 2:
            earlier_user, earlier = granted[0]
            revoked[earlier_user] = node.admin.revoke(earlier.grant_id, reason="killed right after")
            sigkill(node.server)
            node = start()
        grant = node.admin.grant(user, entitlement, reason=f"round {round_}")
        granted.append((user, grant))
        sigkill(node.server)
        node = start()
        for earlier_user, earlier in granted:
            customer = node.admin.customer(earlier_user)
            assert [g.grant_id for g in customer.grants] == [earlier.grant_id], (round_, earlier_user)
            status = node.public.sync(earlier_user)
            if earlier_user in revoked:
                assert status.status.state == INACTIVE, (round_, earlier_user)
                assert customer.grants[0].HasField("revoked_at")
                assert ts_millis(customer.grants[0].revoked_at) == ts_millis(revoked[earlier_user].revoked_at)
            else:
                assert active_ids(status) == [earlier.entitlement_id], (round_, earlier_user)


def test_merge_survives_sigkill(setup):
    tenant, tenants_file, start = setup
    node = start()
    anonymous, alice = anon_id(), unique_id("alice")
    node.admin.grant(anonymous, "pro")
    result = node.public.identify(alice, anonymous_id=anonymous)
    assert result.merged
    sigkill(node.server)
    node = start()
    status = node.public.sync(anonymous)
    assert status.app_user_id == alice and active_ids(status) == ["pro"]
    assert status.version == result.customer.version
    assert list(node.admin.customer(alice).aliases) == [anonymous]


def test_idempotency_survives_sigkill(setup):
    tenant, tenants_file, start = setup
    node = start()
    user, key = unique_id(), unique_id("idem")
    first = node.admin.grant(user, "pro", idempotency_key=key)
    sigkill(node.server)
    node = start()
    retry = node.admin.grant(user, "pro", idempotency_key=key)
    assert retry.grant_id == first.grant_id
    assert len(node.admin.customer(user).grants) == 1


# --------------------------------------------------------------------------------------------------
# SIGHUP


def wait_for_log(server, text: str, count: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.log().count(text) >= count:
            return
        time.sleep(0.05)
    pytest.fail(f"log did not show {text!r} {count} time(s) within {timeout}s:\n{server.log()[-3000:]}")


NOT_RELOADED = "tenants file not reloaded"
RELOADED = "reloaded tenants"


def test_sighup_with_a_broken_tenants_file_keeps_the_old_keys(setup):
    tenant, tenants_file, start = setup
    node = start()
    user = unique_id()
    node.admin.grant(user, "pro")
    new_public, new_hash = make_key("pk")
    valid = json.loads(tenants_file.read_text())
    with_new_key = json.loads(json.dumps(valid))
    with_new_key["tenants"][0]["public_keys"].append(new_hash)

    broken = {
        "malformed JSON": json.dumps(with_new_key)[:-3],
        "unknown field": json.dumps({**with_new_key, "tenantz": []}),
        "duplicate tenant": json.dumps({"tenants": with_new_key["tenants"] * 2}),
        "public key hash under secret_keys": json.dumps(
            {"tenants": [{**with_new_key["tenants"][0], "secret_keys": [new_hash]}]}),
        "empty file": "",
    }
    for attempt, (name, text) in enumerate(broken.items(), start=1):
        write_file_atomically(tenants_file, text)
        node.server.process.send_signal(signal.SIGHUP)
        wait_for_log(node.server, NOT_RELOADED, attempt)
        assert node.server.process.poll() is None, f"server exited after SIGHUP with {name}"
        assert active_ids(node.public.sync(user)) == ["pro"], name
        assert node.admin.customer(user).customer.app_user_id == user, name
        # Nothing of the broken file applies, not even the part that was fine.
        error = rpc_error(lambda: node.api(new_public).sync(user))
        assert error.code() == Code.UNAUTHENTICATED, name

    # A missing file too.
    tenants_file.unlink()
    node.server.process.send_signal(signal.SIGHUP)
    wait_for_log(node.server, NOT_RELOADED, len(broken) + 1)
    assert active_ids(node.public.sync(user)) == ["pro"]

    # The server still reloads a good file afterwards.
    write_file_atomically(tenants_file, json.dumps(with_new_key))
    node.server.process.send_signal(signal.SIGHUP)
    wait_for_log(node.server, RELOADED, 1)
    assert active_ids(node.api(new_public).sync(user)) == ["pro"]
    assert active_ids(node.public.sync(user)) == ["pro"]
    # The log never shows a key.
    log = node.server.log()
    for key in (tenant.public_key, tenant.secret_key, new_public):
        assert key not in log


def test_sighup_adds_a_key_without_dropping_open_streams(setup):
    tenant, tenants_file, start = setup
    node = start()
    user = unique_id()
    node.public.identify(user)
    stream = node.public.stream(user)
    assert stream.next().kind == SNAPSHOT

    new_public, _ = make_key("pk")
    new_secret, _ = make_key("sk")
    error = rpc_error(lambda: node.api(new_public).sync(user))
    assert error.code() == Code.UNAUTHENTICATED

    rotated = new_tenant("durable", entitlements=["pro", "premium"], products={"com.example.pro": ["pro"]})
    rotated.public_keys = [tenant.public_key, new_public]
    rotated.secret_keys = [tenant.secret_key, new_secret]
    write_tenants(tenants_file, [rotated])
    node.server.process.send_signal(signal.SIGHUP)
    wait_for_log(node.server, RELOADED, 1)

    assert node.api(new_public).sync(user).version == 1
    assert node.api(tenant.public_key).sync(user).version == 1
    # The open stream, on the same connection, is still live and gets the next change.
    node.api(new_secret).grant(user, "premium")
    event = stream.next()
    assert event.kind == STATUS_CHANGED and active_ids(event.customer) == ["premium"]
    assert stream.is_active()

    # Rotation's last step: the old public key is removed and stops working; the stream opened with it is not
    # required to close, but the server must keep running and the new key keeps working.
    rotated.public_keys = [new_public]
    write_tenants(tenants_file, [rotated])
    node.server.process.send_signal(signal.SIGHUP)
    wait_for_log(node.server, RELOADED, 2)
    error = rpc_error(lambda: node.public.sync(user))
    assert error.code() == Code.UNAUTHENTICATED
    assert active_ids(node.api(new_public).sync(user)) == ["premium"]


def test_a_burst_of_sighups_right_after_startup_reloads_and_never_kills_the_server(setup):
    """Every thread the server starts blocks the signals it handles (a thread that did not would take SIGHUP's default
    action, ending the process: seen when the outbound client's and the logger's threads started before the mask)."""
    _, _, start = setup
    for _ in range(3):
        node = start()
        for _ in range(20):
            node.server.process.send_signal(signal.SIGHUP)
        wait_for_log(node.server, RELOADED, 1)
        assert node.server.process.poll() is None, node.server.log()[-2000:]
        assert node.server.terminate() == 0
