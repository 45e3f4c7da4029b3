"""The README's App Store walkthroughs: run as written against the demo tenant, and automated step by step. The
demo tenant trusts Config/dev-ca for Sandbox, `entctl dev` signs, the Swift client (`entctl purchase`) buys, the
webhook takes notifications, and a StreamStatus on another connection (grpcio) sees every change."""

from __future__ import annotations

import json
import queue
import re
import shlex
import subprocess
import threading
import uuid

import grpc

from conftest import DEMO_PUBLIC_KEY, DEMO_TENANTS_FILE, REPO_ROOT, RPC_TIMEOUT, demo_tenants
from entctl_support import entctl, entctl_binary, entctl_env

CA = str(REPO_ROOT / "Config" / "dev-ca")


def sign_transaction(original: str, transaction: str, expires: str) -> str:
    result = entctl(
        "dev", "sign-transaction", "--dir", CA, "--product", "com.example.pro.monthly", "--bundle-id",
        "com.example.app", "--original-transaction-id", original, "--transaction-id", transaction, "--expires", expires,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def stream_events(server, protos, user: str) -> "queue.Queue":
    """StreamStatus for `user` over grpcio, its events (kind, active entitlement IDs) put on a queue."""
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    request = protos.message("entitlements.v1.StreamStatusRequest")(app_user_id=user)
    response_class = protos.message("entitlements.v1.StatusEvent")
    call = channel.unary_stream(
        "/entitlements.v1.EntitlementService/StreamStatus",
        request_serializer=lambda message: message.SerializeToString(),
        response_deserializer=response_class.FromString,
    )(request, metadata=[("authorization", f"Bearer {DEMO_PUBLIC_KEY}")], timeout=30)
    events: queue.Queue = queue.Queue()

    def read() -> None:
        try:
            for event in call:
                events.put((event.kind, sorted(e.id for e in event.customer.status.entitlements)))
        except grpc.RpcError:
            pass

    threading.Thread(target=read, daemon=True).start()
    events.call = call  # keep it alive and cancellable
    return events


def test_purchase_notification_and_push_with_the_demo_tenant(demo_tenants_server, protos):
    server = demo_tenants_server
    user = "readme-" + uuid.uuid4().hex[:8]
    original = str(3_000_000_000_000_000 + uuid.uuid4().int % 1_000_000_000)
    addr = f"127.0.0.1:{server.port}"
    assert entctl("--addr", addr, "identify", user).returncode == 0
    events = stream_events(server, protos, user)
    kind = protos.message("entitlements.v1.StatusEvent").Kind
    snapshot_kind = kind.Value("SNAPSHOT")
    status_changed = kind.Value("STATUS_CHANGED")
    info_changed = kind.Value("CUSTOMER_INFO_CHANGED")
    assert events.get(timeout=RPC_TIMEOUT) == (snapshot_kind, [])

    bought = entctl("--addr", addr, "--json", "purchase", user, sign_transaction(original, original, "+30d"))
    assert bought.returncode == 0, bought.stderr
    assert json.loads(bought.stdout)["customer"]["status"]["state"] == "ACTIVE"
    assert events.get(timeout=RPC_TIMEOUT) == (status_changed, ["pro"])

    renewal = sign_transaction(original, original + "1", "+60d")
    renewed = entctl("--addr", addr, "dev", "notify", "DID_RENEW", "--tenant", "demo", "--dir", CA, "--transaction", renewal)
    assert renewed.returncode == 0 and renewed.stdout.startswith("200"), renewed.stdout + renewed.stderr
    assert events.get(timeout=RPC_TIMEOUT) == (info_changed, ["pro"])

    lapsed = sign_transaction(original, original + "1", "-1m")
    expired = entctl(
        "--addr", addr, "dev", "notify", "EXPIRED", "VOLUNTARY", "--tenant", "demo", "--dir", CA, "--transaction", lapsed
    )
    assert expired.returncode == 0, expired.stdout + expired.stderr
    assert events.get(timeout=RPC_TIMEOUT) == (status_changed, [])
    events.call.cancel()


# --------------------------------------------------------------------------------------------------
# The README's examples, run as written


def readme_block(heading: str) -> str:
    """The first ```sh block after `heading` in the README."""
    readme = (REPO_ROOT / "README.md").read_text()
    return re.search(r"```sh\n(.*?)```", readme[readme.index(heading):], re.S).group(1)


def run_readme_block(heading: str, server, replacements: dict[str, str] | None = None,
                     timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs the block with bash from the repository root, as a reader would, with `.build/release/entctl` being the
    entctl under test pointed at `server` (the README's commands use the default address, 127.0.0.1:50051) and
    `replacements` made first (what a second machine makes different, such as a fake's port). Any command that fails
    fails the script; jobs it leaves in the background are ended with it."""
    block = readme_block(heading)
    for old, new in (replacements or {}).items():
        block = block.replace(old, new)
    entctl_command = f"{shlex.quote(str(entctl_binary()))} --addr 127.0.0.1:{server.port}"
    script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + block.replace(
        ".build/release/entctl", entctl_command)
    return subprocess.run(
        ["bash", "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout, env=entctl_env())


def test_readme_local_signing_walkthrough_runs_as_written(tenants_server):
    server = tenants_server(DEMO_TENANTS_FILE)
    result = run_readme_block("### Local App Store signing (development)", server)
    assert result.returncode == 0, result.stdout + result.stderr
    # The demo tenant signs status: each status printed ends with its signed form (test_signed_status checks those).
    signed = [line for line in result.stdout.splitlines() if line.startswith("signed: eyJ")]
    lines = [line for line in result.stdout.splitlines() if not line.startswith("signed: ")]
    assert len(signed) == 2, result.stdout
    assert lines[0] == "bob  ACTIVE  version 2", lines
    assert lines[1].startswith("  pro until ") and lines[1].endswith("(APP_STORE, com.example.pro.monthly, renews)")
    assert "200 DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED: applied to bob" in lines
    # The status after the notification: the same expiry, no longer renewing.
    assert lines[-2:] == ["bob  ACTIVE  version 3", lines[1].replace(", renews)", ")")], lines


def test_readme_app_store_walkthrough_runs_as_written(tenants_server):
    server = tenants_server(DEMO_TENANTS_FILE)
    result = run_readme_block("## App Store purchases", server)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("\n200 ") + result.stdout.startswith("200 ") == 2, result.stdout


def test_a_ca_of_your_own_once_the_tenant_trusts_its_root(tenants_server, tmp_path):
    """The README's steps for a tenant of your own: `dev init --dir`, the root in `root_certificates`, sign with
    `--dir`. The tenant then accepts what that CA signs, and no longer what the demo CA signs."""
    ca = tmp_path / "my-ca"
    assert entctl("dev", "init", "--dir", str(ca)).returncode == 0
    tenants = demo_tenants()
    tenants["tenants"][0]["app_store"]["root_certificates"] = [str(ca / "root.pem")]
    tenants_file = tmp_path / "tenants.json"
    tenants_file.write_text(json.dumps(tenants))
    server = tenants_server(tenants_file)
    addr = f"127.0.0.1:{server.port}"
    product = ["--product", "com.example.pro.monthly", "--bundle-id", "com.example.app"]

    own = entctl("dev", "sign-transaction", "--dir", str(ca), *product)
    bought = entctl("--addr", addr, "--json", "purchase", "carol", own.stdout.strip())
    assert bought.returncode == 0, bought.stderr
    assert json.loads(bought.stdout)["customer"]["status"]["state"] == "ACTIVE"

    demo = entctl("dev", "sign-transaction", *product, cwd=REPO_ROOT)
    refused = entctl("--addr", addr, "purchase", "carol", demo.stdout.strip())
    assert refused.returncode == 1 and "INVALID_ARGUMENT" in refused.stderr, refused.stderr


def readme_section_blocks(heading: str) -> list[str]:
    """Every ```sh block of the README section that starts at `heading` (up to the next `## ` heading)."""
    readme = (REPO_ROOT / "README.md").read_text()
    start = readme.index(heading)
    end = readme.find("\n## ", start + len(heading))
    return re.findall(r"```sh\n(.*?)```", readme[start:end if end > 0 else None], re.S)


def test_readme_try_it_walkthrough_runs_as_written(tenants_server):
    """"Try it": identify, grant, status, a watch that sees the revoke, the history, the customer, the health checks
    and probes; only the grant ID (which `grant` prints) and the demo's port are filled in."""
    server = tenants_server(DEMO_TENANTS_FILE)
    entctl_command = f"{shlex.quote(str(entctl_binary()))} --addr 127.0.0.1:{server.port}"

    def run(block: str) -> subprocess.CompletedProcess:
        script = "set -euo pipefail\n" + block.replace(".build/release/entctl", entctl_command).replace(
            "127.0.0.1:50051", f"127.0.0.1:{server.port}")
        return subprocess.run(["bash", "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                              env=entctl_env())

    first, watch, revoke, health = readme_section_blocks("## Try it")[:4]
    result = run(first)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "alice  INACTIVE  version 1  (created)", lines
    assert any(line.startswith("app account token: ") for line in lines), lines
    grant_id = re.search(r"\bgr_[0-9a-f]{24}\b", result.stdout).group(0)
    assert "alice  ACTIVE  version 2" in lines and any(line.startswith("  pro until ") for line in lines), lines
    assert "demo" in result.stderr  # entctl says it sent the demo keys

    watcher = subprocess.Popen(["bash", "-c", watch.replace(".build/release/entctl", entctl_command)], cwd=REPO_ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=entctl_env())
    try:
        assert "SNAPSHOT  version 2" in watcher.stdout.readline()
        literal = re.search(r"\bgr_[0-9a-f]{24}\b", revoke).group(0)
        result = run(revoke.replace(literal, grant_id))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "STATUS_CHANGED  version 3  no entitlements  reason: refunded" in watcher.stdout.readline()
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
    assert re.search(r"^version 3 .* REVOKE  STATUS_CHANGED .*reason: refunded", result.stdout, re.M), result.stdout
    assert re.search(r"^version 1 .* CREATED ", result.stdout, re.M), result.stdout

    result = run(health)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("SERVING") >= 2 and "NOT_FOUND" not in result.stdout, result.stdout
    assert result.stdout.count("ok") >= 3, result.stdout  # /healthz over HTTP/1.1, h2c (curl) and nghttp
    assert "ready" in result.stdout
