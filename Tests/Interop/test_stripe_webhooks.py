"""Stripe webhook deliveries at `POST /v1/stripe/webhooks/{tenant_id}` through the real interop-server, over HTTP/1.1
and HTTP/2: the `Stripe-Signature` check (stripe-python signs the good ones; the bad ones are made by hand), body
limits, tenants that take no webhooks, bodies that are not events, and duplicate deliveries.

Every refused delivery is followed by the same event signed properly, which must then apply: that proves the refusal
applied nothing and did not use up the event's ID. Tenant "a" has one secret; "rot" two (a secret being rolled);
"tight" a 60 s signature tolerance; "plain" has no `stripe` settings.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import h2.exceptions
import pytest

import fake_stripe as fs
from conftest import RawH2Connection
from entitlement_support import TenantSpec, make_key, unique_id
from stripe_support import (
    PRICE_MONTHLY, PRODUCTS, VIAS, WEB_SOURCE, entitlement_ids, has_customer, stripe_tenant, webhook_path,
)
from stripe_support import server, env  # noqa: F401 (fixtures)

MAX_BODY = 256 * 1024


@pytest.fixture(scope="module")
def tenants():
    plain = TenantSpec(id="wh-plain", public_keys=[make_key("pk")[0]], secret_keys=[make_key("sk")[0]],
                       products={k: list(v) for k, v in PRODUCTS.items()})
    return {"a": stripe_tenant("wh-a"), "rot": stripe_tenant("wh-rot", secrets=2), "plain": plain,
            "tight": stripe_tenant("wh-tight", tolerance=60)}


def subscribed(user: str, **fields) -> dict:
    """A `customer.subscription.created` event of an active monthly subscription naming `user`."""
    sub = fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": user}, **fields)
    return fs.event("customer.subscription.created", sub)


def assert_applies(env, tenant: str, evt: dict, user: str, via: str = "http1") -> None:
    env.post_ok(tenant, evt, "applied to", user, via=via)
    assert entitlement_ids(env.a.sync(user)) == ["pro"]


# --------------------------------------------------------------------------------------------------
# Signatures


@pytest.mark.parametrize("via", VIAS)
def test_a_signed_event_applies_over_each_protocol(env, via):
    user = unique_id()
    evt = subscribed(user)
    text = env.post_ok("a", evt, "customer.subscription.created", "applied to", user, via=via)
    assert text.endswith("\n")
    status = env.a.sync(user).status
    assert [(e.id, e.source, e.product_id) for e in status.entitlements] == [("pro", WEB_SOURCE, "pro_monthly_web")]


def _bad_headers(body: bytes, secret: str) -> dict[str, str | None]:
    t = fs.now()
    good = fs.hmac_v1(body, secret, t)
    return {
        "missing": None,
        "empty": "",
        "garbage": "not a signature",
        "no-timestamp": f"v1={good}",
        "no-v1": f"t={t}",
        "v0-only": f"t={t},v0={good}",
        "timestamp-not-a-number": f"t=12ab,v1={good}",
        "two-timestamps": f"t={t},t={t},v1={good}",
        "short-v1": f"t={t},v1={good[:32]}",
        "wrong-secret": fs.signature_header(body, [fs.new_webhook_secret()], t),
        "stale": fs.signature_header(body, [secret], t - 301),
        "other-timestamp": f"t={t - 1},v1={good}",
    }


BAD = list(_bad_headers(b"", "whsec_" + "0" * 32))


@pytest.mark.parametrize("case", BAD)
def test_a_bad_signature_is_400_and_applies_nothing(env, case):
    user = unique_id()
    evt = subscribed(user)
    body = fs.body_of(evt).encode()
    status, text = env.post("a", body=body, signature=_bad_headers(body, env.tenants["a"].webhook_secret)[case])
    assert status == 400, f"{case}: {status} {text}"
    assert "Stripe-Signature" in text
    assert env.tenants["a"].webhook_secret not in text and "whsec_" not in text
    assert not has_customer(env.a_admin, user)
    assert_applies(env, "a", evt, user)


@pytest.mark.parametrize("via", VIAS)
def test_a_body_changed_after_signing_is_refused(env, via):
    user = unique_id()
    evt = subscribed(user)
    body = fs.body_of(evt)
    header = fs.sign(body, env.tenants["a"].webhook_secret)
    tampered = body.replace('"status": "active"', '"status": "activf"', 1).encode()
    assert tampered != body.encode()
    status, text = env.post("a", body=tampered, signature=header, via=via)
    assert status == 400, text
    # The same object re-serialised (compact) is not the signed bytes either.
    status, _ = env.post("a", body=json.dumps(evt, separators=(",", ":")).encode(), signature=header, via=via)
    assert status == 400
    assert not has_customer(env.a_admin, user)
    env.post_ok("a", evt, "applied to", user, via=via)


def test_within_tolerance_and_future_timestamps_pass(env):
    user = unique_id()
    env.post_ok("a", subscribed(user), "applied to", timestamp=fs.now() - 240)
    other = unique_id()
    # stripe-python refuses only old timestamps; one from the future (a fast clock at Stripe) passes.
    env.post_ok("a", subscribed(other), "applied to", timestamp=fs.now() + 600)


def test_the_tenants_signature_tolerance_is_used(env):
    user = unique_id()
    evt = subscribed(user)
    status, text = env.post("tight", evt, timestamp=fs.now() - 100)
    assert status == 400 and "timestampTooOld" in text, text
    env.post_ok("tight", evt, "applied to", user, timestamp=fs.now() - 30)


def test_several_v1_entries_where_only_the_second_is_right_are_accepted(env):
    user = unique_id()
    evt = subscribed(user)
    body = fs.body_of(evt).encode()
    header = fs.signature_header(body, [fs.new_webhook_secret(), env.tenants["a"].webhook_secret], extra="v0=00ff")
    status, text = env.post("a", body=body, signature=header)
    assert status == 200 and "applied to" in text, text


@pytest.mark.parametrize("which", [0, 1])
def test_both_secrets_of_a_rolled_endpoint_are_accepted(env, which):
    user = unique_id()
    evt = subscribed(user)
    body = fs.body_of(evt)
    secret = env.tenants["rot"].stripe["webhook_secrets"][which]
    status, text = env.post("rot", body=body.encode(), signature=fs.sign(body, secret))
    assert status == 200 and "applied to" in text, text
    assert entitlement_ids(env.rot.sync(user)) == ["pro"]


def test_a_secret_of_another_tenant_is_refused(env):
    user = unique_id()
    evt = subscribed(user)
    body = fs.body_of(evt)
    status, _ = env.post("a", body=body.encode(), signature=fs.sign(body, env.tenants["rot"].webhook_secret))
    assert status == 400
    assert not has_customer(env.a_admin, user)


# --------------------------------------------------------------------------------------------------
# Tenants and limits


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("tenant", ["no-such-tenant", "plain"])
def test_a_tenant_that_takes_no_stripe_webhooks_is_404(env, tenant, via):
    body = fs.body_of(subscribed(unique_id()))
    status, text = env.post(tenant, body=body.encode(), signature=fs.sign(body, env.tenants["a"].webhook_secret),
                            via=via)
    assert status == 404, text


@pytest.mark.parametrize("via", VIAS)
def test_a_body_over_256_kib_is_413_and_one_at_the_limit_is_read(env, via):
    user = unique_id()
    evt = subscribed(user)
    body = fs.body_of(evt)
    at_limit = (body + " " * (MAX_BODY - len(body))).encode()
    assert len(at_limit) == MAX_BODY
    over = at_limit + b" "
    status, text = env.post("a", body=over, signature=fs.sign(over.decode(), env.tenants["a"].webhook_secret),
                            via=via)
    assert status == 413, text
    assert not has_customer(env.a_admin, user)
    status, text = env.post("a", body=at_limit, signature=fs.sign(at_limit.decode(), env.tenants["a"].webhook_secret),
                            via=via)
    assert status == 200 and "applied to" in text, f"{status} {text}"


def test_a_body_far_over_the_limit_is_refused_by_the_transport_with_413(env):
    """Over HTTP/1.1 with 8 MiB; over HTTP/2 with just over the transport's 1 MiB body limit (its stream window), so
    the client needs one window update. (An 8 MiB HTTP/2 upload once stalled in CI waiting for window, not seen in
    isolated reruns: under investigation.)"""
    body = b" " * (8 * 1024 * 1024)
    status, text = env.post("a", body=body, signature="t=1,v1=00", via="http1")
    assert status == 413, text
    body = b" " * (1024 * 1024 + 16_000)
    with RawH2Connection(env.server.host, env.server.port) as connection:
        headers = [
            (":method", "POST"), (":scheme", "http"), (":path", webhook_path(env.tenant_id("a"))),
            (":authority", connection.authority), ("content-type", "application/json"),
            ("content-length", str(len(body))), ("stripe-signature", "t=1,v1=00"),
        ]
        stream_id = connection.start(headers)
        try:
            for offset in range(0, len(body), 16_000):
                connection.send(stream_id, body[offset:offset + 16_000])
        except h2.exceptions.StreamClosedError:
            pass  # The server answered and closed the stream before the whole body was sent.
        response = connection.wait(stream_id)
    assert response.status == 413
    # RST_STREAM NO_ERROR after a complete response tells the client to stop sending (RFC 9113 §8.1).
    assert response.reset_code in (None, 0)
    env.post_ok("a", subscribed(unique_id()), "applied to")


# --------------------------------------------------------------------------------------------------
# Bodies


def _not_events() -> dict[str, bytes]:
    sub = fs.subscription(price_id=PRICE_MONTHLY)
    good = fs.event("customer.subscription.updated", sub)
    no_id = {k: v for k, v in good.items() if k != "id"}
    wrong_kind = fs.event("invoice.paid", sub)
    wrong_kind_charge = fs.event("charge.refunded", fs.invoice(subscription_id=sub["id"]))
    wrong_subscription = fs.event("customer.subscription.updated", fs.charge(payment_intent="pi_1"))
    return {
        "not-json": b"{not json",
        "array": b"[]",
        "empty-object": b"{}",
        "no-id": json.dumps(no_id).encode(),
        "id-not-evt": json.dumps({**good, "id": "ev_123"}).encode(),
        "no-data-object": json.dumps({**good, "data": {}}).encode(),
        "invoice-event-with-subscription": json.dumps(wrong_kind).encode(),
        "refund-with-invoice": json.dumps(wrong_kind_charge).encode(),
        "subscription-event-with-charge": json.dumps(wrong_subscription).encode(),
    }


@pytest.mark.parametrize("case", list(_not_events()))
def test_a_signed_body_that_is_not_a_stripe_event_is_400(env, case):
    body = _not_events()[case]
    status, text = env.post("a", body=body, signature=fs.sign(body.decode(), env.tenants["a"].webhook_secret))
    assert status == 400, f"{case}: {status} {text}"


def test_an_event_type_the_server_does_not_act_on_is_acknowledged(env):
    evt = fs.event("customer.created", {"id": fs.new_id("cus"), "object": "customer", "livemode": False})
    text = env.post_ok("a", evt, "customer.created")
    assert "not an event this server acts on" in text
    assert "already processed" in env.post_ok("a", evt)


def test_concurrent_deliveries_of_one_event_apply_it_once(env):
    user = unique_id()
    env.a.identify(user)
    evt = subscribed(user)
    before = len(env.a_admin.all_events(user))
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda via: env.post("a", evt, via=via), ["http1", "h2"] * 3))
    assert all(status == 200 for status, _ in answers), answers
    assert sum("applied to" in text for _, text in answers) == 1, answers
    assert sum("already processed" in text for _, text in answers) == 5, answers
    assert len(env.a_admin.all_events(user)) == before + 1


@pytest.mark.parametrize("via", VIAS)
def test_a_duplicate_event_id_is_200_already_processed_and_changes_nothing(env, via):
    user = unique_id()
    evt = subscribed(user)
    env.post_ok("a", evt, "applied to", user, via=via)
    before = env.a.sync(user)
    # The same ID with other content (Stripe never does this; only the ID counts).
    changed = json.loads(json.dumps(evt))
    changed["data"]["object"]["status"] = "canceled"
    changed["created"] += 10
    text = env.post_ok("a", changed, "already processed", via=via)
    assert "applied" not in text
    after = env.a.sync(user)
    assert (after.version, entitlement_ids(after)) == (before.version, ["pro"])
