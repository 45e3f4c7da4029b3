"""The README's App Store Server API walkthrough ("Local App Store Server API"), run as written against the demo
tenant with the local fake of Apple's API: a purchase by transaction ID, a renewal recovered from Apple's notification
history, a restore from Apple's history and the setup check, whose test notification the fake delivers as Apple does.

Only what a second machine would make different is filled in: the fake's port (the demo's is 8094) and the server's
(the demo's is 50051), which the fake posts test notifications to; the demo's own key files are used."""

from __future__ import annotations

import json

from conftest import demo_tenants, free_port
from test_demo_app_store import run_readme_block


def test_readme_app_store_server_api_walkthrough_runs_as_written(tenants_server, tmp_path):
    fake_port = free_port()
    tenants = demo_tenants()
    tenants["tenants"][0]["app_store"]["server_api"]["sandbox_url"] = f"http://127.0.0.1:{fake_port}"
    tenants_file = tmp_path / "tenants.json"
    tenants_file.write_text(json.dumps(tenants))
    server = tenants_server(tenants_file)

    # What `--demo` stands for, with this run's ports.
    fake_command = (
        f"Scripts/fake-app-store-api --port {fake_port} --bundle-id com.example.app "
        f"--key-file Config/dev-app-store-api/SubscriptionKey_DEMOKEY001.p8 --key-id DEMOKEY001 "
        f"--issuer-id d3e0d3e0-0000-4000-8000-000000000001 --signing-dir Config/dev-ca "
        f"--notification-url http://127.0.0.1:{server.port}/v1/apple/notifications/demo")
    result = run_readme_block("### Local App Store Server API (development)", server, {
        "Scripts/fake-app-store-api --demo": fake_command, "127.0.0.1:8094": f"127.0.0.1:{fake_port}"}, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    # The purchase by ID: Apple's signed transaction, verified and attached.
    assert "hana  ACTIVE  version 2" in out, out
    assert "purchase: NEW  com.example.pro.monthly  2000000000000077  SANDBOX" in out, out
    # The renewal Apple never delivered, recovered from its history and applied to hana.
    assert ": 1 found, 1 applied, 0 unchanged, 0 without an owner yet, 0 already applied, 0 rejected" in out, out
    status = out[out.rindex("hana  ACTIVE"):].splitlines()
    assert status[1].startswith("  pro until ") and status[1].endswith("(APP_STORE, com.example.pro.monthly, renews)")
    assert "history of 2000000000000077 (SANDBOX): 2 transactions, 1 purchase" in out, out
    # The setup check: Apple (the fake) takes the key, and its TEST notification reached the server and verified.
    check = out[out.rindex("tenant demo: "):].splitlines()
    assert check[0] == "tenant demo: ok", check
    assert any("SANDBOX notification_url: The TEST notification reached this server" in line for line in check), check
