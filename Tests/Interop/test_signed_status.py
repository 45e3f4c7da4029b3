"""Signed status (issue 44) through the real server: a tenant's `signed_status` keys, made here by `cryptography` (one
in SEC1 "EC PRIVATE KEY" form at an absolute path, one PKCS#8 at a path relative to the tenants file), sign every
status the EntitlementService answers and streams as a compact ES256 JWS in `CustomerStatus.signed_status`.

Each token is checked with PyJWT against the keys the server publishes at
GET /.well-known/entitlementd/{tenant}/jwks.json, independently of the server's own code: the header names the first
key, the claims are the status the same answer carries (tenant, sub, alias only for an alias, version, state and
entitlements in the webhooks' form, iat, exp = iat + offline_validity_hours). Also: rotation by SIGHUP, tenants that
sign nothing, Connect JSON, `entctl status` and `entctl verify-status`, and the tenants file's rules for the setting
(check-config, startup and reload refuse a bad one naming the field, never quoting a key).
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import RPC_TIMEOUT, server_binary
from entctl_support import entctl_binary, entctl_env
from entitlement_support import (
    ACTIVE, INACTIVE, SNAPSHOT, STATUS_CHANGED, Clients, anon_id, new_tenant, ts_millis, unique_id,
    write_tenants,
)

# entctl: ENTITLEMENTD_ENTCTL when set, else the one built next to the interop server (as test_entctl.py finds it).
ENTCTL = os.environ.get("ENTITLEMENTD_ENTCTL")

OFFLINE_HOURS = 5
DEFAULT_OFFLINE_HOURS = 72
SOURCES = {1: "app_store", 2: "play_store", 3: "web", 4: "grant"}
RFC3339_MILLIS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
RELOADED, NOT_RELOADED = "reloaded tenants", "tenants file not reloaded"


# --------------------------------------------------------------------------------------------------
# Keys, tokens and claims


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def write_key(path: Path, key, form: str = "pkcs8") -> Path:
    """`key` as an unencrypted PEM file: PKCS#8 ("PRIVATE KEY") or SEC1 ("EC PRIVATE KEY")."""
    private_format = {"pkcs8": serialization.PrivateFormat.PKCS8,
                      "sec1": serialization.PrivateFormat.TraditionalOpenSSL}[form]
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, private_format, serialization.NoEncryption()))
    return path


def pem_body_lines(path: Path) -> list[str]:
    """The base64 lines of a PEM file: what no message may quote."""
    return [line for line in path.read_text().splitlines() if line and not line.startswith("-----")]


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_jwk_xy(key) -> tuple[str, str]:
    numbers = key.public_key().public_numbers()
    return b64url(numbers.x.to_bytes(32, "big")), b64url(numbers.y.to_bytes(32, "big"))


def jwks_url(server, tenant_id: str) -> str:
    return f"http://{server.target}/.well-known/entitlementd/{tenant_id}/jwks.json"


def fetch_jwks(server, tenant_id: str) -> dict:
    response = requests.get(jwks_url(server, tenant_id), timeout=RPC_TIMEOUT)
    assert response.status_code == 200, (response.status_code, response.text)
    return response.json()


def jwks_kids(document: dict) -> list[str]:
    return sorted(key["kid"] for key in document["keys"])


def verify(token: str, document: dict) -> dict:
    """The claims of `token`, verified (ES256 only) with the key of its kid in the JWKS `document`; PyJWT raises
    when the kid is not there or the signature, exp or iat do not hold."""
    assert token, "no signed_status"
    kid = jwt.get_unverified_header(token)["kid"]
    keys = {key.key_id: key for key in jwt.PyJWKSet.from_dict(document).keys}
    if kid not in keys:
        raise jwt.PyJWKError(f"the JWKS has no key {kid!r} (it has {sorted(keys)})")
    return jwt.decode(token, keys[kid].key, algorithms=["ES256"], options={"require": ["exp", "iat", "sub"]})


def verify_with_server(token: str, server, tenant_id: str) -> dict:
    """`verify` against what the server publishes for `tenant_id` now, fetched as an app would (PyJWKClient)."""
    client = jwt.PyJWKClient(jwks_url(server, tenant_id), cache_keys=False, cache_jwk_set=False)
    key = client.get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["ES256"], options={"require": ["exp", "iat", "sub"]})


def header_of(token: str) -> dict:
    return jwt.get_unverified_header(token)


def unverified_claims(token: str) -> dict:
    return json.loads(b64url_decode(token.split(".")[1]))


def rfc3339_millis(timestamp) -> str:
    millis = ts_millis(timestamp)
    seconds, rest = divmod(millis, 1000)
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{rest:03d}Z"


def expected_status(customer) -> dict:
    """The claims' `status` for the CustomerStatus `customer`, in the webhooks' form."""
    state = {ACTIVE: "active", INACTIVE: "inactive"}[customer.status.state]
    return {"state": state, "entitlements": [
        {"id": item.id, "source": SOURCES[item.source], "product_id": item.product_id,
         "expires_at": rfc3339_millis(item.expires_at) if item.HasField("expires_at") else None,
         "will_renew": item.will_renew, "in_grace_period": item.in_grace_period,
         "in_billing_retry": item.in_billing_retry}
        for item in customer.status.entitlements]}


def assert_claims_match(claims: dict, customer, tenant_id: str, asked_as: str | None = None,
                        offline_hours: int = OFFLINE_HOURS) -> None:
    """The verified `claims` say what the CustomerStatus `customer` of the same answer says."""
    asked_as = asked_as or customer.app_user_id
    expected_names = {"tenant", "sub", "version", "status", "iat", "exp"} | (
        {"alias"} if asked_as != customer.app_user_id else set())
    assert set(claims) == expected_names, claims
    assert claims["tenant"] == tenant_id
    assert claims["sub"] == customer.app_user_id
    if asked_as != customer.app_user_id:
        assert claims["alias"] == asked_as
    assert claims["version"] == customer.version
    assert claims["status"] == expected_status(customer)
    assert isinstance(claims["iat"], int) and isinstance(claims["exp"], int), claims
    assert claims["exp"] - claims["iat"] == offline_hours * 3600


def assert_compact_es256(token: str, kid: str) -> None:
    """RFC 7515 compact serialization: three base64url parts without padding, the header exactly ours, and a raw
    64-byte R||S signature (RFC 7518 §3.4), not DER."""
    parts = token.split(".")
    assert len(parts) == 3 and all(re.fullmatch(r"[A-Za-z0-9_-]+", part) for part in parts), token
    assert json.loads(b64url_decode(parts[0])) == {"alg": "ES256", "kid": kid, "typ": "JWT"}
    assert len(b64url_decode(parts[2])) == 64


# --------------------------------------------------------------------------------------------------
# Servers


@dataclass
class Keys:
    k1: ec.EllipticCurvePrivateKey
    k2: ec.EllipticCurvePrivateKey
    other: ec.EllipticCurvePrivateKey


@pytest.fixture(scope="module")
def setup(tenants_server, tmp_path_factory):
    """One server: tenant "signed-a" signs with k1 (SEC1, absolute path) and publishes k2 too (PKCS#8, relative to the
    tenants file), valid offline OFFLINE_HOURS; "signed-b" signs with a key of its own that it also calls "k1", for
    the default 72 hours; "unsigned" signs nothing."""
    directory = tmp_path_factory.mktemp("signed-status")
    keys = Keys(new_key(), new_key(), new_key())
    write_key(directory / "k1.pem", keys.k1, "sec1")
    write_key(directory / "k2.pem", keys.k2, "pkcs8")
    write_key(directory / "b.pem", keys.other, "pkcs8")
    tenants = {
        "a": new_tenant("signed-a", signed_status={
            "keys": [{"kid": "k1", "key_file": str(directory / "k1.pem")}, {"kid": "k2", "key_file": "k2.pem"}],
            "offline_validity_hours": OFFLINE_HOURS}),
        "b": new_tenant("signed-b", signed_status={"keys": [{"kid": "k1", "key_file": "b.pem"}]}),
        "unsigned": new_tenant("unsigned"),
    }
    write_tenants(directory / "tenants.json", tenants.values())
    assert (directory / "k1.pem").read_text().startswith("-----BEGIN EC PRIVATE KEY-----")
    assert (directory / "k2.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----")
    return tenants_server(directory / "tenants.json"), tenants, keys, directory


@dataclass
class Env:
    server: object
    clients: Clients
    tenants: dict
    keys: Keys
    directory: Path

    def app(self, name: str = "a"):
        return self.clients.api(self.tenants[name].public_key)

    def admin(self, name: str = "a"):
        return self.clients.api(self.tenants[name].secret_key)

    def jwks(self, name: str = "a") -> dict:
        return fetch_jwks(self.server, self.tenants[name].id)

    def granted_user(self, name: str = "a") -> str:
        """A new customer of tenant `name` with "pro" until a time with milliseconds and "premium" for good."""
        user = unique_id("signed")
        self.app(name).identify(user)
        self.admin(name).grant(user, "pro", expires_at=time.time() + 86400 + 0.321)
        self.admin(name).grant(user, "premium")
        return user


@pytest.fixture
def env(setup, protos):
    server, tenants, keys, directory = setup
    clients = Clients(server, protos)
    clients.channel()
    yield Env(server, clients, tenants, keys, directory)
    clients.close()


# --------------------------------------------------------------------------------------------------
# The signature and its claims


def test_sync_status_is_signed_by_the_first_key_and_says_what_the_answer_says(env):
    tenant = env.tenants["a"]
    user = env.granted_user()
    response = env.app().call("SyncStatus", app_user_id=user)
    customer = response.customer
    token = customer.signed_status
    assert_compact_es256(token, "k1")

    claims = verify_with_server(token, env.server, tenant.id)
    assert_claims_match(claims, customer, tenant.id)
    assert [item.id for item in customer.status.entitlements] == ["premium", "pro"]
    pro = claims["status"]["entitlements"][1]
    assert RFC3339_MILLIS.match(pro["expires_at"]) and not pro["expires_at"].endswith(".000Z"), pro
    assert claims["status"]["entitlements"][0]["expires_at"] is None
    assert {item["source"] for item in claims["status"]["entitlements"]} == {"grant"}
    # Signed at the server time of this answer, or (a cached signature) less than a minute before it.
    server_seconds = customer.server_time.seconds
    assert server_seconds - 61 <= claims["iat"] <= server_seconds, (claims["iat"], server_seconds)
    # And it is the second key, published but not signing, that does not verify it.
    only_k2 = {"keys": [key for key in env.jwks()["keys"] if key["kid"] == "k2"]}
    only_k2["keys"][0]["kid"] = "k1"
    with pytest.raises(jwt.InvalidSignatureError):
        verify(token, only_k2)


def test_the_jwks_publishes_every_key_with_its_headers(env):
    response = requests.get(jwks_url(env.server, env.tenants["a"].id), timeout=RPC_TIMEOUT)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/jwk-set+json"
    cache_control = [part.strip() for part in response.headers["cache-control"].split(",")]
    assert sorted(cache_control) == ["max-age=3600", "public"], response.headers["cache-control"]
    assert response.headers["access-control-allow-origin"] == "*"
    document = response.json()
    by_kid = {key["kid"]: key for key in document["keys"]}
    assert sorted(by_kid) == ["k1", "k2"]
    for kid, private in (("k1", env.keys.k1), ("k2", env.keys.k2)):
        x, y = public_jwk_xy(private)
        assert by_kid[kid] == {"alg": "ES256", "crv": "P-256", "kid": kid, "kty": "EC", "use": "sig", "x": x, "y": y}
    # PyJWT reads it as a key set of two ES256 keys.
    assert sorted(key.key_id for key in jwt.PyJWKSet.from_dict(document).keys) == ["k1", "k2"]
    # Tenant B's own set is its own key.
    assert [(key["kid"], key["x"], key["y"]) for key in env.jwks("b")["keys"]] == [
        ("k1", *public_jwk_xy(env.keys.other))]

    # HTTP/1.1 HEAD: the same headers, no body.
    head = requests.head(jwks_url(env.server, env.tenants["a"].id), timeout=RPC_TIMEOUT)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "application/jwk-set+json"

    for tenant_id in ("no-such-tenant", env.tenants["unsigned"].id):
        missing = requests.get(jwks_url(env.server, tenant_id), timeout=RPC_TIMEOUT)
        assert missing.status_code == 404, (tenant_id, missing.status_code, missing.text)
        assert missing.headers["content-type"].startswith("text/plain")
        assert "keys" not in missing.text

    # Other methods: 405 with the methods that are allowed (RFC 9110 §15.5.6).
    for method in ("POST", "PUT", "DELETE"):
        refused = requests.request(method, jwks_url(env.server, env.tenants["a"].id), timeout=RPC_TIMEOUT)
        assert refused.status_code == 405, (method, refused.status_code)
        assert {part.strip() for part in refused.headers["allow"].split(",")} == {"GET", "HEAD"}


def test_an_alias_is_signed_as_its_customer_with_the_alias_named(env):
    tenant, app = env.tenants["a"], env.app()
    anonymous, named = anon_id(), unique_id("named")
    first = app.identify(anonymous)
    assert_claims_match(verify(first.customer.signed_status, env.jwks()), first.customer, tenant.id)
    merged = app.identify(named, anonymous_id=anonymous)
    assert merged.merged
    assert_claims_match(verify(merged.customer.signed_status, env.jwks()), merged.customer, tenant.id)
    env.admin().grant(named, "pro", duration=3600)

    by_alias = app.sync(anonymous)
    assert by_alias.app_user_id == named
    claims = verify(by_alias.signed_status, env.jwks())
    assert claims["sub"] == named and claims["alias"] == anonymous
    assert_claims_match(claims, by_alias, tenant.id, asked_as=anonymous)

    by_name = app.sync(named)
    claims = verify(by_name.signed_status, env.jwks())
    assert claims["sub"] == named and "alias" not in claims
    assert_claims_match(claims, by_name, tenant.id)

    # Asked by the alias again right after asking by name: the alias is still named (no signature for the name
    # served to the alias), and the other way round.
    assert verify(app.sync(anonymous).signed_status, env.jwks())["alias"] == anonymous
    assert "alias" not in verify(app.sync(named).signed_status, env.jwks())

    # A stream opened by the alias names it in every event.
    snapshot = app.stream(anonymous).next()
    assert verify(snapshot.customer.signed_status, env.jwks())["alias"] == anonymous


def test_stream_events_are_each_signed_at_their_server_time(env):
    tenant, app = env.tenants["a"], env.app()
    user = unique_id("stream")
    identified = app.identify(user)
    assert_claims_match(verify(identified.customer.signed_status, env.jwks()), identified.customer, tenant.id)
    assert header_of(identified.customer.signed_status)["kid"] == "k1"

    stream = app.stream(user)
    snapshot = stream.next()
    assert snapshot.kind == SNAPSHOT
    claims = verify(snapshot.customer.signed_status, env.jwks())
    assert_claims_match(claims, snapshot.customer, tenant.id)
    assert claims["iat"] == snapshot.customer.server_time.seconds

    env.admin().grant(user, "pro", expires_at=time.time() + 7200 + 0.5)
    event = stream.next()
    assert event.kind == STATUS_CHANGED
    assert event.customer.version == snapshot.customer.version + 1
    claims = verify(event.customer.signed_status, env.jwks())
    assert_claims_match(claims, event.customer, tenant.id)
    assert claims["iat"] == event.customer.server_time.seconds
    assert claims["status"]["state"] == "active" and [e["id"] for e in claims["status"]["entitlements"]] == ["pro"]
    assert header_of(event.customer.signed_status)["kid"] == "k1"


def test_a_resumed_stream_signs_history_as_it_was_and_the_current_version_as_of_now(env):
    """Replayed events are signed at the time each was logged; the last, the customer now, at the resume: a device
    back after longer than the validity still gets a current status it may keep."""
    tenant, app = env.tenants["a"], env.app()
    user = unique_id("resume")
    first = app.identify(user).customer.version
    admin = env.admin()
    admin.grant(user, "pro")
    logged_at = time.time()
    time.sleep(1.2)
    admin.grant(user, "premium")
    time.sleep(1.2)
    resumed_at = time.time()
    stream = app.stream(user, after_version=first)
    history, now = stream.next(), stream.next()
    assert (history.customer.version, now.customer.version) == (first + 1, first + 2)
    then = verify(history.customer.signed_status, env.jwks())
    assert_claims_match(then, history.customer, tenant.id)
    assert int(logged_at) - 1 <= then["iat"] <= logged_at and then["iat"] == history.customer.server_time.seconds
    current = verify(now.customer.signed_status, env.jwks())
    assert_claims_match(current, now.customer, tenant.id)
    # Its server_time stays when it was logged, as every replayed event's.
    assert current["iat"] >= int(resumed_at) > now.customer.server_time.seconds
    assert sorted(e["id"] for e in current["status"]["entitlements"]) == ["premium", "pro"]


def test_a_new_version_is_signed_at_once(env):
    tenant, app = env.tenants["a"], env.app()
    user = unique_id("version")
    app.identify(user)
    before = app.sync(user)
    claims_before = verify(before.signed_status, env.jwks())
    assert claims_before["version"] == before.version and claims_before["status"]["state"] == "inactive"

    env.admin().grant(user, "pro")
    after = app.sync(user)
    assert after.version > before.version
    assert after.signed_status != before.signed_status
    claims = verify(after.signed_status, env.jwks())
    assert_claims_match(claims, after, tenant.id)
    assert claims["status"]["state"] == "active"

    # The same version again (maybe the same signature, reused): its claims are still this version's.
    for _ in range(3):
        again = app.sync(user)
        claims = verify(again.signed_status, env.jwks())
        assert_claims_match(claims, again, tenant.id)
        assert again.server_time.seconds - 61 <= claims["iat"] <= again.server_time.seconds


def test_one_tenants_status_does_not_verify_with_another_tenants_keys(env):
    tenant_b = env.tenants["b"]
    user = env.granted_user("b")
    customer = env.app("b").sync(user)
    token = customer.signed_status
    # Both tenants call their signing key "k1": only the signature tells them apart.
    assert header_of(token)["kid"] == "k1"
    with pytest.raises(jwt.InvalidSignatureError):
        verify(token, env.jwks("a"))
    claims = verify(token, env.jwks("b"))
    assert claims["tenant"] == tenant_b.id
    assert_claims_match(claims, customer, tenant_b.id, offline_hours=DEFAULT_OFFLINE_HOURS)
    # And a customer of the same app user ID in tenant A has a token that B's keys do not verify.
    env.app("a").identify(user)
    with pytest.raises(jwt.InvalidSignatureError):
        verify(env.app("a").sync(user).signed_status, env.jwks("b"))


def test_a_tenant_without_signed_status_signs_nothing(env):
    app, user = env.app("unsigned"), unique_id("unsigned")
    assert app.identify(user).customer.signed_status == ""
    env.admin("unsigned").grant(user, "pro")
    customer = app.sync(user)
    assert [item.id for item in customer.status.entitlements] == ["pro"]
    assert customer.signed_status == ""
    assert app.stream(user).next().customer.signed_status == ""


def test_connect_json_carries_the_signed_status(env):
    tenant = env.tenants["a"]
    user = env.granted_user()
    response = requests.post(
        f"http://{env.server.target}/entitlements.v1.EntitlementService/SyncStatus",
        data=json.dumps({"appUserId": user}),
        headers={"content-type": "application/json", "authorization": f"Bearer {tenant.public_key}"},
        timeout=RPC_TIMEOUT)
    assert response.status_code == 200, response.text
    customer = response.json()["customer"]
    token = customer["signedStatus"]
    assert_compact_es256(token, "k1")
    claims = verify(token, env.jwks())
    assert claims["tenant"] == tenant.id and claims["sub"] == customer["appUserId"] == user
    assert claims["version"] == int(customer["version"])
    assert [item["id"] for item in claims["status"]["entitlements"]] == [
        item["id"] for item in customer["status"]["entitlements"]] == ["premium", "pro"]


# --------------------------------------------------------------------------------------------------
# entctl


def run_entctl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    binary = ENTCTL or str(entctl_binary())
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=30, env=entctl_env(), input=stdin)


def entctl_verify(env, token: str, *extra: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run_entctl("--addr", env.server.target, "verify-status", token, *extra, stdin=stdin)


def sign_as(key, kid: str, claims: dict) -> str:
    return jwt.encode(claims, key, algorithm="ES256", headers={"kid": kid, "typ": "JWT"})


def test_entctl_status_prints_the_signed_status_and_verify_status_checks_it(env):
    tenant = env.tenants["a"]
    user = env.granted_user()
    status = run_entctl("--addr", env.server.target, "--key", tenant.public_key, "status", user)
    assert status.returncode == 0, status.stderr
    last = status.stdout.strip().splitlines()[-1]
    assert last.startswith("signed: "), status.stdout
    token = last.removeprefix("signed: ")
    claims = verify(token, env.jwks())
    assert claims["sub"] == user and claims["tenant"] == tenant.id

    verified = entctl_verify(env, token)
    assert verified.returncode == 0, verified.stderr
    assert f"verified: tenant {tenant.id}, key k1" in verified.stdout
    assert "valid offline until" in verified.stdout and user in verified.stdout
    # From standard input, and checked against a JWKS file instead of the server's.
    assert entctl_verify(env, "-", stdin=token + "\n").returncode == 0
    jwks_file = env.directory / "a-jwks.json"
    jwks_file.write_text(json.dumps(env.jwks()))
    assert entctl_verify(env, token, "--jwks", str(jwks_file)).returncode == 0

    as_json = run_entctl("--addr", env.server.target, "--json", "verify-status", token)
    assert as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout)
    assert document == {"verified": True, "kid": "k1", "claims": claims}


def test_entctl_verify_status_refuses_what_does_not_hold(env):
    tenant, tenant_b = env.tenants["a"], env.tenants["b"]
    user = env.granted_user()
    token = env.app().sync(user).signed_status
    header, payload, signature = token.split(".")

    # One claim changed (version + 1), the signature kept.
    altered_claims = {**unverified_claims(token)}
    altered_claims["version"] += 1
    tampered = ".".join([header, b64url(json.dumps(altered_claims, separators=(",", ":")).encode()), signature])
    with pytest.raises(jwt.InvalidSignatureError):
        verify(tampered, env.jwks())
    result = entctl_verify(env, tampered)
    assert result.returncode == 1 and "forged or altered" in result.stderr, result

    # Signed with the tenant's own key, but expired an hour ago.
    now = int(time.time())
    stale = sign_as(env.keys.k1, "k1", {**unverified_claims(token), "iat": now - 7200, "exp": now - 3600})
    with pytest.raises(jwt.ExpiredSignatureError):
        verify(stale, env.jwks())
    result = entctl_verify(env, stale)
    assert result.returncode == 1 and "expired at" in result.stderr, result

    # A kid the tenant does not publish.
    unknown = sign_as(env.keys.k1, "k9", unverified_claims(token))
    result = entctl_verify(env, unknown)
    assert result.returncode == 1 and "publishes no key with kid k9" in result.stderr, result

    # Tenant B's status, checked as tenant A's: B's "k1" is not A's "k1".
    b_user = env.granted_user("b")
    b_token = env.app("b").sync(b_user).signed_status
    assert entctl_verify(env, b_token).returncode == 0
    result = entctl_verify(env, b_token, "--tenant", tenant.id)
    assert result.returncode == 1 and "forged or altered" in result.stderr, result
    # Signed with A's key yet claiming B: the signature holds, the tenant does not.
    claims_b = sign_as(env.keys.k1, "k1", {**unverified_claims(token), "tenant": tenant_b.id})
    result = entctl_verify(env, claims_b, "--tenant", tenant.id)
    assert result.returncode == 1 and f"signed for tenant {tenant_b.id}, not {tenant.id}" in result.stderr, result

    # Not a JWS at all.
    result = entctl_verify(env, "not-a-jws")
    assert result.returncode == 1 and "not a compact JWS" in result.stderr, result


# --------------------------------------------------------------------------------------------------
# Rotation by SIGHUP


@pytest.fixture(scope="module")
def rotation(tenants_server, tmp_path_factory):
    """A server of its own (its tenants file is rewritten): tenant "rotating" starts with [k1, k2]."""
    directory = tmp_path_factory.mktemp("signed-status-rotation")
    keys = Keys(new_key(), new_key(), new_key())
    write_key(directory / "k1.pem", keys.k1, "pkcs8")
    write_key(directory / "k2.pem", keys.k2, "sec1")
    write_key(directory / "k3.pem", keys.other, "pkcs8")
    tenant = new_tenant("rotating")
    tenants_file = directory / "tenants.json"
    set_keys(tenants_file, tenant, [("k1", "k1.pem"), ("k2", "k2.pem")])
    return tenants_server(tenants_file), tenant, keys, tenants_file


def set_keys(tenants_file: Path, tenant, keys: list[tuple[str, str]], **extra) -> None:
    tenant.signed_status = {"keys": [{"kid": kid, "key_file": file} for kid, file in keys], **extra}
    write_tenants(tenants_file, [tenant])


def sighup(server, expect: str = RELOADED, timeout: float = 10.0) -> None:
    """SIGHUP, then waits until the log says `expect` once more than before."""
    before = server.log().count(expect)
    server.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + timeout
    while server.log().count(expect) <= before:
        assert server.process.poll() is None, f"server exited after SIGHUP:\n{server.describe()}"
        assert time.monotonic() < deadline, f"log did not show {expect!r} again:\n{server.log()[-3000:]}"
        time.sleep(0.05)


def reload_keys(server, tenants_file: Path, tenant, keys: list[tuple[str, str]]) -> None:
    """Rewrites the tenant's keys and reloads, until the JWKS shows the new set."""
    set_keys(tenants_file, tenant, keys)
    sighup(server)
    expected = sorted(kid for kid, _ in keys)
    deadline = time.monotonic() + 10
    while jwks_kids(fetch_jwks(server, tenant.id)) != expected:
        assert time.monotonic() < deadline, f"the JWKS never listed {expected}"
        time.sleep(0.05)


@pytest.fixture
def rot(rotation, protos):
    server, tenant, keys, tenants_file = rotation
    clients = Clients(server, protos)
    clients.channel()
    yield server, clients, tenant, keys, tenants_file
    clients.close()


def test_rotation_signs_with_the_new_first_key_at_once_and_drops_a_removed_key(rot):
    server, clients, tenant, keys, tenants_file = rot
    reload_keys(server, tenants_file, tenant, [("k1", "k1.pem"), ("k2", "k2.pem")])
    app, admin = clients.api(tenant.public_key), clients.api(tenant.secret_key)
    user = unique_id("rotation")
    app.identify(user)
    admin.grant(user, "pro")
    old = app.sync(user)
    assert header_of(old.signed_status)["kid"] == "k1"
    assert app.sync(user).signed_status  # cached now, its signature kept for a minute
    stream = app.stream(user)
    assert header_of(stream.next().customer.signed_status)["kid"] == "k1"

    # The second key moves first: it signs from the reload on, even for the customer whose signature was cached.
    reload_keys(server, tenants_file, tenant, [("k2", "k2.pem"), ("k1", "k1.pem")])
    document = fetch_jwks(server, tenant.id)
    assert jwks_kids(document) == ["k1", "k2"]
    rotated = app.sync(user)
    assert rotated.version == old.version
    assert header_of(rotated.signed_status)["kid"] == "k2"
    assert_claims_match(verify(rotated.signed_status, document), rotated, tenant.id,
                        offline_hours=DEFAULT_OFFLINE_HOURS)
    # A token signed before the rotation still verifies while k1 is published.
    assert verify(old.signed_status, document)["version"] == old.version
    # The open stream signs its next event with the new key too.
    admin.grant(user, "premium")
    event = stream.next()
    assert header_of(event.customer.signed_status)["kid"] == "k2"
    assert_claims_match(verify(event.customer.signed_status, document), event.customer, tenant.id,
                        offline_hours=DEFAULT_OFFLINE_HOURS)

    # The old key is removed: it is no longer published, and what it signed no longer verifies.
    reload_keys(server, tenants_file, tenant, [("k2", "k2.pem")])
    document = fetch_jwks(server, tenant.id)
    assert jwks_kids(document) == ["k2"]
    assert [(key["x"], key["y"]) for key in document["keys"]] == [public_jwk_xy(keys.k2)]
    with pytest.raises(jwt.PyJWKError):
        verify(old.signed_status, document)
    latest = app.sync(user)
    assert header_of(latest.signed_status)["kid"] == "k2"
    assert_claims_match(verify(latest.signed_status, document), latest, tenant.id, offline_hours=DEFAULT_OFFLINE_HOURS)


def test_a_key_replaced_under_the_same_kid_signs_at_once(rot):
    """An operator replaces the key file of the signing kid (a leaked key, say): every status served after the reload
    must verify with the key now published under that kid, a cached customer's too."""
    server, clients, tenant, keys, tenants_file = rot
    reload_keys(server, tenants_file, tenant, [("k2", "k2.pem")])
    app = clients.api(tenant.public_key)
    user = unique_id("rekeyed")
    app.identify(user)
    before = app.sync(user)
    assert verify(before.signed_status, fetch_jwks(server, tenant.id))["version"] == before.version

    set_keys(tenants_file, tenant, [("k2", "k3.pem")])
    sighup(server)
    deadline = time.monotonic() + 10
    while [(key["x"], key["y"]) for key in fetch_jwks(server, tenant.id)["keys"]] != [public_jwk_xy(keys.other)]:
        assert time.monotonic() < deadline, "the JWKS never published the replaced key"
        time.sleep(0.05)
    document = fetch_jwks(server, tenant.id)
    # A customer signed for the first time since the reload: the new key.
    newcomer = unique_id("rekeyed-new")
    assert verify(app.identify(newcomer).customer.signed_status, document)["sub"] == newcomer
    # The customer whose signature was cached before the reload: the new key too, not the cached token.
    after = app.sync(user)
    assert after.version == before.version
    reused = after.signed_status == before.signed_status
    assert not reused, "SyncStatus served the signature cached before the reload, made by the key no longer published"
    assert_claims_match(verify(after.signed_status, document), after, tenant.id, offline_hours=DEFAULT_OFFLINE_HOURS)


def test_a_bad_signed_status_on_reload_keeps_the_old_keys_and_names_the_field(rot):
    server, clients, tenant, keys, tenants_file = rot
    reload_keys(server, tenants_file, tenant, [("k1", "k1.pem"), ("k2", "k2.pem")])
    set_keys(tenants_file, tenant, [("k1", "k1.pem"), ("k1", "k2.pem")])
    sighup(server, NOT_RELOADED)
    log = server.log()
    last = log[log.rindex(NOT_RELOADED) - 2000:]
    assert "signed_status.keys[1].kid" in last, last[-2000:]
    for line in pem_body_lines(tenants_file.parent / "k1.pem") + pem_body_lines(tenants_file.parent / "k2.pem"):
        assert line not in log
    assert jwks_kids(fetch_jwks(server, tenant.id)) == ["k1", "k2"]
    app = clients.api(tenant.public_key)
    user = unique_id("kept")
    customer = app.identify(user).customer
    assert header_of(customer.signed_status)["kid"] == "k1"
    assert verify(customer.signed_status, fetch_jwks(server, tenant.id))["sub"] == user


# --------------------------------------------------------------------------------------------------
# The tenants file's rules


def refused_config(tmp_path: Path, signed_status: dict) -> tuple[str, str]:
    """What check-config and then a starting server say (on standard error) of a tenants file whose one tenant has
    `signed_status`; each must refuse it."""
    tenants = tmp_path / "tenants.json"
    write_tenants(tenants, [new_tenant("signing-config", signed_status=signed_status)])
    config = tmp_path / "check.toml"
    config.write_text(f'[server]\nlisten = "127.0.0.1:0"\n\n[storage]\ndatabase = "{tmp_path / "entitlements.db"}"\n'
                      f'tenants = "{tenants}"\n')
    checked = subprocess.run([str(server_binary()), "check-config", "--config", str(config)], capture_output=True,
                             text=True, timeout=RPC_TIMEOUT)
    assert checked.returncode != 0, checked.stdout
    started = subprocess.Popen([str(server_binary()), "--config", str(config)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        stdout, stderr = started.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        started.kill()
        stdout, stderr = started.communicate()
        pytest.fail(f"the server started with a bad signed_status:\n{stdout}\n{stderr}")
    assert started.returncode != 0, stdout
    assert "entitlementd listening" not in stdout
    return checked.stderr, stderr


def valid_key(tmp_path: Path, name: str) -> str:
    return str(write_key(tmp_path / name, new_key()))


@pytest.mark.parametrize("case, field", [
    ("not a key", "tenants[0].signed_status.keys[0].key_file"),
    ("a P-384 key", "tenants[0].signed_status.keys[1].key_file"),
    ("duplicate kid", "tenants[0].signed_status.keys[1].kid"),
    ("kid with a space", "tenants[0].signed_status.keys[0].kid"),
    ("no keys", "tenants[0].signed_status.keys"),
    ("six keys", "tenants[0].signed_status.keys"),
    ("0 hours", "tenants[0].signed_status.offline_validity_hours"),
    ("721 hours", "tenants[0].signed_status.offline_validity_hours"),
])
def test_the_tenants_file_refuses_a_bad_signed_status_naming_the_field(tmp_path, case, field):
    good = valid_key(tmp_path, "good.pem")
    not_a_key = tmp_path / "notes.pem"
    not_a_key.write_text("-----BEGIN PRIVATE KEY-----\nTHIS-IS-NOT-A-KEY-but-a-secret-note-7c1f\n"
                         "-----END PRIVATE KEY-----\n")
    p384 = write_key(tmp_path / "p384.pem", ec.generate_private_key(ec.SECP384R1()))
    signed_status = {
        "not a key": {"keys": [{"kid": "k1", "key_file": str(not_a_key)}]},
        "a P-384 key": {"keys": [{"kid": "k1", "key_file": good}, {"kid": "k2", "key_file": "p384.pem"}]},
        "duplicate kid": {"keys": [{"kid": "k1", "key_file": good}, {"kid": "k1", "key_file": good}]},
        "kid with a space": {"keys": [{"kid": "k 1", "key_file": good}]},
        "no keys": {"keys": []},
        "six keys": {"keys": [{"kid": f"k{i}", "key_file": good} for i in range(6)]},
        "0 hours": {"keys": [{"kid": "k1", "key_file": good}], "offline_validity_hours": 0},
        "721 hours": {"keys": [{"kid": "k1", "key_file": good}], "offline_validity_hours": 721},
    }[case]
    for said in refused_config(tmp_path, signed_status):
        assert field in said, said
        for path in (Path(good), not_a_key, p384):
            for line in pem_body_lines(path):
                assert line not in said, said


def test_the_tenants_file_takes_the_limits(tmp_path):
    """1 and 720 hours, five keys, kids of 64 characters of every allowed kind: check-config accepts them."""
    good = valid_key(tmp_path, "good.pem")
    for hours in (1, 720):
        tenants = tmp_path / "tenants.json"
        kids = ["A-z_0.9", "k" * 64, "x", "2026-12", "b"]
        write_tenants(tenants, [new_tenant("signing-limits", signed_status={
            "keys": [{"kid": kid, "key_file": good} for kid in kids], "offline_validity_hours": hours})])
        config = tmp_path / "check.toml"
        config.write_text(f'[server]\nlisten = "127.0.0.1:0"\n\n[storage]\ndatabase = "{tmp_path / "e.db"}"\n'
                          f'tenants = "{tenants}"\n')
        checked = subprocess.run([str(server_binary()), "check-config", "--config", str(config)],
                                 capture_output=True, text=True, timeout=RPC_TIMEOUT)
        assert checked.returncode == 0, checked.stderr
