"""Stripe events for a tenant with an API key (`api_key_file` + `api_base_url` at the fake Stripe): every event is
read as "this object changed", the object is fetched from Stripe's API and applied as it is now, whatever the
event's snapshot said. When Stripe's API fails (after the outbound client's retries) the webhook answers 503 with
nothing applied, so Stripe's redelivery applies it later.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fake_stripe as fs
from conftest import query_database
from entitlement_support import unique_id
from stripe_support import (
    LIFETIME, PRICE_LIFETIME, PRICE_MONTHLY, StripeEnv, entitlement_ids, has_customer, stripe_tenant, web_transaction,
)
from stripe_support import server  # noqa: F401 (fixtures)

# The outbound client's default: 4 attempts in all.
ATTEMPTS = 4


@pytest.fixture(scope="module")
def fake():
    with fs.FakeStripe() as fake:
        yield fake


@pytest.fixture(scope="module")
def tenants(fake, tmp_path_factory):
    directory = tmp_path_factory.mktemp("stripe-key")
    # Its key file is removed after the tenants file is loaded, before its first event reads it.
    bad = stripe_tenant("api-bad-key", api=fake, key_file=directory / "bad-key.txt")
    # A key Stripe does not know (rolled, or another account's): 401 from the fake.
    wrong = stripe_tenant("api-wrong-key", api=fake, key_file=directory / "wrong-key.txt")
    (directory / "wrong-key.txt").write_text(fs.new_api_key())
    return {"k": stripe_tenant("api-a", api=fake, key_file=directory / "stripe-api-key.txt"), "bad": bad,
            "wrong": wrong}


@pytest.fixture
def env(server, tenants, protos, fake):
    environment = StripeEnv(server, tenants, protos, fake)
    yield environment
    fake.clear()
    environment.close()


def test_a_stale_snapshot_is_applied_as_stripe_shows_the_object_now(env, fake):
    user = unique_id()
    sub = fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user})
    fake.put_subscription(sub)
    env.post_ok("k", fs.event("customer.subscription.created", dict(sub, status="incomplete")), "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == ["pro"]
    (request,) = fake.requests_to(f"/v1/subscriptions/{sub['id']}")
    assert request.method == "GET"
    assert request.header("authorization") == f"Bearer {fake.api_key}"
    assert request.header("stripe-version") == fs.API_VERSION

    # Stripe now says canceled: a delivery whose snapshot still says active revokes.
    fake.put_subscription(dict(sub, status="canceled", ended_at=fs.now()))
    env.post_ok("k", fs.event("customer.subscription.updated", sub), "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == []


def test_a_one_time_checkout_takes_its_product_from_the_expanded_line_items(env, fake):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi)
    fake.put_session(session, fs.line_items(fs.price(PRICE_LIFETIME, recurring=False)))
    env.post_ok("k", fs.event("checkout.session.completed", session), "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == ["premium"]
    assert web_transaction(env.k_admin, user, pi).product_id == LIFETIME
    (request,) = fake.requests_to(f"/v1/checkout/sessions/{session['id']}")
    assert request.query.get("expand[]") == ["line_items"]


def test_a_subscription_checkout_fetches_and_applies_the_subscription(env, fake):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY))
    session = fs.checkout_session(mode="subscription", client_reference_id=user, subscription_id=sub["id"])
    fake.put_session(session)
    env.post_ok("k", fs.event("checkout.session.completed", session), "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == ["pro"]
    assert len(fake.requests_to(f"/v1/subscriptions/{sub['id']}")) == 1


def test_invoice_paid_applies_the_fetched_subscription(env, fake):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    inv = fake.put_invoice(fs.invoice(subscription_id=sub["id"], payment_intent=fs.new_id("pi")))
    env.post_ok("k", fs.event("invoice.paid", inv), "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == ["pro"]
    assert fake.requests_to(f"/v1/invoices/{inv['id']}") and fake.requests_to(f"/v1/subscriptions/{sub['id']}")


def test_the_ledger_records_the_fetched_invoice_not_the_snapshot(env, fake):
    """The event's snapshot is stale (not paid yet, another amount): the ledger row is what Stripe shows now."""
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    inv = fake.put_invoice(fs.invoice(subscription_id=sub["id"], invoice_id=sub["latest_invoice"],
                                      billing_reason="subscription_create", amount=1_499, tax=250, country="NL"))
    env.post_ok("k", fs.event("invoice.paid", dict(inv, amount_paid=1, status="open")), "applied to", user)
    [row] = query_database(
        env.server.config.parent,
        "SELECT kind, transaction_id, amount_milliunits, tax_milliunits, country FROM revenue_ledger "
        f"WHERE original_transaction_id = '{sub['id']}'")
    assert row == ("purchase", inv["id"], "14990", "2500", "NL"), row


def test_a_refund_is_read_from_the_fetched_charge(env, fake):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi)
    fake.put_session(session, fs.line_items(fs.price(PRICE_LIFETIME, recurring=False)))
    env.post_ok("k", fs.event("checkout.session.completed", session), "applied to", user)
    # The snapshot says partial; Stripe now says fully refunded.
    ch = fs.charge(payment_intent=pi, amount=999, amount_refunded=999)
    fake.put_charge(ch)
    env.post_ok("k", fs.event("charge.refunded", dict(ch, amount_refunded=1, refunded=False)), "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == []


def test_a_dispute_without_payment_intent_finds_it_through_its_charge(env, fake):
    user, pi = unique_id(), fs.new_id("pi")
    session = fs.checkout_session(mode="payment", client_reference_id=user, payment_intent=pi)
    fake.put_session(session, fs.line_items(fs.price(PRICE_LIFETIME, recurring=False)))
    env.post_ok("k", fs.event("checkout.session.completed", session), "applied to", user)
    ch = fake.put_charge(fs.charge(payment_intent=pi, amount_refunded=0))
    dp = fake.put_dispute(fs.dispute(charge_id=ch["id"], payment_intent=None))
    env.post_ok("k", fs.event("charge.dispute.created", dp), "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == []
    assert fake.requests_to(f"/v1/charges/{ch['id']}")


def test_a_few_5xx_are_retried_by_the_outbound_client(env, fake):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    fake.fail(ATTEMPTS - 1, 500, path=sub["id"])
    env.post_ok("k", fs.event("customer.subscription.created", sub), "applied to", user)
    assert len(fake.requests_to(f"/v1/subscriptions/{sub['id']}")) == ATTEMPTS


@pytest.mark.parametrize("fault", ["5xx", "down"])
def test_stripe_failing_is_503_with_nothing_applied_and_a_redelivery_applies(env, fake, fault):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    evt = fs.event("customer.subscription.created", sub)
    if fault == "5xx":
        fake.fail(ATTEMPTS, 503, path=sub["id"])
    else:
        fake.down()
    status, text = env.post("k", evt)
    assert status == 503, text
    assert not has_customer(env.k_admin, user)
    fake.clear()
    env.post_ok("k", evt, "applied to", user)
    assert entitlement_ids(env.k.sync(user)) == ["pro"]


def test_a_checkout_whose_subscription_cannot_be_fetched_is_not_half_applied(env, fake):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY))
    session = fake.put_session(fs.checkout_session(mode="subscription", client_reference_id=user,
                                                   subscription_id=sub["id"], customer=sub["customer"]))
    evt = fs.event("checkout.session.completed", session)
    fake.fail(ATTEMPTS, 500, path=f"subscriptions/{sub['id']}")
    status, text = env.post("k", evt)
    assert status == 503, text
    assert len(fake.requests_to(f"/v1/checkout/sessions/{session['id']}")) == 1
    # Neither the purchase nor the session's reference to it was kept.
    for stripe_id in (session["id"], sub["id"]):
        assert env.k_admin.redemption_code_error(stripe_id).code().name == "NOT_FOUND"
    assert not has_customer(env.k_admin, user)
    fake.clear()
    env.post_ok("k", evt, "applied to", user)


def test_an_object_the_key_cannot_see_is_503_so_stripe_delivers_again(env, fake):
    """The event is signed, so the object exists: a 404 means the key is another account's or mode's. Acknowledging
    would drop every event silently; a 503 keeps them until the key is fixed."""
    user = unique_id()
    sub = fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user})
    evt = fs.event("customer.subscription.created", sub)
    status, text = env.post("k", evt)
    assert status == 503 and "no such object" in text, text
    assert not has_customer(env.k_admin, user), text
    fake.put_subscription(sub)
    env.post_ok("k", evt, "applied to", user)


def test_an_unusable_api_key_file_is_503_so_stripe_delivers_again_after_it_is_fixed(env, fake, tenants):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    evt = fs.event("customer.subscription.created", sub)
    key_file = Path(tenants["bad"].stripe["api_key_file"])
    key_file.unlink()
    status, text = env.post("bad", evt)
    assert status == 503, text
    assert fake.api_key not in text
    assert not has_customer(env.bad_admin, user)
    key_file.write_text(fake.api_key + "\n")
    env.post_ok("bad", evt, "applied to", user)


def test_a_duplicate_is_answered_without_asking_stripe(env, fake):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    evt = fs.event("customer.subscription.created", sub)
    env.post_ok("k", evt, "applied to", user)
    asked = len(fake.requests_to(f"/v1/subscriptions/{sub['id']}"))
    fake.down()
    env.post_ok("k", evt, "already processed")
    assert len(fake.requests_to(f"/v1/subscriptions/{sub['id']}")) == asked


def test_a_key_stripe_refuses_is_503_and_never_quoted(env, fake, tenants):
    user = unique_id()
    sub = fake.put_subscription(fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}))
    status, text = env.post("wrong", fs.event("customer.subscription.created", sub))
    assert status == 503, text
    key = Path(tenants["wrong"].stripe["api_key_file"]).read_text().strip()
    assert key not in text and fake.api_key not in text
    (request,) = fake.requests_to(f"/v1/subscriptions/{sub['id']}")
    assert request.header("authorization") == f"Bearer {key}"
    assert not has_customer(env.wrong_admin, user)
