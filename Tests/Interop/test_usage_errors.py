"""What `entitlementd` and `entctl` say to a command line they cannot use, as a newcomer typed it (issue 36): the
error, a "did you mean" where one applies, and one line pointing at --help, not the whole usage scrolling the error
away; and a second server on an address in use fails before it opens its database, naming --listen."""

from __future__ import annotations

import subprocess

import pytest

from conftest import REPO_ROOT, entitlementd_binary
from entctl_support import entctl

HELP_POINTER = "Run 'entitlementd --help' for the options and commands."


def entitlementd(*args: str, cwd=REPO_ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(entitlementd_binary()), *args], capture_output=True, text=True, timeout=60, cwd=cwd)


@pytest.mark.parametrize("args, error", [
    (["--confg", "Config/demo.toml"], "entitlementd: unknown option '--confg' (did you mean --config?)"),
    (["--config", "Config/demo.toml", "--listen", "50051"],
     'entitlementd: invalid --listen value: expected HOST:PORT such as 127.0.0.1:50051, 0.0.0.0:50051 or '
     '[::1]:50051, got "50051" (a port alone; did you mean 127.0.0.1:50051, this machine only, or 0.0.0.0:50051, '
     'every interface?)'),
    (["--config", "Config/demo.toml", "--log-level", "verbose"],
     "entitlementd: invalid --log-level value 'verbose': expected debug, info, warning, error"),
    (["chek-config", "--config", "Config/demo.toml"],
     "entitlementd: unexpected argument 'chek-config' (did you mean check-config?)"),
])
def test_a_usage_error_is_two_lines(args, error):
    result = entitlementd(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [error, HELP_POINTER], result.stderr


def test_entctl_without_a_command_lists_the_commands():
    result = entctl()
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("entctl: missing command: one of identify, status, watch, "), result.stderr
    for command in ["grant", "customers", "appstore", "webhooks", "health", "dev"]:
        assert f" {command}," in lines[0] or lines[0].endswith(f" {command}"), command
    assert lines[-1] == "see 'entctl --help'", result.stderr


def test_a_second_server_on_an_address_in_use_fails_first_naming_listen(h2c_server, tmp_path):
    config = tmp_path / "second.toml"
    config.write_text('[server]\nlisten = "127.0.0.1:1"\n[storage]\nbackend = "sqlite"\ndatabase = "data/second.sqlite"\n')
    result = entitlementd("--config", str(config), "--listen", h2c_server.target, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == (
        f"entitlementd: cannot start: cannot listen on {h2c_server.target}: another process listens there (another "
        "entitlementd?); stop it, or choose another address with --listen HOST:PORT or [server] listen"), result.stderr
    # It stopped before opening its database: no file was made, nor anything logged about loading.
    assert not (tmp_path / "data" / "second.sqlite").exists()
    assert " loaded " not in result.stderr
