"""Refunds and disputes of web purchases through the real interop-server (tenant without an API key): a full refund
(`charge.refunded` with `refunded: true`) or an open or lost dispute (`charge.dispute.created`) revokes what the
payment intent paid for: a one-time purchase, or the subscription whose invoice or checkout named that payment intent.
A partial refund, or a dispute already won, keeps access.
"""

from __future__ import annotations

import pytest

import fake_stripe as fs
from entitlement_support import unique_id
from stripe_support import (
    PRICE_LIFETIME, entitlement_ids, stripe_tenant, subscription_for, web_transaction,
)
from stripe_support import server, env  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def tenants():
    return {"a": stripe_tenant("rf-a")}


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
    sub = subscription_for(user)
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
    sub = subscription_for(user)
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
    sub = subscription_for(None)
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"],
                                  payment_intent=pi)
    env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 30))
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 30), "applied to", user)
    env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=pi)), "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == []


def test_a_refund_delivered_before_its_checkout_still_takes_the_purchase_back(env):
    """Redeliveries after a 503 can come in this order: the refund waits for the purchase and revokes it on arrival."""
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  metadata={"price_id": PRICE_LIFETIME}, created=fs.now() - 60)
    env.post_ok("a", fs.event("charge.refunded", fs.charge(payment_intent=pi)), "waits for it")
    env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 60))
    assert entitlement_ids(env.a.sync(user)) == []
    assert web_transaction(env.a_admin, user, pi).revocation_reason == "REFUNDED"


def test_a_dispute_delivered_before_the_invoice_naming_its_payment_revokes_the_subscription(env):
    """The first invoice covers the period the subscription already shows: paying it changes nothing by itself, but it
    names the disputed payment, so the waiting revocation applies."""
    user, pi, sub_id, invoice = unique_id(), fs.new_id("pi"), fs.new_id("sub"), fs.new_id("in")
    start = fs.now() - 60
    sub = subscription_for(user, sub_id=sub_id, latest_invoice=invoice, period_start=start)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 60), "applied to", user)
    env.post_ok("a", fs.event("charge.dispute.created",
                              fs.dispute(charge_id=fs.new_id("ch"), payment_intent=pi, status="needs_response")),
                "waits for it")
    assert entitlement_ids(env.a.sync(user)) == ["pro"]
    paid = fs.invoice(subscription_id=sub_id, invoice_id=invoice, payment_intent=pi, period_start=start,
                      period_end=start + 30 * fs.DAY, billing_reason="subscription_create")
    env.post_ok("a", fs.event("invoice.paid", paid), "applied to", user)
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
