"""A Stripe webhook when the server cannot write its database: answered 503 with nothing applied, so Stripe delivers
it again, and the redelivery applies it; likewise a redemption is UNAVAILABLE and its code stays unused. The
database is made unwritable the way another writer would: the test holds SQLite's exclusive lock on the server's own
file (WAL mode lets the server's reads go on) for longer than the server's 5 s busy timeout.
"""

from __future__ import annotations

import sqlite3
import time

import pytest

import fake_stripe as fs
from entitlement_support import unique_id
from stripe_support import PRICE_MONTHLY, entitlement_ids, has_customer, stripe_tenant
from stripe_support import server, env  # noqa: F401 (fixtures)
from conftest import SQLITE_ONLY

pytestmark = SQLITE_ONLY

BUSY_TIMEOUT = 5.0


@pytest.fixture(scope="module")
def tenants():
    return {"a": stripe_tenant("st-a")}


def test_a_webhook_that_cannot_be_stored_is_503_and_its_redelivery_applies(env, server):
    user = unique_id()
    evt = fs.event("customer.subscription.created",
                   fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    database = server.config.parent / "entitlements.db"
    assert database.exists()
    lock = sqlite3.connect(database, isolation_level=None, timeout=10)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        start = time.monotonic()
        status, text = env.post("a", evt)
        waited = time.monotonic() - start
    finally:
        lock.rollback()
        lock.close()
    assert status == 503, text
    assert waited >= BUSY_TIMEOUT - 0.5, f"answered after {waited:.1f}s: {text}"
    assert not has_customer(env.a_admin, user)
    env.post_ok("a", evt, "applied to", user)
    assert entitlement_ids(env.a.sync(user)) == ["pro"]


def test_a_redemption_that_cannot_be_stored_is_unavailable_and_leaves_the_code_unused(env, server):
    sub = fs.subscription(price_id=PRICE_MONTHLY)
    env.post_ok("a", fs.event("customer.subscription.created", sub), "recorded")
    code = env.a_admin.redemption_code(sub["id"]).code
    user = unique_id()
    database = server.config.parent / "entitlements.db"
    lock = sqlite3.connect(database, isolation_level=None, timeout=10)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        errors = [env.a.redeem_error(user, code)]
    finally:
        lock.rollback()
        lock.close()
    assert [e.code().name for e in errors] == ["UNAVAILABLE"], [e.details() for e in errors]
    env.a.redeem(user, code)
    assert entitlement_ids(env.a.sync(user)) == ["pro"]
