"""The revenue ledger (README, "The revenue ledger") through the real interop-server: App Store purchases, renewals
and refunds as a device and Apple's notifications bring them, read from the database behind the server's back with
the README's column names, as an analyst would (SQLite's file, or the PostgreSQL schema).

Transactions and notifications are signed at test time by `entctl dev` (test_notifications.py's helpers and
fixtures; this module gets a server of its own); its transactions carry Apple's fields for money: `price` 4990,
`currency` USD, `storefront` USA, `transactionReason`.
"""

from __future__ import annotations

from appstore_support import DAY_MS, LIFETIME, MONTHLY, payload
from conftest import query_database
from ledger_support import (
    GRACE_PERIOD_SUBSCRIPTIONS, BILLING_RETRY_SUBSCRIPTIONS, SANDBOX, billing_figures, billing_observations,
    ledger_rows as ledger, listed_today, moved,
)
from entitlement_support import unique_id
from test_notifications import at, new_original_id, notification, post_ok, renewal_info, transaction
from test_notifications import ca, env, notify_server, notify_tenants  # noqa: F401 (fixtures: a server of its own)





def customer_id(env, user: str) -> str:
    [(identifier,)] = query_database(
        env.server.config.parent, f"SELECT customer_id FROM app_user_ids WHERE app_user_id = '{user}'")
    return identifier


def test_a_subscriptions_purchase_renewal_and_refund_are_one_row_each_however_often_they_arrive(env, ca):
    original = new_original_id()
    user = unique_id()
    bought = transaction(ca, original, "--signed-date", "-2h", "--purchase-date", "-29d", "--expires", "+1d")
    env.a.purchase(user, bought)
    renewed = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1m",
                          "--expires", "+30d")
    renewal = notification(ca, "DID_RENEW", transaction=renewed)
    post_ok(env, "a", renewal)
    # Delivered again: Apple's retry, the device's Restore, the device's own Purchase of the renewal.
    post_ok(env, "a", renewal)
    env.a.restore(user, [bought, renewed])
    env.a.purchase(user, renewed)
    rows = ledger(env, original)
    assert [(row["kind"], row["direction"], row["transaction_id"]) for row in rows] == [
        ("purchase", "payment", original), ("renewal", "payment", original + "1")], rows
    owner = customer_id(env, user)
    for row, token in zip(rows, [bought, renewed]):
        signed = payload(token)
        assert row["amount_milliunits"] == "4990" and row["currency"] == "USD", row
        # Apple's default 30% kept: the tenants set no commission.
        assert row["proceeds_milliunits"] == "3493", row
        assert row["country"] == "US" and row["offer_kind"] == "none" and row["environment"] == "Sandbox", row
        assert row["entitlement_ids"] == "pro" and row["product_id"] == MONTHLY and row["store"] == "app_store", row
        assert int(row["period_start"]) == signed["purchaseDate"] == int(row["occurred_at"]), row
        assert int(row["period_end"]) == signed["expiresDate"], row
        assert row["customer_id"] == owner, row

    # Apple refunds the renewal: a row of its own, the payment's row unchanged.
    refunded = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1m",
                           "--expires", "+30d", "--revocation-date", "-10s")
    refund = notification(ca, "REFUND", transaction=refunded)
    post_ok(env, "a", refund)
    post_ok(env, "a", notification(ca, "REFUND", transaction=refunded))
    after = ledger(env, original)
    assert after[:2] == rows, after
    assert [(row["kind"], row["direction"], row["amount_milliunits"], row["proceeds_milliunits"])
            for row in after[2:]] == [("refund", "refund", "-4990", "-3493")], after
    assert int(after[2]["occurred_at"]) == payload(refunded)["revocationDate"], after[2]
    assert after[2]["transaction_id"] == original + "1" and after[2]["customer_id"] == owner, after[2]


def test_a_purchase_apple_told_of_first_is_recorded_before_anyone_owns_it(env, ca):
    original = new_original_id()
    bought = transaction(ca, original, "--purchase-date", "-1m", "--expires", "+30d")
    post_ok(env, "a", notification(ca, "SUBSCRIBED", "INITIAL_BUY", transaction=bought))
    [row] = ledger(env, original)
    assert row["kind"] == "purchase" and row["customer_id"] == "", row
    # The device that bought it claims it: the row stands as written (the owner now is the purchase's).
    user = unique_id()
    env.a.purchase(user, bought)
    assert ledger(env, original) == [row]
    [(owner,)] = query_database(
        env.server.config.parent, f"SELECT customer_id FROM transactions WHERE original_transaction_id = '{original}'")
    assert owner == customer_id(env, user)


def test_a_lifetime_purchase_is_one_time_and_a_family_members_copy_is_no_payment(env, ca):
    original = new_original_id()
    lifetime = ca.sign(LIFETIME, "--original-transaction-id", original, "--type", "non-consumable")
    env.a.purchase(unique_id(), lifetime)
    [row] = ledger(env, original)
    assert (row["kind"], row["entitlement_ids"], row["period_end"]) == ("one_time", "premium", ""), row

    shared = new_original_id()
    env.a.purchase(unique_id(), transaction(ca, shared, "--expires", "+30d", "--ownership", "family-shared"))
    assert ledger(env, shared) == []


def test_a_failed_renewal_counts_in_grace_then_in_billing_retry_until_apple_renews_it(env, ca):
    """DID_FAIL_TO_RENEW GRACE_PERIOD, GRACE_PERIOD_EXPIRED (billing retry), DID_RENEW: today's grace period
    figures, then billing retry's, then neither; the ledger moves no money for them, `billing_observations` says so,
    and ListMetricRows lists the subscription under each."""
    original, user = new_original_id(), unique_id()
    env.a.purchase(user, transaction(ca, original, "--purchase-date", "-29d", "--expires", "+1d"))
    before = billing_figures(env.a_admin, SANDBOX)
    lapsed = transaction(ca, original, "--purchase-date", "-30d", "--expires", "-1h")
    grace, _ = at(5 * DAY_MS)
    post_ok(env, "a", notification(ca, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", transaction=lapsed,
                                   renewal=renewal_info(ca, original, "--grace-period-expires", grace)))
    in_grace = billing_figures(env.a_admin, SANDBOX)
    # The payment Apple is retrying: 4.99 USD for a 30-day period, 4.99 a month.
    assert moved(before, in_grace) == {"grace": {"": 1}, "grace_mrr": {"USD": 4990}}, in_grace
    listed = listed_today(env.a_admin, GRACE_PERIOD_SUBSCRIPTIONS, SANDBOX)
    assert len(listed) == in_grace["grace"][""], "a point's rows add up to it"
    assert [(row.app_user_id, row.transaction_id, row.amount_milliunits, row.currency) for row in listed
            if row.original_transaction_id == original] == [(user, original, 4990, "USD")]

    post_ok(env, "a", notification(ca, "GRACE_PERIOD_EXPIRED", transaction=lapsed,
                                   renewal=renewal_info(ca, original, "--billing-retry")))
    retrying = billing_figures(env.a_admin, SANDBOX)
    assert moved(before, retrying) == {"retry": {"": 1}, "retry_mrr": {"USD": 4990}}, retrying
    assert original in {row.original_transaction_id
                        for row in listed_today(env.a_admin, BILLING_RETRY_SUBSCRIPTIONS, SANDBOX)}

    renewed = transaction(ca, original, "--transaction-id", original + "1", "--purchase-date", "-1m",
                          "--expires", "+30d")
    post_ok(env, "a", notification(ca, "DID_RENEW", transaction=renewed, renewal=renewal_info(ca, original)))
    assert moved(before, billing_figures(env.a_admin, SANDBOX)) == {}
    assert billing_observations(env, original) == [
        ("grace", "4990", "USD"), ("billing_retry", "4990", "USD"), ("settled", "4990", "USD")]
    assert [row["kind"] for row in ledger(env, original)] == ["purchase", "renewal"], "no money moved meanwhile"

