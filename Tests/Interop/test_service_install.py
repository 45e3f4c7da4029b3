"""The README's "As a service" install, run as written: its commands create the `entitlementd` user, install the
binary, the README (the unit's Documentation=), the configuration and the unit, then start the service the way
systemd would from the installed unit: its state directory made for its user, then ExecStartPre (`check-config`) and
ExecStart run as its User and Group with its UMask. The second block adds a tenants file, checks it as the service
user and restarts. `systemd-analyze verify` checks the installed unit.

It runs as root (the steps are root's) in a private mount namespace whose /etc, /usr/local and /var are overlays, so
the machine itself is left as it was. Where that cannot be had (not root, no mount namespaces), it is skipped.
Only what needs systemd running differs: `systemctl ...` runs the unit's commands as above, and ExecStart gets
`--listen 127.0.0.1:0` (the machine's 127.0.0.1:50051 may be taken)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess

import pytest

from conftest import REPO_ROOT, entitlementd_binary

UNIT = REPO_ROOT / "Config" / "systemd" / "entitlementd.service"
INSTALL_HEADING = "### As a service"


def readme_blocks(heading: str) -> list[str]:
    """The ```sh blocks of the README from `heading` to the next heading."""
    readme = (REPO_ROOT / "README.md").read_text()
    start = readme.index(heading) + len(heading)
    section = readme[start:readme.index("\n#", start)]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def unit_settings() -> dict[str, str]:
    """The unit's `Key=value` lines (the last one of a key)."""
    settings = {}
    for line in UNIT.read_text().splitlines():
        if re.match(r"^[A-Za-z]+=", line):
            key, _, value = line.partition("=")
            settings[key] = value
    return settings


def systemd_start_function(tmp_path) -> str:
    """A shell function doing what `systemctl start` does with the installed unit, from the unit's own settings."""
    unit = unit_settings()
    user, group, umask = unit["User"], unit["Group"], unit["UMask"]
    state = f"/var/lib/{unit['StateDirectory']}"
    as_service = f"umask {umask}; cd {unit['WorkingDirectory']}; exec setpriv --reuid={user} --regid={group} --init-groups --"
    return f"""
started=0
start_entitlementd() {{
    install -d -o {user} -g {group} -m {unit['StateDirectoryMode']} {state}
    ( {as_service} {unit['ExecStartPre']} )
    started=$((started + 1))
    out={tmp_path}/server-$started.out
    ( {as_service} {unit['ExecStart']} --listen 127.0.0.1:0 >"$out" 2>"$out.log" ) &
    local pid=$!
    for _ in $(seq 600); do
        grep -q 'listening on' "$out" && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.05
    done
    grep 'listening on' "$out" || {{ cat "$out.log" >&2; return 1; }}
    kill -TERM $pid
    wait $pid
    cat "$out.log" >&2
}}
"""


def test_readme_service_install_runs_as_written(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the README's install steps run as root")
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace to install into without touching the machine: {probe.stderr.strip()}")
    for tool in ["useradd", "setpriv", "runuser", "systemd-analyze"]:
        assert shutil.which(tool), f"{tool} is not installed: run Scripts/setup"

    install, add_tenants = readme_blocks(INSTALL_HEADING)[:2]
    binary = shlex.quote(str(entitlementd_binary()))
    # The reader's own tenants file, next to which they run the second block: one tenant with one public key.
    reader = tmp_path / "reader"
    reader.mkdir()
    key_hash = hashlib.sha256(b"pk_service_install_test").hexdigest()
    (reader / "tenants.json").write_text(json.dumps({"tenants": [{"id": "app", "public_keys": [f"pk_sha256:{key_hash}"]}]}))

    overlays = "\n".join(
        f"mkdir -p {tmp_path}/overlay{d}/upper {tmp_path}/overlay{d}/work && mount -t overlay overlay "
        f"-o lowerdir={d},upperdir={tmp_path}/overlay{d}/upper,workdir={tmp_path}/overlay{d}/work {d}"
        for d in ["/etc", "/usr/local", "/var"])
    systemctl = {
        "systemctl daemon-reload && systemctl enable --now entitlementd": "start_entitlementd",
        "systemctl restart entitlementd": "start_entitlementd",
    }
    for block in (install, add_tenants):
        assert sum(block.count(line) for line in systemctl) == 1, block
    steps = install.replace(".build/release/entitlementd", binary)
    more_steps = add_tenants
    for line, replacement in systemctl.items():
        steps, more_steps = steps.replace(line, replacement), more_steps.replace(line, replacement)
    documentation = unit_settings()["Documentation"].removeprefix("file://")
    script = f"""set -euo pipefail
{overlays}
{systemd_start_function(tmp_path)}
cd {REPO_ROOT}
{steps}
echo "== installed"
stat -c '%n %U:%G %a' /etc/entitlementd /etc/entitlementd/entitlementd.toml /usr/local/bin/entitlementd {documentation}
systemd-analyze verify /etc/systemd/system/entitlementd.service
cd {reader}
{more_steps}
echo "== tenants added"
stat -c '%n %U:%G %a' /etc/entitlementd/tenants.json /var/lib/entitlementd /var/lib/entitlementd/entitlementd.sqlite
"""
    result = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
                            capture_output=True, text=True, timeout=180)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    installed = result.stdout[result.stdout.index("== installed"):].splitlines()
    assert installed[1:5] == [
        "/etc/entitlementd root:entitlementd 750",
        "/etc/entitlementd/entitlementd.toml root:entitlementd 640",
        "/usr/local/bin/entitlementd root:root 755",
        f"{documentation} root:root 644",
    ], output
    # The first start: no tenants (said in its log), the second: the reader's tenant, checked as the service user.
    listening = [line for line in result.stdout.splitlines() if line.startswith("entitlementd listening on 127.0.0.1:")]
    assert len(listening) == 2, output
    assert "ok: /etc/entitlementd/entitlementd.toml and its 1 tenant(s) load as the server would load them" in output
    loaded = [line for line in result.stderr.splitlines() if " INFO entitlementd loaded " in line]
    assert [line.split(" loaded ")[1] for line in loaded] == [
        "database=/var/lib/entitlementd/entitlementd.sqlite tenants_file=none tenants=0",
        "database=/var/lib/entitlementd/entitlementd.sqlite tenants_file=/etc/entitlementd/tenants.json tenants=1",
    ], output
    assert result.stdout[result.stdout.index("== tenants added"):].splitlines()[1:] == [
        "/etc/entitlementd/tenants.json root:entitlementd 640",
        "/var/lib/entitlementd entitlementd:entitlementd 750",
        "/var/lib/entitlementd/entitlementd.sqlite entitlementd:entitlementd 640",
    ], output
    # Nothing of it reached the machine.
    assert not os.path.exists("/etc/entitlementd") and not os.path.exists(documentation)
