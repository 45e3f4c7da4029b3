"""Pub/Sub push authentication of Google Play notifications, end to end: every push carries `Authorization: Bearer`
with an OIDC token, minted here by the fake Google with PyJWT (independent of the server's JOSE code) and, where
Google's own library checks the same thing, also put to google-auth, so each refused token is known to be bad in
exactly the way the test means (and each accepted one good).

A refused push is 401 (no, malformed, unverifiable or expired token) or 403 (a valid Google token meant for someone
else), and applies nothing: the purchase at the fake has changed, yet the customer's status and history stay as they
were, and the same Pub/Sub message with a valid token applies afterwards.

This module has a server of its own, so the requests for Google's signing keys (GET /oauth2/v3/certs) that it counts
are this server's alone.
"""

from __future__ import annotations

import time

import google.auth.transport.requests
import google.oauth2.id_token
import jwt
import pytest

from entitlement_support import ACTIVE, INACTIVE, unique_id, write_tenants
from fake_google import (
    FakeGoogle, SubscriptionNotificationType, new_purchase_token, new_rsa_key, subscription_notification,
    test_notification,
)
from play_support import APP, PUSH_EMAIL, SERVER_SETTINGS, SUB, PlayEnv, audience_for, play_tenant

CERTS = "^/oauth2/v3/certs$"
VIAS = ["http1", "h2"]


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def play_tenants(fake, tmp_path_factory):
    key = fake.write_service_account(tmp_path_factory.mktemp("play-push") / "service-account.json")
    return {"a": play_tenant(fake, key, "push-a")}


@pytest.fixture(scope="module")
def play_server(tenants_server, tmp_path_factory, play_tenants):
    tenants_file = tmp_path_factory.mktemp("play-push-tenants") / "tenants.json"
    write_tenants(tenants_file, play_tenants.values())
    return tenants_server(tenants_file, SERVER_SETTINGS)


@pytest.fixture
def env(play_server, fake, play_tenants, protos):
    environment = PlayEnv(play_server, fake, play_tenants, protos)
    yield environment
    fake.clear_faults()
    environment.close()


AUDIENCE = audience_for("push-a")


def google_auth_claims(fake: FakeGoogle, token: str) -> dict:
    """google-auth's verdict on a push token (raises when it refuses it): signature against the fake's JWKS,
    audience, expiry."""
    return google.oauth2.id_token.verify_token(
        token, google.auth.transport.requests.Request(), audience=AUDIENCE, certs_url=fake.jwks_url)


def server_certs_requests(fake: FakeGoogle) -> list:
    """The server's requests for Google's keys (google-auth here fetches them too, as python-requests)."""
    return [r for r in fake.requests("GET", CERTS) if (r.header("User-Agent") or "").startswith("entitlementd/")]


def certs_fetches(fake: FakeGoogle) -> int:
    return len(server_certs_requests(fake))


def wait_past_refetch_floor(fake: FakeGoogle) -> None:
    """The server fetches Google's keys at most once a second, so that forged kids cannot make it hammer Google: a
    test that expects a fetch first lets a second pass since the last one. (A rule about time, not an event.)"""
    fetched = [request.time for request in server_certs_requests(fake)]
    if fetched:
        time.sleep(max(0.0, fetched[-1] + 1.2 - time.time()))


def revoked_at_google(env):
    """A user with an active subscription that Google has since revoked: a push that got through would end it."""
    user, token = unique_id(), new_purchase_token()
    env.fake.put_subscription(APP, token, product_id=SUB)
    first = env.a.play_purchase(user, SUB, token).customer
    assert first.status.state == ACTIVE
    env.fake.put_subscription(APP, token, product_id=SUB, state="EXPIRED", expiry="-1m", acknowledged=True)
    return user, token, first


def revoked_notification(token: str) -> dict:
    return subscription_notification(APP, token, SubscriptionNotificationType.REVOKED)


def assert_nothing_applied(env, user: str, first, events: int) -> None:
    synced = env.a.sync(user)
    assert synced.status.state == ACTIVE and synced.version == first.version, "a refused push was applied"
    assert len(env.a_admin.all_events(user)) == events


def test_a_valid_token_is_accepted(env):
    token = env.push_token("a")
    claims = google_auth_claims(env.fake, token)
    assert claims["email"] == PUSH_EMAIL and claims["email_verified"] is True
    user, purchase, _ = revoked_at_google(env)
    for via in VIAS:
        # The first applies the revocation; the same revocation again is nothing new, still 200.
        env.push_ok("a", revoked_notification(purchase), "SUBSCRIPTION_REVOKED", user, authorization="Bearer " + token,
                    via=via)
    assert env.a.sync(user).status.state == INACTIVE
    # Either issuer spelling Google uses, and a lowercase scheme.
    other = env.push_token("a", issuer="accounts.google.com")
    env.push_ok("a", revoked_notification(purchase), authorization="bearer " + other)


def _bad_tokens(env) -> dict:
    """name -> (Authorization header or None, expected status, google-auth's verdict: "refuses", "accepts" or None
    when google-auth does not apply)."""
    now = int(time.time())
    stranger = new_rsa_key()
    return {
        "missing": (None, 401, None),
        "not bearer": ("Basic " + env.push_token("a"), 401, None),
        "not a jwt": ("Bearer not-a-jwt", 401, None),
        "bad signature": ("Bearer " + env.push_token("a", key=stranger), 401, "refuses"),
        "alg none": ("Bearer " + jwt.encode(
            {"aud": AUDIENCE, "email": PUSH_EMAIL, "email_verified": True, "iss": "https://accounts.google.com",
             "iat": now, "exp": now + 3600}, None, algorithm="none", headers={"kid": env.fake.push_kids[0]}),
            401, "refuses"),
        "expired": ("Bearer " + env.push_token("a", iat=now - 7200), 401, "refuses"),
        "issued in the future": ("Bearer " + env.push_token("a", iat=now + 3600), 401, "refuses"),
        "wrong audience": ("Bearer " + env.push_token("a", audience=AUDIENCE + "/other"), 403, "refuses"),
        # google-auth's verify_token does not check the issuer (verify_oauth2_token does, against Google's own
        # certificates only): the server's issuer check has no independent counterpart here.
        "wrong issuer": ("Bearer " + env.push_token("a", issuer="https://accounts.example.com"), 403, None),
        # A valid Google token for another service account, or an unverified email: google-auth accepts both (its
        # job ends at the signature and audience), so the refusal is the server's subscription check.
        "wrong email": ("Bearer " + env.push_token("a", email="someone-else@example.iam.gserviceaccount.com"), 403,
                        "accepts"),
        "email not verified": ("Bearer " + env.push_token("a", email_verified=False), 403, "accepts"),
    }


BAD = ["missing", "not bearer", "not a jwt", "bad signature", "alg none", "expired", "issued in the future",
       "wrong audience", "wrong issuer", "wrong email", "email not verified"]


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("name", BAD)
def test_a_refused_push_token_applies_nothing(env, name, via):
    authorization, status, google_auth = _bad_tokens(env)[name]
    if google_auth == "refuses":
        with pytest.raises(Exception):
            google_auth_claims(env.fake, authorization.removeprefix("Bearer "))
    elif google_auth == "accepts":
        google_auth_claims(env.fake, authorization.removeprefix("Bearer "))
    user, token, first = revoked_at_google(env)
    events = len(env.a_admin.all_events(user))
    message_id = f"msg-{unique_id()}"
    answered, text = env.push("a", revoked_notification(token), message_id=message_id, authorization=authorization,
                              via=via)
    assert answered == status, (answered, text)
    assert "push token" in text.lower(), text
    assert token not in text
    assert_nothing_applied(env, user, first, events)
    # The same message, now with a valid token: the refused one did not use up its message id.
    env.push_ok("a", revoked_notification(token), "applied to", user, message_id=message_id, via=via)
    assert env.a.sync(user).status.state == INACTIVE


def test_an_unknown_kid_fetches_the_keys_again_once_then_is_refused(env):
    env.push_ok("a", test_notification(APP))  # the keys are held from here on
    kid = "unknown-" + unique_id()
    forged = "Bearer " + env.push_token("a", kid=kid, key=new_rsa_key())
    with pytest.raises(Exception, match=kid):
        google_auth_claims(env.fake, forged.removeprefix("Bearer "))
    user, token, first = revoked_at_google(env)
    events = len(env.a_admin.all_events(user))
    wait_past_refetch_floor(env.fake)
    before = certs_fetches(env.fake)
    status, text = env.push("a", revoked_notification(token), authorization=forged)
    assert status == 401 and kid in text, (status, text)
    assert certs_fetches(env.fake) == before + 1, "the keys were not fetched again for an unknown kid"
    # The same unknown kid again, even after the refetch floor: refused without asking Google.
    wait_past_refetch_floor(env.fake)
    status, text = env.push("a", revoked_notification(token), authorization=forged)
    assert status == 401, (status, text)
    assert certs_fetches(env.fake) == before + 1, "an unknown kid made the server fetch Google's keys again"
    assert_nothing_applied(env, user, first, events)


def test_a_rotated_key_is_fetched_and_accepted(env):
    env.push_ok("a", test_notification(APP))
    old_kid = env.fake.push_kids[0]
    wait_past_refetch_floor(env.fake)
    before = certs_fetches(env.fake)
    new_kid = env.fake.rotate_push_key()
    token = env.push_token("a")
    assert jwt.get_unverified_header(token)["kid"] == new_kid != old_kid
    google_auth_claims(env.fake, token)
    user, purchase, _ = revoked_at_google(env)
    env.push_ok("a", revoked_notification(purchase), "applied to", user, authorization="Bearer " + token)
    assert certs_fetches(env.fake) == before + 1
    # Tokens signed with the previous key still verify (it is still published), from the keys now held.
    env.push_ok("a", revoked_notification(purchase), authorization="Bearer " + env.push_token("a", kid=old_kid))
    assert certs_fetches(env.fake) == before + 1


def test_keys_that_cannot_be_fetched_are_503_so_pubsub_retries(env):
    user, token, first = revoked_at_google(env)
    events = len(env.a_admin.all_events(user))
    wait_past_refetch_floor(env.fake)
    env.fake.rotate_push_key()
    env.fake.fail_next("GET", CERTS, 500, count=10)
    message_id = f"msg-{unique_id()}"
    status, text = env.push("a", revoked_notification(token), message_id=message_id)
    assert status == 503, (status, text)
    assert_nothing_applied(env, user, first, events)
    env.fake.clear_faults()
    wait_past_refetch_floor(env.fake)
    env.push_ok("a", revoked_notification(token), "applied to", message_id=message_id)
