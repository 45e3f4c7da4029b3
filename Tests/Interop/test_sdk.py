"""EntitlementsKit, the Swift SDK, against the real server (the interop-server with the demo tenants), over gRPC-Web
(URLSession) and native gRPC, through its sample program: App Store purchases signed with `entctl dev`, web
redemption codes from `entctl dev stripe`, grants pushed, identity and the cache across runs of the app. The README's
Swift SDK guide is checked to be the sample's code."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
import urllib.request
import uuid

import pytest

from conftest import DEMO_PUBLIC_KEY, REPO_ROOT, free_port
from entctl_support import entctl, entctl_binary, entctl_env, entctl_ok
from sdk_sample import SampleDevice, active, sample_binary
from test_demo_app_store import CA, readme_block

TRANSPORTS = ["grpc-web", "grpc"]


@pytest.fixture
def device(demo_tenants_server, request):
    devices: list[SampleDevice] = []

    def start(transport: str, **kwargs) -> SampleDevice:
        started = SampleDevice(demo_tenants_server.port, DEMO_PUBLIC_KEY, transport, **kwargs)
        devices.append(started)
        return started

    yield start
    for started in devices:
        started.close()


def addr(server) -> str:
    return f"127.0.0.1:{server.port}"


def sign_purchase(product: str = "com.example.pro.monthly") -> str:
    original = str(4_000_000_000_000_000 + uuid.uuid4().int % 1_000_000_000)
    return entctl_ok("dev", "sign-transaction", "--dir", CA, "--product", product, "--bundle-id", "com.example.app",
                     "--original-transaction-id", original, "--transaction-id", original, "--expires", "+30d").strip()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_purchase_signed_with_entctl_dev_and_status_at_least(demo_tenants_server, device, transport):
    phone = device(transport)
    user = "sdk-" + uuid.uuid4().hex[:8]
    assert phone.command(f"identify {user}")["event"] == "result"
    phone.wait_for(lambda s: s["app_user_id"] == user and s["origin"] == "server")

    jws = sign_purchase()
    bought = phone.command(f"purchase {jws}")
    assert bought["event"] == "result", bought
    assert bought["outcomes"] == ["new"] and bought["snapshot"]["state"] == "active"
    [pro] = bought["snapshot"]["entitlements"]
    assert pro["id"] == "pro" and pro["source"] == "appStore" and pro["product"] == "com.example.pro.monthly"
    version = bought["snapshot"]["version"]
    caught_up = phone.command(f"at-least {version}")
    assert caught_up["snapshot"]["version"] >= version and "pro" in active(caught_up["snapshot"])

    # A grant on the backend reaches the device with no call from it; so does its revocation.
    grant = json.loads(entctl_ok("--addr", addr(demo_tenants_server), "--json", "grant", user, "premium"))
    pushed = phone.wait_for(lambda s: "premium" in active(s))
    assert pushed["change"] == "entitlements" and pushed["snapshot"]["version"] == version + 1
    entctl_ok("--addr", addr(demo_tenants_server), "revoke", grant["grantId"])
    phone.wait_for(lambda s: s["version"] == version + 2 and active(s) == {"pro"})
    # The Observation model SwiftUI would read follows the same stream.
    deadline = time.monotonic() + 10
    while (model := phone.command("model")["snapshot"])["version"] != version + 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert model["version"] == version + 2 and active(model) == {"pro"}, model

    # A refused purchase is an error line with the gRPC code, the process carries on.
    refused = phone.command("purchase not-a-jws")
    assert refused["event"] == "error" and refused["code"] == "invalidArgument", refused
    # The SDK's log (debug level) names users and products, never the key or a signed transaction.
    logged = "".join(phone.stderr)
    assert "StreamStatus for" in logged
    assert DEMO_PUBLIC_KEY not in logged and jws not in logged and jws.split(".")[1] not in logged


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_web_purchase_is_redeemed_with_its_code(demo_tenants_server, device, transport):
    session = "cs_test_sdk_" + uuid.uuid4().hex[:12]
    posted = entctl("--addr", addr(demo_tenants_server), "dev", "stripe", "checkout.session.completed", "--tenant",
                    "demo", "--session", session, "--customer", "cus_" + uuid.uuid4().hex[:12], "--payment-intent",
                    "pi_" + uuid.uuid4().hex[:12], "--price", "price_demo_premium_lifetime")
    assert posted.returncode == 0, posted.stderr
    code = json.loads(entctl_ok("--addr", addr(demo_tenants_server), "redemption-code", session, "--json"))["code"]

    phone = device(transport)
    phone.wait_for(lambda s: s["origin"] == "server")
    redeemed = phone.command(f"redeem {code}")
    assert redeemed["event"] == "result", redeemed
    assert {"premium", "pro"} <= active(redeemed["snapshot"])
    assert all(e["source"] == "web" for e in redeemed["snapshot"]["entitlements"])
    again = phone.command(f"redeem {code}")
    assert again["event"] == "error" and again["code"] == "failedPrecondition", again


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_identify_merges_the_anonymous_purchase_and_log_out_starts_anew(demo_tenants_server, device, transport):
    phone = device(transport)
    anonymous = phone.command("whoami")["app_user_id"]
    assert re.fullmatch(r"\$anon:[0-9a-f-]{36}", anonymous)
    phone.command(f"purchase {sign_purchase()}")
    account = "sdk-" + uuid.uuid4().hex[:8]
    assert phone.command(f"identify {account}")["merged"] is True
    phone.wait_for(lambda s: s["app_user_id"] == account and "pro" in active(s))
    token = phone.command("whoami")["app_account_token"]
    identified = json.loads(entctl_ok("--addr", addr(demo_tenants_server), "--json", "identify", account))
    assert token == identified["appAccountToken"]

    out = phone.command("logout")["app_user_id"]
    assert out != anonymous and out.startswith("$anon:")
    phone.wait_for(lambda s: s["app_user_id"] == out and s["state"] == "inactive")


def test_the_cache_outlives_the_app_and_the_server(demo_tenants_server, device, tmp_path):
    cache = tmp_path / "cache"
    first = device("grpc-web", cache=cache)
    first.command(f"purchase {sign_purchase()}")
    user = first.command("whoami")["app_user_id"]
    version = first.command("refresh")["snapshot"]["version"]
    first.close()

    # The next launch, offline: the cached status first, with the same anonymous user.
    offline = device("grpc-web", cache=cache, server=f"http://127.0.0.1:{free_port()}")
    assert offline.command("whoami")["app_user_id"] == user
    cached = offline.wait_for(lambda snapshot: True)["snapshot"]
    assert cached["origin"] == "cache" and cached["version"] == version and "pro" in active(cached)
    failed = offline.command("refresh")
    assert failed["event"] == "error" and failed["code"] == "unavailable", failed


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_signed_status_pinned_user_tokens_sent_and_the_cache_shown_offline(demo_tenants_server, device, tmp_path,
                                                                          transport):
    """The demo tenant signs status and observes user tokens: the sample pins its published keys and gets tokens from
    `entctl dev user-token` as from a backend. What the server says is published; the next launch without a server
    shows the cached signed status `offline`; pinned to another key or for another tenant, nothing the server says is
    taken."""
    keys = tmp_path / "status-keys.json"
    with urllib.request.urlopen(f"http://{addr(demo_tenants_server)}/.well-known/entitlementd/demo/jwks.json") as answer:
        keys.write_bytes(answer.read())
    user = "sdk-" + uuid.uuid4().hex[:8]
    tokens = f'{shlex.quote(str(entctl_binary()))} dev user-token "$APP_USER_ID"'
    cache = tmp_path / "cache"
    phone = device(transport, cache=cache, status_keys=keys, user_token_command=tokens)
    assert phone.command(f"identify {user}")["event"] == "result"
    bought = phone.command(f"purchase {sign_purchase()}")
    assert bought["snapshot"]["origin"] == "server" and "pro" in active(bought["snapshot"]), bought
    deadline = time.monotonic() + 10
    # Each call's log line (not the "change" lines) says its token was accepted.
    while "Purchase" not in "".join(calls := [line for line in demo_tenants_server.log().splitlines()
                                              if f"user={user} " in line and " key=" in line]):
        assert time.monotonic() < deadline, calls
        time.sleep(0.2)
    assert all("user_token=accepted" in line for line in calls), calls
    phone.close()

    offline = device(transport, cache=cache, server=f"http://127.0.0.1:{free_port()}", status_keys=keys)
    assert offline.command("whoami")["app_user_id"] == user
    assert offline.command("refresh")["code"] == "unavailable"
    shown = offline.wait_for(lambda snapshot: snapshot["origin"] == "offline")["snapshot"]
    assert "pro" in active(shown) and shown["version"] == bought["snapshot"]["version"]

    # Pinned to a key that is not the tenant's: the cache and the server's answers are ignored, and said so.
    other = tmp_path / "other-keys.json"
    other.write_text(keys.read_text().replace('"kid":"demo-2026-12"', '"kid":"someone-else"'))
    distrusting = device(transport, cache=cache, status_keys=other)
    assert distrusting.command("refresh")["snapshot"]["state"] == "unknown"
    assert any("Ignored" in line and "which the app does not pin" in line for line in distrusting.stderr)
    distrusting.close()

    # The tenant's own keys, pinned for another tenant (one sharing the key): a status signed for "demo" is not taken.
    elsewhere = device(transport, cache=cache, status_keys=keys, tenant="another-tenant")
    assert elsewhere.command("refresh")["snapshot"]["state"] == "unknown"
    assert any("Ignored" in line and "signed for tenant demo, not this app's" in line for line in elsewhere.stderr)


def test_the_readme_guide_is_the_samples_code():
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme[readme.index("## Swift SDK"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```swift\n(.*?)```", section, re.S)
    assert len(blocks) >= 3
    sources = "".join(path.read_text() for path in sorted((REPO_ROOT / "Sources" / "EntitlementsKitSample").glob("*.swift")))

    def normalized(text: str) -> str:
        return "\n".join(line.strip() for line in text.splitlines() if line.strip())

    for block in blocks:
        assert normalized(block) in normalized(sources), block


def test_the_readme_sample_walkthrough_runs_as_written(demo_tenants_server):
    port = demo_tenants_server.port
    entctl_command = f"{shlex.quote(str(entctl_binary()))} --addr 127.0.0.1:{port}"
    script = "set -euo pipefail\n" + readme_block("## Swift SDK").replace(
        ".build/release/entitlements-kit-sample", shlex.quote(str(sample_binary()))).replace(
        ".build/release/entctl", entctl_command).replace("127.0.0.1:50051", f"127.0.0.1:{port}")
    result = subprocess.run(["bash", "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                            env=entctl_env())
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    results = [line for line in lines if line["event"] == "result"]
    assert [line["command"] for line in results] == ["identify", "purchase"], lines
    assert active(results[1]["snapshot"]) == {"pro"} and results[1]["snapshot"]["app_user_id"] == "dora"
