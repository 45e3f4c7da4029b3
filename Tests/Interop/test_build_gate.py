"""Scripts/build-without-warnings, the build Scripts/test (CI) runs: a build that prints any compiler warning fails,
naming each warning once; a build without warnings passes; a failed build fails. `swift` is a stand-in on PATH that
prints what a real build prints and records its arguments, so no build runs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import REPO_ROOT

GATE = REPO_ROOT / "Scripts" / "build-without-warnings"

# What Swift 6.3 printed for two of the warnings of issue 36: the diagnostic, then the source excerpt under it.
SENDABLE_WARNING = (
    "/work/main/Sources/EntitlementStorage/StorageQueries.swift:57:54: warning: capture of non-Sendable type "
    "'Self.ResultRow.Type' in an isolated closure [#SendableMetatypes]")
IMPORT_WARNING = ("/work/main/Sources/AppStore/Verification/UnverifiedSignedData.swift:1:8: warning: public import of "
                  "'JOSE' was not used in public declarations or inlinable code")
BUILD_OUTPUT = f"""[1/80] Compiling AppStore UnverifiedSignedData.swift
{IMPORT_WARNING}
 1 | public import JOSE
   |        `- warning: public import of 'JOSE' was not used in public declarations or inlinable code
 2 |
[2/80] Compiling EntitlementStorage StorageQueries.swift
{SENDABLE_WARNING}
{SENDABLE_WARNING}
Build complete! (12.00s)
"""


def run_gate(tmp_path: Path, output: str, status: int = 0, *arguments: str) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "output.txt").write_text(output)
    swift = bin_dir / "swift"
    swift.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/arguments.txt\ncat {tmp_path}/output.txt\nexit {status}\n')
    swift.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    return subprocess.run(["bash", str(GATE), *arguments], capture_output=True, text=True, timeout=60, env=env)


def test_a_warning_fails_the_build_and_is_named(tmp_path):
    result = run_gate(tmp_path, BUILD_OUTPUT, 0, "--build-tests")
    assert result.returncode == 2, result.stderr
    assert (tmp_path / "arguments.txt").read_text() == "build --build-tests\n"
    assert result.stdout == BUILD_OUTPUT  # the build's own output is shown as it was
    error = result.stderr.splitlines()
    assert "swift build --build-tests printed 2 compiler warning(s)" in result.stderr, result.stderr
    # Each warning once (the same one printed twice is one), the excerpt lines under them not counted.
    assert error[-2:] == sorted([IMPORT_WARNING, SENDABLE_WARNING]), result.stderr


def test_a_swiftpm_warning_fails_too(tmp_path):
    warning = "warning: 'entitlementd': found 1 file(s) which are unhandled; explicitly declare them"
    result = run_gate(tmp_path, f"{warning}\nBuild complete!\n")
    assert result.returncode == 2 and warning in result.stderr, result.stderr


def test_a_build_without_warnings_passes(tmp_path):
    result = run_gate(tmp_path, "[1/2] Compiling A a.swift\nBuild complete! (1.00s)\n", 0, "-c", "release")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "arguments.txt").read_text() == "build -c release\n"


def test_a_failed_build_fails(tmp_path):
    result = run_gate(tmp_path, "/x/a.swift:1:1: error: cannot find 'x' in scope\n", 1)
    assert result.returncode == 1 and "failed (exit 1)" in result.stderr, result.stderr


def test_ci_builds_through_the_gate():
    script = (REPO_ROOT / "Scripts" / "test").read_text()
    assert "bash Scripts/build-without-warnings --build-tests" in script
    assert "swift build --build-tests" not in script.replace("build-without-warnings --build-tests", "")
