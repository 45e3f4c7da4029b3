"""The web SDK (Web/sdk) against the real server: its Node test suite (Web/sdk/test, Node's own runner and fetch),
given a server with a Stripe tenant and codes of anonymous web purchases to redeem; a stream that outlives a server
restart; and the checked-in build (Web/sdk/dist) is what Web/sdk/build makes from the sources."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

import fake_stripe as fs
from conftest import RPC_TIMEOUT, start_server
from entitlement_support import Clients, new_tenant, unique_id, write_tenants
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
