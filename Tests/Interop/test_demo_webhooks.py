"""The README's webhook walkthrough ("Local webhook receiver"), run as written: `entctl dev webhook-receiver` stands in
for the demo tenant's backend in one process, and the commands of the second block, run as written, reach it as signed
deliveries it checks with the demo endpoint's secret: the test delivery, then the customer's events.

Only the receiver's port is filled in (the demo's is 8093): the demo tenant's endpoint URL and `--listen`."""

from __future__ import annotations

import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import json

from conftest import REPO_ROOT, RPC_TIMEOUT, demo_tenants, free_port
from entctl_support import entctl_binary, entctl_env
from test_demo_app_store import readme_section_blocks


def test_readme_webhook_receiver_walkthrough_runs_as_written(tenants_server, tmp_path):
    port = free_port()
    tenants = demo_tenants()
    (endpoint,) = tenants["tenants"][0]["webhooks"]
    assert (endpoint["id"], endpoint["url"]) == ("demo-backend", "http://127.0.0.1:8093/webhooks")
    endpoint["url"] = f"http://127.0.0.1:{port}/webhooks"
    tenants_file = tmp_path / "tenants.json"
    tenants_file.write_text(json.dumps(tenants))
    server = tenants_server(tenants_file)
    entctl_command = f"{shlex.quote(str(entctl_binary()))} --addr 127.0.0.1:{server.port}"
    receiver_block, commands_block = readme_section_blocks("### Local webhook receiver (development)")

    receiver = subprocess.Popen(
        ["bash", "-c", receiver_block.replace(".build/release/entctl", entctl_command).replace(
            "dev webhook-receiver", f"dev webhook-receiver --listen 127.0.0.1:{port}")],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=entctl_env(),
        start_new_session=True)
    lines: "queue.Queue[str | None]" = queue.Queue()

    def drain() -> None:
        for line in receiver.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    try:
        note = receiver.stderr.readline()
        assert f"receiving webhooks at http://127.0.0.1:{port}/webhooks" in note, note
        script = "set -euo pipefail\n" + commands_block.replace(".build/release/entctl", entctl_command)
        result = subprocess.run(["bash", "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                                env=entctl_env())
        assert result.returncode == 0, result.stdout + result.stderr
        assert re.search(r"^delivered  \S+  HTTP 204  \d+ ms$", result.stdout, re.M), result.stdout
        assert "ivan  INACTIVE  version 1  (created)" in result.stdout and "entitlement  pro" in result.stdout
        assert "demo-backend  customer.grant  ivan v2" in result.stdout, result.stdout

        seen: list[str] = []
        while not any("customer.grant  ivan  version 2" in line for line in seen):
            line = lines.get(timeout=RPC_TIMEOUT)
            assert line is not None, f"the receiver stopped; it printed {seen}"
            seen.append(line)
    finally:
        os.killpg(receiver.pid, signal.SIGTERM)
        receiver.wait(timeout=10)
    assert all(line.endswith("signature verified)") for line in seen), seen
    assert any("  webhook.test  (" in line for line in seen), seen
    assert any("  customer.customer_info_changed  ivan  version 1  no entitlements" in line for line in seen), seen
    grant = next(line for line in seen if "customer.grant  ivan  version 2" in line)
    assert re.search(r"  pro until \S+Z  reason: welcome gift  \(", grant), grant
