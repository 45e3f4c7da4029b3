"""The web SDK (Web/sdk) against the real server: its Node test suite (Web/sdk/test, Node's own runner and fetch),
given a server with a Stripe tenant and codes of anonymous web purchases to redeem; and the checked-in build
(Web/sdk/dist) is what Web/sdk/build makes from the sources."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import fake_stripe as fs
from entitlement_support import new_tenant, write_tenants
from stripe_support import PRICE_LIFETIME, StripeEnv, stripe_tenant

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "Web" / "sdk"


@pytest.fixture(scope="module")
def tenants():
    return {"web": stripe_tenant("web-sdk"), "other": new_tenant("web-sdk-other")}


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


def test_the_node_suite_against_the_server(server, tenants, protos):
    node = shutil.which("node")
    assert node, "node is missing: Scripts/setup installs Debian's nodejs"
    env = StripeEnv(server, tenants, protos)
    try:
        codes = [anonymous_purchase_code(env)]
    finally:
        env.close()
    result = subprocess.run(
        [node, "--test", str(SDK / "test")], cwd=SDK, capture_output=True, text=True, timeout=300,
        env={**os.environ, "ENTITLEMENTD_URL": f"http://{server.target}",
             "ENTITLEMENTD_PUBLIC_KEY": tenants["web"].public_key, "ENTITLEMENTD_SECRET_KEY": tenants["web"].secret_key,
             "ENTITLEMENTD_OTHER_PUBLIC_KEY": tenants["other"].public_key,
             "ENTITLEMENTD_REDEMPTION_CODES": ",".join(codes)})
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
