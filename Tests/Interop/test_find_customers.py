"""FindCustomers through the real server: what one ID a support person has in hand names (an app user ID, an alias,
an App Store original or latest transaction ID), with the owner, or none for a purchase nobody owns yet; exact
matches only, the tenant's own data only, bad queries refused with INVALID_ARGUMENT, and a read-only key may call it."""

from __future__ import annotations

import json

import grpc
import pytest

from appstore_support import MONTHLY, PRODUCTS, SigningCA, StoreApi, app_store_settings
from entitlement_support import Clients, make_key, new_tenant, unique_id, write_tenants
from test_notifications import new_original_id
from webhook_posting import POSTERS

READER, _ = make_key("sk")
APP_USER_ID, ALIAS, ORIGINAL_TRANSACTION_ID, TRANSACTION_ID = 1, 2, 3, 4
APP_STORE = 1


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> SigningCA:
    return SigningCA(tmp_path_factory.mktemp("find-ca") / "ca")


@pytest.fixture(scope="module")
def tenants(ca):
    return [new_tenant(name, products=dict(PRODUCTS), app_store=app_store_settings(ca.root, "transfer"),
                       named_secret_keys=[{"key": READER, "name": "reader", "scope": "read"}] if name == "find-a" else [])
            for name in ("find-a", "find-b")]


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    tenants_file = tmp_path_factory.mktemp("find-tenants") / "tenants.json"
    write_tenants(tenants_file, tenants)
    return tenants_server(tenants_file)


@pytest.fixture
def clients(server, protos):
    made = Clients(server, protos)
    made.api_class = StoreApi
    made.channel()
    yield made
    made.close()


def found(api, query: str) -> list[tuple]:
    return [(m.app_user_id, m.matched_by, m.store, m.original_transaction_id)
            for m in api.call("FindCustomers", query=query).matches]


def test_by_app_user_id_and_alias(clients, tenants):
    a = tenants[0]
    anonymous, user = "$anon:" + unique_id(), unique_id()
    sdk = clients.api(a.public_key)
    sdk.identify(anonymous)
    sdk.identify(user, anonymous_id=anonymous)
    reader = clients.api(READER)
    assert found(reader, user) == [(user, APP_USER_ID, 0, "")]
    assert found(reader, anonymous) == [(user, ALIAS, 0, "")]
    assert found(reader, user.upper()) == []  # IDs are case-sensitive: exact matches only
    # Another tenant's key finds nothing of this tenant's.
    assert found(clients.api(tenants[1].secret_key), user) == []


def test_by_original_and_latest_transaction_id(clients, tenants, ca):
    a = tenants[0]
    user, original, latest = unique_id(), new_original_id(), new_original_id()
    clients.api(a.public_key).purchase(
        user, ca.sign(MONTHLY, "--original-transaction-id", original, "--transaction-id", latest))
    reader = clients.api(READER)
    assert found(reader, original) == [(user, ORIGINAL_TRANSACTION_ID, APP_STORE, original)]
    assert found(reader, latest) == [(user, TRANSACTION_ID, APP_STORE, original)]
    assert found(clients.api(tenants[1].secret_key), original) == []


def test_a_purchase_nobody_owns_is_found_without_an_owner(clients, tenants, ca, server):
    original = new_original_id()
    transaction = ca.sign(MONTHLY, "--original-transaction-id", original)
    token = ca.signed("sign-notification", "DID_RENEW", "--transaction", transaction)
    status, _ = POSTERS["http1"](server, f"/v1/apple/notifications/{tenants[0].id}",
                                 json.dumps({"signedPayload": token}).encode(), {"content-type": "application/json"})
    assert status == 200
    assert found(clients.api(READER), original) == [("", ORIGINAL_TRANSACTION_ID, APP_STORE, original)]


@pytest.mark.parametrize("query, needle", [
    ("", "query must be 1 to 512 bytes"),
    ("x" * 513, "query must be 1 to 512 bytes"),
    ("abc\ndef", "control character U+000A"),
])
def test_bad_queries_are_invalid_arguments(clients, tenants, query, needle):
    error = clients.api(tenants[0].secret_key).error("FindCustomers", query=query)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert needle in error.details()
