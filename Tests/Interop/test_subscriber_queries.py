"""`AdminService.ListCustomers` and `CountCustomers` through the real interop-server, with grpcio.

One server for the module; each test owns a tenant, so its counts and listings are exactly what it made.
"""

from __future__ import annotations

import time

import grpc
import pytest

from entitlement_support import ACTIVE, INACTIVE, STORE_GRANT, new_tenant, secret_key_apis, write_tenants

Code = grpc.StatusCode

# ListCustomersRequest.State
STATE_ACTIVE, STATE_INACTIVE = 1, 2


@pytest.fixture(scope="module")
def tenants():
    def tenant(tenant_id):
        return new_tenant(tenant_id, entitlements=["pro", "plus"], products={"com.example.premium": ["premium"]})
    return {name: tenant(f"subscribers-{name}") for name in ("counts", "paging", "x", "y", "checks")}


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    tenants_file = tmp_path_factory.mktemp("subscribers") / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    return tenants_server(tenants_file)


@pytest.fixture
def admin(server, protos, tenants):
    with secret_key_apis(server, protos, tenants) as apis:
        yield apis


def listed(response):
    return [entry.customer.app_user_id for entry in response.customers]


def list_all(api, **filters):
    """Every page of a listing, following next_page_token."""
    users, token = [], ""
    while True:
        page = api.call("ListCustomers", page_token=token, **filters)
        users += listed(page)
        token = page.next_page_token
        if not token:
            return users


def counts(api):
    response = api.call("CountCustomers")
    return (
        response.active_customers,
        {count.id: count.customers for count in response.entitlements},
        {count.store: count.customers for count in response.stores},
    )


def test_counts_and_listings_match_what_was_granted(admin):
    api = admin["counts"]
    for user in ("ann", "ben", "cat", "dan"):
        api.identify(user)
    api.grant("ann", "pro")
    api.grant("ann", "plus")
    api.grant("ben", "pro")
    api.grant("cat", "plus", duration=1.0)
    # An anonymous customer with history merged into dan: the husk it leaves is never listed.
    api.identify("$anon:dan-phone")
    api.grant("$anon:dan-phone", "premium")
    api.identify("dan", anonymous_id="$anon:dan-phone")

    assert counts(api) == (4, {"plus": 2, "premium": 1, "pro": 2}, {STORE_GRANT: 4})
    assert list_all(api) == ["ann", "ben", "cat", "dan"]
    assert list_all(api, entitlement_id="pro") == ["ann", "ben"]
    assert list_all(api, entitlement_id="plus", store=STORE_GRANT) == ["ann", "cat"]
    assert list_all(api, page_size=1, state=STATE_ACTIVE) == ["ann", "ben", "cat", "dan"]
    ann = api.call("ListCustomers", page_size=1).customers[0]
    assert [e.id for e in ann.customer.status.entitlements] == ["plus", "pro"]
    assert ann.customer.status.state == ACTIVE

    # cat's grant runs out: she is counted and listed as inactive from then on.
    time.sleep(1.2)
    assert counts(api) == (3, {"plus": 1, "premium": 1, "pro": 2}, {STORE_GRANT: 3})
    assert list_all(api, state=STATE_INACTIVE) == ["cat"]
    cat = [entry for entry in api.call("ListCustomers").customers if entry.customer.app_user_id == "cat"][0]
    assert cat.customer.status.state == INACTIVE and not cat.customer.status.entitlements


def test_changed_since_lists_customers_changed_at_or_after(admin):
    api = admin["checks"]
    api.identify("early")
    time.sleep(0.05)
    since = api.call("CountCustomers").counted_at
    time.sleep(0.05)
    api.identify("late")
    request = api.request("ListCustomers")
    request.changed_since.CopyFrom(since)
    assert listed(api.call("ListCustomers", request)) == ["late"]
    api.grant("early", "pro")
    assert listed(api.call("ListCustomers", request)) == ["early", "late"]


def test_paging_while_customers_change(admin):
    api = admin["paging"]
    grants = {user: api.grant(user, "pro").grant_id for user in ("p1", "p2", "p3", "p4", "p5")}
    first = api.call("ListCustomers", page_size=2, entitlement_id="pro")
    assert listed(first) == ["p1", "p2"]
    # Between pages: one already listed and one not yet listed lose pro; a new customer gets it.
    api.revoke(grants["p1"])
    api.revoke(grants["p3"])
    api.grant("p6", "pro")
    rest, token = [], first.next_page_token
    while token:
        page = api.call("ListCustomers", page_size=2, page_token=token, entitlement_id="pro")
        rest += listed(page)
        token = page.next_page_token
    assert rest == ["p4", "p5", "p6"]
    assert list_all(api, entitlement_id="pro") == ["p2", "p4", "p5", "p6"]


def test_tenants_are_isolated(admin):
    x, y = admin["x"], admin["y"]
    for user in ("x1", "x2", "x3"):
        x.grant(user, "pro")
    y.grant("y1", "plus")
    assert list_all(y) == ["y1"]
    assert counts(y) == (1, {"plus": 1}, {STORE_GRANT: 1})
    assert counts(x) == (3, {"pro": 3}, {STORE_GRANT: 3})
    token = x.call("ListCustomers", page_size=1).next_page_token
    assert token
    error = y.error("ListCustomers", page_token=token)
    assert error.code() == Code.INVALID_ARGUMENT, error.details()
    # Nor does it carry over to other filters of the same tenant.
    assert x.error("ListCustomers", page_token=token, state=STATE_ACTIVE).code() == Code.INVALID_ARGUMENT


@pytest.mark.parametrize("fields, named", [
    ({"page_size": -1}, "page_size"),
    ({"page_size": 1001}, "page_size"),
    ({"page_token": "not a token"}, "page_token"),
    ({"page_token": "A" * 5000}, "page_token"),
    ({"entitlement_id": "gold"}, "entitlement_id"),
    ({"store": 42}, "store"),
    ({"state": 9}, "state"),
    ({"product_id": "x" * 300}, "product_id"),
    ({"entitlement_id": "pro", "state": STATE_INACTIVE}, "INACTIVE"),
])
def test_malformed_requests_are_invalid_arguments(admin, fields, named):
    error = admin["checks"].error("ListCustomers", **fields)
    assert error.code() == Code.INVALID_ARGUMENT, error.details()
    assert named in error.details()
    assert len(error.details()) < 600


def test_bad_changed_since_is_an_invalid_argument(admin):
    api = admin["checks"]
    request = api.request("ListCustomers")
    request.changed_since.seconds = 300_000_000_000
    error = api.error("ListCustomers", request)
    assert error.code() == Code.INVALID_ARGUMENT and "changed_since" in error.details()
