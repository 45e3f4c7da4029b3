"""The transport's layers as linked (issue 37): the API clients (OutboundHTTP and the App Store Server, Google Play and
Stripe API modules, Standard Webhooks) reach HTTPS through HTTP1 and TransportTLS, so a program made of them links
OpenSSL and no libnghttp2; HTTP/2 is HTTP2Transport's alone, and a binary links libnghttp2 exactly when the manifest
puts HTTP2Transport under it.

SwiftPM links every test target into one test bundle, which holds HTTP2Transport's tests and so links libnghttp2: ldd
cannot tell the API modules' tests apart there. No product of the package is made of the API modules alone either, so
the test links one: a program importing them, from the objects of the build under test (every object of their
dependency closure, used or not) and the link flags of the system libraries in that closure. An object that imports
CNGHTTP2 carries its module map's `link "nghttp2"`, so it would bring libnghttp2 in (the control adds HTTP2Transport's
objects and sees it). `entctl`, a gRPC client, is the other side: it links libnghttp2 because it needs HTTP2Transport.
Run after `swift build --build-tests` (or with ENTITLEMENTD_INTEROP_SERVER next to the build)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT

API_MODULES = ["OutboundHTTP", "AppStoreServerAPI", "GooglePlayAPI", "StripeAPI", "StandardWebhooks"]
# One public type of each, so the program uses every module it imports.
PROGRAM = """import AppStoreServerAPI
import GooglePlayAPI
import OutboundHTTP
import StandardWebhooks
import StripeAPI

print(OutboundHTTPClient.self, AppStoreServerAPIClient.self, PlayDeveloperAPI.self, StripeAPI.self, WebhookSecret.self)
"""


def build_directory() -> Path:
    interop = os.environ.get("ENTITLEMENTD_INTEROP_SERVER")
    path = Path(interop).parent if interop else REPO_ROOT / ".build" / "debug"
    return path if path.is_absolute() else REPO_ROOT / path


@functools.cache
def manifest_targets() -> dict[str, dict]:
    result = subprocess.run(
        ["swift", "package", "dump-package"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=True)
    return {target["name"]: target for target in json.loads(result.stdout)["targets"]}


def closure(*names: str) -> list[str]:
    """The targets under `names` in the manifest, `names` included, each once, dependencies first."""
    targets = manifest_targets()
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        for dependency in targets[name]["dependencies"]:
            (kind, value), = dependency.items()
            assert kind in ("byName", "target"), f"{name} depends on a product ({dependency}): the test reads targets only"
            visit(value[0])
        order.append(name)

    for name in names:
        visit(name)
    return order


def pkg_config(flag: str, library: str) -> list[str]:
    return subprocess.run(["pkg-config", flag, library], capture_output=True, text=True, check=True).stdout.split()


def linked_libraries(binary: Path) -> str:
    return subprocess.run(["ldd", str(binary)], capture_output=True, text=True, timeout=30, check=True).stdout


def test_the_api_modules_need_no_http2_and_the_server_does():
    assert "CNGHTTP2" not in closure(*API_MODULES), closure(*API_MODULES)
    assert {"HTTP1", "TransportTLS", "COpenSSL"} <= set(closure("OutboundHTTP"))
    assert "CNGHTTP2" in closure("HTTP2Transport")
    assert "CNGHTTP2" not in closure("HTTP1") and "COpenSSL" not in closure("PosixIO")


def link_program(directory: Path, modules: list[str]) -> Path:
    """The program, linked from the objects of `modules` and everything under them in the manifest."""
    build = build_directory()
    targets = manifest_targets()
    objects: list[Path] = []
    flags: list[str] = []
    for name in closure(*modules):
        target = targets[name]
        if target["type"] == "system":
            modulemap = REPO_ROOT / "Sources" / name / "module.modulemap"
            flags += ["-Xcc", f"-fmodule-map-file={modulemap}"]
            flags += [f"-Xcc={flag}" for flag in pkg_config("--cflags", target["pkgConfig"])]
            flags += pkg_config("--libs", target["pkgConfig"])
            continue
        target_build = build / f"{name}.build"
        found = sorted(target_build.glob("*.o"))
        if not found:
            pytest.fail(f"no objects in {target_build}: run `swift build --build-tests` first")
        objects += found
        include = REPO_ROOT / "Sources" / name / "include"
        if include.is_dir():  # a C target: the module map SwiftPM generated, and its headers
            flags += ["-Xcc", f"-fmodule-map-file={target_build / 'module.modulemap'}", "-I", str(include)]
    main = directory / "main.swift"
    main.write_text(PROGRAM)
    program = directory / "program"
    link = subprocess.run(
        ["swiftc", str(main), "-I", str(build / "Modules"), *flags, *map(str, objects), "-o", str(program)],
        capture_output=True, text=True, timeout=600)
    assert link.returncode == 0, link.stderr
    return program


def test_a_program_of_the_api_modules_links_openssl_and_not_nghttp2(tmp_path):
    program = link_program(tmp_path, API_MODULES)
    libraries = linked_libraries(program)
    assert "libssl" in libraries, libraries
    assert "libnghttp2" not in libraries, libraries
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0 and "OutboundHTTPClient" in run.stdout, run.stderr


def test_the_same_program_with_http2_objects_links_nghttp2(tmp_path):
    """The control: the check sees libnghttp2 when an object that uses it is linked."""
    assert "libnghttp2" in linked_libraries(link_program(tmp_path, [*API_MODULES, "HTTP2Transport"]))


def test_entctl_links_nghttp2_because_it_is_a_grpc_client():
    entctl = build_directory() / "entctl"
    if not entctl.exists():
        pytest.fail(f"entctl binary {entctl} not found: run `swift build --product entctl`")
    assert "HTTP2Transport" in closure("entctl")
    assert "libnghttp2" in linked_libraries(entctl)
