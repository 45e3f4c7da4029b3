"""User tokens (issue 44) through the real server: tokens minted by PyJWT (HS256, and ES256 with a key made by
`cryptography` and published as a JWKS file) on the app-facing calls of tenants whose `user_tokens` require them, or
only observe them. Each refusal is UNAUTHENTICATED naming the claim or check that failed, and never echoes the token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import re
import threading
import time
import urllib.request

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm

from conftest import free_port
from entitlement_support import Clients, active_ids, anon_id, new_tenant, unique_id, write_tenants

ISSUER = "https://auth.example.com"
SECRET = "first-secret-of-at-least-thirty-two-bytes"
ROTATED = "second-secret-of-at-least-thirty-two-bytes"
TOKEN_METADATA = "entitlements-user-token"


def mint(sub: str, aud: str, *, key=SECRET, alg: str = "HS256", iss: str = ISSUER, lifetime: int = 600,
         issued: int | None = None, headers: dict | None = None, **claims) -> str:
    now = int(time.time())
    payload = {"sub": sub, "aud": aud, "iss": iss, "iat": issued if issued is not None else now,
               "exp": (issued if issued is not None else now) + lifetime, **claims}
    return jwt.encode(payload, key, algorithm=alg, headers=headers)


@pytest.fixture(scope="module")
def setup(tenants_server, tmp_path_factory, protos):
    directory = tmp_path_factory.mktemp("user-tokens")
    es_key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(ECAlgorithm.to_jwk(es_key.public_key()))
    (directory / "keys.json").write_text(json.dumps({"keys": [{**jwk, "kid": "backend-1", "use": "sig", "alg": "ES256"}]}))
    hs = {"mode": "required", "issuer": ISSUER, "hs256_secrets": [SECRET, ROTATED]}
    tenants = {
        "hs": new_tenant("tokens-hs", user_tokens=hs),
        "es": new_tenant("tokens-es", user_tokens={"mode": "required", "issuer": ISSUER,
                                                   "jwks_file": str(directory / "keys.json")}),
        "observe": new_tenant("tokens-observe", user_tokens={**hs, "mode": "observe"}),
        "named": new_tenant("tokens-named", user_tokens={**hs, "allow_anonymous": False}),
        # The same secret and issuer as "hs": only `aud` tells their tokens apart.
        "twin": new_tenant("tokens-twin", user_tokens=hs),
    }
    write_tenants(directory / "tenants.json", tenants.values())
    server = tenants_server(directory / "tenants.json")
    clients = Clients(server, protos)
    clients.channel()
    yield server, clients, tenants, es_key
    clients.close()


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def calls(clients, tenant, token: str | None, *, key: str | None = None):
    """The Api of `tenant`'s public key (or `key`) sending `token` as the user token."""
    api = clients.api(key or tenant.public_key)
    metadata = [("authorization", f"Bearer {api.key}")] + ([(TOKEN_METADATA, token)] if token is not None else [])
    return api, metadata


def refusal(clients, tenant, method: str, token: str | None, **fields) -> str:
    api, metadata = calls(clients, tenant, token)
    with pytest.raises(grpc.RpcError) as raised:
        api.call(method, metadata=metadata, **fields)
    assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED, raised.value.details()
    details = raised.value.details()
    # Neither the token nor its signature (when it has one) is echoed.
    signature = (token or "").rpartition(".")[2]
    assert token is None or token not in details and (not signature or signature not in details), details
    return details


def test_required_refuses_a_call_without_a_token_and_takes_one_with_it(setup):
    _, clients, tenants, _ = setup
    tenant, user = tenants["hs"], unique_id()
    assert "(missing)" in refusal(clients, tenant, "Identify", None, app_user_id=user)
    api, metadata = calls(clients, tenant, mint(user, tenant.id))
    assert api.call("Identify", metadata=metadata, app_user_id=user).customer.app_user_id == user
    assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
    # Either configured secret signs (one rotated in beside the other).
    api, metadata = calls(clients, tenant, mint(user, tenant.id, key=ROTATED))
    assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
    # The secret key is the tenant's backend: it needs no user token.
    assert clients.api(tenant.secret_key).sync(user).app_user_id == user


@pytest.mark.parametrize("case, reason", [
    ("expired", "expired"), ("not_yet_valid", "not_yet_valid"), ("other_subject", "subject"),
    ("other_audience", "audience"), ("other_issuer", "issuer"), ("alg_none", "algorithm"),
    ("unknown_secret", "signature"), ("too_long", "lifetime"), ("issued_in_the_future", "issued_at"),
    ("not_a_token", "malformed"),
])
def test_each_claim_is_checked(setup, case, reason):
    _, clients, tenants, _ = setup
    tenant, user = tenants["hs"], unique_id()
    clients.api(tenant.secret_key).identify(user)
    now = int(time.time())
    token = {
        "expired": lambda: mint(user, tenant.id, issued=now - 700),
        "not_yet_valid": lambda: mint(user, tenant.id, nbf=now + 300),
        "other_subject": lambda: mint(unique_id(), tenant.id),
        "other_audience": lambda: mint(user, "another-tenant"),
        "other_issuer": lambda: mint(user, tenant.id, iss="https://evil.example.com"),
        "alg_none": lambda: jwt.encode({"sub": user, "aud": tenant.id, "iss": ISSUER, "iat": now, "exp": now + 60},
                                       None, algorithm="none"),
        "unknown_secret": lambda: mint(user, tenant.id, key="a-third-secret-nobody-configured-anywhere"),
        "too_long": lambda: mint(user, tenant.id, lifetime=7200),
        "issued_in_the_future": lambda: mint(user, tenant.id, issued=now + 120, lifetime=60),
        "not_a_token": lambda: "not.a-token",
    }[case]()
    assert f"({reason})" in refusal(clients, tenant, "SyncStatus", token, app_user_id=user)


def test_es256_tokens_are_checked_with_the_published_keys_only(setup):
    _, clients, tenants, es_key = setup
    tenant, user = tenants["es"], unique_id()
    clients.api(tenant.secret_key).identify(user)
    good = mint(user, tenant.id, key=es_key, alg="ES256", headers={"kid": "backend-1"})
    api, metadata = calls(clients, tenant, good)
    assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
    stranger = ec.generate_private_key(ec.SECP256R1())
    assert "(signature)" in refusal(clients, tenant, "SyncStatus",
                                    mint(user, tenant.id, key=stranger, alg="ES256", headers={"kid": "backend-1"}),
                                    app_user_id=user)
    assert "(unknown_key)" in refusal(clients, tenant, "SyncStatus",
                                      mint(user, tenant.id, key=es_key, alg="ES256", headers={"kid": "backend-2"}),
                                      app_user_id=user)
    # HS256 "signed" with the tenant's public key as the secret: the tenant has no secrets, so no HMAC is tried.
    public_pem = es_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo)
    # PyJWT will not sign HS256 with a PEM key, so the token is made by hand.
    now = int(time.time())
    signing_input = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "backend-1"}).encode()) + "." + b64(
        json.dumps({"sub": user, "aud": tenant.id, "iss": ISSUER, "iat": now, "exp": now + 60}).encode())
    signature = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    assert "(algorithm)" in refusal(clients, tenant, "SyncStatus", signing_input + "." + b64(signature),
                                    app_user_id=user)
    # RS256 with a key of the right kid's name is not an ES256 key.
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert "(unknown_key)" in refusal(clients, tenant, "SyncStatus",
                                      mint(user, tenant.id, key=rsa_key, alg="RS256", headers={"kid": "backend-1"}),
                                      app_user_id=user)


def test_observe_mode_lets_calls_through_and_says_what_it_would_refuse(setup):
    server, clients, tenants, _ = setup
    tenant, user = tenants["observe"], unique_id()
    api, metadata = calls(clients, tenant, None)
    assert api.call("Identify", metadata=metadata, app_user_id=user).customer.app_user_id == user
    api, metadata = calls(clients, tenant, mint(user, tenant.id))
    assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = [line for line in server.log().splitlines() if f'"user":"{user}"' in line or f"user={user}" in line]
        if any("would_refuse:missing" in line for line in lines) and any("accepted" in line for line in lines):
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"no would_refuse and accepted lines for {user}:\n" + "\n".join(lines))
    # And counted, by tenant, outcome and reason.
    host, port = server.target.rsplit(":", 1)
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    def count(outcome: str, reason: str) -> float:
        labels = f'tenant="{tenant.id}",outcome="{outcome}",reason="{reason}"'
        found = re.search(r"^entitlementd_user_tokens_total\{" + re.escape(labels) + r"\} (\S+)$", text, re.MULTILINE)
        return float(found.group(1)) if found else 0
    assert count("would_refuse", "missing") >= 1 and count("accepted", "") >= 1, text


def test_anonymous_ids_need_no_token_unless_the_tenant_says_so(setup):
    _, clients, tenants, _ = setup
    anonymous = anon_id()
    api, metadata = calls(clients, tenants["hs"], None)
    assert api.call("Identify", metadata=metadata, app_user_id=anonymous).customer.app_user_id == anonymous
    assert "(missing)" in refusal(clients, tenants["named"], "Identify", None, app_user_id=anon_id())


def test_an_anonymous_id_merged_into_a_user_needs_that_users_token(setup):
    _, clients, tenants, _ = setup
    tenant, user, anonymous = tenants["hs"], unique_id(), anon_id()
    api, metadata = calls(clients, tenant, None)
    api.call("Identify", metadata=metadata, app_user_id=anonymous)
    api, metadata = calls(clients, tenant, mint(user, tenant.id))
    assert api.call("Identify", metadata=metadata, app_user_id=user, anonymous_id=anonymous).merged
    # The anonymous ID now reads the identified customer: not without the token, and not with the anonymous ID's.
    assert "(missing)" in refusal(clients, tenant, "SyncStatus", None, app_user_id=anonymous)
    assert "(subject)" in refusal(clients, tenant, "SyncStatus", mint(anonymous, tenant.id), app_user_id=anonymous)
    api, metadata = calls(clients, tenant, None)
    assert api.stream(anonymous, metadata=metadata).error().code() == grpc.StatusCode.UNAUTHENTICATED
    api, metadata = calls(clients, tenant, mint(user, tenant.id))
    assert api.call("SyncStatus", metadata=metadata, app_user_id=anonymous).customer.app_user_id == user


def test_a_merged_anonymous_id_needs_its_users_token_even_where_anonymous_ids_need_tokens(setup):
    """allow_anonymous false: the anonymous ID's own token does not read the identified customer it was merged into."""
    _, clients, tenants, _ = setup
    tenant, user, anonymous = tenants["named"], unique_id(), anon_id()
    api, metadata = calls(clients, tenant, mint(anonymous, tenant.id))
    api.call("Identify", metadata=metadata, app_user_id=anonymous)
    api, metadata = calls(clients, tenant, mint(user, tenant.id))
    assert api.call("Identify", metadata=metadata, app_user_id=user, anonymous_id=anonymous).merged
    assert "(subject)" in refusal(clients, tenant, "SyncStatus", mint(anonymous, tenant.id), app_user_id=anonymous)
    assert api.call("SyncStatus", metadata=metadata, app_user_id=anonymous).customer.app_user_id == user


def test_a_token_whose_header_lists_critical_extensions_is_refused(setup):
    """RFC 7515 §4.1.11: a `crit` this server does not understand makes the token invalid."""
    _, clients, tenants, _ = setup
    tenant, user = tenants["hs"], unique_id()
    clients.api(tenant.secret_key).identify(user)
    token = mint(user, tenant.id, headers={"crit": ["exp"]})
    assert "(malformed)" in refusal(clients, tenant, "SyncStatus", token, app_user_id=user)


def test_a_token_for_one_tenant_does_not_open_another(setup):
    _, clients, tenants, _ = setup
    user = unique_id()
    clients.api(tenants["twin"].secret_key).identify(user)
    assert "(audience)" in refusal(clients, tenants["twin"], "SyncStatus", mint(user, tenants["hs"].id),
                                   app_user_id=user)


def test_streams_need_the_token_too(setup):
    _, clients, tenants, _ = setup
    tenant, user = tenants["hs"], unique_id()
    clients.api(tenant.secret_key).identify(user)
    api, metadata = calls(clients, tenant, mint(user, tenant.id))
    stream = api.stream(user, metadata=metadata)
    assert stream.next().customer.app_user_id == user
    api, metadata = calls(clients, tenant, None)
    error = api.stream(user, metadata=metadata).error()
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED and "(missing)" in error.details()


class KeyPublisher:
    """A JWKS at http://127.0.0.1:PORT/jwks whose keys the test changes, counting the fetches."""

    def __init__(self):
        self.keys: dict[str, ec.EllipticCurvePrivateKey] = {}
        self.fetches = 0
        publisher = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                publisher.fetches += 1
                body = json.dumps({"keys": [{**json.loads(ECAlgorithm.to_jwk(key.public_key())), "kid": kid}
                                            for kid, key in publisher.keys.items()]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "max-age=3600")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/jwks"

    def close(self):
        self.server.shutdown()


def test_keys_at_a_jwks_url_are_fetched_once_and_again_for_a_new_kid(tenants_server, tmp_path, protos):
    publisher = KeyPublisher()
    try:
        publisher.keys["k1"] = ec.generate_private_key(ec.SECP256R1())
        tenant = new_tenant("tokens-url", user_tokens={"mode": "required", "issuer": ISSUER, "jwks_url": publisher.url})
        write_tenants(tmp_path / "tenants.json", [tenant])
        clients = Clients(tenants_server(tmp_path / "tenants.json"), protos)
        clients.channel()
        try:
            user = unique_id()
            clients.api(tenant.secret_key).identify(user)
            for _ in range(3):
                api, metadata = calls(clients, tenant, mint(user, tenant.id, key=publisher.keys["k1"], alg="ES256",
                                                             headers={"kid": "k1"}))
                assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
            assert publisher.fetches == 1
            # The backend rotates in a key: its first token (a second after the last fetch, the least between two)
            # makes one fetch, which finds it.
            publisher.keys["k2"] = ec.generate_private_key(ec.SECP256R1())
            time.sleep(1.1)
            api, metadata = calls(clients, tenant, mint(user, tenant.id, key=publisher.keys["k2"], alg="ES256",
                                                         headers={"kid": "k2"}))
            stream = api.stream(user, metadata=metadata)
            assert stream.next().customer.app_user_id == user
            assert publisher.fetches == 2
            # A kid nobody publishes is refused, and asked about once.
            time.sleep(1.1)
            forged = mint(user, tenant.id, key=publisher.keys["k1"], alg="ES256", headers={"kid": "forged"})
            for _ in range(3):
                assert "(unknown_key)" in refusal(clients, tenant, "SyncStatus", forged, app_user_id=user)
            assert publisher.fetches == 3
        finally:
            clients.close()
    finally:
        publisher.close()


def test_keys_that_cannot_be_fetched_are_unavailable_not_a_refused_token(tenants_server, tmp_path, protos):
    """The tenant's JWKS URL does not answer: required mode answers UNAVAILABLE (the client keeps its token and tries
    later); observe mode lets the call through, counted as would_refuse:keys_unavailable."""
    closed = f"http://127.0.0.1:{free_port()}/jwks"
    settings = {"issuer": ISSUER, "jwks_url": closed}
    tenants = {"required": new_tenant("tokens-down", user_tokens={"mode": "required", **settings}),
               "observe": new_tenant("tokens-down-observe", user_tokens={"mode": "observe", **settings})}
    write_tenants(tmp_path / "tenants.json", tenants.values())
    clients = Clients(tenants_server(tmp_path / "tenants.json"), protos)
    clients.channel()
    try:
        key = ec.generate_private_key(ec.SECP256R1())
        for name, tenant in tenants.items():
            user = unique_id()
            clients.api(tenant.secret_key).identify(user)
            api, metadata = calls(clients, tenant, mint(user, tenant.id, key=key, alg="ES256", headers={"kid": "k1"}))
            if name == "required":
                with pytest.raises(grpc.RpcError) as raised:
                    api.call("SyncStatus", metadata=metadata, app_user_id=user)
                assert raised.value.code() == grpc.StatusCode.UNAVAILABLE, raised.value.details()
                assert not raised.value.details().startswith("user token")
            else:
                assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
    finally:
        clients.close()


def test_a_jwks_file_changed_under_the_same_path_takes_effect_on_reload(tenants_server, tmp_path, protos):
    """The backend's leaked key is taken out of the JWKS file and the tenants file reloaded (SIGHUP): its tokens are
    refused from then on, the new key's accepted."""
    from test_signed_status import sighup

    old_key, new_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())

    def publish(key, kid):
        jwk = json.loads(ECAlgorithm.to_jwk(key.public_key()))
        (tmp_path / "keys.json").write_text(json.dumps({"keys": [{**jwk, "kid": kid, "use": "sig", "alg": "ES256"}]}))

    publish(old_key, "old")
    tenant = new_tenant("tokens-file-reload", user_tokens={"mode": "required", "issuer": ISSUER,
                                                           "jwks_file": str(tmp_path / "keys.json")})
    write_tenants(tmp_path / "tenants.json", [tenant])
    server = tenants_server(tmp_path / "tenants.json")
    clients = Clients(server, protos)
    clients.channel()
    try:
        user = unique_id()
        clients.api(tenant.secret_key).identify(user)
        old = mint(user, tenant.id, key=old_key, alg="ES256", headers={"kid": "old"})
        api, metadata = calls(clients, tenant, old)
        assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
        publish(new_key, "new")
        sighup(server)
        assert "(unknown_key)" in refusal(clients, tenant, "SyncStatus", old, app_user_id=user)
        api, metadata = calls(clients, tenant, mint(user, tenant.id, key=new_key, alg="ES256", headers={"kid": "new"}))
        assert api.call("SyncStatus", metadata=metadata, app_user_id=user).customer.app_user_id == user
    finally:
        clients.close()


def test_a_stream_ends_when_its_token_expires_and_resumes_with_a_fresh_one(setup):
    _, clients, tenants, _ = setup
    tenant, user = tenants["hs"], unique_id()
    backend = clients.api(tenant.secret_key)
    backend.identify(user)
    # A token issued 598 s ago for 600 s: it expires in 2 s, and the stream 5 s of allowed clock skew after that.
    api, metadata = calls(clients, tenant, mint(user, tenant.id, issued=int(time.time()) - 598, lifetime=600))
    stream = api.stream(user, metadata=metadata)
    first = stream.next()
    started = time.monotonic()
    error = stream.error(timeout=30)
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED and "user token expired" in error.details(), error.details()
    assert 2 <= time.monotonic() - started <= 20
    # Meanwhile a grant; a new stream with a fresh token and after_version gets it, and nothing before it again.
    backend.grant(user, "pro")
    api, metadata = calls(clients, tenant, mint(user, tenant.id))
    resumed = api.stream(user, after_version=first.customer.version, metadata=metadata)
    event = resumed.next()
    assert event.customer.version > first.customer.version
    assert active_ids(event.customer) == ["pro"]
