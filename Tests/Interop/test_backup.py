"""`entitlementd backup` under write load: grants go on through the real server while the backup runs; the backup
passes `PRAGMA integrity_check` (Python's own sqlite3 opens it), and every grant acknowledged before the backup
started is in it; restoring it (server stopped, file copied over the database, -wal and -shm removed) brings a
server back with those grants. A backup never overwrites a file, and a PostgreSQL configuration is sent to
pg_dump."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import threading

import grpc

from conftest import SQLITE_ONLY, RPC_TIMEOUT, server_binary, start_server, stop_and_check
from entitlement_support import Api, new_tenant, unique_id, write_tenants

pytestmark = SQLITE_ONLY


def backup(server, destination) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(server_binary()), "backup", "--config", str(server.config), "--to", str(destination)],
        capture_output=True, text=True, timeout=120)


def test_a_backup_under_write_load_has_every_acknowledged_write_and_restores(tmp_path, protos):
    tenants_file = tmp_path / "tenants.json"
    tenant = new_tenant("backup")
    write_tenants(tenants_file, [tenant])
    server = start_server(tmp_path / "server", tenants_file)
    database = tmp_path / "server" / "entitlements.db"
    channel = server.channel()
    grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT)
    admin = Api(channel, protos, tenant.secret_key)
    users = [unique_id() for _ in range(4)]
    acknowledged: list[str] = []
    stop = threading.Event()

    def write() -> None:
        index = 0
        while not stop.is_set():
            acknowledged.append(admin.grant(users[index % 4], "pro", duration=3600, reason=f"load-{index}").grant_id)
            index += 1

    for user in users:
        admin.identify(user)
    writer = threading.Thread(target=write)
    writer.start()
    try:
        while len(acknowledged) < 50:
            threading.Event().wait(0.02)
        before = list(acknowledged)
        result = backup(server, tmp_path / "copy.db")
        during = len(acknowledged) - len(before)
    finally:
        stop.set()
        writer.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert "integrity check ok" in result.stdout
    assert during >= 0

    copy = sqlite3.connect(tmp_path / "copy.db")
    assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    stored = {row[0] for row in copy.execute("SELECT grant_id FROM grants")}
    copy.close()
    missing = [grant for grant in before if grant not in stored]
    assert not missing, f"{len(missing)} acknowledged grants are not in the backup"

    # A second backup to the same file is refused; the first is untouched.
    again = backup(server, tmp_path / "copy.db")
    assert again.returncode == 1 and "exists" in again.stderr, again.stderr

    # Restore: stop the server, put the copy in place of the database, start again.
    channel.close()
    stop_and_check(server)
    for suffix in ("-wal", "-shm"):
        (database.parent / (database.name + suffix)).unlink(missing_ok=True)
    shutil.copyfile(tmp_path / "copy.db", database)
    restored = start_server(tmp_path / "server", tenants_file)
    try:
        channel = restored.channel()
        grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT)
        admin = Api(channel, protos, tenant.secret_key)
        for user in users:
            grants = admin.customer(user).grants
            assert grants
        ids = {grant.grant_id for user in users for grant in admin.customer(user).grants}
        assert set(before) <= ids
        channel.close()
    finally:
        stop_and_check(restored)


def test_a_postgresql_configuration_is_refused(tmp_path):
    config = tmp_path / "pg.toml"
    config.write_text('[server]\nlisten = "127.0.0.1:0"\n[storage]\nbackend = "postgres"\npostgres_url = "host=/nowhere"\n')
    result = subprocess.run([str(server_binary()), "backup", "--config", str(config), "--to", str(tmp_path / "x.db")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "pg_dump" in result.stderr, result.stderr
