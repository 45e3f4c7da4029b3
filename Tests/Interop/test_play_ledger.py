"""The revenue ledger (README, "The revenue ledger") for Google Play, through the real interop-server and the fake
Google: what Google charged comes from its order (`orders.get`: the total with its tax, the developer's revenue,
the buyer's country, the period paid for), fetched while the stored purchase lacks that order's amounts; without
it only a base-price period (its recurring price) or a free trial (nothing) has an amount. Rows are read from the
database behind the server's back, as an analyst would.
"""

from __future__ import annotations

import pytest

from ledger_support import (
    BILLING_RETRY_SUBSCRIPTIONS, GRACE_PERIOD_SUBSCRIPTIONS, PRODUCTION, billing_figures, billing_observations,
    ledger_rows as ledger, listed_today, moved, summary,
)
from entitlement_support import unique_id, write_tenants
from fake_google import (
    FakeGoogle, ProductType, SubscriptionNotificationType, money, new_order_id, new_purchase_token, rfc3339,
    subscription_notification, utcnow, voided_purchase_notification, DAY,
)
from play_support import APP, LIFETIME, SERVER_SETTINGS, SUB, UPGRADE, PlayEnv, play_tenant

Type = SubscriptionNotificationType


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def play_tenants(fake, tmp_path_factory):
    key = fake.write_service_account(tmp_path_factory.mktemp("play-ledger") / "service-account.json")
    return {"a": play_tenant(fake, key, "ledger-a")}


@pytest.fixture(scope="module")
def play_server(tenants_server, tmp_path_factory, play_tenants):
    tenants_file = tmp_path_factory.mktemp("play-ledger-tenants") / "tenants.json"
    write_tenants(tenants_file, play_tenants.values())
    return tenants_server(tenants_file, SERVER_SETTINGS)


@pytest.fixture
def env(play_server, fake, play_tenants, protos):
    environment = PlayEnv(play_server, fake, play_tenants, protos)
    yield environment
    fake.clear_faults()
    environment.close()






def millis_of(text: str) -> int:
    from fake_google import millis, to_datetime
    return millis(to_datetime(text))


def test_a_subscriptions_orders_are_its_rows_as_google_charged_them(env):
    user, token, first = unique_id(), new_purchase_token(), new_order_id()
    started = utcnow() - 20 * DAY
    env.fake.put_order(APP, first, token=token, product_id=SUB, total=11_990, tax=1_914, revenue=8_565,
                       currency="EUR", country="DE", period_start=started, created=started)
    env.fake.put_subscription(APP, token, product_id=SUB, order_id=first, start=started, region="DE",
                              price=money(11_990, "EUR"))
    env.a.play_purchase(user, SUB, token)
    [row] = ledger(env, token)
    assert (row["kind"], row["direction"], row["transaction_id"]) == ("purchase", "payment", first), row
    assert (row["amount_milliunits"], row["tax_milliunits"], row["proceeds_milliunits"]) == ("11990", "1914", "8565")
    assert row["currency"] == "EUR" and row["country"] == "DE" and row["offer_kind"] == "none", row
    assert row["store"] == "play_store" and row["entitlement_ids"] == "pro" and row["product_id"] == SUB, row
    assert row["environment"] == "Production", row
    assert int(row["period_start"]) == millis_of(rfc3339(started)) == int(row["occurred_at"]), row

    # Google renews: a new order `..0`, which the RENEWED notification makes the server fetch.
    renewal = f"{first}..0"
    renewed_at = utcnow() - DAY
    env.fake.put_order(APP, renewal, token=token, product_id=SUB, total=11_990, tax=1_914, revenue=8_565,
                       currency="EUR", country="DE", period_start=renewed_at, created=renewed_at)
    env.fake.put_subscription(APP, token, product_id=SUB, order_id=renewal, start=started, region="DE",
                              price=money(11_990, "EUR"), acknowledged=True)
    env.push_ok("a", subscription_notification(APP, token, Type.RENEWED), "applied to")
    # Delivered again, restored, presented again: one row per order all the same.
    env.push_ok("a", subscription_notification(APP, token, Type.RENEWED))
    env.a.play_restore(user, [(SUB, token)])
    env.a.play_purchase(user, SUB, token)
    rows = ledger(env, token)
    assert summary(rows) == [("purchase", first, "11990"), ("renewal", renewal, "11990")], rows
    assert int(rows[1]["period_start"]) == millis_of(rfc3339(renewed_at)), rows[1]
    orders_asked = len(env.fake.requests("GET", f"orders/{renewal}$"))
    assert orders_asked == 1, "an order whose amounts are stored is not asked for again"

    # Google refunds the renewal and voids it: a refund row taking back its tax and Google's revenue in full.
    env.fake.void(token, order_id=renewal, product_type=ProductType.SUBSCRIPTION)
    env.push_ok("a", voided_purchase_notification(APP, token, renewal, ProductType.SUBSCRIPTION), "applied to")
    env.push_ok("a", voided_purchase_notification(APP, token, renewal, ProductType.SUBSCRIPTION))
    after = ledger(env, token)
    assert after[:2] == rows, after
    assert [(row["kind"], row["direction"], row["amount_milliunits"], row["tax_milliunits"],
             row["proceeds_milliunits"]) for row in after[2:]] == [("refund", "refund", "-11990", "-1914", "-8565")]


def test_a_free_trial_starts_at_nothing_and_its_first_order_converts_it(env):
    user, token, first = unique_id(), new_purchase_token(), new_order_id()
    trial_item = {"offerPhase": {"freeTrial": {}}}
    resource = env.fake.put_subscription(APP, token, product_id=SUB, order_id=first, price=money(4_990))
    resource["lineItems"][0].update(trial_item)
    env.fake.put_subscription(APP, token, resource=resource)
    env.fake.put_order(APP, first, token=token, product_id=SUB, total=0, tax=0, revenue=0, phase="free_trial")
    env.a.play_purchase(user, SUB, token)
    assert summary(ledger(env, token)) == [("trial_start", first, "0")]
    assert ledger(env, token)[0]["offer_kind"] == "free_trial"
    converted = f"{first}..0"
    env.fake.put_subscription(APP, token, product_id=SUB, order_id=converted, price=money(4_990), acknowledged=True)
    env.push_ok("a", subscription_notification(APP, token, Type.RENEWED), "applied to")
    assert summary(ledger(env, token)) == [("trial_start", first, "0"), ("trial_conversion", converted, "4990")]


def test_without_googles_order_only_a_base_price_period_has_an_amount(env):
    """The service account may not view financial data (Google answers 401): access is unaffected, and the ledger
    records what the subscription's data states exactly, and the rest once a fetch brings the order."""
    user, token, first = unique_id(), new_purchase_token(), new_order_id()
    intro = env.fake.put_subscription(APP, token, product_id=SUB, order_id=first, price=money(9_990))
    intro["lineItems"][0]["offerPhase"] = {"introductoryPrice": {}}
    env.fake.put_subscription(APP, token, resource=intro)
    env.fake.put_order(APP, first, token=token, product_id=SUB, total=1_990, phase="introductory")
    env.fake.fail_next("GET", f"orders/{first}$", 401, count=10)
    customer = env.a.play_purchase(user, SUB, token).customer
    assert [entitlement.id for entitlement in customer.status.entitlements] == ["pro"]
    assert ledger(env, token) == [], "an introductory price is not the recurring price: no amount is guessed"
    env.fake.clear_faults()
    env.a.play_purchase(user, SUB, token)
    [row] = ledger(env, token)
    assert (row["kind"], row["amount_milliunits"], row["offer_kind"]) == ("purchase", "1990", "introductory"), row

    base_token, base_order = new_purchase_token(), new_order_id()
    base = env.fake.put_subscription(APP, base_token, product_id=SUB, order_id=base_order, price=money(9_990, "GBP"),
                                     region="GB")
    base["lineItems"][0]["offerPhase"] = {"basePrice": {}}
    env.fake.put_subscription(APP, base_token, resource=base)
    env.fake.fail_next("GET", f"orders/{base_order}$", 401, count=10)
    env.a.play_purchase(unique_id(), SUB, base_token)
    [row] = ledger(env, base_token)
    assert (row["amount_milliunits"], row["currency"], row["country"]) == ("9990", "GBP", "GB"), row
    # Google's commission estimated at the default 15%, no tax known.
    assert row["tax_milliunits"] == "" and row["proceeds_milliunits"] == "8492", row


def test_a_one_time_product_and_its_refund(env):
    user, token, order = unique_id(), new_purchase_token(), new_order_id()
    env.fake.put_order(APP, order, token=token, product_id=LIFETIME, total=29_990, tax=4_788, revenue=21_424,
                       phase=None, country="FR", currency="EUR")
    env.fake.put_product(APP, token, product_id=LIFETIME, order_id=order, region="FR")
    env.a.play_purchase(user, LIFETIME, token)
    assert summary(ledger(env, token)) == [("one_time", order, "29990")]
    env.fake.void(token, order_id=order, product_type=ProductType.ONE_TIME)
    env.push_ok("a", voided_purchase_notification(APP, token, order, ProductType.ONE_TIME), "applied to")
    rows = ledger(env, token)
    assert summary(rows) == [("one_time", order, "29990"), ("refund", order, "-29990")], rows
    assert rows[1]["proceeds_milliunits"] == "-21424" and rows[1]["country"] == "FR", rows[1]


def test_a_chargeback_is_named_and_an_upgrade_is_a_product_change(env):
    user, token, first = unique_id(), new_purchase_token(), new_order_id()
    env.fake.put_subscription(APP, token, product_id=SUB, order_id=first)
    env.a.play_purchase(user, SUB, token)
    upgrade_token, upgrade_order = new_purchase_token(), new_order_id()
    env.fake.put_subscription(APP, upgrade_token, product_id=UPGRADE, order_id=upgrade_order, linked=token)
    env.a.play_purchase(user, UPGRADE, upgrade_token)
    assert summary(ledger(env, upgrade_token)) == [("product_change", upgrade_order, "9990")]
    # The buyer's bank takes the upgrade's money back (Google's voided reason 7).
    env.fake.void(upgrade_token, order_id=upgrade_order, product_type=ProductType.SUBSCRIPTION, reason=7)
    env.push_ok("a", voided_purchase_notification(APP, upgrade_token, upgrade_order, ProductType.SUBSCRIPTION),
                "applied to")
    assert summary(ledger(env, upgrade_token)) == [
        ("product_change", upgrade_order, "9990"), ("chargeback", upgrade_order, "-9990")]


def test_a_grace_period_then_an_account_hold_then_recovery_count_as_google_says(env):
    """IN_GRACE_PERIOD (Google extends the expiry through the grace period), ON_HOLD, RECOVERED: today's grace period
    figures, then billing retry's, then neither; the episode begins where the paid period ended."""
    user, token, first = unique_id(), new_purchase_token(), new_order_id()
    started = utcnow() - 29 * DAY
    env.fake.put_order(APP, first, token=token, product_id=SUB, total=11_990, tax=1_914, revenue=8_565,
                       currency="EUR", country="DE", period_start=started, created=started)
    paid = dict(product_id=SUB, order_id=first, start=started, region="DE", price=money(11_990, "EUR"))
    env.fake.put_subscription(APP, token, expiry="-1h", **paid)
    env.a.play_purchase(user, SUB, token)
    before = billing_figures(env.a_admin, PRODUCTION)

    env.fake.put_subscription(APP, token, state="IN_GRACE_PERIOD", expiry="+3d", acknowledged=True, **paid)
    env.push_ok("a", subscription_notification(APP, token, Type.IN_GRACE_PERIOD), "applied to")
    in_grace = billing_figures(env.a_admin, PRODUCTION)
    assert moved(before, in_grace) == {"grace": {"": 1}, "grace_mrr": {"EUR": 11_990}}, in_grace
    [listed] = [row for row in listed_today(env.a_admin, GRACE_PERIOD_SUBSCRIPTIONS, PRODUCTION)
                if row.original_transaction_id == token]
    assert (listed.app_user_id, listed.transaction_id, listed.amount_milliunits) == (user, first, 11_990)

    env.fake.put_subscription(APP, token, state="ON_HOLD", expiry="-1h", acknowledged=True, **paid)
    env.push_ok("a", subscription_notification(APP, token, Type.ON_HOLD), "applied to")
    on_hold = billing_figures(env.a_admin, PRODUCTION)
    assert moved(before, on_hold) == {"retry": {"": 1}, "retry_mrr": {"EUR": 11_990}}, on_hold
    assert token in {row.original_transaction_id
                     for row in listed_today(env.a_admin, BILLING_RETRY_SUBSCRIPTIONS, PRODUCTION)}

    recovered = f"{first}..0"
    env.fake.put_order(APP, recovered, token=token, product_id=SUB, total=11_990, tax=1_914, revenue=8_565,
                       currency="EUR", country="DE", period_start=utcnow(), created=utcnow())
    env.fake.put_subscription(APP, token, expiry="+30d", acknowledged=True,
                              **dict(paid, order_id=recovered))
    env.push_ok("a", subscription_notification(APP, token, Type.RECOVERED), "applied to")
    assert moved(before, billing_figures(env.a_admin, PRODUCTION)) == {}
    assert [billing for billing, _, _ in billing_observations(env, token)] == ["grace", "billing_retry", "settled"]
    assert summary(ledger(env, token)) == [("purchase", first, "11990"), ("renewal", recovered, "11990")]

