"""Redemption codes for web purchases nobody owns (an anonymous Stripe checkout), through the real interop-server:
AdminService.GetRedemptionCode (secret key) issues a code for a Stripe ID, EntitlementService.Purchase with
`web_redemption` (public key) attaches the purchase under the tenant's stripe `transfer_policy`.

Tenants "transfer", "tin" (transfer_if_no_active) and "keep" (keep_with_original) differ only in that policy;
"short" issues codes for 1 day; "limits" is used only by the tenant-wide failure limit (which locks it for 15 min).
A code's expiry is tested in Swift (RedemptionCodeTests) with a manual clock: a tenant's shortest validity is a day.
"""

from __future__ import annotations

import re
import secrets
import time

import grpc
import pytest

import fake_stripe as fs
from entitlement_support import ts_seconds, unique_id
from stripe_support import (
    PRICE_LIFETIME, PRICE_MONTHLY, REDEMPTION, WEB_STORE, entitlement_ids, web_transaction, stripe_tenant,
)
from stripe_support import server, env  # noqa: F401 (fixtures)
from webhook_receiver import Receiver

Code = grpc.StatusCode
HOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
CODE_SHAPE = re.compile(r"^rc_[a-z2-7]{32}$")
POLICIES = {"transfer": "transfer", "tin": "transfer_if_no_active", "keep": "keep_with_original"}


@pytest.fixture(scope="module")
def receiver():
    receiver = Receiver(secrets=[HOOK_SECRET])
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def tenants(receiver):
    specs = {name: stripe_tenant(f"rc-{name}", policy=policy) for name, policy in POLICIES.items()}
    specs["short"] = stripe_tenant("rc-short", code_days=1)
    specs["limits"] = stripe_tenant("rc-limits")
    # Its backend wants purchases: an anonymous purchase arrives there with a code to hand to the buyer.
    specs["hooked"] = stripe_tenant("rc-hooked")
    specs["hooked"].webhooks = [{"id": "backend", "url": receiver.url, "secrets": [HOOK_SECRET], "events": ["purchase"]}]
    return specs


def anonymous_subscription(env, tenant: str = "transfer") -> dict:
    """An anonymous checkout of a monthly subscription, delivered (session, then subscription), owned by nobody; the
    Stripe IDs that name it."""
    sub = fs.subscription(price_id=PRICE_MONTHLY)
    pi = fs.new_id("pi")
    session = fs.checkout_session(mode="subscription", subscription_id=sub["id"], customer=sub["customer"],
                                  invoice=sub["latest_invoice"], payment_intent=pi)
    t = fs.now() - 30
    assert "buyer is kept" in env.post_ok(tenant, fs.event("checkout.session.completed", session, created=t))
    assert "recorded" in env.post_ok(tenant, fs.event("customer.subscription.created", sub, created=t))
    return {"sub": sub["id"], "cs": session["id"], "cus": sub["customer"], "in": sub["latest_invoice"], "pi": pi,
            "object": sub}


def anonymous_one_time(env, tenant: str = "transfer") -> str:
    pi = fs.new_id("pi")
    session = fs.checkout_session(mode="payment", payment_intent=pi, metadata={"price_id": PRICE_LIFETIME})
    assert "recorded" in env.post_ok(tenant, fs.event("checkout.session.completed", session))
    return pi


def random_code() -> str:
    return "rc_" + "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(32))


# --------------------------------------------------------------------------------------------------
# Issuing


@pytest.mark.parametrize("by", ["sub", "cs", "cus", "in", "pi"])
def test_a_code_is_issued_for_any_stripe_id_naming_an_unowned_purchase(env, by):
    ids = anonymous_subscription(env)
    before = time.time()
    issued = env.transfer_admin.redemption_code(ids[by])
    assert CODE_SHAPE.match(issued.code), issued.code
    assert issued.transaction.original_transaction_id == ids["sub"]
    assert issued.transaction.store == WEB_STORE and issued.transaction.owner_app_user_id == ""
    assert before + 7 * fs.DAY - 5 <= ts_seconds(issued.expires_at) <= time.time() + 7 * fs.DAY + 5


def test_expiry_is_the_tenants_redemption_code_days(env):
    ids = anonymous_subscription(env, "short")
    issued = env.short_admin.redemption_code(ids["sub"])
    assert abs(ts_seconds(issued.expires_at) - (time.time() + fs.DAY)) < 10


def test_a_code_for_a_one_time_purchase_by_its_payment_intent(env):
    pi = anonymous_one_time(env)
    user = unique_id()
    env.transfer.redeem(user, env.transfer_admin.redemption_code(pi).code)
    assert entitlement_ids(env.transfer.sync(user)) == ["premium"]


def test_issuing_refusals(env):
    assert env.transfer_admin.redemption_code_error(fs.new_id("sub")).code() == Code.NOT_FOUND
    assert env.transfer_admin.redemption_code_error("evt_123").code() == Code.INVALID_ARGUMENT
    # Another tenant's purchase is unknown here.
    ids = anonymous_subscription(env, "keep")
    assert env.transfer_admin.redemption_code_error(ids["sub"]).code() == Code.NOT_FOUND
    # The public key may not issue codes.
    assert env.transfer.redemption_code_error(ids["sub"]).code() in (Code.PERMISSION_DENIED, Code.UNAUTHENTICATED)
    owner = unique_id()
    owned = fs.subscription(price_id=PRICE_MONTHLY, metadata={"app_user_id": owner})
    env.post_ok("transfer", fs.event("customer.subscription.created", owned), "applied to", owner)
    error = env.transfer_admin.redemption_code_error(owned["id"])
    assert error.code() == Code.FAILED_PRECONDITION and "belongs to a user" in error.details()


def test_a_new_code_replaces_the_unused_one(env):
    ids = anonymous_subscription(env)
    first = env.transfer_admin.redemption_code(ids["sub"]).code
    second = env.transfer_admin.redemption_code(ids["cs"]).code
    assert first != second
    user = unique_id()
    error = env.transfer.redeem_error(user, first)
    assert error.code() == Code.FAILED_PRECONDITION and "replaced" in error.details()
    env.transfer.redeem(user, second)
    assert entitlement_ids(env.transfer.sync(user)) == ["pro"]


# --------------------------------------------------------------------------------------------------
# Redeeming


@pytest.mark.parametrize("tenant", list(POLICIES))
def test_redeeming_attaches_the_purchase_under_each_policy(env, tenant):
    ids = anonymous_subscription(env, tenant)
    user = unique_id()
    code = env.__getattribute__(f"{tenant}_admin").redemption_code(ids["sub"]).code
    response = env.__getattribute__(tenant).redeem(user, code.upper())
    assert entitlement_ids(response.customer) == ["pro"]
    admin = env.__getattribute__(f"{tenant}_admin")
    assert web_transaction(admin, user, ids["sub"]).owner_app_user_id == user
    assert admin.all_events(user)[0].cause == REDEMPTION
    # Owned now: no more codes; and the used code is spent, for this user and any other.
    assert admin.redemption_code_error(ids["sub"]).code() == Code.FAILED_PRECONDITION
    for who in (user, unique_id()):
        error = env.__getattribute__(tenant).redeem_error(who, code)
        assert error.code() == Code.FAILED_PRECONDITION and "already used" in error.details(), error.details()


def test_later_webhooks_reach_the_user_who_redeemed(env):
    ids = anonymous_subscription(env)
    user = unique_id()
    env.transfer.redeem(user, env.transfer_admin.redemption_code(ids["sub"]).code)
    canceled = dict(ids["object"], status="canceled", ended_at=fs.now())
    env.post_ok("transfer", fs.event("customer.subscription.deleted", canceled), "applied to", user)
    assert entitlement_ids(env.transfer.sync(user)) == []


def test_unknown_and_malformed_codes_are_not_found(env):
    user = unique_id()
    for code in (random_code(), "rc_short", "not-a-code"):
        assert env.transfer.redeem_error(user, code).code() == Code.NOT_FOUND
    assert env.transfer.redeem_error(user, "").code() == Code.INVALID_ARGUMENT


def test_an_anonymous_redeemer_keeps_it_through_identify(env):
    ids = anonymous_subscription(env)
    anonymous, user = f"$anon:{unique_id()}", unique_id()
    env.transfer.redeem(anonymous, env.transfer_admin.redemption_code(ids["sub"]).code)
    assert entitlement_ids(env.transfer.sync(anonymous)) == ["pro"]
    env.transfer.identify(user, anonymous)
    assert entitlement_ids(env.transfer.sync(user)) == ["pro"]
    assert web_transaction(env.transfer_admin, user, ids["sub"]).owner_app_user_id == user


# --------------------------------------------------------------------------------------------------
# Transfer policies: the purchase gained an owner (a later webhook named one) after the code was issued.


def claimed_meanwhile(env, tenant: str) -> tuple[dict, str, str]:
    ids = anonymous_subscription(env, tenant)
    code = env.__getattribute__(f"{tenant}_admin").redemption_code(ids["sub"]).code
    owner = unique_id()
    named = dict(ids["object"], metadata={"app_user_id": owner})
    env.post_ok(tenant, fs.event("customer.subscription.updated", named, created=fs.now() - 20), "applied to", owner)
    return ids, code, owner


def test_transfer_moves_it_from_the_owner_to_the_redeemer(env):
    ids, code, owner = claimed_meanwhile(env, "transfer")
    user = unique_id()
    response = env.transfer.redeem(user, code)
    assert entitlement_ids(response.customer) == ["pro"]
    assert response.transferred_from_app_user_id == owner
    assert entitlement_ids(env.transfer.sync(owner)) == []


def test_transfer_if_no_active_refuses_while_the_owner_has_access_and_moves_it_after(env):
    ids, code, owner = claimed_meanwhile(env, "tin")
    user = unique_id()
    error = env.tin.redeem_error(user, code)
    assert error.code() in (Code.ALREADY_EXISTS, Code.FAILED_PRECONDITION), error.details()
    assert entitlement_ids(env.tin.sync(owner)) == ["pro"]
    # The refusal used nothing up: once the owner's access has ended, the same code moves it.
    ended = dict(ids["object"], status="canceled", ended_at=fs.now(), metadata={"app_user_id": owner})
    env.post_ok("tin", fs.event("customer.subscription.deleted", ended, created=fs.now() - 10), "applied to", owner)
    env.tin.redeem(user, code)
    assert web_transaction(env.tin_admin, user, ids["sub"]).owner_app_user_id == user


def test_keep_with_original_refuses(env):
    ids, code, owner = claimed_meanwhile(env, "keep")
    error = env.keep.redeem_error(unique_id(), code)
    assert error.code() == Code.ALREADY_EXISTS, error.details()
    assert web_transaction(env.keep_admin, owner, ids["sub"]).owner_app_user_id == owner


# --------------------------------------------------------------------------------------------------
# Failure limits


def test_after_five_failures_a_user_is_refused_even_with_a_good_code(env):
    ids = anonymous_subscription(env)
    code = env.transfer_admin.redemption_code(ids["sub"]).code
    user = unique_id()
    for _ in range(5):
        assert env.transfer.redeem_error(user, random_code()).code() == Code.NOT_FOUND
    error = env.transfer.redeem_error(user, code)
    assert error.code() == Code.RESOURCE_EXHAUSTED, error.details()
    # Only that user: another one redeems the same (still unused) code.
    other = unique_id()
    env.transfer.redeem(other, code)
    assert entitlement_ids(env.transfer.sync(other)) == ["pro"]


def test_after_a_hundred_failures_in_a_tenant_everyone_there_is_refused(env):
    ids = anonymous_subscription(env, "limits")
    code = env.limits_admin.redemption_code(ids["sub"]).code
    for _ in range(100):
        assert env.limits.redeem_error(unique_id(), random_code()).code() == Code.NOT_FOUND
    error = env.limits.redeem_error(unique_id(), code)
    assert error.code() == Code.RESOURCE_EXHAUSTED, error.details()
    # Other tenants are not affected.
    other = anonymous_subscription(env, "transfer")
    env.transfer.redeem(unique_id(), env.transfer_admin.redemption_code(other["sub"]).code)


def test_an_anonymous_purchase_reaches_the_tenants_backend_with_a_code_that_redeems_it(env, receiver):
    pi = fs.new_id("pi")
    session = fs.checkout_session(mode="payment", payment_intent=pi, metadata={"price_id": PRICE_LIFETIME})
    env.post_ok("hooked", fs.event("checkout.session.completed", session))
    (unclaimed,) = [d for d in receiver.received(1) if d.json["data"]["purchase"]["original_transaction_id"] == pi]
    assert unclaimed.verified_with == [0]
    body = unclaimed.json
    assert body["type"] == "purchase.unclaimed" and body["data"]["tenant"] == "rc-hooked"
    code = body["data"]["redemption_code"]["code"]
    assert CODE_SHAPE.match(code) and body["data"]["redemption_code"]["expires_at"]
    assert session["id"] in body["data"]["reference_ids"] and body["data"]["purchase"]["store"] == "web"
    # Stripe's amount_total is in cents: 999 is $9.99.
    assert body["data"]["purchase"]["price"] == {"amount_milliunits": 9990, "currency": "USD"}
    # The same event again (Stripe retries) issues nothing new.
    env.post_ok("hooked", fs.event("checkout.session.completed", session))
    user = unique_id()
    response = env.hooked.redeem(user, code)
    assert entitlement_ids(response.customer) == ["premium"]
    claimed = [d.json for d in receiver.received(2) if d.json["data"].get("app_user_id") == user]
    assert [b["type"] for b in claimed] == ["customer.purchase"], claimed
    assert claimed[0]["data"]["cause"] == "redemption"
    assert claimed[0]["data"]["purchase"]["original_transaction_id"] == pi
    assert len([d for d in receiver.deliveries if d.json["type"] == "purchase.unclaimed"]) == 1
