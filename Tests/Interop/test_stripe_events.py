"""What each Stripe event does to a web purchase, through the real interop-server, for tenants without an API key
(the event's own snapshot is applied, ordered by its `created`): checkout sessions, a subscription's whole life,
invoices, refunds and disputes, events out of order, who owns what, and the push to a device stream.

Tenant "a" takes test-mode events, no past-due grace; "grace" gives past_due subscriptions 3 days; "live" takes live
events only. Events that re-fetch from Stripe's API are in test_stripe_api_events.py.
"""

from __future__ import annotations

import time

import pytest

import fake_stripe as fs
from entitlement_support import (
    ACTIVE, CUSTOMER_INFO_CHANGED, INACTIVE, SNAPSHOT, STATUS_CHANGED, ts_millis, unique_id, write_tenants,
)
from stripe_support import (
    ANNUAL, LIFETIME, MONTHLY, PRICE_ANNUAL, PRICE_LIFETIME, PRICE_MONTHLY, PRICE_UNMAPPED, PROD_ANNUAL, PRODUCTION, SANDBOX,
    STRIPE_WEBHOOK, WEB_SOURCE, WEB_STORE, StripeEnv, entitlement_ids, has_customer, stripe_tenant, web_transaction,
)

DAY = fs.DAY


@pytest.fixture(scope="module")
def tenants():
    return {
        "a": stripe_tenant("ev-a"),
        "grace": stripe_tenant("ev-grace", grace_days=3),
        "live": stripe_tenant("ev-live", environments=["live"]),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("stripe-events") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def env(server, tenants, protos):
    environment = StripeEnv(server, tenants, protos)
    yield environment
    environment.close()


def sub_for(user: str | None, **fields) -> dict:
    fields.setdefault("price_id", PRICE_MONTHLY)
    return fs.subscription(metadata={"app_user_id": user} if user else {}, **fields)


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
    sub = sub_for(None)
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"],
                                  customer=sub["customer"], invoice=sub["latest_invoice"])
    text = env.post_ok("a", fs.event("checkout.session.completed", session), "buyer is kept")
    assert sub["id"] in text
    assert entitlement_ids(env.a.sync(user)) == []
    # The subscription's own event names nobody; the checkout's buyer gets it.
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == ["pro"]
    tx = web_transaction(env.a_admin, user, sub["id"])
    assert tx.transaction_id == sub["latest_invoice"]


def test_an_unmapped_price_is_acknowledged_not_applied(env):
    user = unique_id()
    for evt in [
        fs.event("customer.subscription.created", sub_for(user, price_id=PRICE_UNMAPPED)),
        fs.event("checkout.session.completed", fs.checkout_session(
            mode="payment", client_reference_id=user, payment_intent=fs.new_id("pi"),
            metadata={"price_id": PRICE_UNMAPPED})),
        fs.event("checkout.session.completed", fs.checkout_session(
            mode="payment", client_reference_id=user, payment_intent=fs.new_id("pi"))),
    ]:
        text = env.post_ok("a", evt, "not applied")
        assert "already processed" in env.post_ok("a", evt)
        assert not has_customer(env.a_admin, user), text


def test_a_mode_the_tenant_does_not_take_is_acknowledged_not_applied(env):
    user = unique_id()
    test_mode = fs.event("customer.subscription.created", sub_for(user))
    assert "not applied" in env.post_ok("live", test_mode)
    assert not has_customer(env.live_admin, user)
    live = fs.event("customer.subscription.created", sub_for(user, livemode=True))
    assert "not applied" in env.post_ok("a", live)
    assert not has_customer(env.a_admin, user)
    env.post_ok("live", fs.event("customer.subscription.created", live["data"]["object"]), "applied to", user)
    assert web_transaction(env.live_admin, user, live["data"]["object"]["id"]).environment == PRODUCTION


# --------------------------------------------------------------------------------------------------
# Subscription statuses


@pytest.mark.parametrize("status", ["active", "trialing"])
def test_active_and_trialing_grant_until_the_items_period_end(env, status):
    user = unique_id()
    sub = sub_for(user, status=status)
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    entitlement = env.a.sync(user).status.entitlements[0]
    assert (entitlement.id, entitlement.source) == ("pro", WEB_SOURCE)
    assert ts_millis(entitlement.expires_at) == period_end_ms(sub)
    tx = web_transaction(env.a_admin, user, sub["id"])
    assert (tx.will_renew, tx.in_billing_retry) == (True, False)


def test_the_legacy_top_level_period_is_read(env):
    user = unique_id()
    sub = sub_for(user, legacy_period=True)
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    assert ts_millis(env.a.sync(user).status.entitlements[0].expires_at) == sub["current_period_end"] * 1000


def test_a_price_mapped_through_its_product_grants_the_products_entitlements(env):
    user = unique_id()
    sub = sub_for(user, price_id=PRICE_ANNUAL, product=PROD_ANNUAL)
    env.post_ok("a", fs.event("customer.subscription.created", sub), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == ["premium", "pro"]
    assert web_transaction(env.a_admin, user, sub["id"]).product_id == ANNUAL


def test_cancel_at_period_end_keeps_access_and_pushes_customer_info_changed(env):
    user = unique_id()
    sub = sub_for(user)
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
    sub = sub_for(user)
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
    env.post_ok("a", fs.event("customer.subscription.created", sub_for(user, status=status)))
    assert entitlement_ids(env.a.sync(user)) == []


def test_past_due_without_grace_gives_no_access_and_with_grace_the_grace_days(env):
    user = unique_id()
    start = fs.now() - DAY
    sub = sub_for(user, status="past_due", period_start=start)
    env.post_ok("a", fs.event("customer.subscription.updated", sub), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []
    assert web_transaction(env.a_admin, user, sub["id"]).in_billing_retry is True

    other = unique_id()
    graced = sub_for(other, status="past_due", period_start=start)
    env.post_ok("grace", fs.event("customer.subscription.updated", graced), "applied to", other)
    entitlement = env.grace.sync(other).status.entitlements[0]
    assert ts_millis(entitlement.expires_at) == (start + 3 * DAY) * 1000
    tx = web_transaction(env.grace_admin, other, graced["id"])
    assert (tx.in_billing_retry, tx.in_grace_period) == (True, True)


def test_past_due_grace_that_has_run_out_gives_nothing(env):
    user = unique_id()
    sub = sub_for(user, status="past_due", period_start=fs.now() - 4 * DAY)
    env.post_ok("grace", fs.event("customer.subscription.updated", sub), "applied to", user)
    assert entitlement_ids(env.grace.sync(user)) == []


# --------------------------------------------------------------------------------------------------
# Invoices


def test_invoice_paid_extends_a_held_subscription_to_the_line_period_end(env):
    user = unique_id()
    sub = sub_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    end = sub["items"]["data"][0]["current_period_end"]
    renewal = fs.invoice(subscription_id=sub["id"], period_start=end, period_end=end + 30 * DAY,
                         payment_intent=fs.new_id("pi"))
    env.post_ok("a", fs.event("invoice.paid", renewal, created=fs.now() - 20), "applied to", user)
    assert ts_millis(env.a.sync(user).status.entitlements[0].expires_at) == (end + 30 * DAY) * 1000
    assert web_transaction(env.a_admin, user, sub["id"]).transaction_id == renewal["id"]


def test_an_invoice_in_the_shape_of_older_api_versions_is_read(env):
    user, pi = unique_id(), fs.new_id("pi")
    sub = sub_for(user)
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
    sub = sub_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    failed = fs.invoice(subscription_id=sub["id"], status="open", attempt_count=1)
    env.post_ok("a", fs.event("invoice.payment_failed", failed, created=fs.now() - 20), "applied to", user)
    assert web_transaction(env.a_admin, user, sub["id"]).in_billing_retry is True


# --------------------------------------------------------------------------------------------------
# Refunds and disputes


def one_time(env, user: str) -> str:
    pi = fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  metadata={"price_id": PRICE_LIFETIME}, created=fs.now() - 60)
    env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 60), "applied to", user)
    return pi


def test_a_full_refund_revokes_a_one_time_purchase_and_a_partial_one_keeps_it(env):
    user = unique_id()
    pi = one_time(env, user)
    partial = fs.charge(payment_intent=pi, amount=999, amount_refunded=500)
    assert "partial refund" in env.post_ok("a", fs.event("charge.refunded", partial))
    assert entitlement_ids(env.a.sync(user)) == ["premium"]
    full = dict(partial, amount_refunded=999, refunded=True)
    env.post_ok("a", fs.event("charge.refunded", full), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []
    tx = web_transaction(env.a_admin, user, pi)
    assert tx.HasField("revoked_at") and tx.revocation_reason == "REFUNDED"


def test_a_refund_of_a_renewal_revokes_the_subscription_its_invoice_named(env):
    user, pi = unique_id(), fs.new_id("pi")
    sub = sub_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    paid = fs.invoice(subscription_id=sub["id"], payment_intent=pi,
                      period_start=sub["items"]["data"][0]["current_period_start"],
                      period_end=sub["items"]["data"][0]["current_period_end"])
    env.post_ok("a", fs.event("invoice.paid", paid, created=fs.now() - 20))
    assert entitlement_ids(env.a.sync(user)) == ["pro"]
    env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=pi)), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []


def test_a_refunded_subscription_stays_revoked_through_a_later_update_of_the_same_period(env):
    user, pi = unique_id(), fs.new_id("pi")
    sub = sub_for(user)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    item = sub["items"]["data"][0]
    paid = fs.invoice(subscription_id=sub["id"], invoice_id=sub["latest_invoice"], payment_intent=pi,
                      period_start=item["current_period_start"], period_end=item["current_period_end"])
    env.post_ok("a", fs.event("invoice.paid", paid, created=fs.now() - 20))
    env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=pi), created=fs.now() - 10), "applied to")
    renamed = dict(sub, metadata={"app_user_id": user, "plan": "renamed"})
    env.post_ok("a", fs.event("customer.subscription.updated", renamed))
    assert entitlement_ids(env.a.sync(user)) == []
    assert web_transaction(env.a_admin, user, sub["id"]).revocation_reason == "REFUNDED"


def test_a_refund_of_a_payment_the_checkout_named_revokes_its_subscription(env):
    user, pi = unique_id(), fs.new_id("pi")
    sub = sub_for(None)
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"],
                                  payment_intent=pi)
    env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 30))
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=pi)), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []


@pytest.mark.xfail(strict=True, reason="known gap: a refund that arrives before its purchase is not remembered, so the "
                   "late checkout.session.completed still grants (redeliveries after a 503 can come in this order)")
def test_a_refund_delivered_before_its_checkout_still_takes_the_purchase_back(env):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  metadata={"price_id": PRICE_LIFETIME}, created=fs.now() - 60)
    env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=pi)), "no held purchase")
    env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 60))
    assert entitlement_ids(env.a.sync(user)) == []


def test_a_refund_of_an_unknown_payment_is_acknowledged(env):
    text = env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=fs.new_id("pi"))))
    assert "no held purchase" in text


@pytest.mark.parametrize("status", ["needs_response", "warning_needs_response", "under_review", "lost"])
def test_a_dispute_revokes_what_its_payment_bought(env, status):
    user = unique_id()
    pi = one_time(env, user)
    dp = fs.dispute(charge_id=fs.new_id("ch"), payment_intent=pi, status=status)
    env.post_ok("a", fs.event("charge.dispute.created", dp), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []
    assert web_transaction(env.a_admin, user, pi).revocation_reason == "DISPUTED"


@pytest.mark.parametrize("status", ["won", "warning_closed"])
def test_a_dispute_already_won_keeps_access(env, status):
    user = unique_id()
    pi = one_time(env, user)
    dp = fs.dispute(charge_id=fs.new_id("ch"), payment_intent=pi, status=status)
    assert "access kept" in env.post_ok("a", fs.event("charge.dispute.created", dp))
    assert entitlement_ids(env.a.sync(user)) == ["premium"]


# --------------------------------------------------------------------------------------------------
# Order


def test_an_older_update_after_a_newer_one_changes_nothing(env):
    user = unique_id()
    sub = sub_for(user)
    t = fs.now()
    env.post_ok("a", fs.event("customer.subscription.updated", dict(sub, status="canceled", ended_at=t), created=t),
                "applied to", user)
    before = env.a.sync(user)
    env.post_ok("a", fs.event("customer.subscription.updated", sub, created=t - 5))
    after = env.a.sync(user)
    assert entitlement_ids(after) == [] and after.version == before.version


def test_updated_active_before_created_incomplete_in_the_same_second_ends_active(env):
    user = unique_id()
    sub = sub_for(user)
    t = fs.now()
    env.post_ok("a", fs.event("customer.subscription.updated", sub, created=t), "applied to", user)
    env.post_ok("a", fs.event("customer.subscription.created", dict(sub, status="incomplete"), created=t))
    assert entitlement_ids(env.a.sync(user)) == ["pro"]


@pytest.mark.parametrize("canceled_first", [True, False])
def test_canceled_wins_over_active_in_the_same_second_in_either_order(env, canceled_first):
    user = unique_id()
    sub = sub_for(user)
    t = fs.now()
    active = fs.event("customer.subscription.updated", sub, created=t)
    canceled = fs.event("customer.subscription.deleted", dict(sub, status="canceled", ended_at=t), created=t)
    for evt in ([canceled, active] if canceled_first else [active, canceled]):
        env.post_ok("a", evt)
    assert entitlement_ids(env.a.sync(user)) == []


def test_the_whole_lifecycle_in_order(env):
    user = unique_id()
    t = fs.now() - 100
    sub = sub_for(None)
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"],
                                  customer=sub["customer"])
    steps = [
        ("customer.subscription.created", dict(sub, status="incomplete"), []),
        ("checkout.session.completed", session, []),
        ("customer.subscription.updated", sub, ["pro"]),
        ("invoice.paid", fs.invoice(subscription_id=sub["id"], period_end=fs.now() + 60 * DAY), ["pro"]),
        ("customer.subscription.updated", dict(sub, status="past_due"), []),
        ("customer.subscription.updated", dict(sub, status="active", cancel_at_period_end=True), ["pro"]),
        ("customer.subscription.deleted", dict(sub, status="canceled", ended_at=fs.now() - 1), []),
    ]
    for offset, (kind, obj, expected) in enumerate(steps):
        status, text = env.post("a", fs.event(kind, obj, created=t + 10 * offset))
        assert status == 200, f"{kind}: {text}"
        if has_customer(env.a_admin, user):
            assert entitlement_ids(env.a.sync(user)) == expected, f"after {kind} ({obj.get('status')}): {text}"
        else:
            assert expected == [], f"after {kind}: nobody owns it ({text})"
    tx = web_transaction(env.a_admin, user, sub["id"])
    assert tx.suspended and not tx.will_renew


# --------------------------------------------------------------------------------------------------
# Ownership


def test_an_identified_user_nobody_has_gets_a_new_customer(env):
    user = unique_id()
    assert not has_customer(env.a_admin, user)
    env.post_ok("a", fs.event("customer.subscription.created", sub_for(user)), "applied to", user)
    assert has_customer(env.a_admin, user)


@pytest.mark.parametrize("name", ["anonymous", "none", "invalid"])
def test_an_anonymous_or_missing_name_leaves_the_purchase_unowned(env, name):
    user = {"anonymous": f"$anon:{unique_id()}", "none": None, "invalid": "null"}[name]
    sub = sub_for(user)
    text = env.post_ok("a", fs.event("customer.subscription.created", sub), "recorded")
    assert "applied" not in text
    if name == "anonymous":
        assert not has_customer(env.a_admin, user)
    # Held all the same: a code can be issued for it.
    assert env.a_admin.redemption_code(sub["id"]).transaction.original_transaction_id == sub["id"]


def test_an_anonymous_id_a_customer_already_has_owns_the_purchase(env):
    anonymous = f"$anon:{unique_id()}"
    env.a.identify(anonymous)
    env.post_ok("a", fs.event("customer.subscription.created", sub_for(anonymous)), "applied to", anonymous)
    assert entitlement_ids(env.a.sync(anonymous)) == ["pro"]


# --------------------------------------------------------------------------------------------------
# Push


def test_a_stream_sees_status_changed_when_the_webhook_unlocks(env):
    user = unique_id()
    env.a.identify(user)
    stream = env.a.stream(user)
    assert stream.next().kind == SNAPSHOT
    answered = []
    for _ in range(5):
        evt = fs.event("customer.subscription.created", sub_for(user, sub_id=fs.new_id("sub")))
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
