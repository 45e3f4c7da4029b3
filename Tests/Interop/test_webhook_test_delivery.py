"""`AdminService.SendTestWebhook` through the real server: one signed delivery to a tenant's endpoint, checked by a
receiver using Python's `standardwebhooks` package; its answer reported back (2xx, another status, no answer), and
the endpoint found only in the caller's own tenant."""

from __future__ import annotations


import grpc
import pytest
from standardwebhooks import Webhook

from conftest import free_port
from entitlement_support import Clients, new_tenant, secret_key_apis, write_tenants
from webhook_receiver import Receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
ROLLED = "whsec_" + "C2FVsBQIhrscChlQIMV+b5sSYspob7oD"


@pytest.fixture(scope="module")
def receiver():
    receiver = Receiver(secrets=[SECRET, ROLLED])
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def tenants(receiver):
    dead = f"http://127.0.0.1:{free_port()}/nobody-listens"
    return {
        "a": new_tenant("wh-a", webhooks=[
            {"id": "backend", "url": receiver.url, "secrets": [SECRET, ROLLED]},
            {"id": "dead", "url": dead, "secrets": [SECRET]},
        ]),
        "b": new_tenant("wh-b", webhooks=[{"id": "other", "url": receiver.url, "secrets": [ROLLED]}]),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    path = tmp_path_factory.mktemp("webhook-test") / "tenants.json"
    write_tenants(path, tenants.values())
    return tenants_server(path)


@pytest.fixture
def admin(server, protos, tenants):
    with secret_key_apis(server, protos, tenants) as apis:
        yield apis


def test_a_test_delivery_is_signed_with_every_secret_and_verifies_with_the_reference_library(admin, receiver):
    before = len(receiver.deliveries)
    response = admin["a"].call("SendTestWebhook", endpoint_id="backend")
    assert response.delivered and response.status_code == 200 and response.error == "", response
    delivery = receiver.deliveries[before]
    # Both secrets signed it (one v1 entry each), so a receiver holding either accepts it.
    assert delivery.verified_with == [0, 1]
    assert len(delivery.headers["webhook-signature"].split(" ")) == 2
    assert delivery.headers["webhook-id"] == response.webhook_id and response.webhook_id.startswith("msg_")
    body = Webhook(SECRET).verify(delivery.body, delivery.headers)
    assert body["type"] == "webhook.test"
    assert body["data"] == {
        "webhook_id": response.webhook_id, "tenant": "wh-a", "endpoint": "backend", "message": body["data"]["message"]}
    assert response.duration.seconds * 1000 + response.duration.nanos // 1_000_000 >= 0


def test_each_tenant_signs_with_its_own_endpoint_secrets(admin, receiver):
    before = len(receiver.deliveries)
    response = admin["b"].call("SendTestWebhook", endpoint_id="other")
    assert response.delivered
    assert receiver.deliveries[before].verified_with == [1]
    assert receiver.deliveries[before].json["data"]["tenant"] == "wh-b"


def test_an_endpoint_answering_an_error_is_reported_not_delivered(admin, receiver):
    receiver.statuses.append(503)
    response = admin["a"].call("SendTestWebhook", endpoint_id="backend")
    assert not response.delivered and response.status_code == 503 and "HTTP 503" in response.error, response


def test_an_endpoint_nobody_listens_at_is_reported_with_no_status(admin):
    response = admin["a"].call("SendTestWebhook", endpoint_id="dead")
    assert not response.delivered and response.status_code == 0 and response.error, response


@pytest.mark.parametrize("tenant, endpoint", [("a", "nope"), ("a", "other"), ("b", "backend")])
def test_only_the_callers_own_endpoints_are_found(admin, tenant, endpoint):
    error = admin[tenant].error("SendTestWebhook", endpoint_id=endpoint)
    assert error.code() == grpc.StatusCode.NOT_FOUND, error
    assert endpoint in error.details()


def test_a_public_key_cannot_send(server, protos, tenants):
    clients = Clients(server, protos)
    try:
        error = clients.api(tenants["a"].public_key, clients.channel()).error("SendTestWebhook", endpoint_id="backend")
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        clients.close()
