"""What the server says when it starts."""

from __future__ import annotations

import os

from conftest import DEMO_TENANTS_FILE, ON_POSTGRES


def test_startup_logs_what_it_loaded(demo_tenants_server):
    """One line names the database, the tenants file and how many tenants it holds, so a wrong path shows at once."""
    database = demo_tenants_server.config.parent / "entitlements.db"
    loaded = [line for line in demo_tenants_server.log().splitlines() if " INFO entitlementd loaded " in line]
    assert len(loaded) == 1, demo_tenants_server.log()
    if ON_POSTGRES:
        # Quoted: the connection string has spaces.
        assert f' loaded database="postgres:{os.environ["ENTITLEMENTD_TEST_POSTGRES"]} options=' in loaded[0], loaded[0]
        assert loaded[0].endswith(f" tenants_file={DEMO_TENANTS_FILE} tenants=1"), loaded[0]
    else:
        assert loaded[0].endswith(f" loaded database={database} tenants_file={DEMO_TENANTS_FILE} tenants=1"), loaded[0]


def test_startup_without_a_tenants_file_says_so(h2c_server):
    [loaded] = [line for line in h2c_server.log().splitlines() if " INFO entitlementd loaded " in line]
    assert loaded.endswith(" tenants_file=none tenants=0"), loaded
