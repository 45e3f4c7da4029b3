"""The README's Google Play walkthrough, run as written against the demo tenant with the local fake Google: an
Android purchase reported by `entctl purchase --play`, pushed at once to a stream another "device" holds open, then a
cancellation notified by a signed Pub/Sub push (`entctl dev play-notify`).

Only what a second machine would make different is filled in: the fake's port (the demo's is 8091), the server's port
(the demo's is 50051) and with it the push audience the demo tenant expects; the demo's own key files are used."""

from __future__ import annotations

import json
import shlex
import signal
import time

from conftest import REPO_ROOT, demo_tenants, free_port
from test_demo_app_store import run_readme_block

DEV_PLAY = REPO_ROOT / "Config" / "dev-play"


def demo_tenants_for(tmp_path, fake_port: int, audience: str):
    """The demo tenants file with its relative paths made absolute, Google at `fake_port`, and `audience`."""
    tenants = demo_tenants()
    tenant = tenants["tenants"][0]
    service_account = json.loads((DEV_PLAY / "service-account.json").read_text())
    service_account["token_uri"] = f"http://127.0.0.1:{fake_port}/token"
    key_file = tmp_path / "service-account.json"
    key_file.write_text(json.dumps(service_account))
    play = tenant["play_store"]
    play["service_account_key_file"] = str(key_file)
    play["api_base_url"] = f"http://127.0.0.1:{fake_port}/androidpublisher/v3/applications"
    play["notifications"]["audience"] = audience
    path = tmp_path / "tenants.json"
    path.write_text(json.dumps(tenants))
    return path, key_file


def wait_for_log(server, text: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in server.log():
        assert time.monotonic() < deadline, f"no {text!r} in the server log:\n{server.log()[-2000:]}"
        time.sleep(0.05)


def test_readme_google_play_walkthrough_runs_as_written(tenants_server, tmp_path):
    fake_port = free_port()
    tenants_file, key_file = demo_tenants_for(tmp_path, fake_port, "pending")
    server = tenants_server(tenants_file)
    # The push audience is the endpoint's URL, which has the server's port in it: known only now.
    demo_tenants_for(tmp_path, fake_port, f"http://127.0.0.1:{server.port}/v1/google/notifications/demo")
    server.process.send_signal(signal.SIGHUP)
    wait_for_log(server, "reloaded tenants")

    fake_command = (f"Scripts/fake-google --port {fake_port} --package com.example.app "
                    f"--service-account-in {shlex.quote(str(key_file))}")
    result = run_readme_block("## Google Play purchases", server, {
        "Scripts/fake-google --demo": fake_command, "127.0.0.1:8091": f"127.0.0.1:{fake_port}"}, timeout=90)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    # The watching device heard of the Android purchase, from Google Play.
    pushed = [line for line in out.splitlines() if "STATUS_CHANGED" in line and "pro until" in line]
    assert pushed and "PLAY_STORE" in pushed[0], out
    assert "200 SUBSCRIPTION_CANCELED: applied to dana" in out, out
    # A license tester's purchase, in Google's word for it.
    assert "purchase: NEW  pro_monthly  dana-token-1  TEST  until " in out, out
    # Still entitled to the end of the period, and no longer renewing.
    status = out[out.rindex("dana  ACTIVE"):].splitlines()
    assert status[1].startswith("  pro until ") and "PLAY_STORE" in status[1] and "renews" not in status[1], status
    acknowledgements = json.loads(out[out.rindex("\n[") :])
    assert [a["token"] for a in acknowledgements] == ["dana-token-1"], acknowledgements
