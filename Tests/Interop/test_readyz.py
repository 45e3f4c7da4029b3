"""`/readyz` means ready: 200 `ready` while the database answers on a fresh connection; 503 naming the storage
check while the SQLite file cannot be opened (moved away: the test runs as root in CI, where permissions bind
nobody), and 200 again once it is back, with the server serving throughout on the connections it already had.
(PostgreSQL stopped and restarted: Tests/Interop/test_postgres_instances.py.)"""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request

from conftest import SQLITE_ONLY, start_server, stop_and_check
from entitlement_support import new_tenant, write_tenants


def readyz(server) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://{server.target}/readyz", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_readyz(server, status: int, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        code, body = readyz(server)
        if code == status or time.monotonic() > deadline:
            assert code == status, body
            return body
        time.sleep(0.1)


@SQLITE_ONLY
def test_readyz_fails_while_the_database_file_cannot_be_opened(tmp_path):
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [new_tenant("readyz")])
    server = start_server(tmp_path / "server", tenants_file)
    database = tmp_path / "server" / "entitlements.db"
    try:
        assert readyz(server) == (200, "ready\n")
        os.rename(database, database.with_suffix(".away"))
        body = wait_readyz(server, 503)
        assert body.startswith("not ready: storage:"), body
        os.rename(database.with_suffix(".away"), database)
        assert wait_readyz(server, 200) == "ready\n"
    finally:
        if database.with_suffix(".away").exists():
            os.rename(database.with_suffix(".away"), database)
        stop_and_check(server)
