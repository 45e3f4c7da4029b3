"""The revenue ledger (README, "The revenue ledger") for Stripe, through the real interop-server, from signed
webhooks alone (the tenant has no API key): a subscription's money is its paid invoices (`amount_paid` with its
`total_taxes`, the line period, `billing_reason`, the buyer's address), a one-time purchase's its Checkout Session
(`amount_total`, `total_details.amount_tax`, `customer_details.address`); a full refund is a refund row of
`amount_refunded`, an open dispute a chargeback of its `amount`. Rows are read from the database behind the server's
back, as an analyst would.
"""

from __future__ import annotations

import pytest

import fake_stripe as fs
from ledger_support import (
    BILLING_RETRY_SUBSCRIPTIONS, GRACE_PERIOD_SUBSCRIPTIONS, SANDBOX, billing_figures, billing_observations,
    ledger_rows as ledger, listed_today, moved, summary,
)
from entitlement_support import unique_id
from stripe_support import LIFETIME, MONTHLY, PRICE_LIFETIME, stripe_tenant, subscription_for
from stripe_support import server, env  # noqa: F401 (fixtures)

DAY = 86_400


@pytest.fixture(scope="module")
def tenants():
    return {"a": stripe_tenant("ledger-stripe"), "grace": stripe_tenant("ledger-stripe-grace", grace_days=3)}






def subscribed(env, user: str, **fields) -> tuple[dict, int]:
    sub = subscription_for(user, period_start=fs.now() - 40 * DAY, **fields)
    env.post_ok("a", fs.event("customer.subscription.created", sub, created=fs.now() - 60), "applied to", user)
    return sub, sub["items"]["data"][0]["current_period_end"]


def test_a_subscriptions_paid_invoices_are_its_rows_however_often_they_arrive(env):
    user, pi = unique_id(), fs.new_id("pi")
    sub, end = subscribed(env, user)
    start = sub["items"]["data"][0]["current_period_start"]
    first = fs.invoice(subscription_id=sub["id"], invoice_id=sub["latest_invoice"], period_start=start,
                       period_end=end, billing_reason="subscription_create", amount=1_190, tax=190, country="DE",
                       currency="eur")
    for _ in range(2):
        env.post_ok("a", fs.event("invoice.paid", first, created=fs.now() - 50))
    renewal = fs.invoice(subscription_id=sub["id"], period_start=end, period_end=end + 30 * DAY, payment_intent=pi,
                         amount=1_190, tax=190, country="DE", currency="eur")
    env.post_ok("a", fs.event("invoice.paid", renewal, created=fs.now() - 40), "applied to", user)
    env.post_ok("a", fs.event("invoice.paid", renewal, created=fs.now() - 40), "nothing new")
    # A later update of the subscription says nothing of money: the rows stand.
    env.post_ok("a", fs.event("customer.subscription.updated", dict(sub, latest_invoice=renewal["id"]),
                              created=fs.now() - 30))
    rows = ledger(env, sub["id"])
    assert summary(rows) == [("purchase", first["id"], "11900"), ("renewal", renewal["id"], "11900")], rows
    for row, invoice in zip(rows, [first, renewal]):
        period = invoice["lines"]["data"][0]["period"]
        assert row["tax_milliunits"] == "1900" and row["currency"] == "EUR" and row["country"] == "DE", row
        # Stripe's default 2.9% on the amount less its tax: 10,000 less 290.
        assert row["proceeds_milliunits"] == "9710", row
        assert row["store"] == "stripe" and row["environment"] == "Sandbox" and row["product_id"] == MONTHLY, row
        assert int(row["period_start"]) == period["start"] * 1000 == int(row["occurred_at"]), row
    # The renewal's charge refunded in full: a refund row of what Stripe gave back, tax and proceeds with it.
    refund = fs.charge(payment_intent=pi, amount=1_190)
    refund["currency"] = "eur"
    env.post_ok("a", fs.event("charge.refunded", refund, created=fs.now() - 20), "applied to", user)
    after = ledger(env, sub["id"])
    assert after[:2] == rows and [(row["kind"], row["transaction_id"], row["amount_milliunits"], row["tax_milliunits"],
                                   row["proceeds_milliunits"]) for row in after[2:]] == [
        ("refund", renewal["id"], "-11900", "-1900", "-9710")], after


def test_a_free_trial_invoice_starts_a_trial_and_the_first_paid_one_converts_it(env):
    user = unique_id()
    sub, end = subscribed(env, user, status="trialing")
    start = sub["items"]["data"][0]["current_period_start"]
    trial = fs.invoice(subscription_id=sub["id"], invoice_id=sub["latest_invoice"], period_start=start,
                       period_end=end, billing_reason="subscription_create", amount=0)
    env.post_ok("a", fs.event("invoice.paid", trial, created=fs.now() - 50))
    paid = fs.invoice(subscription_id=sub["id"], period_start=end, period_end=end + 30 * DAY, amount=999,
                      discounts=["di_1"])
    env.post_ok("a", fs.event("invoice.paid", paid, created=fs.now() - 40), "applied to", user)
    rows = ledger(env, sub["id"])
    assert summary(rows) == [("trial_start", trial["id"], "0"), ("trial_conversion", paid["id"], "9990")], rows
    assert [row["offer_kind"] for row in rows] == ["free_trial", "promotional"], rows
    assert rows[0]["tax_milliunits"] == "0" and rows[0]["country"] == "", rows[0]


def test_an_invoice_delivered_after_a_later_one_is_recorded_all_the_same(env):
    """Stripe delivers events in any order: a renewal's invoice.paid after the next renewal's changes nothing about
    access, but its money is the ledger's all the same."""
    user = unique_id()
    sub, end = subscribed(env, user)
    second = fs.invoice(subscription_id=sub["id"], period_start=end, period_end=end + 30 * DAY, amount=999)
    third = fs.invoice(subscription_id=sub["id"], period_start=end + 30 * DAY, period_end=end + 60 * DAY, amount=1_499)
    env.post_ok("a", fs.event("invoice.paid", third, created=fs.now() - 20), "applied to", user)
    env.post_ok("a", fs.event("invoice.paid", second, created=fs.now() - 30))
    env.post_ok("a", fs.event("invoice.paid", second, created=fs.now() - 30))
    assert sorted(summary(ledger(env, sub["id"]))) == sorted(
        [("renewal", second["id"], "9990"), ("renewal", third["id"], "14990")])


def test_an_unpaid_invoice_and_a_subscription_alone_are_no_money(env):
    user = unique_id()
    sub, end = subscribed(env, user)
    failed = fs.invoice(subscription_id=sub["id"], period_start=end, period_end=end + 30 * DAY, status="open")
    env.post_ok("a", fs.event("invoice.payment_failed", failed, created=fs.now() - 20), "applied to", user)
    assert ledger(env, sub["id"]) == []


def test_a_one_time_checkout_is_one_row_and_a_dispute_a_chargeback(env):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  metadata={"price_id": PRICE_LIFETIME}, created=fs.now() - 60, amount_total=4_999,
                                  tax=799, country="FR", currency="eur")
    for _ in range(2):
        env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 60))
    [row] = ledger(env, pi)
    assert (row["kind"], row["transaction_id"], row["amount_milliunits"], row["tax_milliunits"]) == (
        "one_time", session["id"], "49990", "7990"), row
    assert row["country"] == "FR" and row["product_id"] == LIFETIME and row["period_end"] == "", row
    dispute = fs.dispute(charge_id=fs.new_id("ch"), payment_intent=pi)
    dispute.update(amount=4_999, currency="eur")
    env.post_ok("a", fs.event("charge.dispute.created", dispute, created=fs.now() - 30), "applied to", user)
    rows = ledger(env, pi)
    assert summary(rows) == [("one_time", session["id"], "49990"), ("chargeback", session["id"], "-49990")], rows
    assert rows[1]["direction"] == "refund", rows[1]


def test_a_checkout_paid_later_is_money_only_once_paid(env):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                  metadata={"price_id": PRICE_LIFETIME}, created=fs.now() - 60, payment_status="unpaid")
    env.post_ok("a", fs.event("checkout.session.completed", session, created=fs.now() - 60))
    assert ledger(env, pi) == []
    env.post_ok("a", fs.event("checkout.session.async_payment_succeeded", dict(session, payment_status="paid"),
                              created=fs.now() - 30))
    assert summary(ledger(env, pi)) == [("one_time", session["id"], "9990")]


def test_past_due_counts_in_billing_retry_or_the_tenants_grace_until_the_invoice_is_paid(env):
    """A renewal's payment fails (`past_due`): in billing retry for a tenant without `past_due_grace_days`, in a
    grace period for one with them, the payment retried being the last one paid (the update names only the invoice
    that failed); the paid invoice and the subscription active again end it."""
    started = fs.now() - 30 * DAY - 3_600
    due = started + 30 * DAY
    subscriptions, before = {}, {}
    for tenant in ("a", "grace"):
        user = unique_id()
        sub = subscription_for(user, period_start=started, period_end=due)
        env.post_ok(tenant, fs.event("customer.subscription.created", sub, created=started), "applied to", user)
        first = fs.invoice(subscription_id=sub["id"], invoice_id=sub["latest_invoice"], period_start=started,
                           period_end=due, billing_reason="subscription_create", amount=1_190, tax=190, country="DE",
                           currency="eur")
        env.post_ok(tenant, fs.event("invoice.paid", first, created=started))
        subscriptions[tenant] = (user, sub, first)
        before[tenant] = billing_figures(getattr(env, f"{tenant}_admin"), SANDBOX)

    for tenant, state, metric in [("a", "retry", BILLING_RETRY_SUBSCRIPTIONS), ("grace", "grace", GRACE_PERIOD_SUBSCRIPTIONS)]:
        user, sub, first = subscriptions[tenant]
        admin = getattr(env, f"{tenant}_admin")
        failed = subscription_for(user, status="past_due", period_start=due, period_end=due + 30 * DAY,
                                  sub_id=sub["id"], customer=sub["customer"])
        # As Stripe sends it: the subscription began a period ago, its latest invoice is the one that failed.
        failed.update(start_date=started, created=started)
        env.post_ok(tenant, fs.event("customer.subscription.updated", failed, created=fs.now() - 60), "applied to")
        assert moved(before[tenant], billing_figures(admin, SANDBOX)) == {
            state: {"": 1}, f"{state}_mrr": {"EUR": 11_900}}, tenant
        [listed] = [row for row in listed_today(admin, metric, SANDBOX) if row.original_transaction_id == sub["id"]]
        assert (listed.app_user_id, listed.transaction_id, listed.amount_milliunits) == (user, first["id"], 11_900)

        renewal = fs.invoice(subscription_id=sub["id"], period_start=due, period_end=due + 30 * DAY,
                             payment_intent=fs.new_id("pi"), amount=1_190, tax=190, country="DE", currency="eur")
        env.post_ok(tenant, fs.event("invoice.paid", renewal, created=fs.now() - 30))
        active = subscription_for(user, period_start=due, period_end=due + 30 * DAY, sub_id=sub["id"],
                                  customer=sub["customer"])
        env.post_ok(tenant, fs.event("customer.subscription.updated", active, created=fs.now() - 20))
        assert moved(before[tenant], billing_figures(admin, SANDBOX)) == {}, tenant
        assert [billing for billing, _, _ in billing_observations(env, sub["id"])] == [
            "grace" if tenant == "grace" else "billing_retry", "settled"]
        assert summary(ledger(env, sub["id"])) == [("purchase", first["id"], "11900"), ("renewal", renewal["id"], "11900")]

