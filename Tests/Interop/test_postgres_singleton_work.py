"""Background work that one instance of those sharing PostgreSQL does (Play acknowledgements, the Play voided-purchases
poll, the App Store reconciliation), against the local fakes of Google (fake_google.py) and Apple (fake_app_store_api.py):
one instance does each round; when its holder is frozen (SIGSTOP, as a paused VM) or killed, another takes it over
within the bound README documents (ten seconds of silence, then the next five-second ask; at once plus that ask for a
killed holder), and nothing is sent twice, also after the frozen holder resumes. Needs ENTITLEMENTD_TEST_POSTGRES."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest

from appstore_support import BUNDLE_ID, PRODUCTS as APP_STORE_PRODUCTS, app_store_settings
from entitlement_support import new_tenant, sigkill, unique_id
from fake_app_store_api import FakeAppStoreAPI
from fake_google import FakeGoogle, new_purchase_token
from play_support import (
    ACKNOWLEDGED, APP, PRODUCTS as PLAY_PRODUCTS, SERVER_SETTINGS, SUB, PlayApi, ack_path, api_path, play_settings,
    stored, wait_until,
)
from test_postgres_instances import BASE, ca, cluster  # noqa: F401 (fixtures)
from test_purchase_by_transaction_id import ISSUER_ID, KEY_ID, keys  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(not BASE, reason="ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL")

ACKNOWLEDGEMENTS, VOIDED_POLL, RECONCILIATION = "play_acknowledgements", "play_voided_purchases", "app_store_reconcile"
WORKS = (ACKNOWLEDGEMENTS, VOIDED_POLL, RECONCILIATION)
# README ("Several instances on PostgreSQL"): a silent holder's session ends after 10 s, and the others ask every 5 s.
FROZEN_TAKEOVER, KILLED_TAKEOVER = 15.0, 5.0
# What a shared 2-core machine may add to either.
SLACK = 10.0
VOIDED_LIST = "voidedpurchases$"
HISTORY = "/inApps/v1/notifications/history"


@pytest.fixture(scope="module")
def google():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def apple(keys):  # noqa: F811
    fake = FakeAppStoreAPI(keys[0], KEY_ID, ISSUER_ID, BUNDLE_ID)
    yield fake
    fake.close()


@pytest.fixture
def stores(cluster, google, apple, ca, keys, tmp_path):  # noqa: F811
    """`cluster` with a tenant taking Google Play (its poll hourly) and App Store purchases (its reconciliation every
    six hours), both at the fakes: each periodic work runs when an instance starts doing it, and not again here."""
    tenant = new_tenant("shared", entitlements=["pro", "premium"], products={**APP_STORE_PRODUCTS, **PLAY_PRODUCTS})
    tenant.play_store = play_settings(google, google.write_service_account(tmp_path / "sa.json"), tenant.id,
                                      poll_minutes=60)
    store = app_store_settings(ca.root, "transfer")
    store["server_api"] = {"key_file": str(keys[0]), "key_id": KEY_ID, "issuer_id": ISSUER_ID,
                           "production_url": apple.url, "sandbox_url": apple.url, "reconcile_minutes": 360}
    tenant.app_store = store
    cluster.tenant = tenant
    cluster.settings = SERVER_SETTINGS
    stopped: list = []
    yield cluster, stopped
    google.clear_faults()
    for process in stopped:  # a frozen instance must be able to die
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)


def taken(instance, work: str) -> int:
    """How often the instance's log says it took `work` on."""
    return len(re.findall(rf"background work taken on .*work={work}\b", instance.server.log()))


def released(instance, work: str) -> int:
    return len(re.findall(rf"background work no longer held .*work={work}\b", instance.server.log()))


def wait_taken_over(instances, work: str, before: dict, within: float) -> tuple[object, float]:
    """The one instance that took `work` on since `before` (counts per instance), and how long that took."""
    started = time.monotonic()
    holder = wait_until(
        lambda: [node for node in instances if taken(node, work) > before[node]], f"{work} taken over", within)
    assert len(holder) == 1, f"{work} taken on by {len(holder)} instances"
    return holder[0], time.monotonic() - started


def holders(instances, work: str) -> list:
    return [node for node in instances if taken(node, work) > released(node, work)]


def play(instance, tenant) -> tuple[PlayApi, PlayApi]:
    return (PlayApi(instance.channel, instance.public.protos, tenant.public_key, streams=[]),
            PlayApi(instance.channel, instance.public.protos, tenant.secret_key, streams=[]))


def bought(google, instance, tenant) -> tuple[str, str]:
    """A subscription bought through `instance`: Google waits for its acknowledgement."""
    user, token = unique_id(), new_purchase_token()
    google.put_subscription(APP, token, product_id=SUB)
    public, _ = play(instance, tenant)
    public.play_purchase(user, SUB, token)
    return user, token


def posted(google, token: str) -> int:
    return len(google.requests("POST", ack_path(token)))


def test_acknowledgements_are_sent_once_each_by_one_instance_and_pass_on_from_a_frozen_or_killed_holder(
        stores, google, monkeypatch):
    cluster, stopped = stores
    first = cluster("a")
    wait_until(lambda: all(taken(first, work) for work in WORKS), "every work taken on by the only instance")
    b, c = cluster("b"), cluster("c")
    instances = [first, b, c]
    tenant = cluster.tenant
    # Bought through each instance: the holder sends every acknowledgement (the others never do), once.
    steady = [bought(google, node, tenant) for node in instances]
    for user, token in steady:
        wait_until(lambda: stored(play(b, tenant)[1], user, token).acknowledgement == ACKNOWLEDGED, "acknowledged")
        assert posted(google, token) == 1
    assert holders(instances, ACKNOWLEDGEMENTS) == [first]
    assert [taken(node, ACKNOWLEDGEMENTS) for node in (b, c)] == [0, 0]
    # Info lines reach the log within LogOutput's interval (50 ms), after the outcome is recorded: waited for.
    wait_until(lambda: len(re.findall("play purchase acknowledged", first.server.log())) >= 3, "three logged")
    assert len(re.findall("play purchase acknowledged", first.server.log())) == 3
    assert "play purchase acknowledged" not in b.server.log() + c.server.log()

    # Three purchases restored through the holder come to it as one batch. Google answers the first acknowledgement
    # late, and the holder is frozen while it waits: the rest of its batch unsent, that one acknowledged at Google
    # but not recorded.
    user = unique_id()
    tokens = [new_purchase_token() for _ in range(3)]
    for token in tokens:
        google.put_subscription(APP, token, product_id=SUB)
    in_flight: list[str] = []
    arrived = threading.Event()
    dispatch = google._dispatch

    def watch(request):
        if request.method == "POST" and request.path.endswith(":acknowledge") and not arrived.is_set():
            in_flight.append(next(token for token in tokens if token in request.path))
            arrived.set()
        return dispatch(request)

    monkeypatch.setattr(google, "_dispatch", watch)
    google.delay_next("POST", "|".join(ack_path(token) for token in tokens), 2.0)
    play(first, tenant)[0].play_restore(user, [(SUB, token) for token in tokens])
    assert arrived.wait(15), "the holder sent no acknowledgement"
    first.server.process.send_signal(signal.SIGSTOP)
    stopped.append(first.server.process)
    before = {node: taken(node, ACKNOWLEDGEMENTS) for node in instances}
    wait_until(lambda: google.acknowledgements_of(in_flight[0]), "Google took the one in flight")
    successor, waited = wait_taken_over([b, c], ACKNOWLEDGEMENTS, before, FROZEN_TAKEOVER + SLACK)
    print(f"acknowledgements taken over {waited:.1f} s after the holder froze")
    admin = play(successor, tenant)[1]
    for token in tokens:
        wait_until(lambda: stored(admin, user, token).acknowledgement == ACKNOWLEDGED, "acknowledged after takeover")
    # The successor asked Google about the one whose outcome the frozen holder never recorded, and sent it not again.
    assert [posted(google, token) for token in tokens] == [1, 1, 1]
    assert google.requests("GET", api_path(in_flight[0]))

    # The frozen holder resumes: it reads Google's late answer, records nothing over its successor's, sends none of
    # the rest of its batch, and finds the work gone.
    attempts = {token: stored(admin, user, token).acknowledgement_attempts for token in tokens}
    first.server.process.send_signal(signal.SIGCONT)
    wait_until(lambda: released(first, ACKNOWLEDGEMENTS), "the resumed holder sees it lost the work", 30)
    settled = bought(google, b, tenant)
    wait_until(lambda: stored(admin, *settled).acknowledgement == ACKNOWLEDGED, "acknowledged after the resume")
    assert [posted(google, token) for token in [*tokens, settled[1]]] == [1, 1, 1, 1]
    assert {token: stored(admin, user, token).acknowledgement_attempts for token in tokens} == attempts
    assert holders(instances, ACKNOWLEDGEMENTS) == [successor]

    # The successor is killed: its session ends with it, and the third takes over within one ask.
    others = [node for node in instances if node is not successor]
    before = {node: taken(node, ACKNOWLEDGEMENTS) for node in others}
    sigkill(successor.server)
    heir, waited = wait_taken_over(others, ACKNOWLEDGEMENTS, before, KILLED_TAKEOVER + SLACK)
    print(f"acknowledgements taken over {waited:.1f} s after the holder was killed")
    last = bought(google, heir, tenant)
    wait_until(lambda: stored(play(heir, tenant)[1], *last).acknowledgement == ACKNOWLEDGED, "acknowledged by the heir")
    assert posted(google, last[1]) == 1


def test_the_voided_poll_and_the_reconciliation_run_once_per_round_on_one_instance_and_pass_on(stores, google, apple):
    cluster, stopped = stores
    first = cluster("a")
    wait_until(lambda: all(taken(first, work) for work in WORKS), "every work taken on by the only instance")
    wait_until(lambda: "play voided purchases polled" in first.server.log(), "the first poll")
    wait_until(lambda: [path for method, path, _ in apple.requests if method == "POST" and path == HISTORY],
               "the first reconciliation")
    b, c = cluster("b"), cluster("c")
    instances = [first, b, c]
    polls = len(google.requests("GET", VOIDED_LIST))
    listings = len([path for method, path, _ in apple.requests if method == "POST" and path == HISTORY])
    assert polls >= 1 and listings >= 1

    def rounds() -> tuple[int, int]:
        """Voided-purchases listings at Google and notification-history listings at Apple since the first round."""
        return (len(google.requests("GET", VOIDED_LIST)) - polls,
                len([path for method, path, _ in apple.requests if method == "POST" and path == HISTORY]) - listings)

    # The others ask for the work every five seconds and never get it while its holder runs: no round of theirs.
    time.sleep(12)
    assert rounds() == (0, 0)
    for work in (VOIDED_POLL, RECONCILIATION):
        assert holders(instances, work) == [first]

    # The holder freezes: each work passes to one of the others, which runs a round at once, one listing each.
    first.server.process.send_signal(signal.SIGSTOP)
    stopped.append(first.server.process)
    before = {node: taken(node, VOIDED_POLL) for node in instances}
    successor, waited = wait_taken_over([b, c], VOIDED_POLL, before, FROZEN_TAKEOVER + SLACK)
    print(f"the voided-purchases poll taken over {waited:.1f} s after the holder froze")
    wait_until(lambda: len(holders([b, c], RECONCILIATION)) == 1, "the reconciliation taken over", SLACK)
    wait_until(lambda: rounds() == (1, 1), "one round of each after the takeover", SLACK)

    # The frozen holder resumes (and finds the acknowledgements, which it asks about every five seconds, gone). Its
    # periodic works are not due before their period, when it asks and finds them gone too: no round of its own.
    first.server.process.send_signal(signal.SIGCONT)
    wait_until(lambda: released(first, ACKNOWLEDGEMENTS), "the resumed holder running again", 30)
    time.sleep(6)
    assert rounds() == (1, 1)

    # The poll's holder is killed: another takes it over within one ask and polls once.
    others = [node for node in instances if node is not successor]
    before = {node: taken(node, VOIDED_POLL) for node in others}
    sigkill(successor.server)
    heir, waited = wait_taken_over(others, VOIDED_POLL, before, KILLED_TAKEOVER + SLACK)
    print(f"the voided-purchases poll taken over {waited:.1f} s after the holder was killed")
    wait_until(lambda: rounds()[0] == 2, "one poll after the kill", SLACK)
    time.sleep(6)
    assert rounds()[0] == 2
    assert "play voided purchases polled" in heir.server.log()
