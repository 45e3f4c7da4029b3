"""Redemption codes for web purchases nobody owns (an anonymous Stripe checkout), through the real interop-server:
AdminService.GetRedemptionCode (secret key) issues a code for a Stripe ID, EntitlementService.Purchase with
`web_redemption` (public key) attaches the purchase under the tenant's stripe `transfer_policy`.

Tenants "transfer", "tin" (transfer_if_no_active) and "keep" (keep_with_original) differ only in that policy;
"short" issues codes for 1 day; "limits" is used only by the failure limits' tests. The module's server trusts
127.0.0.1 as a reverse proxy, so a test presents client addresses of its own with X-Forwarded-For (a call without
one is 127.0.0.1's). A code's expiry is tested in Swift (RedemptionCodeTests) with a manual clock: a tenant's
shortest validity is a day; the limits' waits and eviction in Swift too (RedemptionAttemptsTests).
"""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path

import grpc
import pytest

import fake_stripe as fs
from entitlement_support import ts_seconds, unique_id, write_tenants
from fake_checkout import grpc_web_unary
from stripe_support import (
    PRICE_LIFETIME, PRICE_MONTHLY, REDEMPTION, WEB_STORE, StripeEnv, entitlement_ids, web_transaction, stripe_tenant,
)
from stripe_support import env  # noqa: F401 (fixture)
from webhook_receiver import Receiver

Code = grpc.StatusCode
HOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
CODE_SHAPE = re.compile(r"^rc_[a-z2-7]{32}$")
POLICIES = {"transfer": "transfer", "tin": "transfer_if_no_active", "keep": "keep_with_original"}
UNCHANGED = 3  # PurchaseResult.Outcome


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


@pytest.fixture(scope="module")
def tenants_file(tmp_path_factory, tenants) -> Path:
    path = tmp_path_factory.mktemp("stripe") / "tenants.json"
    write_tenants(path, tenants.values())
    return path


@pytest.fixture(scope="module")
def server(tenants_server, tenants_file):
    return tenants_server(tenants_file, {"server": {"trusted_proxies": "127.0.0.1"}})


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
    # The purchase's data is as the server held it; its owner is new: nobody held it before this call.
    assert (response.result.outcome, response.result.claimed, response.transferred_from_app_user_id) == (
        UNCHANGED, True, ""), response.result
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
    assert not response.result.claimed, "moved from a customer, not claimed from nobody"
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


def from_address(address: str) -> list[tuple[str, str]]:
    """The X-Forwarded-For a proxy on 127.0.0.1 sends for a client at `address`: what the client claimed itself (the
    left entry) is ignored, the address the proxy appended is the client's."""
    return [("x-forwarded-for", f"192.0.2.254, {address}")]


def waited_seconds(error: grpc.RpcError, who: str) -> int:
    """The wait a RESOURCE_EXHAUSTED refusal names, checking that it says `who` waits."""
    assert error.code() == Code.RESOURCE_EXHAUSTED, (error.code(), error.details())
    match = re.fullmatch(rf"Too many failed redemption attempts {who}; try again in (\d+) s\.", error.details())
    assert match, error.details()
    return int(match.group(1))


def test_after_five_failures_a_user_is_refused_even_with_a_good_code(env):
    ids = anonymous_subscription(env)
    code = env.transfer_admin.redemption_code(ids["sub"]).code
    user, address = unique_id(), from_address("198.51.100.5")
    for _ in range(5):
        assert env.transfer.redeem_error(user, random_code(), address).code() == Code.NOT_FOUND
    # From anywhere: the user ID waits (a minute after its fifth failure).
    assert 1 <= waited_seconds(env.transfer.redeem_error(user, code, from_address("198.51.100.6")), "by this app user ID") <= 60
    # Only that user: another one redeems the same (still unused) code from the same address.
    other = unique_id()
    env.transfer.redeem(other, code, address)
    assert entitlement_ids(env.transfer.sync(other)) == ["pro"]


def test_wrong_guesses_from_one_address_with_many_user_ids_lock_out_that_address_and_no_buyer_elsewhere(env, tenants):
    """Issue 36: 100 wrong guesses with the app's public key, each with a new user ID, used to exhaust a tenant-wide
    limit that then refused every buyer. Now the address waits, and a buyer who never failed, elsewhere, redeems."""
    codes = [env.limits_admin.redemption_code(anonymous_subscription(env, "limits")["sub"]).code for _ in range(2)]
    attacker = from_address("198.51.100.66")
    refusals = [env.limits.redeem_error(unique_id(), random_code(), attacker) for _ in range(100)]
    # 20 failures from one address are free; then it waits, and its attempts are not even looked up.
    assert [error.code() for error in refusals[:20]] == [Code.NOT_FOUND] * 20
    assert all(1 <= waited_seconds(error, "from this network address") <= 60 for error in refusals[20:])
    # There even a real code and a user ID that never failed are refused, over gRPC-Web on HTTP/1.1 too.
    waited_seconds(env.limits.redeem_error(unique_id(), codes[0], attacker), "from this network address")
    _, status, detail = web_redeem(env, tenants["limits"].public_key, unique_id(), codes[0], attacker)
    assert status == "8" and "from this network address" in detail, (status, detail)
    # Buyers who never failed, from addresses that never failed, redeem: over gRPC (HTTP/2) and gRPC-Web (HTTP/1.1).
    buyer = unique_id()
    assert entitlement_ids(env.limits.redeem(buyer, codes[0], from_address("203.0.113.20")).customer) == ["pro"]
    web_buyer = unique_id()
    _, status, detail = web_redeem(env, tenants["limits"].public_key, web_buyer, codes[1], from_address("203.0.113.21"))
    assert status == "0", (status, detail)
    assert entitlement_ids(env.limits.sync(web_buyer)) == ["pro"]


def web_redeem(env, key: str, user: str, code: str, headers: list[tuple[str, str]]) -> tuple[bytes, str, str]:
    """Purchase with `web_redemption` over gRPC-Web (binary, HTTP/1.1): the response, grpc-status and grpc-message."""
    request = env.limits.message("PurchaseRequest", app_user_id=user)
    request.web_redemption.code = code
    return grpc_web_unary(env.server.host, env.server.port, "/entitlements.v1.EntitlementService/Purchase",
                          request.SerializeToString(), key, headers=dict(headers))


def test_an_untrusted_peers_forwarding_headers_are_ignored(tenants_server, tenants_file, tenants, protos):
    # Here 127.0.0.1 is not a trusted proxy (only 10.0.0.0/8 is): whatever a call claims, it is 127.0.0.1's.
    other = StripeEnv(tenants_server(tenants_file, {"server": {"trusted_proxies": "10.0.0.0/8"}}), tenants, protos)
    try:
        code = other.limits_admin.redemption_code(anonymous_subscription(other, "limits")["sub"]).code
        for index in range(20):
            claims = [("x-forwarded-for", f"198.51.100.{index}"), ("forwarded", f"for=198.51.100.{index}")]
            assert other.limits.redeem_error(unique_id(), random_code(), claims).code() == Code.NOT_FOUND
        error = other.limits.redeem_error(unique_id(), code, [("x-forwarded-for", "203.0.113.99")])
        waited_seconds(error, "from this network address")
    finally:
        other.close()


def test_behind_a_proxy_writing_forwarded_a_flood_from_many_networks_locks_out_no_new_buyer(
        tenants_server, tenants_file, tenants, protos):
    """1,000 failures (the tenant's circuit breaker) from 50 IPv6 networks, 20 user IDs each, through a proxy that
    writes RFC 7239 Forwarded: every key that failed waits, but a buyer who never failed, from a network that never
    failed, redeems."""
    settings = {"server": {"trusted_proxies": "127.0.0.1", "client_address_header": "forwarded"}}
    other = StripeEnv(tenants_server(tenants_file, settings), tenants, protos)

    def via(address: str) -> list[tuple[str, str]]:
        # A client-made entry on the left, then the proxy's; the quoted, bracketed IPv6 with a port as RFC 7239 has it.
        return [("forwarded", f'for=192.0.2.254;proto=http, for="[{address}]:4711";proto=https')]

    try:
        code = other.limits_admin.redemption_code(anonymous_subscription(other, "limits")["sub"]).code
        failed_once = unique_id()
        for network in range(50):
            for index in range(20):
                # Each attempt from another address of the network (a client rotating within its /64).
                user = failed_once if network == index == 0 else unique_id()
                error = other.limits.redeem_error(user, random_code(), via(f"2001:db8:{network:x}::{index + 1:x}"))
                assert error.code() == Code.NOT_FOUND, (network, index, error.details())
        # The breaker holds: a user ID and a network that never failed are still looked up (a wrong code: NOT_FOUND)...
        assert other.limits.redeem_error(unique_id(), random_code(), via("2001:db8:aaaa::1")).code() == Code.NOT_FOUND
        # ...but one failure is enough to wait, for a user ID (from anywhere) and for a network...
        waited_seconds(other.limits.redeem_error(failed_once, code, via("2001:db8:ffff::1")), "by this app user ID")
        waited_seconds(other.limits.redeem_error(unique_id(), code, via("2001:db8:aaaa::2")), "from this network address")
        # ...and only Forwarded is read: an X-Forwarded-For naming a fresh address changes nothing.
        spoofed = via("2001:db8:0::5") + [("x-forwarded-for", "203.0.113.50")]
        waited_seconds(other.limits.redeem_error(unique_id(), code, spoofed), "from this network address")
        buyer = unique_id()
        assert entitlement_ids(other.limits.redeem(buyer, code, via("2001:db8:beef::1")).customer) == ["pro"]
    finally:
        other.close()


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
