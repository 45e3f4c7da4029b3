"""What a server says about a Google Play setup that is local rather than broken (issue 36): the demo tenant's local
stand-in for Google not running, and Config/tenants.example.json's placeholder service-account key. Each is said
once, at info level, with what it means and what to do; neither is a warning. `check-config` passes the example's
placeholder with a warning saying the same."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest

from conftest import DEMO_TENANTS_FILE, REPO_ROOT, entitlementd_binary

CONFIG = REPO_ROOT / "Config"


def play_poll_lines(server, timeout: float = 30.0) -> list[str]:
    """The log lines about the voided-purchases poll, once one is there (the first poll runs at startup)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in server.log().splitlines() if "play voided purchases" in line]
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


def test_the_demo_without_its_fake_google_says_what_to_do(tenants_server):
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 8091)) == 0:
            pytest.skip("something listens on 127.0.0.1:8091, the demo tenant's Google")
    server = tenants_server(DEMO_TENANTS_FILE)
    [line] = play_poll_lines(server)
    assert " INFO entitlementd play voided purchases poll not possible yet: the tenant's Google Play API is a local " \
           "stand-in that does not answer: start it (Scripts/fake-google --demo for the demo tenant) to use Google " \
           "Play tenant=demo error=" in line, line
    assert " WARN " not in server.log(), server.log()


def test_the_example_placeholder_key_is_said_to_be_one(tenants_server, tmp_path):
    for name in ["tenants.example.json", "AppleRootCA-G3.cer", "play-service-account.example.json",
                 "exchange-rates.example.csv"]:
        shutil.copy(CONFIG / name, tmp_path / name)
    server = tenants_server(tmp_path / "tenants.example.json")
    [line] = play_poll_lines(server)
    assert " INFO entitlementd play voided purchases poll not possible yet: the tenant's service-account key is a " \
           "placeholder, so no Google Play call can succeed until the real key is in its place tenant=music-app " \
           "error=" in line, line
    assert "is a placeholder, not a key (its private_key_id is all zeros, like the example's): put your service " \
           "account's JSON key there" in line, line
    assert " WARN " not in server.log(), server.log()

    config = tmp_path / "example.toml"
    config.write_text(f'[server]\nlisten = "127.0.0.1:0"\n[storage]\ndatabase = "{tmp_path}/db/example.sqlite"\n'
                      'tenants = "tenants.example.json"\n')
    check = subprocess.run([str(entitlementd_binary()), "check-config", "--config", str(config)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith(
        f"warning: tenant \"music-app\": play_store.service_account_key_file: '{tmp_path}/"
        "play-service-account.example.json' is a placeholder, not a key"), check.stdout
    assert check.stdout.endswith("; Google Play calls fail until then\n"
                                 f"ok: {config} and its 2 tenant(s) load as the server would load them\n"), check.stdout
