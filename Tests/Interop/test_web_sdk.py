"""The web SDK (Web/sdk) against the real server: its Node test suite (Web/sdk/test, Node's own runner and fetch),
given a server with a Stripe tenant and codes of anonymous web purchases to redeem, tenants that sign status (with
two keys, one signing; another lists them the other way round, as after a rotation) and a tenant that requires
HS256 user tokens; a stream that outlives a server restart; and the checked-in build (Web/sdk/dist) is what
Web/sdk/build makes from the sources."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

import fake_stripe as fs
from conftest import RPC_TIMEOUT, start_server
from entitlement_support import Clients, new_tenant, unique_id, write_tenants
from stripe_support import PRICE_LIFETIME, StripeEnv, stripe_tenant

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "Web" / "sdk"


TOKEN_ISSUER = "https://auth.web-sdk.example.com"
TOKEN_SECRET = "web-sdk-user-token-secret-of-at-least-32-bytes"


@pytest.fixture(scope="module")
def status_keys(tmp_path_factory):
    """Two P-256 status keys (k1, k2) in PEM files, and a stranger's key that claims k1's kid (a forger's)."""
    directory = tmp_path_factory.mktemp("web-sdk-status-keys")
    keys = {name: ec.generate_private_key(ec.SECP256R1()) for name in ("k1", "k2", "forger")}
    for name, key in keys.items():
        (directory / f"{name}.pem").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return directory, keys


@pytest.fixture(scope="module")
def tenants(status_keys):
    directory, _ = status_keys
    listed = {kid: {"kid": kid, "key_file": str(directory / f"{kid}.pem")} for kid in ("k1", "k2")}
    return {
        "web": stripe_tenant("web-sdk"), "other": new_tenant("web-sdk-other"),
        # k1 signs, k2 is published beside it; "rotated" has moved on to k2 and still publishes k1.
        "signed": new_tenant("web-sdk-signed", signed_status={"keys": [listed["k1"], listed["k2"]]}),
        "rotated": new_tenant("web-sdk-rotated", signed_status={"keys": [listed["k2"], listed["k1"]]}),
        "tokens": new_tenant("web-sdk-tokens", user_tokens={
            "mode": "required", "issuer": TOKEN_ISSUER, "hs256_secrets": [TOKEN_SECRET], "allow_anonymous": True}),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("web-sdk") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


def anonymous_purchase_code(env: StripeEnv) -> str:
    """A one-time web purchase (premium) nobody owns, and the code that claims it."""
    payment_intent = fs.new_id("pi")
    session = fs.checkout_session(mode="payment", payment_intent=payment_intent, metadata={"price_id": PRICE_LIFETIME})
    env.post_ok("web", fs.event("checkout.session.completed", session), "recorded")
    return env.web_admin.redemption_code(payment_intent).code


def published_status_keys(server, tenant) -> str:
    """The JWKS the server publishes for `tenant`, as an app pins it."""
    url = f"http://{server.target}/.well-known/entitlementd/{tenant.id}/jwks.json"
    with urllib.request.urlopen(url, timeout=RPC_TIMEOUT) as response:
        return response.read().decode()


def test_the_node_suite_against_the_server(server, tenants, protos, status_keys):
    node = shutil.which("node")
    assert node, "node is missing: Scripts/setup installs Debian's nodejs"
    env = StripeEnv(server, tenants, protos)
    try:
        codes = [anonymous_purchase_code(env)]
    finally:
        env.close()
    directory, keys = status_keys
    pinned = published_status_keys(server, tenants["signed"])
    assert sorted(key["kid"] for key in json.loads(pinned)["keys"]) == ["k1", "k2"], pinned
    # The forger's key under k1's name: what an SDK pinned to the wrong key (or fed by a forger) holds.
    forged = json.dumps({"keys": [{**json.loads(ECAlgorithm.to_jwk(keys["forger"].public_key())), "kid": "k1"}]})
    only_k1 = json.dumps({"keys": [key for key in json.loads(pinned)["keys"] if key["kid"] == "k1"]})
    result = subprocess.run(
        [node, "--test", str(SDK / "test")], cwd=SDK, capture_output=True, text=True, timeout=300,
        env={**os.environ, "ENTITLEMENTD_URL": f"http://{server.target}",
             "ENTITLEMENTD_PUBLIC_KEY": tenants["web"].public_key, "ENTITLEMENTD_SECRET_KEY": tenants["web"].secret_key,
             "ENTITLEMENTD_OTHER_PUBLIC_KEY": tenants["other"].public_key,
             "ENTITLEMENTD_REDEMPTION_CODES": ",".join(codes),
             "ENTITLEMENTD_SIGNED_PUBLIC_KEY": tenants["signed"].public_key,
             "ENTITLEMENTD_SIGNED_SECRET_KEY": tenants["signed"].secret_key,
             "ENTITLEMENTD_ROTATED_PUBLIC_KEY": tenants["rotated"].public_key,
             "ENTITLEMENTD_ROTATED_SECRET_KEY": tenants["rotated"].secret_key,
             "ENTITLEMENTD_UNSIGNED_PUBLIC_KEY": tenants["other"].public_key,
             "ENTITLEMENTD_UNSIGNED_SECRET_KEY": tenants["other"].secret_key,
             "ENTITLEMENTD_STATUS_KEYS": pinned, "ENTITLEMENTD_STATUS_KEYS_K1": only_k1,
             "ENTITLEMENTD_FORGED_STATUS_KEYS": forged,
             "ENTITLEMENTD_STATUS_SIGNING_KEY": (directory / "k1.pem").read_text(),
             "ENTITLEMENTD_TOKENS_TENANT": tenants["tokens"].id,
             "ENTITLEMENTD_TOKENS_PUBLIC_KEY": tenants["tokens"].public_key,
             "ENTITLEMENTD_TOKENS_SECRET_KEY": tenants["tokens"].secret_key,
             "ENTITLEMENTD_TOKEN_SECRET": TOKEN_SECRET, "ENTITLEMENTD_TOKEN_ISSUER": TOKEN_ISSUER})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout and "# skipped 0" in result.stdout, result.stdout


def test_the_checked_in_build_is_the_sources(tmp_path):
    assert shutil.which("tsc") and shutil.which("esbuild"), "Scripts/setup installs node-typescript and esbuild"
    subprocess.run([str(SDK / "build"), str(tmp_path)], check=True, capture_output=True, text=True, timeout=300)
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    checked_in = sorted(p.relative_to(SDK / "dist") for p in (SDK / "dist").rglob("*") if p.is_file())
    assert built == checked_in
    for path in built:
        assert (tmp_path / path).read_bytes() == (SDK / "dist" / path).read_bytes(), f"run Web/sdk/build: {path} is stale"


def test_a_stream_resumes_after_a_server_restart_with_nothing_lost_or_repeated(tmp_path, tenants, protos):
    """The SDK's stream (Web/sdk/driver/watch.mjs) outlives its server: a grant made while the server is back but
    before the SDK reconnected arrives by the resumed stream's replay (afterVersion), once, and versions only grow."""
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    server = start_server(tmp_path / "server", tenants_file)
    user = unique_id("restart")
    watcher = subprocess.Popen(
        [shutil.which("node"), str(SDK / "driver" / "watch.mjs")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "ENTITLEMENTD_URL": f"http://{server.target}", "APP_USER_ID": user,
                        "ENTITLEMENTD_PUBLIC_KEY": tenants["web"].public_key})
    lines: "queue.Queue[dict]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(json.loads(line)) for line in watcher.stdout], daemon=True).start()
    published: list[dict] = []

    def until(predicate, what):
        deadline = time.monotonic() + RPC_TIMEOUT
        while not any(predicate(line) for line in published):
            try:
                published.append(lines.get(timeout=max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                pytest.fail(f"no publish with {what}: {published}\n{watcher.stderr.read() if watcher.poll() else ''}")

    try:
        clients = Clients(server, protos)
        clients.channel()
        until(lambda line: line["origin"] == "server", "the server's status")
        clients.api(tenants["web"].secret_key).grant(user, "pro", duration=600)
        until(lambda line: line["entitlements"] == ["pro"], "pro")
        clients.close()
        assert server.terminate() == 0
        server = start_server(tmp_path / "server", tenants_file, {"server": {"listen": f"127.0.0.1:{server.port}"}})
        clients = Clients(server, protos)
        clients.channel()
        clients.api(tenants["web"].secret_key).grant(user, "premium", duration=600)
        until(lambda line: line["entitlements"] == ["premium", "pro"], "premium, after the restart")
        clients.close()
    finally:
        watcher.terminate()
        watcher.wait(timeout=RPC_TIMEOUT)
        server.terminate()
    versions = [int(line["version"]) for line in published]
    assert versions == sorted(set(versions)), f"a version published twice or going back: {published}"
    assert published[-1]["streamsOpened"] >= 2, published
