"""Running entctl, the bundled command-line client, from the tests (test_entctl*.py, the App Store tests).

Not a test module: the tests import from it. The binary is the one built next to the interop server under test.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT


def entctl_binary() -> Path:
    interop = os.environ.get("ENTITLEMENTD_INTEROP_SERVER")
    path = Path(interop).parent / "entctl" if interop else REPO_ROOT / ".build" / "debug" / "entctl"
    if not path.exists():
        pytest.fail(f"entctl binary {path} not found: run `swift build --product entctl`")
    return path


def entctl_env(key: str | None = None) -> dict[str, str]:
    """The environment without the caller's ENTCTL_KEY (so the demo-key defaults apply), or with `key` as it."""
    env = {name: value for name, value in os.environ.items() if name != "ENTCTL_KEY"}
    if key is not None:
        env["ENTCTL_KEY"] = key
    return env


def entctl(
    *args: str, env_key: str | None = None, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(entctl_binary()), *args], capture_output=True, text=True, timeout=30, env=entctl_env(env_key), input=stdin,
        cwd=cwd,
    )


def entctl_ok(*args: str, cwd: Path | None = None) -> str:
    """The standard output of an entctl command that must succeed."""
    result = entctl(*args, cwd=cwd)
    assert result.returncode == 0, f"entctl {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
    return result.stdout


# What entctl says on standard error when it sends a demo key for want of --key/ENTCTL_KEY.
DEMO_KEY_NOTE = re.compile(
    r"entctl: using the demo (public|secret) key \((pk|sk)_demo_\w+\) because no --key/ENTCTL_KEY was given")


def without_demo_key_note(stderr: str) -> str:
    """Standard error without the note that a demo key was sent."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not DEMO_KEY_NOTE.fullmatch(line.rstrip("\n")))
