"""The fake Stripe and the signing helpers, checked with stripe-python 16.1.0 as the independent client: if Stripe's
own library reads the fake's answers and accepts the helpers' signatures, the server tests exercise the formats
Stripe really uses (not just what the server happens to expect)."""

from __future__ import annotations

import pytest
import stripe

import fake_stripe as fs


@pytest.fixture
def fake():
    with fs.FakeStripe() as fake:
        yield fake


@pytest.fixture
def client(fake):
    return stripe.StripeClient(fake.api_key, base_addresses={"api": fake.base_url}, max_network_retries=0)


def test_stripe_python_retrieves_a_subscription_with_its_item_period(fake, client):
    sub = fake.put_subscription(fs.subscription(price_id="price_pro", status="trialing", metadata={"app_user_id": "u"}))
    got = client.v1.subscriptions.retrieve(sub["id"])
    assert isinstance(got, stripe.Subscription)
    assert (got.id, got.status, got.metadata["app_user_id"]) == (sub["id"], "trialing", "u")
    item = got["items"].data[0]
    assert item.price.id == "price_pro"
    assert item.current_period_end == sub["items"]["data"][0]["current_period_end"]
    request = fake.requests_to(f"/v1/subscriptions/{sub['id']}")[0]
    assert request.header("authorization") == f"Bearer {fake.api_key}"
    assert request.header("stripe-version") == fs.API_VERSION == stripe.api_version


def test_line_items_come_only_when_expanded(fake, client):
    session = fake.put_session(
        fs.checkout_session(mode="payment", payment_intent=fs.new_id("pi")),
        fs.line_items(fs.price("price_life", recurring=False)))
    plain = client.v1.checkout.sessions.retrieve(session["id"])
    assert "line_items" not in plain
    expanded = client.v1.checkout.sessions.retrieve(session["id"], params={"expand": ["line_items"]})
    assert isinstance(expanded, stripe.checkout.Session)
    assert expanded.line_items.data[0].price.id == "price_life"


def test_invoice_charge_and_dispute_shapes_read_as_stripe_objects(fake, client):
    pi = fs.new_id("pi")
    inv = fake.put_invoice(fs.invoice(subscription_id="sub_1", payment_intent=pi))
    got = client.v1.invoices.retrieve(inv["id"])
    assert isinstance(got, stripe.Invoice)
    assert got.parent.subscription_details.subscription == "sub_1"
    assert got.payments.data[0].payment.payment_intent == pi
    ch = fake.put_charge(fs.charge(payment_intent=pi, amount=500, amount_refunded=100))
    got_charge = client.v1.charges.retrieve(ch["id"])
    assert (got_charge.refunded, got_charge.amount_refunded) == (False, 100)
    dp = fake.put_dispute(fs.dispute(charge_id=ch["id"], payment_intent=pi))
    assert client.v1.disputes.retrieve(dp["id"]).status == "needs_response"


def test_unknown_ids_bad_keys_and_faults_are_stripe_errors(fake, client):
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.v1.subscriptions.retrieve("sub_missing")
    assert (missing.value.http_status, missing.value.code) == (404, "resource_missing")
    other = stripe.StripeClient("sk_test_other", base_addresses={"api": fake.base_url}, max_network_retries=0)
    with pytest.raises(stripe.AuthenticationError):
        other.v1.subscriptions.retrieve("sub_missing")
    sub = fake.put_subscription(fs.subscription(price_id="price_pro"))
    fake.fail(1, 503)
    with pytest.raises(stripe.APIError) as failed:
        client.v1.subscriptions.retrieve(sub["id"])
    assert failed.value.http_status == 503
    assert client.v1.subscriptions.retrieve(sub["id"]).id == sub["id"]
    fake.down()
    with pytest.raises(stripe.APIConnectionError):
        client.v1.subscriptions.retrieve(sub["id"])
    fake.up()
    assert client.v1.subscriptions.retrieve(sub["id"]).id == sub["id"]


def test_stripe_python_accepts_what_the_helpers_sign():
    secret, other = fs.new_webhook_secret(), fs.new_webhook_secret()
    body = fs.body_of(fs.event("customer.subscription.created", fs.subscription(price_id="price_pro")))
    assert stripe.Webhook.construct_event(body, fs.sign(body, secret), secret).type == "customer.subscription.created"
    # By hand: the same bytes as stripe-python's, and a second v1 for a rolled secret.
    t = fs.now()
    assert fs.sign(body, secret, t) == fs.signature_header(body.encode(), [secret], t)
    rolled = fs.signature_header(body.encode(), [other, secret], t)
    assert stripe.WebhookSignature.verify_header(body, rolled, secret, tolerance=300)


@pytest.mark.parametrize("header", [
    lambda body, secret: fs.signature_header(body.encode(), [fs.new_webhook_secret()]),
    lambda body, secret: fs.signature_header(body.encode(), [secret], fs.now() - 301),
    lambda body, secret: fs.signature_header((body + " ").encode(), [secret]),
    lambda body, secret: fs.signature_header(body.encode(), [secret]).replace("v1=", "v0="),
], ids=["wrong-secret", "stale", "tampered", "v0-only"])
def test_stripe_python_refuses_the_bad_signatures_the_server_tests_send(header):
    secret = fs.new_webhook_secret()
    body = fs.body_of(fs.event("invoice.paid", fs.invoice(subscription_id="sub_1")))
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.Webhook.construct_event(body, header(body, secret), secret)
