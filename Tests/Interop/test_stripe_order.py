"""Stripe events out of order and who owns what they name, through the real interop-server (tenant without an API
key, so each event's snapshot is applied as of its `created`): the newest `created` wins, within one second the later
stage of a subscription's life; a named identified user is created, a named anonymous ID nobody has and a missing
name leave the purchase unowned (for a redemption code).
"""

from __future__ import annotations

import pytest

import fake_stripe as fs
from entitlement_support import unique_id
from stripe_support import (
    entitlement_ids, has_customer, stripe_tenant, subscription_for, web_transaction,
)
from stripe_support import server, env  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def tenants():
    return {"a": stripe_tenant("ord-a")}


def test_an_older_update_after_a_newer_one_changes_nothing(env):
    user = unique_id()
    sub = subscription_for(user)
    t = fs.now()
    env.post_ok("a", fs.event("customer.subscription.updated", dict(sub, status="canceled", ended_at=t), created=t),
                "applied to", user)
    before = env.a.sync(user)
    env.post_ok("a", fs.event("customer.subscription.updated", sub, created=t - 5))
    after = env.a.sync(user)
    assert entitlement_ids(after) == [] and after.version == before.version


def test_updated_active_before_created_incomplete_in_the_same_second_ends_active(env):
    user = unique_id()
    sub = subscription_for(user)
    t = fs.now()
    env.post_ok("a", fs.event("customer.subscription.updated", sub, created=t), "applied to", user)
    env.post_ok("a", fs.event("customer.subscription.created", dict(sub, status="incomplete"), created=t))
    assert entitlement_ids(env.a.sync(user)) == ["pro"]


@pytest.mark.parametrize("canceled_first", [True, False])
def test_canceled_wins_over_active_in_the_same_second_in_either_order(env, canceled_first):
    user = unique_id()
    sub = subscription_for(user)
    t = fs.now()
    active = fs.event("customer.subscription.updated", sub, created=t)
    canceled = fs.event("customer.subscription.deleted", dict(sub, status="canceled", ended_at=t), created=t)
    for evt in ([canceled, active] if canceled_first else [active, canceled]):
        env.post_ok("a", evt)
    assert entitlement_ids(env.a.sync(user)) == []


def test_the_whole_lifecycle_in_order(env):
    user = unique_id()
    t = fs.now() - 100
    sub = subscription_for(None)
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"],
                                  customer=sub["customer"])
    steps = [
        ("customer.subscription.created", dict(sub, status="incomplete"), []),
        ("checkout.session.completed", session, []),
        ("customer.subscription.updated", sub, ["pro"]),
        ("invoice.paid", fs.invoice(subscription_id=sub["id"], period_end=fs.now() + 60 * fs.DAY), ["pro"]),
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
    env.post_ok("a", fs.event("customer.subscription.created", subscription_for(user)), "applied to", user)
    assert has_customer(env.a_admin, user)


@pytest.mark.parametrize("name", ["anonymous", "none", "invalid"])
def test_an_anonymous_or_missing_name_leaves_the_purchase_unowned(env, name):
    user = {"anonymous": f"$anon:{unique_id()}", "none": None, "invalid": "null"}[name]
    sub = subscription_for(user)
    text = env.post_ok("a", fs.event("customer.subscription.created", sub), "recorded")
    assert "applied" not in text
    if name == "anonymous":
        assert not has_customer(env.a_admin, user)
    # Held all the same: a code can be issued for it.
    assert env.a_admin.redemption_code(sub["id"]).transaction.original_transaction_id == sub["id"]


def test_an_anonymous_id_a_customer_already_has_owns_the_purchase(env):
    anonymous = f"$anon:{unique_id()}"
    env.a.identify(anonymous)
    env.post_ok("a", fs.event("customer.subscription.created", subscription_for(anonymous)), "applied to", anonymous)
    assert entitlement_ids(env.a.sync(anonymous)) == ["pro"]
