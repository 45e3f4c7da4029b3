"""AdminService.GetMetrics through the real interop-server, against an independent recomputation: a seeded workload
of Stripe test-mode purchases (signed webhooks: subscriptions with trials and renewals, one-time checkouts, refunds,
disputes, lapses and reactivations, in two currencies and several countries, over forty days; all Sandbox, so every
query asks for it and production is apart), then every metric over every interval and some
groupings and filters equals what Python adds up from the ledger's rows read behind the server's back (the README's
"Metrics" definitions, written here again, not the server's code). Also `entctl metrics` as a table and CSV.
"""

from __future__ import annotations

import itertools
import random
import signal
import time
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

import fake_stripe as fs
from conftest import REPO_ROOT, query_database
from entctl_support import entctl_ok
from entitlement_support import unique_id
from stripe_support import PRICE_LIFETIME, stripe_tenant, subscription_for
from stripe_support import server, env  # noqa: F401 (fixtures)

DAY = 86_400
SANDBOX = 2
METRICS = {"REVENUE": 1, "REFUNDS": 2, "NET_REVENUE": 3, "PROCEEDS": 4, "NEW_SUBSCRIPTIONS": 5, "TRIAL_STARTS": 6,
           "TRIAL_CONVERSIONS": 7, "RENEWALS": 8, "REFUND_RATE": 9, "ACTIVE_SUBSCRIPTIONS": 10, "ACTIVE_TRIALS": 11,
           "MRR": 12, "CHURN": 13, "REACTIVATIONS": 14, "TRIAL_CONVERSION_RATE": 15,
           "GRACE_PERIOD_SUBSCRIPTIONS": 16, "BILLING_RETRY_SUBSCRIPTIONS": 17, "GRACE_PERIOD_MRR": 18,
           "BILLING_RETRY_MRR": 19}
AMOUNTS = {"REVENUE", "REFUNDS", "NET_REVENUE", "PROCEEDS", "MRR", "GRACE_PERIOD_MRR", "BILLING_RETRY_MRR"}
STATES = {"ACTIVE_SUBSCRIPTIONS": "paid", "ACTIVE_TRIALS": "trial", "MRR": "paid", "GRACE_PERIOD_SUBSCRIPTIONS": "grace",
          "BILLING_RETRY_SUBSCRIPTIONS": "billing_retry", "GRACE_PERIOD_MRR": "grace", "BILLING_RETRY_MRR": "billing_retry"}
# An episode of billing retry no message ends lasts this long from the renewal that failed (the README).
LONGEST_RETRY_MS = 60 * 86_400_000
PAID = {"purchase", "renewal", "trial_conversion", "product_change"}
INTERVALS = {"DAY": 1, "WEEK": 2, "MONTH": 3}
DIMENSIONS = {"STORE": 1, "PRODUCT": 2, "ENTITLEMENT": 3, "COUNTRY": 4, "OFFER_KIND": 5}
COLUMN = {"STORE": "store", "PRODUCT": "product_id", "ENTITLEMENT": "entitlement_ids", "COUNTRY": "country",
          "OFFER_KIND": "offer_kind"}
PAYMENTS = {"purchase", "renewal", "trial_start", "trial_conversion", "product_change", "one_time"}
EVENTS = {"CHURN", "REACTIVATIONS", "TRIAL_CONVERSION_RATE"}
# A trial converts when paid for by its end plus this (the README's window).
CONVERSION_WINDOW_MS = 16 * 86_400_000


def rates_table(shift: str = "0") -> dict[date, Decimal]:
    """EUR in USD every third day of the workload's weeks but ten days in its middle (so some days have none)."""
    first = datetime.fromtimestamp(fs.now() - 47 * DAY, timezone.utc).date()
    return {first + timedelta(days=offset): Decimal("1.05") + Decimal(offset) / 1000 + Decimal(shift)
            for offset in range(0, 56, 3) if not 21 <= offset <= 30}


def write_rates(path: Path, table: dict[date, Decimal]) -> None:
    lines = ["date,currency,rate"] + [f"{day.isoformat()},EUR,{rate}" for day, rate in sorted(table.items())]
    staged = path.with_suffix(".new")
    staged.write_text("\n".join(lines) + "\n")
    staged.replace(path)


@pytest.fixture(scope="module")
def rates_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rates") / "exchange-rates.csv"
    write_rates(path, rates_table())
    return path


@pytest.fixture(scope="module")
def tenants(rates_file):
    tenant = stripe_tenant("metrics-a", grace_days=2)
    tenant.reporting_currency = {"currency": "USD", "exchange_rates_file": str(rates_file)}
    return {"a": tenant, "b": stripe_tenant("metrics-b")}


@pytest.fixture(scope="module")
def workload(server, tenants, protos):
    """Posts the workload once for the module; the days it spans."""
    from stripe_support import StripeEnv
    env = StripeEnv(server, tenants, protos)
    rng = random.Random(40)
    # Failed renewals drawn apart, so the rest of the workload stays what it was; each outcome in turn.
    dunning = random.Random(41)
    outcomes = itertools.cycle(["open", "recovered", "canceled"])
    start = fs.now() - 45 * DAY
    for index in range(30):
        user, begins = unique_id(), start + rng.randrange(0, 20 * DAY)
        currency, country = rng.choice([("usd", "US"), ("eur", "DE"), ("eur", "FR")])
        trial = rng.random() < 0.3
        sub = subscription_for(user, period_start=begins, period_end=begins + 7 * DAY,
                               status="trialing" if trial else "active")
        env.post_ok("a", fs.event("customer.subscription.created", sub, created=begins))
        first = fs.invoice(subscription_id=sub["id"], invoice_id=sub["latest_invoice"], period_start=begins,
                           period_end=begins + 7 * DAY, billing_reason="subscription_create",
                           amount=0 if trial else 999, tax=0 if trial else 159, country=country, currency=currency)
        env.post_ok("a", fs.event("invoice.paid", first, created=begins))
        period = begins + 7 * DAY
        for _ in range(rng.randrange(0, 5)):
            if rng.random() < 0.3:  # lapsed, then paid again (a reactivation; after a trial, maybe too late)
                period += rng.choice([2, 5, 12, 20]) * DAY
            pi = fs.new_id("pi")
            renewal = fs.invoice(subscription_id=sub["id"], period_start=period, period_end=period + 7 * DAY,
                                 payment_intent=pi, amount=rng.choice([999, 1499]), tax=rng.choice([0, 200]),
                                 country=country, currency=currency, discounts=["di_1"] if rng.random() < 0.2 else [])
            env.post_ok("a", fs.event("invoice.paid", renewal, created=period))
            period += 7 * DAY
        if rng.random() < 0.25 and period > begins + 7 * DAY:
            charge = fs.charge(payment_intent=pi, amount=renewal["amount_paid"])
            charge["currency"] = currency
            env.post_ok("a", fs.event("charge.refunded", charge, created=period - DAY))
        # The next renewal fails (past_due: two days' grace, then billing retry); Stripe recovers it, gives up, or
        # is still retrying.
        failed_at = period + dunning.randrange(0, 6) * 3_600
        if dunning.random() < 0.6 and failed_at + 11 * DAY < fs.now():
            def update(status: str, created: int, **fields):
                changed = subscription_for(user, status=status, sub_id=sub["id"], customer=sub["customer"], **fields)
                env.post_ok("a", fs.event("customer.subscription.updated", changed, created=created))
            update("past_due", failed_at, period_start=period, period_end=period + 7 * DAY)
            outcome, later = next(outcomes), failed_at + dunning.randrange(1, 10) * DAY
            if outcome == "recovered":
                paid = fs.invoice(subscription_id=sub["id"], period_start=later, period_end=later + 7 * DAY,
                                  payment_intent=fs.new_id("pi"), amount=999, tax=0, country=country, currency=currency)
                env.post_ok("a", fs.event("invoice.paid", paid, created=later))
            elif outcome == "canceled":
                update("canceled", later, period_start=period, period_end=period + 7 * DAY, ended_at=later)
    for index in range(12):
        user, pi, when = unique_id(), fs.new_id("pi"), start + rng.randrange(0, 40 * DAY)
        session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi,
                                      metadata={"price_id": PRICE_LIFETIME}, created=when,
                                      amount_total=rng.choice([2999, 4999]), tax=rng.choice([0, 499]),
                                      country=rng.choice(["US", "DE"]), currency=rng.choice(["usd", "eur"]))
        env.post_ok("a", fs.event("checkout.session.completed", session, created=when))
        if rng.random() < 0.3:
            dispute = fs.dispute(charge_id=fs.new_id("ch"), payment_intent=pi)
            dispute.update(amount=session["amount_total"], currency=session["currency"])
            env.post_ok("a", fs.event("charge.dispute.created", dispute, created=when + DAY))
    env.close()
    first_day = datetime.fromtimestamp(start - DAY, timezone.utc).date()
    return first_day, first_day + timedelta(days=50)


def ledger(env) -> list[dict]:
    columns = "kind, amount_milliunits, proceeds_milliunits, currency, store, product_id, entitlement_ids, country, " \
              "offer_kind, environment, occurred_at, original_transaction_id, transaction_id, period_start, period_end"
    rows = query_database(env.server.config.parent, f"SELECT {columns} FROM revenue_ledger WHERE tenant_id = 'metrics-a'")
    names = [name.strip() for name in columns.split(",")]
    return [dict(zip(names, row)) for row in rows]


def observations(env) -> list[dict]:
    """`billing_observations` behind the server's back, with the ledger's column names for the payment retried."""
    columns = "billing, observed_at, due_at, grace_until, amount_milliunits, currency, store, product_id, " \
              "entitlement_ids, country, offer_kind, environment, original_transaction_id, transaction_id, period_start"
    rows = query_database(env.server.config.parent,
                          f"SELECT {columns} FROM billing_observations WHERE tenant_id = 'metrics-a'")
    names = [name.strip() for name in columns.split(",")]
    return [dict(zip(names, row), period_end=row[2]) for row in rows]


def retry_intervals(observed) -> list[tuple[str, dict, int, int]]:
    """(state, payment retried, start, end) of every episode, by the README's rule: it begins at its first
    observation's due date and ends at the next settled one (at the start of its payment's period when that is later
    than the episode's) or 60 days on; grace to the grace's end last said (cut short by retrying without access),
    billing retry from there."""
    by_subscription = defaultdict(list)
    for row in observed:
        by_subscription[(row["store"], row["original_transaction_id"])].append(row)
    out = []
    rank = {"settled": 0, "grace": 1, "billing_retry": 2}
    for rows in by_subscription.values():
        episode = None

        def end(at: int):
            start, grace, payment = episode
            ends = min(at, start + LONGEST_RETRY_MS)
            grace_end = min(grace if grace is not None else start, ends)
            if grace_end > start:
                out.append(("grace", payment, start, grace_end))
            if ends > max(start, grace_end):
                out.append(("billing_retry", payment, max(start, grace_end), ends))

        for row in sorted(rows, key=lambda row: (int(row["observed_at"]), int(row["due_at"]), rank[row["billing"]])):
            observed_at = int(row["observed_at"])
            if row["billing"] == "settled":
                if episode:
                    # Paid for a period from the episode's start on: its days were paid for after all.
                    paid_from = int(row["period_start"])
                    end(min(observed_at, paid_from) if paid_from >= episode[0] else observed_at)
                episode = None
                continue
            if episode is None:
                episode = [int(row["due_at"]), None, row]
            if row["billing"] == "grace":
                episode[1] = int(row["grace_until"])
            elif episode[1] is not None:
                episode[1] = min(episode[1], observed_at)
        if episode:
            end(2**63 - 1)
    return out


def period_start(day: date, interval: str, first: date) -> date:
    if interval == "DAY":
        start = day
    elif interval == "WEEK":
        start = day - timedelta(days=day.weekday())
    else:
        start = day.replace(day=1)
    return max(start, first)


def intervals(rows) -> list[tuple[str, dict, int, int]]:
    """(state, paying row, start, end) of every subscription, by the README's rule: each payment (or trial) covers its
    period, cut where the subscription's next one begins and where its transaction was refunded (not reversed)."""
    by_purchase = defaultdict(list)
    for row in rows:
        by_purchase[(row["store"], row["original_transaction_id"])].append(row)
    out = []
    for purchase in by_purchase.values():
        refunds = {}
        reversed_ = {row["transaction_id"] for row in purchase if row["kind"] == "refund_reversal"}
        for row in purchase:
            if row["kind"] in ("refund", "chargeback") and row["transaction_id"] not in reversed_:
                refunds[row["transaction_id"]] = min(refunds.get(row["transaction_id"], 2**63), int(row["occurred_at"]))
        periods = sorted((row for row in purchase if (row["kind"] in PAID or row["kind"] == "trial_start")
                          and row["period_end"] != ""), key=lambda row: (int(row["period_start"]), row["transaction_id"]))
        for index, row in enumerate(periods):
            start, end = int(row["period_start"]), int(row["period_end"])
            if index + 1 < len(periods):
                end = min(end, int(periods[index + 1]["period_start"]))
            end = min(end, refunds.get(row["transaction_id"], end))
            if end > start:
                out.append(("trial" if row["kind"] == "trial_start" else "paid", row, start, end))
    return out


def monthly(row) -> int:
    """RevenueCat's normalisation by the period's length in days (rounded), toward zero."""
    amount = int(row["amount_milliunits"])
    days = (int(row["period_end"]) - int(row["period_start"]) + 43_200_000) // 86_400_000
    trunc = lambda value: int(value)  # noqa: E731 (toward zero for negatives too)
    for low, high, numerator, denominator in [(0, 1, 30, 1), (3, 3, 10, 1), (6, 8, 4, 1), (12, 16, 2, 1),
                                              (27, 33, 1, 1), (58, 62, 1, 2), (88, 95, 1, 3), (179, 185, 1, 6),
                                              (363, 375, 1, 12)]:
        if low <= days <= high:
            return trunc(amount * numerator / denominator) if denominator > 1 else amount * numerator
    return trunc(amount * 28 / days)


def expected_state(rows, metric: str, first: date, last: date, interval: str, group_by=(), filters=None,
                   observed=()) -> dict:
    """The state metrics: at each period's last day, the intervals that began on or before it and end after it."""
    filters = filters or {}
    rows = [row for row in rows if row["environment"] == "Sandbox"]
    spans = intervals(rows) + retry_intervals([row for row in observed if row["environment"] == "Sandbox"])
    periods = sorted({period_start(first + timedelta(days=offset), interval, first)
                      for offset in range((last - first).days + 1)})
    out: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for state, row, start, end in spans:
        if state != STATES[metric]:
            continue
        if any((value not in row["entitlement_ids"].split(" ")) if name == "ENTITLEMENT" else row[COLUMN[name]] != value
               for name, value in filters.items()):
            continue
        start_day, end_day = start // 86_400_000, end // 86_400_000
        groups = [[]]
        for name in group_by:
            values = row["entitlement_ids"].split(" ") if name == "ENTITLEMENT" else [row[COLUMN[name]]]
            groups = [group + [value_] for group in groups for value_ in values]
        for index, begins in enumerate(periods):
            ends = periods[index + 1] - timedelta(days=1) if index + 1 < len(periods) else last
            day = (ends - date(1970, 1, 1)).days
            if start_day <= day < end_day:
                value = monthly(row) if metric in AMOUNTS else 1
                for group in groups:
                    out[tuple(group) + (row["currency"] if metric in AMOUNTS else "",)][begins][0] += value
    return out


def paid_days(rows) -> dict:
    """{(store, original transaction): {UTC day paid for at its end: the row paying}}."""
    out: dict = defaultdict(dict)
    for state, row, start, end in intervals(rows):
        if state == "paid":
            for day in range(start // 86_400_000, end // 86_400_000):
                out[(row["store"], row["original_transaction_id"])][day] = row
    return out


def expected_events(rows, metric: str, first: date, last: date, interval: str, group_by=()) -> dict:
    """Churn (paid at the end of the day before a period and not at the end of its last day, over those paid at its
    start), reactivations (a paid day after an unpaid one, once paid before) and trial conversion (trials started in a
    period, paid for by the trial's end plus the window, over those started), by subscription days; grouped by the
    row's country (one per subscription here)."""
    assert set(group_by) <= {"COUNTRY"}
    rows = [row for row in rows if row["environment"] == "Sandbox"]
    epoch = date(1970, 1, 1)
    starts = sorted({period_start(first + timedelta(days=offset), interval, first)
                     for offset in range((last - first).days + 1)})
    bounds = [((begins - epoch).days, ((starts[index + 1] - epoch).days - 1) if index + 1 < len(starts)
               else (last - epoch).days) for index, begins in enumerate(starts)]
    out: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))

    def add(row, day: int, value: int, denominator: int):
        for index, (begins, ends) in enumerate(bounds):
            if begins <= day <= ends:
                point = out[tuple(row["country"] for _ in group_by) + ("",)][starts[index]]
                point[0] += value
                point[1] += denominator

    if metric == "TRIAL_CONVERSION_RATE":
        for trial in (row for row in rows if row["kind"] == "trial_start"):
            converted = trial["period_end"] != "" and any(
                row["kind"] in PAID and row["period_end"] != "" and row["store"] == trial["store"]
                and row["original_transaction_id"] == trial["original_transaction_id"]
                and int(trial["period_start"]) <= int(row["period_start"])
                <= int(trial["period_end"]) + CONVERSION_WINDOW_MS for row in rows)
            add(trial, int(trial["occurred_at"]) // 86_400_000, int(converted), 1)
        return out
    for days in paid_days(rows).values():
        if metric == "REACTIVATIONS":
            for day, row in days.items():
                if day - 1 not in days and day > min(days):
                    add(row, day, 1, 0)
            continue
        for begins, ends in bounds:
            if begins - 1 in days:
                add(days[begins - 1], begins, int(ends not in days), 1)
    return out


def expected(rows, metric: str, first: date, last: date, interval: str, group_by=(), filters=None,
             observed=()) -> dict:
    """{(group values..., currency): {period start: (value, denominator)}} by the README's definitions."""
    if metric in STATES:
        return expected_state(rows, metric, first, last, interval, group_by, filters, observed)
    if metric in EVENTS:
        assert not filters
        return expected_events(rows, metric, first, last, interval, group_by)
    filters = filters or {}
    out: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in rows:
        day = date(1970, 1, 1) + timedelta(days=int(row["occurred_at"]) // 86_400_000)
        if row["environment"] != "Sandbox" or not first <= day <= last:
            continue
        if any((value not in row["entitlement_ids"].split(" ")) if name == "ENTITLEMENT" else row[COLUMN[name]] != value
               for name, value in filters.items()):
            continue
        kind, amount, movements = row["kind"], int(row["amount_milliunits"]), 1
        value = denominator = 0
        if metric == "REVENUE":
            value = amount if kind in PAYMENTS else 0
        elif metric == "REFUNDS":
            value = 0 if kind in PAYMENTS else amount
        elif metric == "NET_REVENUE":
            value = amount
        elif metric == "PROCEEDS":
            value = int(row["proceeds_milliunits"])
        elif metric == "NEW_SUBSCRIPTIONS":
            value = movements if kind in ("purchase", "trial_conversion") else 0
        elif metric == "TRIAL_STARTS":
            value = movements if kind == "trial_start" else 0
        elif metric == "TRIAL_CONVERSIONS":
            value = movements if kind == "trial_conversion" else 0
        elif metric == "RENEWALS":
            value = movements if kind == "renewal" else 0
        elif metric == "REFUND_RATE":
            value = {"refund": 1, "chargeback": 1, "refund_reversal": -1}.get(kind, 0)
            denominator = 1 if kind in PAYMENTS - {"trial_start"} else 0
        if value == 0 and denominator == 0:
            continue
        groups = [[]]
        for name in group_by:
            values = row["entitlement_ids"].split(" ") if name == "ENTITLEMENT" else [row[COLUMN[name]]]
            groups = [group + [value_] for group in groups for value_ in (values if values != [""] else [""])]
        currency = row["currency"] if metric in AMOUNTS else ""
        for group in groups:
            point = out[tuple(group) + (currency,)][period_start(day, interval, first)]
            point[0] += value
            point[1] += denominator
    return out


def served(env, metric: str, first: date, last: date, interval: str, group_by=(), filters=None) -> dict:
    filters = filters or {}
    request = env.a_admin.message(
        "GetMetricsRequest", metric=METRICS[metric], start_date=first.isoformat(), end_date=last.isoformat(),
        interval=INTERVALS[interval], group_by=[DIMENSIONS[name] for name in group_by], environment=SANDBOX)
    field = {"STORE": "store", "PRODUCT": "product_id", "ENTITLEMENT": "entitlement_id", "COUNTRY": "country",
             "OFFER_KIND": "offer_kind"}
    for name, value in filters.items():
        setattr(request.filter, field[name], value)
    response = env.a_admin.call("GetMetrics", request)
    assert response.metric == METRICS[metric]
    out = {}
    for series in response.series:
        assert [group.dimension for group in series.group] == [DIMENSIONS[name] for name in group_by]
        points = {}
        starts = [point.start_date for point in series.points]
        assert starts == sorted(starts) and starts[0] == first.isoformat(), starts
        for point in series.points:
            if point.value or point.denominator:
                points[date.fromisoformat(point.start_date)] = [point.value, point.denominator]
        out[tuple(group.value for group in series.group) + (series.currency,)] = points
    return out


def normalised(table: dict) -> dict:
    return {key: {day: list(point) for day, point in points.items() if point != [0, 0]}
            for key, points in table.items() if any(point != [0, 0] for point in points.values())}


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.parametrize("interval", list(INTERVALS))
def test_every_metric_over_every_interval_is_the_ledgers_sum(env, workload, metric, interval):
    first, last = workload
    rows = ledger(env)
    kinds = {row["kind"] for row in rows}
    assert len(rows) > 80 and {"renewal", "trial_conversion", "refund", "chargeback", "one_time"} <= kinds, kinds
    got = normalised(served(env, metric, first, last, interval))
    # A grace period lasts two days here: no month of the workload ends in one.
    assert got or (metric.startswith("GRACE_PERIOD") and interval == "MONTH"), "every metric has figures"
    assert got == normalised(expected(rows, metric, first, last, interval, observed=observations(env)))


@pytest.mark.parametrize("group_by, filters", [
    (("STORE", "COUNTRY"), {}),
    (("ENTITLEMENT",), {}),
    (("OFFER_KIND", "PRODUCT"), {"COUNTRY": "DE"}),
    ((), {"ENTITLEMENT": "premium"}),
    (("COUNTRY",), {"OFFER_KIND": "none", "STORE": "stripe"}),
])
def test_groups_and_filters_are_the_ledgers_sums(env, workload, group_by, filters):
    first, last = workload
    rows = ledger(env)
    for metric in ("NET_REVENUE", "NEW_SUBSCRIPTIONS", "REFUND_RATE", "ACTIVE_SUBSCRIPTIONS", "MRR",
                   "BILLING_RETRY_SUBSCRIPTIONS", "GRACE_PERIOD_MRR"):
        assert normalised(served(env, metric, first, last, "WEEK", group_by, filters)) == normalised(
            expected(rows, metric, first, last, "WEEK", group_by, filters, observations(env))), metric


@pytest.mark.parametrize("metric", sorted(EVENTS))
def test_subscription_events_grouped_by_country_are_the_ledgers(env, workload, metric):
    first, last = workload
    rows = ledger(env)
    for interval in INTERVALS:
        got = normalised(served(env, metric, first, last, interval, ("COUNTRY",)))
        assert got and got == normalised(expected(rows, metric, first, last, interval, ("COUNTRY",))), interval
        if metric != "REACTIVATIONS":  # a rate that is neither nothing nor everything
            points = [point for points in got.values() for point in points.values()]
            assert any(value < denominator for value, denominator in points) and any(value for value, _ in points)


@pytest.mark.parametrize("metric", ["CHURN", "REACTIVATIONS", "TRIAL_CONVERSION_RATE"])
def test_the_rows_behind_subscription_events_are_each_subscriptions(env, workload, metric):
    """Each churned subscription's last payment, each reactivation's first, each converted trial's start."""
    first, last = workload
    request = env.a_admin.message("GetMetricsRequest", metric=METRICS[metric], start_date=first.isoformat(),
                                  end_date=last.isoformat(), interval=INTERVALS["WEEK"], environment=SANDBOX)
    days = paid_days([row for row in ledger(env) if row["environment"] == "Sandbox"])
    epoch, checked = date(1970, 1, 1), 0
    for series in env.a_admin.call("GetMetrics", request).series:
        for index, point in enumerate(series.points):
            start = date.fromisoformat(point.start_date)
            following = series.points[index + 1].start_date if index + 1 < len(series.points) else None
            end = date.fromisoformat(following) - timedelta(days=1) if following else last
            listed = all_rows(env, metric, start, end, [], "")
            assert len(listed) == point.value, (metric, start)
            subscriptions = {(row.store, row.original_transaction_id) for row in listed}
            assert len(subscriptions) == len(listed) or metric == "REACTIVATIONS"
            for row in listed:
                paid = days.get((row.store, row.original_transaction_id), {})
                if metric == "CHURN":
                    assert (start - epoch).days - 1 in paid and (end - epoch).days not in paid
                    assert row.kind in PAID
                elif metric == "REACTIVATIONS":
                    assert row.kind in PAID
                else:
                    assert row.kind == "trial_start"
            checked += bool(listed)
    assert checked >= 2


def test_a_range_is_checked_and_sandbox_is_apart(env, workload):
    first, last = workload
    api = env.a_admin
    for start, end in [(last.isoformat(), first.isoformat()), ("2026-02-30", "2026-03-01"), ("2026-1-1", "2026-01-02"),
                       ("1990-01-01", "2026-01-01")]:
        error = api.error("GetMetrics", api.message("GetMetricsRequest", metric=1, start_date=start, end_date=end))
        assert error.code().name == "INVALID_ARGUMENT", (start, end)
    unknown = api.message("GetMetricsRequest", metric=99, start_date=first.isoformat(), end_date=last.isoformat())
    assert api.error("GetMetrics", unknown).code().name == "INVALID_ARGUMENT"
    # The workload is test-mode Stripe (Sandbox): production, the default, is apart.
    production = api.message("GetMetricsRequest", metric=1, start_date=first.isoformat(), end_date=last.isoformat())
    assert list(api.call("GetMetrics", production).series) == []


def test_entctl_prints_a_table_and_csv(env, workload):
    first, last = workload
    base = ["--addr", f"127.0.0.1:{env.server.port}", "--key", env.tenants["a"].secret_key, "metrics", "revenue",
            "--from", first.isoformat(), "--to", last.isoformat(), "--interval", "month", "--group-by", "country",
            "--environment", "sandbox"]
    table = entctl_ok(*base)
    lines = entctl_ok(*base, "--csv").splitlines()
    assert lines[0] == "start_date,country,currency,value,denominator"
    rows = ledger(env)
    totals = expected(rows, "REVENUE", first, last, "MONTH", ("COUNTRY",))
    for line in lines[1:]:
        start, country, currency, value, denominator = line.split(",")
        want = totals.get((country, currency), {}).get(date.fromisoformat(start), [0, 0])[0]
        assert value == f"{want // 1000}.{want % 1000:03d}" and denominator == "0", line
        assert f"{start}  {country}  {currency}  {value}" in table or not country


def all_rows(env, metric: str, start: date, end: date, group: list, currency: str, filters=None) -> list:
    api, rows, token = env.a_admin, [], ""
    while True:
        request = api.message("ListMetricRowsRequest", metric=METRICS[metric], start_date=start.isoformat(),
                              end_date=end.isoformat(), environment=SANDBOX, currency=currency, page_size=7,
                              page_token=token)
        for name, value in group:
            request.group.add(dimension=DIMENSIONS[name], value=value)
        for name, value in (filters or {}).items():
            setattr(request.filter, {"STORE": "store", "COUNTRY": "country"}[name], value)
        page = api.call("ListMetricRows", request)
        assert len(page.rows) <= 7
        rows += page.rows
        token = page.next_page_token
        if not token:
            return rows


@pytest.mark.parametrize("metric", ["ACTIVE_SUBSCRIPTIONS", "ACTIVE_TRIALS", "MRR"])
def test_the_rows_behind_a_state_are_the_periods_that_hold_it(env, workload, metric):
    first, last = workload
    request = env.a_admin.message("GetMetricsRequest", metric=METRICS[metric], start_date=first.isoformat(),
                                  end_date=last.isoformat(), interval=INTERVALS["WEEK"], environment=SANDBOX)
    checked = 0
    for series in env.a_admin.call("GetMetrics", request).series:
        for index, point in enumerate(series.points):
            following = series.points[index + 1].start_date if index + 1 < len(series.points) else None
            end = date.fromisoformat(following) - timedelta(days=1) if following else last
            rows = all_rows(env, metric, date.fromisoformat(point.start_date), end, [], series.currency)
            assert len({(row.store, row.original_transaction_id) for row in rows}) == len(rows), "one per subscription"
            times = [(row.occurred_at.seconds, row.occurred_at.nanos) for row in rows]
            assert times == sorted(times, reverse=True), "newest payment first"
            if metric == "MRR":
                assert sum(monthly({"amount_milliunits": row.amount_milliunits,
                                    "period_start": row.period_start.ToMilliseconds(),
                                    "period_end": row.period_end.ToMilliseconds()}) for row in rows) == point.value
            else:
                assert len(rows) == point.value
            checked += bool(rows)
    assert checked > 2


@pytest.mark.parametrize("metric", ["REVENUE", "REFUND_RATE", "NET_REVENUE"])
def test_the_rows_behind_a_point_are_what_it_counts(env, workload, metric):
    first, last = workload
    ledger_rows = ledger(env)
    request = env.a_admin.message("GetMetricsRequest", metric=METRICS[metric], start_date=first.isoformat(),
                                  end_date=last.isoformat(), interval=INTERVALS["WEEK"],
                                  group_by=[DIMENSIONS["COUNTRY"]], environment=SANDBOX)
    response = env.a_admin.call("GetMetrics", request)
    checked = 0
    for series in response.series:
        for index, point in enumerate(series.points):
            if not point.value and not point.denominator:
                continue
            start = date.fromisoformat(point.start_date)
            following = series.points[index + 1].start_date if index + 1 < len(series.points) else None
            end = date.fromisoformat(following) - timedelta(days=1) if following else last
            country = series.group[0].value
            rows = all_rows(env, metric, start, end, [("COUNTRY", country)], series.currency)
            times = [(row.occurred_at.seconds, row.occurred_at.nanos) for row in rows]
            assert times == sorted(times)
            if metric == "REFUND_RATE":
                refunds = sum({"refund": 1, "chargeback": 1, "refund_reversal": -1}.get(row.kind, 0) for row in rows)
                assert (refunds, sum(row.direction == "payment" for row in rows)) == (point.value, point.denominator)
            else:
                assert sum(row.amount_milliunits for row in rows) == point.value
            for row in rows:
                assert row.country == country and row.app_user_id, "each Stripe purchase here has a buyer"
            # The same rows Python selects from the ledger.
            want = sorted((r["kind"], r["amount_milliunits"]) for r in ledger_rows
                          if r["country"] == country and r["environment"] == "Sandbox"
                          and (not series.currency or r["currency"] == series.currency)
                          and start <= date(1970, 1, 1) + timedelta(days=int(r["occurred_at"]) // 86_400_000) <= end
                          and (metric != "REVENUE" or r["kind"] in PAYMENTS)
                          and (metric != "REFUND_RATE" or r["kind"] != "trial_start"))
            assert sorted((row.kind, str(row.amount_milliunits)) for row in rows) == want
            checked += 1
    assert checked > 5


def readme_query(index: int) -> str:
    """The README's `index`th SQL query of its "Metrics" (0: the state metrics, 1: churn), as written."""
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme[readme.index("## Metrics"):readme.index("## App Store purchases")]
    return section.split("```sql\n")[1 + index].split("```")[0]


def test_the_readmes_query_runs_as_written_and_agrees_with_get_metrics(env, workload):
    """The analyst's query of the README, with this test's tenant, environment and days, on this database."""
    first, last = workload
    query = readme_query(0)
    assert query.count("'demo'") == 1 and query.count("'Production'") == 1 and query.count("1796169600000") == 2
    metrics = {name: env.a_admin.call("GetMetrics", env.a_admin.message(
        "GetMetricsRequest", metric=METRICS[name], start_date=first.isoformat(), end_date=last.isoformat(),
        environment=SANDBOX)) for name in ("ACTIVE_SUBSCRIPTIONS", "ACTIVE_TRIALS", "MRR")}
    checked = 0
    for offset in range(0, (last - first).days + 1, 3):
        day = first + timedelta(days=offset)
        midnight = (day - date(1970, 1, 1)).days * 86_400_000 + 86_400_000
        sql = query.replace("'demo'", "'metrics-a'").replace("'Production'", "'Sandbox'").replace(
            "1796169600000", str(midnight))
        rows = query_database(env.server.config.parent, sql)
        by_currency = {currency: (int(subscriptions), int(trials), int(mrr)) for currency, subscriptions, trials, mrr in rows}

        def served(name, currency=""):
            return sum(series.points[offset].value for series in metrics[name].series
                       if not currency or series.currency == currency)

        assert sum(value[0] for value in by_currency.values()) == served("ACTIVE_SUBSCRIPTIONS"), day
        assert sum(value[1] for value in by_currency.values()) == served("ACTIVE_TRIALS"), day
        served_mrr = {series.currency for series in metrics["MRR"].series if series.points[offset].value}
        assert served_mrr <= set(by_currency), day
        for currency, (_, _, mrr) in by_currency.items():
            assert mrr == served("MRR", currency), (day, currency)
        checked += bool(rows)
    assert checked > 5


def test_the_readmes_churn_query_runs_as_written_and_agrees_with_get_metrics(env, workload):
    """The README's churn of a month, run for each week (and the range's cut first one) of this workload."""
    first, last = workload
    query = readme_query(1)
    assert query.count("'demo'") == 1 and query.count("'Production'") == 1
    assert query.count("1793491200000") == 2 and query.count("1796083200000") == 2
    response = env.a_admin.call("GetMetrics", env.a_admin.message(
        "GetMetricsRequest", metric=METRICS["CHURN"], start_date=first.isoformat(), end_date=last.isoformat(),
        interval=INTERVALS["WEEK"], environment=SANDBOX))
    [series] = response.series
    churned = 0
    for index, point in enumerate(series.points):
        start = date.fromisoformat(point.start_date)
        following = series.points[index + 1].start_date if index + 1 < len(series.points) else None
        end = date.fromisoformat(following) if following else last + timedelta(days=1)
        midnight = lambda day: str((day - date(1970, 1, 1)).days * 86_400_000)  # noqa: E731
        sql = query.replace("'demo'", "'metrics-a'").replace("'Production'", "'Sandbox'").replace(
            "1793491200000", midnight(start)).replace("1796083200000", midnight(end))
        [(at_start, lost)] = query_database(env.server.config.parent, sql)
        assert (int(lost), int(at_start)) == (point.value, point.denominator), start
        churned += int(lost)
    assert churned > 2


def rate_on(table: dict[date, Decimal], currency: str, day: date):
    """The README's rule: the latest rate on or before the day, at most 6 days older; (rate date, rate) or None."""
    if currency == "USD":
        return day, Decimal(1)
    dated = [rate_day for rate_day in table if rate_day <= day and (day - rate_day).days < 7]
    return (max(dated), table[max(dated)]) if dated else None


def expected_conversion(rows, table, metric: str, first: date, last: date, interval: str) -> dict:
    """{currency: {period start: (converted or None, {rate dates}, [missing dates])}} from each day's figure."""
    daily = expected(rows, metric, first, last, "DAY")
    out: dict = {}
    for (currency,), days in daily.items():
        points: dict = {}
        for offset in range((last - first).days + 1):
            day = first + timedelta(days=offset)
            start = period_start(day, interval, first)
            value, rates, missing = points.get(start, (0, set(), []))
            if metric in STATES:  # a state converts at its period's last day
                following = [d for d in (first + timedelta(days=o) for o in range((last - first).days + 1))
                             if period_start(d, interval, first) == start]
                if day != following[-1]:
                    points[start] = (value, rates, missing)
                    continue
            amount = days.get(day, [0, 0])[0]
            if amount:
                found = rate_on(table, currency, day)
                if found is None:
                    missing.append(day.isoformat())
                    value = None
                else:
                    rates.add(found[0].isoformat())
                    if value is not None:
                        value += Decimal(amount) * found[1]
            points[start] = (value, rates, missing)
        # Added up exactly, rounded once, half away from zero.
        out[currency] = {start: (None if value is None else int(Decimal(value).quantize(Decimal(1), ROUND_HALF_UP)),
                                 rates, missing) for start, (value, rates, missing) in points.items()}
    return out


def served_conversion(env, metric: str, first: date, last: date, interval: str) -> dict:
    response = env.a_admin.call("GetMetrics", env.a_admin.message(
        "GetMetricsRequest", metric=METRICS[metric], start_date=first.isoformat(), end_date=last.isoformat(),
        interval=INTERVALS[interval], environment=SANDBOX, in_reporting_currency=True))
    assert response.reporting_currency == "USD"
    out = {}
    for series in response.series:
        out[series.currency] = {
            date.fromisoformat(point.start_date): (
                point.converted_value if point.HasField("converted_value") else None,
                {rate.date for rate in point.rates}, list(point.missing_rate_dates))
            for point in series.points}
        for point in series.points:
            for rate in point.rates:
                if series.currency == "EUR":
                    assert Decimal(rate.rate) == rates_now[date.fromisoformat(rate.date)], rate
    return out


rates_now: dict = {}


@pytest.mark.parametrize("metric", ["REVENUE", "NET_REVENUE", "PROCEEDS", "MRR"])
def test_amounts_convert_at_each_days_rate_and_a_missing_rate_is_reported(env, workload, metric):
    first, last = workload
    rates_now.clear()
    rates_now.update(rates_table())
    rows = ledger(env)
    saw_missing = False
    for interval in INTERVALS:
        got = served_conversion(env, metric, first, last, interval)
        want = expected_conversion(rows, rates_now, metric, first, last, interval)
        for currency, points in got.items():
            for start, (value, rates, missing) in points.items():
                want_value, want_rates, want_missing = want[currency].get(start, (0, set(), []))
                assert (value, rates, missing) == (want_value, want_rates, want_missing), (currency, interval, start)
                saw_missing |= bool(missing)
        assert set(got) == {currency for currency, points in want.items()
                            if any(point != (0, set(), []) for point in points.values())} or metric == "MRR"
    assert saw_missing, "the workload has EUR amounts on days without a rate"


def test_a_reload_reads_the_rates_again_and_a_tenant_without_a_reporting_currency_is_told(env, workload, rates_file):
    first, last = workload

    def reload(table):
        reloads = env.server.log().count("reloaded tenants")
        write_rates(rates_file, table)
        env.server.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while env.server.log().count("reloaded tenants") == reloads:
            assert time.monotonic() < deadline, "the tenants file was not reloaded"
            time.sleep(0.05)

    reload(rates_table(shift="0.5"))
    try:
        rates_now.clear()
        rates_now.update(rates_table(shift="0.5"))
        got = served_conversion(env, "REVENUE", first, last, "MONTH")
        assert got["EUR"] and got == {currency: points for currency, points in expected_conversion(
            ledger(env), rates_now, "REVENUE", first, last, "MONTH").items() if currency in got}
    finally:
        reload(rates_table())
    other = env.b_admin
    error = other.error("GetMetrics", other.message(
        "GetMetricsRequest", metric=METRICS["REVENUE"], start_date=first.isoformat(), end_date=last.isoformat(),
        in_reporting_currency=True))
    assert error.code().name == "FAILED_PRECONDITION" and "reporting_currency" in error.details()
