"""README lines that a newcomer found failing as written (issue 36), run as written: the metrics grep, the
attributes, export, erasure and purge-tenant commands, migrate-store from the demo's database (twice: PostgreSQL's notices stay out of what it
prints), the admin console's key, the development Play notification, and the demo on another port.

What a second machine makes different is filled in, as in test_demo_*.py: the server's port (the README's is 50051),
the binaries under test for `.build/release/...`, and for migrate-store a fresh PostgreSQL schema and a copy of the
demo's database made by a server of the test."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import time

import pytest

from conftest import DEMO_SECRET_KEY, DEMO_TENANTS_FILE, REPO_ROOT, entitlementd_binary, start_server, stop_and_check
from entctl_support import entctl, entctl_binary, entctl_env
from entitlement_support import Clients, new_tenant, write_tenants
from test_demo_app_store import readme_block

README = (REPO_ROOT / "README.md").read_text()


def run_block(block: str, server, cwd=REPO_ROOT) -> subprocess.CompletedProcess:
    """`block` run by bash with the binaries under test, entctl pointed at `server` unless it names an address."""
    entctl_command = shlex.quote(str(entctl_binary()))
    script = "set -euo pipefail\n" + re.sub(
        r"\.build/release/entctl(?! --addr)", f"{entctl_command} --addr {server.target}", block
    ).replace(".build/release/entctl", entctl_command).replace(
        ".build/release/entitlementd", shlex.quote(str(entitlementd_binary())))
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=entctl_env())


def test_the_metrics_lines(demo_tenants_server):
    block = readme_block("### Metrics").replace("http://127.0.0.1:50051/", f"http://{demo_tenants_server.target}/")
    result = run_block(block, demo_tenants_server)
    assert result.returncode == 0, result.stdout + result.stderr
    [handled] = [line for line in result.stdout.splitlines() if line.startswith("grpc_server_handled_total")]
    # The series the README shows, in the order it shows its labels.
    documented = re.search(r"`(grpc_server_handled_total\{[^`]*\})`", README).group(1)
    assert handled.startswith(documented + " "), (handled, documented)


def test_the_attributes_lines(demo_tenants_server):
    """The "Customer attributes" block as written: the backend's keys, the app's, the e-mail search, a removal."""
    result = run_block(readme_block("## Customer attributes"), demo_tenants_server)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "alice  changed: $displayName, $email, crm_id" in out, out
    assert "alice  changed: $locale" in out, out
    assert "alice  EMAIL" in out, out
    assert "alice  changed: crm_id" in out, out
    listed = out[out.rindex("alice\n"):]
    assert "$email = Alice@Example.com" in listed and "$locale = en-GB" in listed and "crm_id" not in listed, listed


def test_the_export_and_erasure_lines(demo_tenants_server, tmp_path):
    """"Exporting a customer" then "Erasing a customer", as written, for the README's alice."""
    identify = run_block(".build/release/entctl identify alice", demo_tenants_server)
    assert identify.returncode == 0, identify.stderr
    exported = run_block(readme_block("## Exporting a customer"), demo_tenants_server, cwd=tmp_path)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert json.loads((tmp_path / "alice.json").read_text())["app_user_id"] == "alice"
    assert (tmp_path / "alice.json").stat().st_mode & 0o777 == 0o600
    assert "CUSTOMER_EXPORTED  alice  key " in exported.stdout, exported.stdout
    erased = run_block(readme_block("## Erasing a customer"), demo_tenants_server)
    assert erased.returncode == 0, erased.stdout + erased.stderr
    lines = erased.stdout.splitlines()
    subject = lines[0].split()[0]
    assert subject.startswith("erased_") and " deleted: " in lines[0], lines
    assert lines[1] == f"{subject}  already deleted (the files were cleared again)", lines
    assert f"CUSTOMER_DELETED  {subject}  key " in lines[2] and f"CUSTOMER_EXPORTED  {subject}  key " in lines[3], lines
    assert "alice" not in "\n".join(lines[2:]), lines


def test_the_purge_tenant_lines(tmp_path, protos):
    """"Removing a tenant" as written, in a copy of Config/ whose demo database once served a tenant "old-app"."""
    config = tmp_path / "Config"
    shutil.copytree(REPO_ROOT / "Config", config, ignore=shutil.ignore_patterns("data"))
    demo = (config / "demo.toml").read_text().replace('"../Web/', f'"{REPO_ROOT}/Web/')
    (config / "demo.toml").write_text(demo)
    old_app = new_tenant("old-app")
    write_tenants(tmp_path / "with-old-app.json", [old_app])
    server = start_server(tmp_path / "server", tmp_path / "with-old-app.json",
                          {"storage": {"backend": "sqlite", "database": str(tmp_path / "data" / "demo.sqlite")}})
    clients = Clients(server, protos)
    clients.channel()
    clients.api(old_app.secret_key).grant("someone", "pro", reason="before the app was retired")
    clients.close()
    stop_and_check(server)

    result = run_block(readme_block("## Removing a tenant"), server, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "customers: would delete 1 rows" in lines and "customers: deleted 1 rows" in lines, lines
    assert any("would delete" in line and "dry run: nothing changed" in line for line in lines), lines


def test_migrate_store_from_the_demo_database(tmp_path):
    base = os.environ.get("ENTITLEMENTD_TEST_POSTGRES")
    if not base:
        pytest.skip("ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL")
    # The demo's database as a reader has it after the walkthrough: data/demo.sqlite, with a customer in it.
    server = start_server(tmp_path / "server", DEMO_TENANTS_FILE,
                          {"storage": {"backend": "sqlite", "database": str(tmp_path / "data" / "demo.sqlite")}})
    assert entctl("--addr", server.target, "identify", "alice").returncode == 0
    stop_and_check(server)
    schema = "t_" + hashlib.sha256(str(tmp_path).encode()).hexdigest()[:24]
    subprocess.run(["psql", base, "-qc", f"CREATE SCHEMA {schema}"], check=True, timeout=60)
    block = re.search(r"```sh\n(\.build/release/entitlementd migrate-store.*?)```", README, re.S).group(1)
    block = re.sub(r'"postgres:[^"]*"', f'"postgres:{base} options=-csearch_path={schema}"', block)

    first = run_block(block, server, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "customers: 1 rows copied" in first.stdout and "verified: every table of 1 tenant(s)" in first.stdout
    assert first.stderr == "", first.stderr
    # Again: the database is no longer empty, which it says, and only that (its schema exists: PostgreSQL's
    # "relation ... already exists, skipping" notice stays out).
    second = run_block(block, server, cwd=tmp_path)
    assert second.returncode == 1
    assert second.stderr.count("\n") == 1 and "the PostgreSQL database is not empty" in second.stderr, second.stderr


def test_the_console_names_the_demo_secret_key(demo_tenants_server):
    section = README[README.index("## Admin console"):README.index("## Webhooks to your backend")]
    [key] = re.findall(r"`(sk_[A-Za-z0-9_]+)`", section)
    assert key == DEMO_SECRET_KEY
    assert f"| `{key}` |" in README  # the table of "Try it", which the console section points at
    result = entctl("--addr", demo_tenants_server.target, "--key", key, "count")
    assert result.returncode == 0, result.stderr


def test_the_development_play_notification(demo_tenants_server, tmp_path):
    block = readme_block("### Local Google Play notifications (development)")
    # The reader's own key goes under data/ in the repository (git-ignored); here, somewhere of the test's.
    block = block.replace("data/my-play", str(tmp_path / "my-play"))
    # The demo tenant expects pushes addressed to port 50051: the server of the test listens elsewhere.
    block = block.replace("--package com.example.app", "--package com.example.app --audience "
                          "http://127.0.0.1:50051/v1/google/notifications/demo", 1)
    result = run_block(block, demo_tenants_server)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("200 TEST_NOTIFICATION: recorded\n"), result.stdout
    assert '"notifications"' in result.stdout


def test_the_demo_on_another_port(demo_tenants_server):
    """The README's lines for a demo moved off 50051: the server is the test's, on a port of its own."""
    block = readme_block("On another port, give `Scripts/demo`")
    assert block.startswith("Scripts/demo --listen 127.0.0.1:50052")
    block = block.split("\n", 1)[1].replace("127.0.0.1:50052", demo_tenants_server.target)
    result = run_block(block, demo_tenants_server)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0].startswith("alice  "), result.stdout
    assert result.stdout.splitlines()[-1] == "200 TEST_NOTIFICATION: recorded", result.stdout


def test_the_offers_lines(demo_tenants_server):
    """The "Offers" walkthrough as written, signed with the demo tenant's development key: eligibility judged by each
    offer's rules, a signature, the limit's refusal, and the signature redeemed by the transaction bought with it."""
    result = run_block(readme_block("## Offers"), demo_tenants_server)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert ("com.example.pro.monthly  introductory offer: not eligible (subscribed before: APP_STORE "
            "com.example.pro.monthly)") in out, out
    assert "  winback_50  eligible" in out, out
    assert '  stay_3_months  refused by subscribers: Offer "stay_3_months" is for current subscribers' in out, out
    assert "offer winback_50 for com.example.pro.monthly (olga)" in out, out
    assert re.search(r"^key ID: +DEMOKEY001$", out, re.M), out
    assert 'offer refused by rule "limit"' in result.stderr, result.stderr
    assert out.rstrip().splitlines()[-1].endswith("winback_50  com.example.pro.monthly  nonce "
                                                 + re.search(r"^nonce: +(\S+)$", out, re.M).group(1)
                                                 + "  redeemed by 2000000000000501"), out


def test_the_connect_lines(demo_tenants_server):
    """The "Connect and JSON" block as written: curl's unary calls to both services and health, a GET, an error, a
    stream ended by its deadline, and buf curl through server reflection."""
    block = readme_block("## Connect and JSON").replace("127.0.0.1:50051", demo_tenants_server.target)
    result = run_block(block, demo_tenants_server, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    identified, synced, granted, customer, events, health, error = (
        json.loads(line.split(" HTTP ")[0]) for line in lines[:7])
    assert identified["customer"]["appUserId"] == "carol" and synced["customer"]["appUserId"] == "carol"
    assert granted["entitlementId"] == "pro" and granted["reason"] == "support"
    assert granted["grantId"] in [grant["grantId"] for grant in customer["grants"]]
    assert len(events["events"]) == 2
    assert health == {"status": "SERVING"}
    assert error["code"] == "not_found" and lines[6].endswith(" HTTP 404"), lines[6]
    # The stream's envelopes, one JSON object a line; then buf curl's answer, pretty-printed.
    buf_start = lines.index("{")
    streamed = [json.loads(line) for line in lines[7:buf_start]]
    assert streamed[0]["kind"] == "SNAPSHOT" and streamed[0]["customer"]["appUserId"] == "carol", streamed
    assert streamed[-1] == {"error": {"code": "deadline_exceeded", "message": "Deadline exceeded."}}, streamed
    assert json.loads("\n".join(lines[buf_start:]))["customer"]["appUserId"] == "carol", result.stdout


def test_the_signed_status_lines(demo_tenants_server):
    """The "Signed status" block as written: the demo tenant's status verified by entctl against the published keys,
    and those keys, checked here with PyJWT."""
    import jwt

    block = readme_block("## Signed status").replace("127.0.0.1:50051", demo_tenants_server.target)
    result = run_block(block, demo_tenants_server)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("verified: tenant demo, key demo-2026-12") for line in lines), result.stdout
    assert any(line.startswith("  pro until ") for line in lines), result.stdout
    keys = jwt.PyJWKSet.from_json(lines[-1])
    assert [key.key_id for key in keys.keys] == ["demo-2026-12"]
    status = run_block(".build/release/entctl status alice\n", demo_tenants_server).stdout
    [token] = [line.removeprefix("signed: ") for line in status.splitlines() if line.startswith("signed: ")]
    claims = jwt.decode(token, keys["demo-2026-12"].key, algorithms=["ES256"])
    assert claims["tenant"] == "demo" and claims["sub"] == "alice" and claims["exp"] - claims["iat"] == 72 * 3600


def test_the_user_token_lines(demo_tenants_server):
    """The "User tokens" block as written: the demo tenant observes, and these calls' tokens are accepted."""
    result = run_block(readme_block("## User tokens (proving the app user ID)"), demo_tenants_server)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "alice" in result.stdout, result.stdout
    deadline = time.monotonic() + 10
    while "user_token=accepted" not in demo_tenants_server.log() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "user_token=accepted" in demo_tenants_server.log()
