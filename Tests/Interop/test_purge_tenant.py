"""`entitlementd purge-tenant` against a server's own database, on SQLite and on PostgreSQL: a tenant still in the
tenants file is refused; a dry run counts its rows and changes nothing; the purge deletes every row of that tenant
(none of its strings left in the database), and the other tenant's customers are untouched."""

from __future__ import annotations

import subprocess

import pytest

from conftest import entitlementd_binary
from entitlement_support import Clients, new_tenant, unique_id, write_tenants
from test_customer_attributes import AttrApi
from test_customer_erasure import assert_absent, assert_present


@pytest.fixture(scope="module")
def tenants():
    return {name: new_tenant(name) for name in ("purge-gone", "purge-kept")}


@pytest.fixture(scope="module")
def tenants_file(tmp_path_factory):
    return tmp_path_factory.mktemp("purge") / "tenants.json"


@pytest.fixture(scope="module")
def server(tenants_server, tenants_file, tenants):
    write_tenants(tenants_file, tenants.values())
    return tenants_server(tenants_file)


def purge(server, tenant_id: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(entitlementd_binary()), "purge-tenant", "--config", str(server.config), "--tenant", tenant_id, *extra],
        capture_output=True, text=True, timeout=120)


def test_a_removed_tenant_is_purged_whole_and_the_others_are_untouched(server, tenants, tenants_file, protos):
    clients = Clients(server, protos)
    clients.api_class = AttrApi
    clients.channel()
    gone, kept = tenants["purge-gone"], tenants["purge-kept"]
    marker = unique_id("purged")
    user, other = f"{marker}-user", unique_id("kept")
    clients.api(gone.secret_key).set_customer_attributes(user, {"$email": f"{marker}@example.com", "plan": marker})
    clients.api(gone.secret_key).grant(user, "pro", reason=f"{marker} gift")
    clients.api(kept.secret_key).grant(other, "pro", reason="stays")
    clients.api(gone.secret_key).call("ListAuditEvents")
    assert_present(server, {"user": user})

    refused = purge(server, gone.id)
    assert refused.returncode == 1 and "remove it there first" in refused.stderr, refused.stderr

    write_tenants(tenants_file, [kept])
    counted = purge(server, gone.id, "--dry-run")
    assert counted.returncode == 0, counted.stderr
    assert "customers: would delete 1 rows" in counted.stdout and "dry run: nothing changed" in counted.stdout, counted.stdout
    assert_present(server, {"user": user})

    purged = purge(server, gone.id)
    assert purged.returncode == 0, purged.stderr
    lines = purged.stdout.splitlines()
    assert "customers: deleted 1 rows" in lines and "events: deleted 3 rows" in lines, lines
    assert_absent(server, {"user": user, "email": f"{marker}@example.com", "reason": f"{marker} gift"})
    again = purge(server, gone.id)
    assert again.stdout.strip() == f"tenant {gone.id}: deleted 0 rows in all", again.stdout
    # The other tenant is as it was.
    assert [e.id for e in clients.api(kept.secret_key).customer(other).customer.status.entitlements] == ["pro"]
    clients.close()


def test_a_bad_tenant_id_is_a_usage_error(server):
    result = purge(server, "Not A Tenant")
    assert result.returncode == 2 and "--tenant" in result.stderr, result.stderr
