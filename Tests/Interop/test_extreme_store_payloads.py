"""The extremes of the stores' numbers through the real server's endpoints: each time outside 0001-01-01...9999-12-31 is
refused naming the store's field and the range (400), never scaled into an overflow, and the
server goes on serving every tenant.

An App Store JWS is read before it is verified: its `signedDate` picks the time the certificate chain is checked at,
so it reaches the server from anyone who can post a notification, or call Purchase with an app's public key. A
`signedDate` of Int64.min once overflowed there (`milliseconds - 999`) and took the process down."""

from __future__ import annotations

import base64
import json

import grpc
import pytest

import fake_stripe as fs
from appstore_support import StoreEnv
from conftest import REPO_ROOT
from entitlement_support import new_tenant, unique_id, write_tenants
from fake_google import FakeGoogle, test_notification
from play_support import APP, SERVER_SETTINGS, PlayEnv, play_tenant
from stripe_support import StripeEnv, stripe_tenant, subscription_for
from webhook_posting import POSTERS

INT64_MAX, INT64_MIN = 2**63 - 1, -2**63
VIAS = list(POSTERS)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jws(payload: dict) -> str:
    """A compact JWS shaped like Apple's (ES256, a chain of three) whose chain and signature are junk: the server
    reads the payload's signedDate before it finds that out."""
    header = {"alg": "ES256", "x5c": [b64url(b"not a certificate")] * 3}
    return ".".join([b64url(json.dumps(header).encode()), b64url(json.dumps(payload).encode()), b64url(bytes(64))])


# --------------------------------------------------------------------------------------------------
# App Store


@pytest.fixture(scope="module")
def apple_tenant():
    return new_tenant("extreme-apple", app_store={
        "bundle_id": "com.example.app", "environments": ["Sandbox"],
        "root_certificates": [str(REPO_ROOT / "Config" / "AppleRootCA-G3.cer")],
        "products": {"com.example.pro.monthly": {"type": "auto_renewable"}},
    }, products={"com.example.pro.monthly": ["pro"]})


@pytest.fixture(scope="module")
def apple_server(tenants_server, tmp_path_factory, apple_tenant):
    tenants_file = tmp_path_factory.mktemp("extreme-apple") / "tenants.json"
    write_tenants(tenants_file, [apple_tenant])
    return tenants_server(tenants_file)


SIGNED_DATES = [INT64_MIN, INT64_MIN + 1, INT64_MAX, -999, 10_000_000_000_000_000_000 // 1000]


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("signed_date", SIGNED_DATES)
def test_an_app_store_notification_with_an_extreme_signed_date_is_refused(apple_server, apple_tenant, via, signed_date):
    token = jws({"notificationType": "TEST", "notificationUUID": unique_id(), "signedDate": signed_date,
                 "data": {"environment": "Sandbox", "bundleId": "com.example.app"}})
    status, text = POSTERS[via](apple_server, f"/v1/apple/notifications/{apple_tenant.id}",
                                json.dumps({"signedPayload": token}).encode(), {"content-type": "application/json"})
    assert status == 400 and "failed verification" in text, (status, text)
    assert apple_server.process.poll() is None, apple_server.describe()


@pytest.mark.parametrize("signed_date", SIGNED_DATES)
def test_a_purchase_with_an_extreme_signed_date_is_invalid_argument(apple_server, apple_tenant, protos, signed_date):
    """The same path with only an app's public key: Purchase verifies the device's transaction."""
    env = StoreEnv(apple_server, {"a": apple_tenant}, protos)
    try:
        env.channel()
        app = env.api(apple_tenant.public_key)
        token = jws({"transactionId": "1", "originalTransactionId": "1", "productId": "com.example.pro.monthly",
                     "bundleId": "com.example.app", "environment": "Sandbox", "signedDate": signed_date,
                     "purchaseDate": signed_date})
        error = app.purchase_error(unique_id(), token)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "failed verification" in error.details(), error
        assert env.api(apple_tenant.secret_key).call("DescribeKey").tenant_id == apple_tenant.id
    finally:
        env.close()


# --------------------------------------------------------------------------------------------------
# Stripe


@pytest.fixture(scope="module")
def stripe_tenants():
    return {"s": stripe_tenant("extreme-stripe")}


@pytest.fixture(scope="module")
def stripe_server(tenants_server, tmp_path_factory, stripe_tenants):
    tenants_file = tmp_path_factory.mktemp("extreme-stripe") / "tenants.json"
    write_tenants(tenants_file, stripe_tenants.values())
    return tenants_server(tenants_file)


@pytest.fixture
def stripe_env(stripe_server, stripe_tenants, protos):
    environment = StripeEnv(stripe_server, stripe_tenants, protos)
    yield environment
    environment.close()


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("created", [INT64_MAX, 10_000_000_000_000_000, INT64_MAX // 1000 + 1, 253_402_300_800])
def test_a_stripe_event_created_outside_the_range_is_400(stripe_env, via, created):
    evt = fs.event("customer.subscription.updated", subscription_for(unique_id(), price_id="price_pro_monthly"),
                   created=created)
    status, text = stripe_env.post("s", evt, via=via)
    assert status == 400, (status, text)
    assert f"created is {created} s since 1970, outside" in text and "253402300799" in text, text
    assert stripe_env.s_admin.call("DescribeKey").tenant_id == "extreme-stripe"


@pytest.mark.parametrize("argument, value, named", [
    ("period_end", INT64_MAX, "current_period_end"), ("period_end", 10_000_000_000_000_000, "current_period_end"),
    ("period_start", INT64_MIN, "start_date"),  # the helper starts the subscription with its period
    ("cancel_at", INT64_MAX // 1000 + 1, "cancel_at"), ("ended_at", -62_135_596_801, "ended_at"),
])
def test_a_subscription_time_outside_the_range_is_refused_naming_it(stripe_env, argument, value, named):
    """400, nothing applied: a malformed payload, as an App Store or Play time out of the range is answered."""
    user = unique_id()
    status = "canceled" if argument == "ended_at" else "active"
    subscription = subscription_for(user, price_id="price_pro_monthly", status=status, **{argument: value})
    reply, text = stripe_env.post("s", fs.event("customer.subscription.created", subscription))
    assert reply == 400 and f"{named} is {value} s since 1970, outside" in text, (reply, text)
    assert stripe_env.s_admin.error("GetCustomer", app_user_id=user).code() == grpc.StatusCode.NOT_FOUND


def test_a_price_times_a_quantity_past_int64_is_applied_without_a_price(stripe_env):
    user = unique_id()
    subscription = subscription_for(user, price_id="price_pro_monthly")
    item = subscription["items"]["data"][0]
    item["price"]["unit_amount"], item["quantity"] = INT64_MAX, 3
    stripe_env.post_ok("s", fs.event("customer.subscription.created", subscription))
    assert [e.id for e in stripe_env.s.sync(user).status.entitlements] == ["pro"]


# --------------------------------------------------------------------------------------------------
# Google Play


@pytest.fixture(scope="module")
def google():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def play_tenants(google, tmp_path_factory):
    key = google.write_service_account(tmp_path_factory.mktemp("extreme-play") / "service-account.json")
    return {"p": play_tenant(google, key, "extreme-play")}


@pytest.fixture(scope="module")
def play_server(tenants_server, tmp_path_factory, play_tenants):
    tenants_file = tmp_path_factory.mktemp("extreme-play-tenants") / "tenants.json"
    write_tenants(tenants_file, play_tenants.values())
    return tenants_server(tenants_file, SERVER_SETTINGS)


@pytest.fixture
def play_env(play_server, play_tenants, google, protos):
    environment = PlayEnv(play_server, google, play_tenants, protos)
    yield environment
    environment.close()


@pytest.mark.parametrize("event_time", [str(INT64_MAX), "253402300800000"])
def test_a_play_notification_from_after_the_year_9999_is_400(play_env, event_time):
    notification = test_notification(APP)
    notification["eventTimeMillis"] = event_time
    status, text = play_env.push("p", notification)
    assert status == 400 and f"eventTimeMillis is {event_time} ms since 1970, outside" in text, (status, text)
    assert play_env.p_admin.call("DescribeKey").tenant_id == "extreme-play"
