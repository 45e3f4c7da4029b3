"""entctl, the bundled command-line client, against the real server over h2c and TLS."""

from __future__ import annotations

import os
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


def entctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(entctl_binary()), *args], capture_output=True, text=True, timeout=30)


def test_health_over_h2c(h2c_server):
    result = entctl("--addr", f"127.0.0.1:{h2c_server.port}", "health")
    assert (result.returncode, result.stdout.strip()) == (0, "SERVING"), result.stderr


def test_health_over_tls(tls_server, certificate):
    result = entctl("--addr", f"127.0.0.1:{tls_server.port}", "--tls", "--ca", str(certificate.certificate), "health")
    assert (result.returncode, result.stdout.strip()) == (0, "SERVING"), result.stderr


def test_tls_with_an_untrusted_certificate_fails(tls_server):
    """Without --ca the system store does not know the test certificate: the handshake must fail, not fall back."""
    result = entctl("--addr", f"127.0.0.1:{tls_server.port}", "--tls", "health")
    assert result.returncode == 1
    assert "UNAVAILABLE" in result.stderr


def test_unknown_service_is_not_found(h2c_server):
    result = entctl("--addr", f"127.0.0.1:{h2c_server.port}", "health", "no.such.Service")
    assert result.returncode == 1
    assert "NOT_FOUND" in result.stderr


def test_usage_errors_exit_2():
    result = entctl("--bogus")
    assert result.returncode == 2
    assert "unknown option '--bogus'" in result.stderr
