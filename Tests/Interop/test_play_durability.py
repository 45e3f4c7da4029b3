"""Google Play work that must survive the server process: acknowledgements owed when it stops, notifications
answered 200 right before SIGKILL, and the voided-purchases poll that runs when it starts. Each test starts its own
servers on one database (start_server on the same directory) against a fake Google that outlives them.
"""

from __future__ import annotations

import pytest

from conftest import RPC_TIMEOUT, start_server
from entitlement_support import ACTIVE, INACTIVE, STATUS_CHANGED, sigkill, unique_id, write_tenants
from fake_google import (
    FakeGoogle, ProductType, SubscriptionNotificationType, new_purchase_token, subscription_notification,
)
from play_support import (
    ACKNOWLEDGED, APP, LIFETIME, SERVER_SETTINGS, STORE_API, SUB, PlayEnv, ack_path, play_tenant, stored,
    wait_acknowledged, wait_until,
)

POLL = "voidedpurchases$"


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture
def servers(tmp_path, fake, protos):
    """start(poll_minutes=0) starts a server on this test's database (the same one each time) with one Play tenant
    "a"; stop(env, "SIGTERM" | "SIGKILL") ends it."""
    key = fake.write_service_account(tmp_path / "service-account.json")
    tenants_file = tmp_path / "tenants.json"
    tenant: list = []
    started: list[PlayEnv] = []

    def start(poll_minutes: int = 0) -> PlayEnv:
        if not tenant:
            tenant.append(play_tenant(fake, key, "durable-play", poll_minutes=poll_minutes))
            write_tenants(tenants_file, tenant)
        env = PlayEnv(start_server(tmp_path / "server", tenants_file, SERVER_SETTINGS), fake, {"a": tenant[0]}, protos)
        started.append(env)
        return env

    def stop(env: PlayEnv, how: str) -> None:
        for api in env._apis:
            api.cancel_streams()
        for channel in env._channels:
            channel.close()
        if how == "SIGKILL":
            sigkill(env.server)
        else:
            assert env.server.terminate() == 0, env.server.describe()

    yield start, stop
    fake.clear_faults()
    for env in started:
        env.server.kill()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_an_acknowledgement_owed_across_a_restart_is_sent_once(servers, fake, how):
    """The purchase is stored and Google refuses its acknowledgement; the server stops; Google recovers; a server
    on the same database acknowledges it, once."""
    start, stop = servers
    env = start()
    user, token = unique_id(), new_purchase_token()
    fake.put_subscription(APP, token, product_id=SUB)
    fake.fail_next("POST", ack_path(token), 500, count=1000)
    assert env.a.play_purchase(user, SUB, token).customer.status.state == ACTIVE
    wait_until(lambda: stored(env.a_admin, user, token).acknowledgement_attempts >= 1, "a failed attempt recorded")
    assert fake.acknowledgements_of(token) == []
    stop(env, how)
    fake.clear_faults()

    env = start()
    transaction = wait_acknowledged(fake, env.a_admin, user, token)
    assert transaction.acknowledgement_attempts >= 2
    assert len(fake.acknowledgements_of(token)) == 1
    assert env.a.sync(user).status.state == ACTIVE
    # And once more after another restart: nothing is owed any longer.
    stop(env, how)
    env = start()
    other_user, other = unique_id(), new_purchase_token()
    fake.put_subscription(APP, other, product_id=SUB)
    env.a.play_purchase(other_user, SUB, other)
    wait_acknowledged(fake, env.a_admin, other_user, other)
    assert [r.status for r in fake.requests("POST", ack_path(token))].count(204) == 1
    assert len(fake.acknowledgements_of(token)) == 1
    assert stored(env.a_admin, user, token).acknowledgement == ACKNOWLEDGED


def test_a_notification_answered_200_survives_sigkill(servers, fake):
    start, stop = servers
    env = start()
    user, token = unique_id(), new_purchase_token()
    fake.put_subscription(APP, token, product_id=SUB)
    assert env.a.play_purchase(user, SUB, token).customer.status.state == ACTIVE
    wait_acknowledged(fake, env.a_admin, user, token)
    fake.put_subscription(APP, token, product_id=SUB, state="EXPIRED", acknowledged=True, cancellation="developer")
    message_id = f"msg-{unique_id()}"
    revoked = subscription_notification(APP, token, SubscriptionNotificationType.REVOKED)
    env.push_ok("a", revoked, "applied to", user, message_id=message_id)
    version = env.a.sync(user).version
    stop(env, "SIGKILL")

    env = start()
    synced = env.a.sync(user)
    assert synced.status.state == INACTIVE and synced.version == version
    newest = env.a_admin.all_events(user)[0]
    assert newest.reason == "SUBSCRIPTION_REVOKED" and newest.change == STATUS_CHANGED
    assert stored(env.a_admin, user, token).revocation_reason == "REVOKED"
    # Pub/Sub redelivering it (its ack was lost with the process): already processed.
    env.push_ok("a", revoked, "already processed", message_id=message_id)
    assert env.a.sync(user).version == version


def test_an_unowned_purchase_notified_before_sigkill_is_acknowledged_after_restart(servers, fake):
    start, stop = servers
    env = start()
    token = new_purchase_token()
    fake.put_subscription(APP, token, product_id=SUB)
    fake.fail_next("POST", ack_path(token), 500, count=1000)
    env.push_ok("a", subscription_notification(APP, token, SubscriptionNotificationType.PURCHASED), "recorded")
    stop(env, "SIGKILL")
    fake.clear_faults()

    env = start()
    wait_until(lambda: fake.acknowledgements_of(token), "the acknowledgement owed before the kill")
    user = unique_id()
    assert env.a.play_purchase(user, SUB, token).customer.status.state == ACTIVE
    assert stored(env.a_admin, user, token).acknowledgement == ACKNOWLEDGED
    assert len(fake.acknowledgements_of(token)) == 1


def test_the_voided_purchases_poll_at_startup_revokes_what_no_notification_reported_once(servers, fake):
    """Purchases voided at Google while the server was down, with no notification: the poll a server makes as it
    starts revokes them. Another restart polls again over the same window and changes nothing."""
    start, stop = servers
    env = start(poll_minutes=60)
    env.fake.wait_for_requests("GET", POLL)  # the first server's own startup poll (nothing voided yet)
    owners = {}
    for product in (SUB, LIFETIME):
        user, token = unique_id(), new_purchase_token()
        if product == SUB:
            fake.put_subscription(APP, token, product_id=SUB)
        else:
            fake.put_product(APP, token, product_id=LIFETIME)
        assert env.a.play_purchase(user, product, token).customer.status.state == ACTIVE
        wait_acknowledged(fake, env.a_admin, user, token)
        owners[token] = (user, env.a.sync(user).version)
    barrier_user, barrier = unique_id(), new_purchase_token()
    fake.put_subscription(APP, barrier, product_id=SUB)
    env.a.play_purchase(barrier_user, SUB, barrier)
    wait_acknowledged(fake, env.a_admin, barrier_user, barrier)
    barrier_version = env.a.sync(barrier_user).version
    stop(env, "SIGTERM")
    # Voided half a minute ago: each poll ends a few seconds before now (Google refuses an end in its future).
    for token in owners:
        fake.void(token, reason=1, voided_time="-30s")
    fake.void(new_purchase_token(), package=APP, product_type=ProductType.SUBSCRIPTION, voided_time="-30s")

    polls = len(fake.requests("GET", POLL))
    env = start(poll_minutes=60)
    [poll] = fake.wait_for_requests("GET", POLL, count=polls + 1)[polls:]
    assert poll.status == 200, poll
    assert poll.param("type") == "1"
    for token, (user, version) in owners.items():
        # Replayed if the poll came first, live otherwise.
        event = env.a.stream(user, after_version=version).next(timeout=RPC_TIMEOUT)
        assert event.kind == STATUS_CHANGED and event.customer.status.state == INACTIVE, event
        transaction = stored(env.a_admin, user, token)
        assert transaction.HasField("revoked_at") and transaction.revocation_reason, transaction
        newest = env.a_admin.all_events(user)[0]
        assert newest.cause == STORE_API and "voided-purchases poll" in newest.reason, newest
    after = {token: (user, env.a.sync(user).version, len(env.a_admin.all_events(user)))
             for token, (user, _) in owners.items()}
    stop(env, "SIGTERM")
    # Voided after the last poll: the next poll reaches it after the earlier ones (Google lists in voided order).
    fake.void(barrier, voided_time="-20s")

    env = start(poll_minutes=60)
    event = env.a.stream(barrier_user, after_version=barrier_version).next(timeout=RPC_TIMEOUT)
    assert event.customer.status.state == INACTIVE
    for token, (user, version, events) in after.items():
        assert env.a.sync(user).version == version, "a second poll revoked the same purchase again"
        assert len(env.a_admin.all_events(user)) == events
