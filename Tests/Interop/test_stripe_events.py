"""What each Stripe event does to a web purchase, through the real interop-server, for tenants without an API key
(the event's own snapshot is applied, ordered by its `created`): checkout sessions, a subscription's statuses,
invoices, and the push to a device stream.

Tenant "a" takes test-mode events, no past-due grace; "grace" gives past_due subscriptions 3 days; "live" takes live
events only. Refunds and disputes are in test_stripe_refunds.py, order and ownership in test_stripe_order.py, events
that re-fetch from Stripe's API in test_stripe_api_events.py.
"""

from __future__ import annotations

import time

import pytest

import fake_stripe as fs
from entitlement_support import (
    ACTIVE, CUSTOMER_INFO_CHANGED, INACTIVE, SNAPSHOT, STATUS_CHANGED, ts_millis, unique_id,
)
from stripe_support import (
    ANNUAL, LIFETIME, PRICE_ANNUAL, PRICE_LIFETIME, PRICE_UNMAPPED, PROD_ANNUAL, PRODUCTION, SANDBOX, STRIPE_WEBHOOK,
    WEB_SOURCE, WEB_STORE, entitlement_ids, has_customer, stripe_tenant, subscription_for, web_transaction,
)
from stripe_support import server, env  # noqa: F401 (fixtures)

DAY = fs.DAY


@pytest.fixture(scope="module")
def tenants():
    return {
        "a": stripe_tenant("ev-a"),
        "grace": stripe_tenant("ev-grace", grace_days=3),
        "live": stripe_tenant("ev-live", environments=["live"]),
    }


def period_end_ms(sub: dict) -> int:
    return sub["items"]["data"][0]["current_period_end"] * 1000


# --------------------------------------------------------------------------------------------------
# Checkout


def test_a_paid_one_time_checkout_is_a_lifetime_purchase_keyed_by_its_payment_intent(env):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  metadata={"price_id": PRICE_LIFETIME})
    env.post_ok("a", fs.event("checkout.session.completed", session), "applied to", user)
    status = env.a.sync(user).status
    assert [(e.id, e.source, e.product_id, e.HasField("expires_at")) for e in status.entitlements] == [
        ("premium", WEB_SOURCE, LIFETIME, False)]
    tx = web_transaction(env.a_admin, user, pi)
    assert (tx.store, tx.transaction_id, tx.product_id, tx.environment) == (WEB_STORE, session["id"], LIFETIME, SANDBOX)
    assert tx.owner_app_user_id == user
    events = env.a_admin.all_events(user)
    assert events[0].cause == STRIPE_WEBHOOK


def test_a_one_time_checkout_without_payment_intent_is_keyed_by_its_session(env):
    user = unique_id()
    session = fs.checkout_session(mode="payment", metadata={"app_user_id": user, "price_id": PRICE_LIFETIME},
                                  payment_status="no_payment_required")
    env.post_ok("a", fs.event("checkout.session.completed", session), "applied to", user)
    assert web_transaction(env.a_admin, user, session["id"]).product_id == LIFETIME


def test_client_reference_id_wins_over_metadata(env):
    named, other = unique_id(), unique_id()
    session = fs.checkout_session(mode="payment", client_reference_id=named, payment_intent=fs.new_id("pi"),
                                  metadata={"app_user_id": other, "price_id": PRICE_LIFETIME})
    env.post_ok("a", fs.event("checkout.session.completed", session), "applied to", named)
    assert not has_customer(env.a_admin, other)


def test_an_unpaid_checkout_grants_nothing_until_its_async_payment_succeeds(env):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  payment_status="unpaid", metadata={"price_id": PRICE_LIFETIME})
    completed = fs.event("checkout.session.completed", session, created=fs.now() - 10)
    env.post("a", completed)
    assert entitlement_ids(env.a.sync(user)) == []
    # A failed delayed payment leaves it so.
    env.post_ok("a", fs.event("checkout.session.async_payment_failed", session, created=fs.now() - 5))
    assert entitlement_ids(env.a.sync(user)) == []
    paid = dict(session, payment_status="paid")
    env.post_ok("a", fs.event("checkout.session.async_payment_succeeded", paid), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == ["premium"]


def test_a_subscription_checkout_without_api_key_only_remembers_the_buyer(env):
    user = unique_id()
    sub = subscription_for(None)
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"],
                                  customer=sub["customer"], invoice=sub["latest_invoice"])
    text = env.post_ok("a", fs.event("checkout.session.completed", session), "buyer is kept")
    assert sub["id"] in text
    assert env.a.is_unknown(user)
    # The subscription's own event names nobody; the checkout's buyer gets it.
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == ["pro"]
    tx = web_transaction(env.a_admin, user, sub["id"])
    assert tx.transaction_id == sub["latest_invoice"]


def test_an_unmapped_price_is_kept_for_redelivery(env):
    """The tenant's settings do not map the price: ours to fix, so 503 (never acknowledged and dropped), nothing
    applied, and each redelivery is answered the same until the tenants file maps it (test_notification_replies.py)."""
    user = unique_id()
    for evt in [
        fs.event("customer.subscription.created", subscription_for(user, price_id=PRICE_UNMAPPED)),
        fs.event("checkout.session.completed", fs.checkout_session(
            mode="payment", client_reference_id=user, payment_intent=fs.new_id("pi"),
            metadata={"price_id": PRICE_UNMAPPED})),
        fs.event("checkout.session.completed", fs.checkout_session(
            mode="payment", client_reference_id=user, payment_intent=fs.new_id("pi"))),
    ]:
        for _ in range(2):
            status, text = env.post("a", evt)
            assert status == 503 and "maps" in text, (status, text)
        assert not has_customer(env.a_admin, user), text


def test_a_mode_the_tenant_does_not_take_is_kept_for_redelivery(env):
    user = unique_id()
    test_mode = fs.event("customer.subscription.created", subscription_for(user))
    status, text = env.post("live", test_mode)
    assert status == 503 and "test-mode" in text, (status, text)
    assert not has_customer(env.live_admin, user)
    live = fs.event("customer.subscription.created", subscription_for(user, livemode=True))
    status, text = env.post("a", live)
    assert status == 503 and "live Stripe object" in text, (status, text)
    assert not has_customer(env.a_admin, user)
    env.post_ok("live", fs.event("customer.subscription.created", live["data"]["object"]), "applied to", user)
    assert web_transaction(env.live_admin, user, live["data"]["object"]["id"]).environment == PRODUCTION


# --------------------------------------------------------------------------------------------------
# Subscription statuses


@pytest.mark.parametrize("status", ["active", "trialing"])
def test_active_and_trialing_grant_until_the_items_period_end(env, status):
    user = unique_id()
    sub = subscription_for(user, status=status)
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    entitlement = env.a.sync(user).status.entitlements[0]
    assert (entitlement.id, entitlement.source) == ("pro", WEB_SOURCE)
    assert ts_millis(entitlement.expires_at) == period_end_ms(sub)
    tx = web_transaction(env.a_admin, user, sub["id"])
    assert (tx.will_renew, tx.in_billing_retry) == (True, False)


def test_the_legacy_top_level_period_is_read(env):
    user = unique_id()
    sub = subscription_for(user, legacy_period=True)
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    assert ts_millis(env.a.sync(user).status.entitlements[0].expires_at) == sub["current_period_end"] * 1000


def test_a_price_mapped_through_its_product_grants_the_products_entitlements(env):
    user = unique_id()
    sub = subscription_for(user, price_id=PRICE_ANNUAL, product=PROD_ANNUAL)
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == ["premium", "pro"]
    assert web_transaction(env.a_admin, user, sub["id"]).product_id == ANNUAL


def test_cancel_at_period_end_keeps_access_and_pushes_customer_info_changed(env):
    user = unique_id()
    sub = subscription_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 20), "applied to", user)
    stream = env.a.stream(user)
    assert stream.next().kind == SNAPSHOT
    canceling = dict(sub, cancel_at_period_end=True, canceled_at=fs.now())
    env.post_ok("a", fs.event("customer.subscription.updated", canceling, created=fs.now() - 10), "applied to", user)
    pushed = stream.next()
    assert pushed.kind == CUSTOMER_INFO_CHANGED, pushed
    assert entitlement_ids(pushed.customer) == ["pro"]
    assert ts_millis(pushed.customer.status.entitlements[0].expires_at) == period_end_ms(sub)
    assert web_transaction(env.a_admin, user, sub["id"]).will_renew is False


@pytest.mark.parametrize("status", ["canceled", "unpaid", "incomplete", "incomplete_expired", "paused"])
def test_statuses_that_grant_nothing(env, status):
    user = unique_id()
    sub = subscription_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 20), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == ["pro"]
    ended = dict(sub, status=status, ended_at=fs.now() if status == "canceled" else None)
    kind = "customer.subscription.deleted" if status == "canceled" else "customer.subscription.updated"
    env.post_ok("a", fs.event(kind, ended, created=fs.now() - 10), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []
    assert env.a.sync(user).status.state == INACTIVE


@pytest.mark.parametrize("status", ["canceled", "unpaid", "incomplete", "incomplete_expired", "paused"])
def test_a_new_subscription_in_a_status_that_grants_nothing_stays_without_access(env, status):
    user = unique_id()
    env.post_ok("a", fs.event("customer.subscription.created", subscription_for(user, status=status)))
    assert entitlement_ids(env.a.sync(user)) == []


def test_past_due_without_grace_gives_no_access_and_with_grace_the_grace_days(env):
    user = unique_id()
    start = fs.now() - DAY
    sub = subscription_for(user, status="past_due", period_start=start)
    env.post_ok("a", fs.event("customer.subscription.updated", sub), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []
    assert web_transaction(env.a_admin, user, sub["id"]).in_billing_retry is True

    other = unique_id()
    graced = subscription_for(other, status="past_due", period_start=start)
    env.post_ok("grace", fs.event("customer.subscription.updated", graced), "applied to", other)
    entitlement = env.grace.sync(other).status.entitlements[0]
    assert ts_millis(entitlement.expires_at) == (start + 3 * DAY) * 1000
    tx = web_transaction(env.grace_admin, other, graced["id"])
    assert (tx.in_billing_retry, tx.in_grace_period) == (True, True)


def test_past_due_grace_that_has_run_out_gives_nothing(env):
    user = unique_id()
    sub = subscription_for(user, status="past_due", period_start=fs.now() - 4 * DAY)
    env.post_ok("grace", fs.event("customer.subscription.updated", sub), "applied to", user)
    assert entitlement_ids(env.grace.sync(user)) == []


# --------------------------------------------------------------------------------------------------
# Invoices


def test_invoice_paid_extends_a_held_subscription_to_the_line_period_end(env):
    user = unique_id()
    sub = subscription_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    end = sub["items"]["data"][0]["current_period_end"]
    renewal = fs.invoice(subscription_id=sub["id"], period_start=end, period_end=end + 30 * DAY,
                         payment_intent=fs.new_id("pi"))
    env.post_ok("a", fs.event("invoice.paid", renewal, created=fs.now() - 20), "applied to", user)
    assert ts_millis(env.a.sync(user).status.entitlements[0].expires_at) == (end + 30 * DAY) * 1000
    assert web_transaction(env.a_admin, user, sub["id"]).transaction_id == renewal["id"]


def test_an_invoice_in_the_shape_of_older_api_versions_is_read(env):
    user, pi = unique_id(), fs.new_id("pi")
    sub = subscription_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    end = sub["items"]["data"][0]["current_period_end"]
    renewal = fs.invoice(subscription_id=sub["id"], period_start=end, period_end=end + 30 * DAY)
    # Before 2025-03-31 the subscription and the payment intent sat on the invoice itself.
    del renewal["parent"], renewal["payments"]
    renewal.update(subscription=sub["id"], payment_intent=pi)
    env.post_ok("a", fs.event("invoice.paid", renewal, created=fs.now() - 20), "applied to", user)
    assert ts_millis(env.a.sync(user).status.entitlements[0].expires_at) == (end + 30 * DAY) * 1000
    env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=pi)), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []


def test_invoice_paid_for_a_subscription_not_held_is_acknowledged(env):
    text = env.post_ok("a", fs.event("invoice.paid", fs.invoice(subscription_id=fs.new_id("sub"))))
    assert "not held" in text


def test_invoice_payment_failed_sets_billing_retry(env):
    user = unique_id()
    sub = subscription_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    failed = fs.invoice(subscription_id=sub["id"], status="open", attempt_count=1)
    env.post_ok("a", fs.event("invoice.payment_failed", failed, created=fs.now() - 20), "applied to", user)
    assert web_transaction(env.a_admin, user, sub["id"]).in_billing_retry is True


# --------------------------------------------------------------------------------------------------
# Push


def test_a_stream_sees_status_changed_when_the_webhook_unlocks(env):
    user = unique_id()
    env.a.identify(user)
    stream = env.a.stream(user)
    assert stream.next().kind == SNAPSHOT
    answered = []
    for _ in range(5):
        evt = fs.event("customer.subscription.created", subscription_for(user, sub_id=fs.new_id("sub")))
        start = time.time()
        env.post_ok("a", evt, "applied to", user)
        acknowledged = time.time()
        arrived, pushed = stream.next_timed()
        answered.append((acknowledged - start, arrived - acknowledged))
        assert pushed.kind in (STATUS_CHANGED, CUSTOMER_INFO_CHANGED)
        if len(answered) == 1:
            assert pushed.kind == STATUS_CHANGED, pushed
            assert pushed.customer.status.state == ACTIVE
            assert entitlement_ids(pushed.customer) == ["pro"]
    worst = max(push for _, push in answered)
    print(f"\nwebhook round trip / 200 → StreamStatus event, seconds: "
          + ", ".join(f"{rt:.4f}/{push:.4f}" for rt, push in answered))
    assert worst < 2.0
