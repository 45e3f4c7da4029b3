"""The .proto contract of Protos/, checked with buf (the buf-bin wheel Tests/Interop/requirements.txt lists, which
Scripts/setup installs into .venv): `buf lint` with Protos/buf.yaml's rules (STANDARD and COMMENTS; each exception is
justified there), and `buf breaking` of the working tree's Protos/ against main's parent commit (HEAD~1) in
buf.yaml's category (WIRE_JSON, for clients that speak binary protobuf and protobuf JSON, plus no deleted method,
service or package). A clone without that commit (a shallow clone, a tarball) skips the breaking check; CI clones
fully, so it runs there.

No separate test looks for undocumented elements: lint's COMMENTS category fails on any message, field, enum, enum
value, oneof, service or rpc outside the vendored grpc/ protos that has no leading comment, and the configuration test
below keeps COMMENTS (and the JSON-name and deletion rules) in buf.yaml."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PROTOS_DIR, REPO_ROOT

BUF = REPO_ROOT / ".venv" / "bin" / "buf"


def buf(*arguments: str, cwd=PROTOS_DIR) -> subprocess.CompletedProcess:
    if not BUF.is_file():
        pytest.fail(f"{BUF} not found: run Scripts/setup (buf-bin is in Tests/Interop/requirements.txt)")
    return subprocess.run([str(BUF), *arguments], cwd=cwd, capture_output=True, text=True, timeout=300)


def shown(result: subprocess.CompletedProcess) -> str:
    """buf's command, status and output, for an assertion message."""
    return (f"`{' '.join(result.args)}` exited {result.returncode}\n"
            f"--- stdout ---\n{result.stdout}--- stderr ---\n{result.stderr}")


def git(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *arguments], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)


def test_buf_lint_passes_without_a_finding():
    result = buf("lint")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), shown(result)


def test_no_breaking_change_since_mains_parent_commit():
    if shutil.which("git") is None:
        pytest.skip("git is not installed: no history to compare Protos/ with")
    top = git("rev-parse", "--show-toplevel")
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != REPO_ROOT.resolve():
        pytest.skip(f"{REPO_ROOT} is not a git checkout (a tarball?): no parent commit to compare Protos/ with")
    parent = git("rev-parse", "--verify", "--quiet", "HEAD~1^{commit}")
    if parent.returncode != 0:
        shallow = git("rev-parse", "--is-shallow-repository").stdout.strip() == "true"
        pytest.skip("HEAD's parent commit is not in this clone ("
                    + ("a shallow clone" if shallow else "HEAD is the first commit")
                    + "): the breaking check needs full history, as CI has")
    # The repository itself (also from a linked worktree), read by buf at that commit.
    git_dir = git("rev-parse", "--path-format=absolute", "--git-common-dir").stdout.strip()
    against = f"{git_dir}#format=git,ref={parent.stdout.strip()},subdir=Protos"
    result = buf("breaking", "Protos", "--against", against, cwd=REPO_ROOT)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), shown(result)


def configured(kind: str) -> set[str]:
    result = buf("config", f"ls-{kind}-rules", "--configured-only", "--format", "json")
    assert result.returncode == 0, shown(result)
    return {json.loads(line)["id"] for line in result.stdout.splitlines() if line.strip()}


def test_buf_yaml_keeps_the_rules_the_contract_relies_on():
    lint = configured("lint")
    comments = {"COMMENT_ENUM", "COMMENT_ENUM_VALUE", "COMMENT_FIELD", "COMMENT_MESSAGE", "COMMENT_ONEOF",
                "COMMENT_RPC", "COMMENT_SERVICE"}
    assert comments <= lint, f"buf.yaml no longer enforces {sorted(comments - lint)}"
    breaking = configured("breaking")
    # What JSON clients and callers of each method depend on, beyond the binary encoding (WIRE).
    needed = {"ENUM_VALUE_SAME_NAME", "FIELD_SAME_NAME", "FIELD_SAME_JSON_NAME", "FIELD_WIRE_JSON_COMPATIBLE_TYPE",
              "FIELD_NO_DELETE_UNLESS_NAME_RESERVED", "RPC_SAME_REQUEST_TYPE", "RPC_SAME_RESPONSE_TYPE",
              "RPC_SAME_IDEMPOTENCY_LEVEL", "RPC_NO_DELETE", "PACKAGE_SERVICE_NO_DELETE"}
    assert needed <= breaking, f"buf.yaml's breaking rules no longer include {sorted(needed - breaking)}"
