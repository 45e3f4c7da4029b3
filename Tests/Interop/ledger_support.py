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
