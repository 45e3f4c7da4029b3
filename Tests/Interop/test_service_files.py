"""The files for running entitlementd as a service: the systemd unit passes `systemd-analyze verify` (with its
binary paths pointed at the built server) and keeps its hardening; the logrotate file passes logrotate's own dry
run and rotates a live log of JSON lines by copy and truncate, leaving whole lines."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import REPO_ROOT, server_binary

UNIT = REPO_ROOT / "Config" / "systemd" / "entitlementd.service"
LOGROTATE = REPO_ROOT / "Config" / "logrotate" / "entitlementd"


def test_the_systemd_unit_verifies(tmp_path):
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze (Debian's systemd package) is not installed: run Scripts/setup"
    unit = tmp_path / "entitlementd.service"
    unit.write_text(UNIT.read_text().replace("/usr/local/bin/entitlementd", str(server_binary())))
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr
    text = UNIT.read_text()
    for setting in ["User=entitlementd", "ProtectSystem=strict", "StateDirectory=entitlementd", "NoNewPrivileges=true",
                    "CapabilityBoundingSet=\n", "ExecReload=/bin/kill -HUP $MAINPID", "check-config"]:
        assert setting in text, setting


def test_logrotate_rotates_json_lines_whole(tmp_path):
    logrotate = shutil.which("logrotate") or "/usr/sbin/logrotate"
    assert Path(logrotate).exists(), "logrotate is not installed: run Scripts/setup"
    logs = tmp_path / "log"
    logs.mkdir()
    log = logs / "entitlementd.log"
    lines = [json.dumps({"time": "2026-12-03T00:00:00.000Z", "level": "info", "msg": f"rpc {i}"}) for i in range(100)]
    log.write_text("\n".join(lines) + "\n")
    config = tmp_path / "logrotate.conf"
    config.write_text(LOGROTATE.read_text().replace("/var/log/entitlementd/*.log", str(logs / "*.log"))
                      .replace("    su root adm\n", ""))
    state = tmp_path / "state"
    dry = subprocess.run([logrotate, "--debug", "--state", str(state), str(config)], capture_output=True, text=True,
                         timeout=60)
    assert dry.returncode == 0, dry.stderr
    forced = subprocess.run([logrotate, "--force", "--state", str(state), str(config)], capture_output=True, text=True,
                            timeout=60)
    assert forced.returncode == 0, forced.stderr
    rotated = logs / "entitlementd.log.1"
    assert rotated.exists(), list(logs.iterdir())
    assert log.read_text() == ""
    assert [json.loads(line)["msg"] for line in rotated.read_text().splitlines()] == [f"rpc {i}" for i in range(100)]
