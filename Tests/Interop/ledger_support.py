"""Reading the revenue ledger behind the server's back, with the README's column names, as an analyst would (the
server's SQLite file, or its PostgreSQL schema). Not a test module: test_*ledger*.py import from it."""

from __future__ import annotations

from conftest import query_database

COLUMNS = ("kind, direction, transaction_id, amount_milliunits, tax_milliunits, proceeds_milliunits, currency, "
           "country, offer_kind, environment, entitlement_ids, product_id, period_start, period_end, occurred_at, "
           "customer_id, store")


def ledger_rows(env, original: str) -> list[dict[str, str]]:
    """The rows of one purchase (its original transaction ID: Apple's, Google's purchase token, Stripe's
    subscription or payment intent), by time; NULL reads as ""."""
    rows = query_database(
        env.server.config.parent,
        f"SELECT {COLUMNS} FROM revenue_ledger WHERE original_transaction_id = '{original}' "
        "ORDER BY occurred_at, direction")
    names = [name.strip() for name in COLUMNS.split(",")]
    return [dict(zip(names, row)) for row in rows]


def summary(rows) -> list[tuple[str, str, str]]:
    """Each row's kind, transaction ID and amount."""
    return [(row["kind"], row["transaction_id"], row["amount_milliunits"]) for row in rows]


# The grace period and billing retry metrics (README, "Metrics"), and the environments.
GRACE_PERIOD_SUBSCRIPTIONS, BILLING_RETRY_SUBSCRIPTIONS, GRACE_PERIOD_MRR, BILLING_RETRY_MRR = 16, 17, 18, 19
PRODUCTION, SANDBOX = 1, 2


def billing_observations(env, original: str) -> list[tuple[str, str, str]]:
    """What `billing_observations` holds about one subscription, in time order: (billing, amount, currency)."""
    return [tuple(row) for row in query_database(
        env.server.config.parent,
        "SELECT billing, amount_milliunits, currency FROM billing_observations "
        f"WHERE original_transaction_id = '{original}' ORDER BY observed_at, billing")]


def today() -> str:
    from datetime import datetime, timezone
    return datetime.now(timezone.utc).date().isoformat()


def figure_today(admin, metric: int, environment: int) -> dict[str, int]:
    """GetMetrics for today (UTC): each series' value by currency ("" for counts)."""
    request = admin.message("GetMetricsRequest", metric=metric, start_date=today(), end_date=today(),
                            environment=environment)
    return {series.currency: series.points[-1].value for series in admin.call("GetMetrics", request).series}


def listed_today(admin, metric: int, environment: int) -> list:
    """ListMetricRows for today's point of `metric`, every page."""
    rows, token = [], ""
    while True:
        request = admin.message("ListMetricRowsRequest", metric=metric, start_date=today(), end_date=today(),
                                environment=environment, page_size=2, page_token=token)
        page = admin.call("ListMetricRows", request)
        rows += page.rows
        token = page.next_page_token
        if not token:
            return rows


def billing_figures(admin, environment: int) -> dict[str, dict[str, int]]:
    """Today's grace period and billing retry counts and MRRs."""
    return {name: figure_today(admin, metric, environment) for name, metric in [
        ("grace", GRACE_PERIOD_SUBSCRIPTIONS), ("retry", BILLING_RETRY_SUBSCRIPTIONS),
        ("grace_mrr", GRACE_PERIOD_MRR), ("retry_mrr", BILLING_RETRY_MRR)]}


def moved(before: dict, after: dict) -> dict[str, dict[str, int]]:
    """What changed between two `billing_figures`: per figure and currency, the difference (zeros left out)."""
    out = {}
    for name in before.keys() | after.keys():
        old, new = before.get(name, {}), after.get(name, {})
        changes = {currency: new.get(currency, 0) - old.get(currency, 0) for currency in old.keys() | new.keys()}
        changes = {currency: change for currency, change in changes.items() if change}
        if changes:
            out[name] = changes
    return out
