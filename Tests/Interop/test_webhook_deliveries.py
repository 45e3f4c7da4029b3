"""Webhooks from the outbox, through the real server: every customer event an endpoint wants reaches a local
receiver that checks each delivery with Python's `standardwebhooks` package, with the body the issue names; retries
keep the `webhook-id`; a delivery failing the whole (compressed) schedule is dead-lettered with a `webhook.exhausted`
notice and comes back with `RedeliverWebhooks`; 410 disables the endpoint; `Retry-After` is honoured; each
customer's events arrive in version order across retries; a change that rolled back sends nothing; and the
delivery log (`ListWebhookDeliveries`) shows only the caller's tenant."""

from __future__ import annotations

import json
import time

import grpc
import pytest
from standardwebhooks import Webhook

from appstore_support import LIFETIME, MONTHLY, PRODUCTS, SigningCA, StoreEnv, app_store_settings
from entctl_support import entctl
from entitlement_support import anon_id, new_tenant, unique_id, write_tenants
from test_notifications import body_of, new_original_id, transaction
from webhook_posting import POSTERS
from webhook_receiver import Receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
ROLLED = "whsec_" + "C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
# Five attempts 100 ms apart (with the default 10 % jitter): the whole schedule in half a second.
SCHEDULE = "100ms,100ms,100ms,100ms"
ATTEMPTS = 5
PENDING, DELIVERED, FAILED, NOTICE = 1, 2, 3, 4

RECEIVERS = ["main", "refunds", "flaky", "dead", "gone", "throttle", "order", "strict", "other"]


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("webhook-ca") / "ca")


@pytest.fixture(scope="module")
def receivers():
    made = {name: Receiver(secrets=[SECRET, ROLLED]) for name in RECEIVERS}
    yield made
    for receiver in made.values():
        receiver.close()


@pytest.fixture(scope="module")
def tenants(ca, receivers):
    def endpoint(name: str, **more) -> dict:
        return {"id": name, "url": receivers[name].url, "secrets": [SECRET], **more}

    def tenant(name: str, *endpoints: dict, policy: str = "transfer"):
        return new_tenant(f"wd-{name}", products=dict(PRODUCTS), app_store=app_store_settings(ca.root, policy),
                          webhooks=list(endpoints))

    return {
        # Signed with both secrets: a receiver holding either accepts (rotation).
        "main": tenant("main", endpoint("main", secrets=[SECRET, ROLLED]), endpoint("refunds", events=["refund"])),
        "flaky": tenant("flaky", endpoint("flaky")),
        "dead": tenant("dead", endpoint("dead")),
        "gone": tenant("gone", endpoint("gone")),
        "throttle": tenant("throttle", endpoint("throttle")),
        "order": tenant("order", endpoint("order")),
        "strict": tenant("strict", endpoint("strict"), policy="keep_with_original"),
        "other": tenant("other", endpoint("other")),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("webhook-deliveries") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path, {"webhooks": {"retry_delays": SCHEDULE}})


@pytest.fixture
def env(server, tenants, protos):
    environment = StoreEnv(server, tenants, protos)
    yield environment
    environment.close()


def notify(env, tenant: str, token: str) -> None:
    status, text = POSTERS["http1"](
        env.server, f"/v1/apple/notifications/{env.tenants[tenant].id}", body_of(token),
        {"content-type": "application/json"})
    assert status == 200, text


def about(receiver: Receiver, user: str) -> list[dict]:
    """The delivered bodies about `user`, in arrival order."""
    return [body for body in receiver.bodies() if body["data"]["app_user_id"] == user]


def wait_about(receiver: Receiver, user: str, count: int, timeout: float = 20.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bodies = about(receiver, user)
        if len(bodies) >= count:
            return bodies
        time.sleep(0.02)
    pytest.fail(f"{len(about(receiver, user))} deliveries about {user} arrived, expected {count}")


def deliveries(admin, **fields) -> list:
    return list(admin.call("ListWebhookDeliveries", page_size=500, **fields).deliveries)


def wait_state(admin, predicate, timeout: float = 20.0, **fields) -> list:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = deliveries(admin, **fields)
        if predicate(listed):
            return listed
        time.sleep(0.05)
    pytest.fail(f"the delivery log never matched: {deliveries(admin, **fields)}")


# --------------------------------------------------------------------------------------------------
# What arrives


def test_a_grant_arrives_signed_with_every_secret_and_with_the_whole_event(env, receivers):
    user = unique_id()
    grant = env.main_admin.grant(user, "pro", reason="support make-good")
    created, granted = wait_about(receivers["main"], user, 2)
    assert created["type"] == "customer.customer_info_changed" and created["data"]["cause"] == "created"
    assert granted["type"] == "customer.grant"
    data = granted["data"]
    assert data["kind"] == "status_changed" and data["event_kinds"] == ["status_changed", "grant"]
    assert data["tenant"] == "wd-main" and data["app_user_id"] == user and data["aliases"] == []
    assert data["version"] == 2 and created["data"]["version"] == 1
    assert data["reason"] == "support make-good" and data["cause"] == "grant"
    assert data["status"]["state"] == "active"
    assert [e["id"] for e in data["status"]["entitlements"]] == ["pro"]
    assert data["status"]["entitlements"][0]["source"] == "grant"
    assert data["grant"]["grant_id"] == grant.grant_id and data["grant"]["entitlement_id"] == "pro"
    assert data["event_id"].startswith("evt_") and data["event_id"] != created["data"]["event_id"]
    assert granted["timestamp"].endswith("Z") and data["occurred_at"] == granted["timestamp"]
    delivery = next(d for d in receivers["main"].deliveries if d.json["data"]["event_id"] == data["event_id"])
    # One v1 entry per secret; the reference library accepts either.
    assert delivery.verified_with == [0, 1]
    assert len(delivery.headers["webhook-signature"].split(" ")) == 2
    assert Webhook(ROLLED).verify(delivery.body, delivery.headers)["data"]["event_id"] == data["event_id"]
    assert delivery.headers["content-type"] == "application/json"
    listed = wait_state(env.main_admin, lambda rows: len(rows) == 2 and all(r.state == DELIVERED for r in rows),
                        app_user_id=user, endpoint_id="main")
    newest = listed[0]
    assert newest.webhook_id == delivery.headers["webhook-id"] and newest.type == "customer.grant"
    assert newest.version == 2 and newest.attempts == 1 and newest.last_status_code == 200
    assert newest.app_user_id == user and newest.body.encode() == delivery.body
    # The refunds endpoint wants refunds only: a grant is not one.
    assert about(receivers["refunds"], user) == []


def test_purchase_renewal_and_refund_arrive_with_the_store_data(env, ca, receivers):
    user, original = unique_id(), new_original_id()
    bought = transaction(ca, original, "--purchase-date", "-29d", "--expires", "+1d", "--signed-date", "-2h")
    env.main.purchase(user, bought)
    purchase = wait_about(receivers["main"], user, 2)[1]
    assert purchase["type"] == "customer.purchase" and purchase["data"]["cause"] == "purchase"
    store = purchase["data"]["purchase"]
    assert store["store"] == "app_store" and store["product_id"] == MONTHLY
    assert store["original_transaction_id"] == original and store["environment"] == "sandbox"
    assert store["entitlement_ids"] == ["pro"] and store["revoked_at"] is None
    assert store["expires_at"] is not None and store["purchased_at"] is not None
    # Apple's price is in milli-units: the signer's 4990 is $4.99.
    assert store["price"] == {"amount_milliunits": 4990, "currency": "USD"}
    assert store["offer_kind"] == "none" and store["country"] == "US"
    # The money it moved: the revenue ledger's row, with the estimated proceeds (Apple's default 30% kept).
    [paid] = purchase["data"]["revenue"]
    assert paid["kind"] == "purchase" and paid["direction"] == "payment" and paid["transaction_id"] == original
    assert (paid["amount_milliunits"], paid["currency"], paid["proceeds_milliunits"]) == (4990, "USD", 3493)
    assert paid["tax_milliunits"] is None and paid["store"] == "app_store" and paid["environment"] == "sandbox"
    assert paid["offer_kind"] == "none" and paid["country"] == "US" and paid["period_end"] == store["expires_at"]
    renewed = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1m",
                          "--expires", "+30d")
    notify(env, "main", ca.signed("sign-notification", "DID_RENEW", "--transaction", renewed))
    renewal = wait_about(receivers["main"], user, 3)[2]
    assert renewal["type"] == "customer.renewal" and renewal["data"]["cause"] == "app_store_notification"
    assert renewal["data"]["kind"] == "customer_info_changed"
    assert renewal["data"]["purchase"]["transaction_id"] == original + "1"
    assert [(row["kind"], row["transaction_id"]) for row in renewal["data"]["revenue"]] == [
        ("renewal", original + "1")]
    refunded = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1m",
                           "--expires", "+30d", "--revocation-date", "-1s")
    notify(env, "main", ca.signed("sign-notification", "REFUND", "--transaction", refunded))
    refund = wait_about(receivers["main"], user, 4)[3]
    assert refund["type"] == "customer.refund" and refund["data"]["kind"] == "status_changed"
    assert refund["data"]["status"] == {"state": "inactive", "entitlements": []}
    assert refund["data"]["purchase"]["revoked_at"] is not None
    # Only the money this event moved: the refund, not the renewal again.
    assert [(row["kind"], row["direction"], row["amount_milliunits"], row["proceeds_milliunits"])
            for row in refund["data"]["revenue"]] == [("refund", "refund", -4990, -3493)]
    # The refunds-only endpoint got that one event, and nothing else about the user.
    only = wait_about(receivers["refunds"], user, 1)
    time.sleep(0.3)
    assert [body["type"] for body in about(receivers["refunds"], user)] == ["customer.refund"]
    assert only[0]["data"]["event_id"] == refund["data"]["event_id"]
    versions = [body["data"]["version"] for body in about(receivers["main"], user)]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)


def test_a_transfer_names_both_customers_in_both_events(env, ca, receivers):
    first, second, original = unique_id(), unique_id(), new_original_id()
    token = transaction(ca, original, "--signed-date", "-1h", product=LIFETIME)
    env.main.purchase(first, token)
    wait_about(receivers["main"], first, 2)
    env.main.purchase(second, token)
    moved_out = wait_about(receivers["main"], first, 3)[2]
    moved_in = wait_about(receivers["main"], second, 2)[1]
    for body in (moved_out, moved_in):
        assert body["type"] == "customer.transfer", body
        assert body["data"]["transfer"] == {"from_app_user_id": first, "to_app_user_id": second}
        assert body["data"]["purchase"]["original_transaction_id"] == original
    assert moved_out["data"]["status"]["state"] == "inactive"
    assert [e["id"] for e in moved_in["data"]["status"]["entitlements"]] == ["premium"]


def test_a_merge_names_the_anonymous_customer_and_the_survivor(env, receivers):
    anonymous, user = anon_id(), unique_id()
    env.main_admin.grant(anonymous, "pro")
    wait_about(receivers["main"], anonymous, 2)
    # A new identified ID adopts the anonymous customer: one event, under the new canonical ID.
    env.main.identify(user, anonymous_id=anonymous)
    adopted = wait_about(receivers["main"], user, 1)[0]
    assert adopted["type"] == "customer.merge" and adopted["data"]["version"] == 3, adopted
    assert adopted["data"]["merge"] == {"from_app_user_id": anonymous, "into_app_user_id": user}
    assert adopted["data"]["aliases"] == [anonymous]
    # Another anonymous customer merged into the now existing one: the emptied one and the survivor both say so.
    second = anon_id()
    env.main_admin.grant(second, "premium")
    wait_about(receivers["main"], second, 2)
    env.main.identify(user, anonymous_id=second)
    emptied = wait_about(receivers["main"], second, 3)[2]
    survivor = wait_about(receivers["main"], user, 2)[1]
    expected = {"from_app_user_id": second, "into_app_user_id": user}
    assert emptied["type"] == survivor["type"] == "customer.merge", (emptied, survivor)
    assert emptied["data"]["merge"] == expected and survivor["data"]["merge"] == expected
    assert emptied["data"]["status"]["state"] == "inactive"
    assert set(survivor["data"]["aliases"]) == {anonymous, second}
    assert [e["id"] for e in survivor["data"]["status"]["entitlements"]] == ["premium", "pro"]


def test_a_change_that_rolled_back_sends_nothing(env, ca, receivers):
    owner, other, original = unique_id(), unique_id(), new_original_id()
    token = transaction(ca, original, "--signed-date", "-1h")
    env.strict.purchase(owner, token)
    wait_about(receivers["strict"], owner, 2)
    # The policy keeps purchases with their first owner: the call fails, and the customer it would have created
    # (with its event) was rolled back with it.
    error = env.strict.purchase_error(other, token)
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS, error
    env.strict_admin.grant(owner, "premium")
    wait_about(receivers["strict"], owner, 3)
    assert about(receivers["strict"], other) == []
    assert deliveries(env.strict_admin, app_user_id=other) == []


# --------------------------------------------------------------------------------------------------
# Retries, dead letters, 410, Retry-After, order


def test_a_receiver_failing_three_times_gets_the_event_again_with_the_same_webhook_id(env, receivers):
    receiver = receivers["flaky"]
    receiver.statuses.extend([500, 502, 404])
    user = unique_id()
    env.flaky_admin.grant(user)
    wait_about(receiver, user, 2)
    first = [d for d in receiver.deliveries if d.json["data"]["app_user_id"] == user and d.json["data"]["version"] == 1]
    assert [d.answered for d in first] == [500, 502, 404, 200]
    assert len({d.headers["webhook-id"] for d in first}) == 1
    assert all(d.verified_with == [0] for d in first)
    listed = wait_state(env.flaky_admin, lambda rows: len(rows) == 2 and all(r.state == DELIVERED for r in rows),
                        app_user_id=user)
    assert sorted(row.attempts for row in listed) == [1, 4]


def test_a_receiver_down_for_the_whole_schedule_ends_in_the_dead_letter_and_comes_back_on_redelivery(env, receivers):
    receiver = receivers["dead"]
    receiver.default_status = 500
    user = unique_id()
    env.dead_admin.grant(user)
    listed = wait_state(
        env.dead_admin, lambda rows: sum(r.state == FAILED for r in rows) == 2 and sum(r.state == NOTICE for r in rows) == 2,
        app_user_id=user)
    failed = [row for row in listed if row.state == FAILED]
    notices = [row for row in listed if row.state == NOTICE]
    assert all(row.attempts == ATTEMPTS and row.last_status_code == 500 for row in failed), failed
    assert {row.type for row in notices} == {"webhook.exhausted"}
    assert {row.webhook_id for row in failed} != {row.webhook_id for row in notices}
    assert {json.loads(row.body)["data"]["webhook_id"] for row in notices} == {row.webhook_id for row in failed}
    assert len([d for d in receiver.deliveries if d.json["data"]["app_user_id"] == user]) == 2 * ATTEMPTS
    assert deliveries(env.dead_admin, app_user_id=user, state=FAILED) == failed
    # Back up: one redelivered by ID, then the rest by range; each keeps its webhook-id.
    receiver.default_status = 200
    one = failed[0]
    assert env.dead_admin.call("RedeliverWebhooks", delivery_id=one.delivery_id).requeued == 1
    wait_about(receiver, user, 1)
    assert env.dead_admin.call("RedeliverWebhooks", endpoint_id="dead").requeued == 1
    bodies = wait_about(receiver, user, 2)
    assert sorted(b["data"]["version"] for b in bodies) == [1, 2]
    ok = [d for d in receiver.deliveries if d.json["data"]["app_user_id"] == user and d.answered == 200]
    assert {d.headers["webhook-id"] for d in ok} == {row.webhook_id for row in failed}
    wait_state(env.dead_admin, lambda rows: sum(r.state == DELIVERED for r in rows) == 2, app_user_id=user)
    # Nothing failed is left to redeliver; a notice cannot be redelivered.
    assert env.dead_admin.call("RedeliverWebhooks", endpoint_id="dead").requeued == 0
    error = env.dead_admin.error("RedeliverWebhooks", delivery_id=notices[0].delivery_id)
    assert error.code() == grpc.StatusCode.NOT_FOUND, error


def test_410_disables_the_endpoint_until_a_redelivery(env, receivers):
    receiver = receivers["gone"]
    receiver.statuses.append(410)
    user = unique_id()
    env.gone_admin.grant(user)
    listed = wait_state(env.gone_admin, lambda rows: any(r.type == "webhook.disabled" for r in rows), app_user_id=user)
    assert sum(r.state == FAILED for r in listed) == 2, listed
    # Disabled: a new event is recorded but not sent.
    sent = len(receiver.deliveries)
    env.gone_admin.grant(user, "premium")
    wait_state(env.gone_admin, lambda rows: sum(r.state == FAILED for r in rows) == 3, app_user_id=user)
    time.sleep(0.5)
    assert len(receiver.deliveries) == sent == 1
    assert env.gone_admin.call("RedeliverWebhooks", endpoint_id="gone").requeued == 3
    bodies = wait_about(receiver, user, 3)
    assert [b["data"]["version"] for b in bodies] == [1, 2, 3]
    # Enabled again: new events flow.
    env.gone_admin.grant(user, "pro", reason="again")
    assert wait_about(receiver, user, 4)[3]["data"]["version"] == 4


def test_retry_after_is_honoured(env, receivers):
    receiver = receivers["throttle"]
    receiver.retry_after = "2"
    receiver.statuses.extend([503, 429])
    user = unique_id()
    env.throttle_admin.grant(user)
    wait_about(receiver, user, 2, timeout=30)
    first = [d for d in receiver.deliveries if d.json["data"]["version"] == 1 and d.json["data"]["app_user_id"] == user]
    assert [d.answered for d in first] == [503, 429, 200]
    # The schedule says 100 ms; the endpoint said 2 s, twice.
    assert first[1].at - first[0].at >= 1.9 and first[2].at - first[1].at >= 1.9


def test_each_customers_events_arrive_in_version_order_across_retries(env, receivers):
    receiver = receivers["order"]
    receiver.statuses.extend([500, 500, 500])
    users = [unique_id() for _ in range(3)]
    grants = []
    for round_ in range(3):
        for user in users:
            grants.append(env.order_admin.grant(user, "pro" if round_ % 2 == 0 else "premium"))
    for grant in grants[:3]:
        env.order_admin.revoke(grant.grant_id)
    for user in users:
        bodies = wait_about(receiver, user, 5)
        assert [b["data"]["version"] for b in bodies] == [1, 2, 3, 4, 5], bodies
    # Every attempt, failed or not, came in order per customer: nothing later overtook an earlier event.
    for user in users:
        attempted = [d.json["data"]["version"] for d in receiver.deliveries if d.json["data"]["app_user_id"] == user]
        assert attempted == sorted(attempted), attempted


# --------------------------------------------------------------------------------------------------
# The delivery log


def test_the_log_pages_newest_first_and_filters(env, receivers):
    user = unique_id()
    for entitlement in ("pro", "premium", "pro"):
        env.other_admin.grant(user, entitlement)
    wait_about(receivers["other"], user, 4)
    rows = wait_state(env.other_admin, lambda rows: len(rows) == 4 and all(r.state == DELIVERED for r in rows),
                      app_user_id=user)
    assert [row.version for row in rows] == [4, 3, 2, 1]
    ids = [row.delivery_id for row in rows]
    assert ids == sorted(ids, reverse=True)
    first = env.other_admin.call("ListWebhookDeliveries", app_user_id=user, page_size=3)
    assert [row.delivery_id for row in first.deliveries] == ids[:3] and first.next_page_token
    second = env.other_admin.call("ListWebhookDeliveries", app_user_id=user, page_size=3,
                                  page_token=first.next_page_token)
    assert [row.delivery_id for row in second.deliveries] == ids[3:] and second.next_page_token == ""
    assert deliveries(env.other_admin, app_user_id=user, state=PENDING) == []
    # A time range: made before the first one's time is nothing of this user's.
    request = env.other_admin.request("ListWebhookDeliveries", app_user_id=user)
    request.created_before.CopyFrom(rows[-1].created_at)
    assert list(env.other_admin.call("ListWebhookDeliveries", request).deliveries) == []


def test_the_log_and_redelivery_see_only_the_callers_tenant(env, receivers):
    user = unique_id()
    env.other_admin.grant(user)
    rows = wait_state(env.other_admin, lambda rows: len(rows) == 2, app_user_id=user)
    # Tenant main cannot see, list or redeliver tenant other's deliveries, even by ID.
    assert deliveries(env.main_admin, app_user_id=user) == []
    assert all(row.endpoint_id in ("main", "refunds") for row in deliveries(env.main_admin))
    error = env.main_admin.error("RedeliverWebhooks", delivery_id=rows[0].delivery_id)
    assert error.code() == grpc.StatusCode.NOT_FOUND, error
    error = env.main_admin.error("ListWebhookDeliveries", endpoint_id="other")
    assert error.code() == grpc.StatusCode.NOT_FOUND, error


@pytest.mark.parametrize("fields, needle", [
    ({"page_token": "nope"}, "page_token"),
    ({"page_token": "d-5"}, "page_token"),
    ({"state": 9}, "state"),
    ({"app_user_id": "x" * 300}, "app_user_id"),
])
def test_a_malformed_listing_is_refused(env, fields, needle):
    error = env.other_admin.error("ListWebhookDeliveries", **fields)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
    assert needle in error.details() and len(error.details()) < 500


def test_an_empty_or_backwards_range_and_a_negative_id_are_refused(env):
    request = env.other_admin.request("ListWebhookDeliveries")
    request.created_after.seconds = 2_000_000_000
    request.created_before.seconds = 1_000_000_000
    error = env.other_admin.error("ListWebhookDeliveries", request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "created_after" in error.details(), error
    error = env.other_admin.error("RedeliverWebhooks", delivery_id=-1)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
    error = env.other_admin.error("RedeliverWebhooks", delivery_id=10**15)
    assert error.code() == grpc.StatusCode.NOT_FOUND, error


def test_every_delivery_verifies_and_none_was_forged(receivers):
    for name, receiver in receivers.items():
        for delivery in receiver.deliveries:
            assert delivery.verified_with, (name, delivery.headers)


def test_entctl_lists_the_log_and_redelivers_with_the_same_webhook_id(env, receivers):
    user = unique_id()
    env.other_admin.grant(user)
    wait_state(env.other_admin, lambda rows: len(rows) == 2 and all(r.state == DELIVERED for r in rows),
               app_user_id=user)
    base = ("--addr", f"127.0.0.1:{env.server.port}", "--key", env.tenants["other"].secret_key)
    listed = entctl(*base, "--json", "webhooks", "list", "--user", user, "--state", "delivered")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["deliveries"]
    assert [row["version"] for row in rows] == ["2", "1"] and rows[0]["type"] == "customer.grant"
    human = entctl(*base, "webhooks", "list", "--user", user)
    assert human.returncode == 0 and human.stdout.count("  DELIVERED  other  ") == 2, human.stdout
    again = entctl(*base, "webhooks", "redeliver", rows[0]["deliveryId"])
    assert (again.returncode, again.stdout.strip()) == (0, "requeued 1 delivery"), again.stderr
    copies = [d for d in receivers["other"].deliveries if d.headers["webhook-id"] == rows[0]["webhookId"]]
    deadline = time.monotonic() + 10
    while len(copies) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
        copies = [d for d in receivers["other"].deliveries if d.headers["webhook-id"] == rows[0]["webhookId"]]
    assert len(copies) == 2 and copies[0].body == copies[1].body
    refused = entctl(*base, "webhooks", "list", "--state", "lost")
    assert refused.returncode == 2 and "--state" in refused.stderr
