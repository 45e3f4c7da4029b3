"""Driving EntitlementsKit through its sample program (Sources/EntitlementsKitSample) from the tests: one process per
"device", commands on its stdin, one JSON object per line on its stdout for each status update and command result.

Not a test module: test_sdk.py and Scripts/benchmark_sdk.py import from it.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

from conftest import REPO_ROOT


def sample_binary() -> Path:
    interop = os.environ.get("ENTITLEMENTD_INTEROP_SERVER")
    path = Path(interop).parent / "entitlements-kit-sample" if interop else REPO_ROOT / ".build" / "debug" / "entitlements-kit-sample"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: run `swift build --product entitlements-kit-sample`")
    return path


class SampleDevice:
    """One running sample: `updates` collects every update line, `command` runs one command and returns its line."""

    def __init__(self, port: int, key: str, transport: str = "grpc-web", cache: Path | None = None,
                 server: str | None = None, binary: Path | None = None, status_keys: Path | None = None,
                 user_token_command: str | None = None, tenant: str = "demo"):
        args = [str(binary or sample_binary()), "--server", server or f"http://127.0.0.1:{port}", "--key", key,
                "--transport", transport, "--log-level", "debug"]
        if cache is not None:
            args += ["--cache", str(cache)]
        if status_keys is not None:
            args += ["--status-keys", str(status_keys), "--tenant", tenant]
        if user_token_command is not None:
            args += ["--user-token-command", user_token_command]
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.updates: list[dict] = []
        self.results: queue.Queue = queue.Queue()
        self.stderr: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            line = line.strip()
            if not line:
                continue
            message = json.loads(line)
            if message["event"] == "update":
                message["received_at"] = time.time()
                with self._lock:
                    self.updates.append(message)
            else:
                self.results.put(message)

    def _read_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr.append(line)

    def command(self, line: str, timeout: float = 20) -> dict:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        try:
            return self.results.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer to {line.split()[0]!r} within {timeout} s; stderr:\n{''.join(self.stderr)}")

    def all_updates(self) -> list[dict]:
        with self._lock:
            return list(self.updates)

    def wait_for(self, predicate, timeout: float = 15) -> dict:
        """The first update (seen so far or arriving within `timeout`) whose snapshot satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for update in self.all_updates():
                if predicate(update["snapshot"]):
                    return update
            time.sleep(0.01)
        raise AssertionError(f"no such update within {timeout} s: {self.all_updates()}\n{''.join(self.stderr)}")

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()


def active(snapshot: dict) -> set[str]:
    return {entitlement["id"] for entitlement in snapshot["entitlements"]}
