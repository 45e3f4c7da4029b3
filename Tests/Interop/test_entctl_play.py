"""entctl and Google Play: `dev play-key` checked with `cryptography` and PyJWT, `dev play-notify` checked against what
Pub/Sub sends (a capturing HTTP server, Google's own `google-auth` verifying the token), and the Play commands
(`purchase --play`, `restore --play`, `refresh-purchase`, `customer`, `dev play-notify`) against the real server with a
Play tenant whose Google is the local fake (fake_google.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import socket
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import google.auth.transport.requests
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.oauth2 import id_token

from conftest import DEMO_PUBLIC_KEY, DEMO_SECRET_KEY, free_port, REPO_ROOT
from entctl_support import entctl, entctl_ok, without_demo_key_note
from fake_google import FakeGoogle

KEY_FILES = ["push-jwks.json", "push-signing-key.pem"]
DEFAULT_EMAIL = "dev-rtdn@entitlementd.local"
SUBSCRIPTION = "projects/entitlementd-dev/subscriptions/rtdn"
PACKAGE = "com.example.app"
MONTHLY = "com.example.pro.monthly"
LIFETIME = "com.example.premium.lifetime"


def now_ms() -> int:
    return int(time.time() * 1000)


def parse_time(text: str) -> datetime:
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text[:-1] + "+00:00")


# --------------------------------------------------------------------------------------------------
# dev play-key


class PlayKey:
    """A key made by `entctl dev play-key --dir`."""

    def __init__(self, directory: Path):
        self.dir = directory
        self.created = json.loads(entctl_ok("--json", "dev", "play-key", "--dir", str(directory)))
        self.jwks = json.loads((directory / "push-jwks.json").read_text())
        self.kid = self.created["kid"]

    @property
    def jwks_path(self) -> Path:
        return self.dir / "push-jwks.json"

    def private_key(self) -> rsa.RSAPrivateKey:
        return serialization.load_pem_private_key((self.dir / "push-signing-key.pem").read_bytes(), password=None)

    def public_key(self):
        return jwt.PyJWKSet.from_dict(self.jwks)[self.kid].key


@pytest.fixture(scope="module")
def play_key(tmp_path_factory) -> PlayKey:
    return PlayKey(tmp_path_factory.mktemp("play-key") / "key")


def assert_key_pair(pem: Path, jwks_path: Path) -> str:
    """The PEM is an RSA-2048 private key, the JWKS holds exactly its public key, and a token PyJWT signs with the PEM
    verifies with the JWKS; the key's kid."""
    key = serialization.load_pem_private_key(pem.read_bytes(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey) and key.key_size == 2048
    jwks = json.loads(jwks_path.read_text())
    [entry] = jwks["keys"]
    assert (entry["kty"], entry["alg"], entry["use"]) == ("RSA", "RS256", "sig")
    assert re.fullmatch(r"entctl-dev-[0-9a-f]{8}", entry["kid"]), entry["kid"]
    public = jwt.PyJWKSet.from_dict(jwks)[entry["kid"]].key
    assert public.public_numbers() == key.public_key().public_numbers()
    token = jwt.encode({"aud": "x", "sub": "1"}, key, algorithm="RS256", headers={"kid": entry["kid"]})
    assert jwt.decode(token, public, algorithms=["RS256"], audience="x") == {"aud": "x", "sub": "1"}
    return entry["kid"]


def test_play_key_writes_a_key_and_its_jwks(play_key):
    directory = play_key.dir
    assert sorted(os.listdir(directory)) == KEY_FILES
    assert (directory / "push-signing-key.pem").stat().st_mode & 0o777 == 0o600
    assert (directory / "push-signing-key.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----\n")
    assert assert_key_pair(directory / "push-signing-key.pem", play_key.jwks_path) == play_key.kid
    assert play_key.created == {
        "dir": str(directory.resolve()), "signingKey": str(directory.resolve() / "push-signing-key.pem"),
        "jwks": str(directory.resolve() / "push-jwks.json"), "kid": play_key.kid,
    }


def test_play_key_says_how_to_point_a_tenant_at_it(tmp_path):
    output = entctl_ok("dev", "play-key", "--dir", "mine", cwd=tmp_path)
    assert sorted(os.listdir(tmp_path / "mine")) == KEY_FILES
    jwks = (tmp_path / "mine").resolve() / "push-jwks.json"
    assert f"key set:     {jwks}" in output
    settings = json.loads(next(line for line in output.splitlines() if line.startswith("  {")))
    assert settings == {
        "audience": "http://127.0.0.1:50051/v1/google/notifications/TENANT", "push_service_account": DEFAULT_EMAIL,
        "jwks_file": str(jwks),
    }
    assert '"play_store" "notifications"' in output and "kill -HUP" in output and "--dir mine" in output


def test_play_key_defaults_to_config_dev_play_relative_to_the_working_directory(tmp_path):
    entctl_ok("dev", "play-key", cwd=tmp_path)
    assert sorted(os.listdir(tmp_path / "Config" / "dev-play")) == KEY_FILES


def test_play_key_refuses_to_overwrite_without_force(tmp_path):
    directory = tmp_path / "key"
    first = PlayKey(directory)
    before = {name: (directory / name).read_bytes() for name in KEY_FILES}
    refused = entctl("dev", "play-key", "--dir", str(directory))
    assert (refused.returncode, refused.stdout) == (1, ""), refused
    assert refused.stderr.startswith(f"entctl: {directory / 'push-signing-key.pem'} exists: ") and "--force" in refused.stderr
    assert {name: (directory / name).read_bytes() for name in KEY_FILES} == before
    # Either file left over is enough to refuse.
    (directory / "push-signing-key.pem").unlink()
    assert entctl("dev", "play-key", "--dir", str(directory)).returncode == 1
    replaced = json.loads(entctl_ok("--json", "dev", "play-key", "--dir", str(directory), "--force"))
    assert replaced["kid"] != first.kid
    assert assert_key_pair(directory / "push-signing-key.pem", directory / "push-jwks.json") == replaced["kid"]


def test_the_committed_development_key_is_a_pair_and_says_what_it_is():
    directory = REPO_ROOT / "Config" / "dev-play"
    assert_key_pair(directory / "push-signing-key.pem", directory / "push-jwks.json")
    readme = (directory / "README.md").read_text()
    assert "Development-only" in readme and "never" in readme
    # Without --force the committed key is never replaced.
    refused = entctl("dev", "play-key", cwd=REPO_ROOT)
    assert refused.returncode == 1 and "--force" in refused.stderr


# --------------------------------------------------------------------------------------------------
# dev play-notify against a server that records what it is sent


class CapturingServer:
    """A loopback HTTP/1.1 server: POSTs are recorded and answered with `status` and `reply`; `GET /certs` serves a
    JWKS (for google-auth's verify_token)."""

    def __init__(self, jwks: dict | None = None):
        self.requests: list[dict] = []
        self.status, self.reply = 200, "TEST_NOTIFICATION: recorded\n"
        self.jwks = jwks or {"keys": []}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _answer(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self._answer(200, json.dumps(owner.jwks).encode(), "application/json")

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                owner.requests.append({
                    "method": "POST", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                })
                self._answer(owner.status, owner.reply.encode(), "text/plain; charset=utf-8")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def capture(play_key):
    server = CapturingServer(play_key.jwks)
    yield server
    server.close()


def play_notify(capture: CapturingServer, play_key: PlayKey, *args: str, tenant: str = "t1"):
    return entctl("--addr", capture.addr, "dev", "play-notify", *args, "--tenant", tenant, "--package", PACKAGE,
                  "--dir", str(play_key.dir))


def posted(capture: CapturingServer) -> tuple[dict, dict, str]:
    """The one request: the envelope, the notification in it, and the bearer token."""
    [request] = capture.requests
    envelope = json.loads(request["body"])
    notification = json.loads(base64.b64decode(envelope["message"]["data"], validate=True))
    authorization = request["headers"]["authorization"]
    assert authorization.startswith("Bearer ")
    return envelope, notification, authorization[len("Bearer "):]


def test_play_notify_posts_what_pubsub_would(capture, play_key):
    before = now_ms()
    result = play_notify(capture, play_key, "SUBSCRIPTION_RENEWED", "--token", "tok-1", "--message-id", "4242")
    after = now_ms()
    assert (result.returncode, result.stdout, result.stderr) == (0, "200 TEST_NOTIFICATION: recorded\n", "")
    [request] = capture.requests
    assert request["path"] == "/v1/google/notifications/t1"
    assert request["headers"]["content-type"] == "application/json"
    envelope, notification, token = posted(capture)

    # The envelope, member for member, in Pub/Sub's order.
    message = envelope["message"]
    assert list(envelope) == ["message", "subscription"] and envelope["subscription"] == SUBSCRIPTION
    assert list(message) == ["data", "messageId", "message_id", "publishTime", "publish_time"]
    assert message["messageId"] == message["message_id"] == "4242"
    assert message["publishTime"] == message["publish_time"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z", message["publishTime"]), message["publishTime"]
    assert before // 1000 <= parse_time(message["publishTime"]).timestamp() <= after / 1000

    # The Developer Notification.
    assert list(notification) == ["version", "packageName", "eventTimeMillis", "subscriptionNotification"]
    assert (notification["version"], notification["packageName"]) == ("1.0", PACKAGE)
    assert isinstance(notification["eventTimeMillis"], str) and before <= int(notification["eventTimeMillis"]) <= after
    assert notification["subscriptionNotification"] == {"version": "1.0", "notificationType": 2, "purchaseToken": "tok-1"}

    # The OIDC token, as Google signs it, verified by Google's own library against the key's JWKS.
    header = jwt.get_unverified_header(token)
    assert header == {"alg": "RS256", "kid": play_key.kid, "typ": "JWT"}
    audience = f"http://{capture.addr}/v1/google/notifications/t1"
    claims = id_token.verify_token(
        token, google.auth.transport.requests.Request(), audience=audience, certs_url=f"http://{capture.addr}/certs")
    assert list(claims) == ["aud", "azp", "email", "email_verified", "exp", "iat", "iss", "sub"]
    assert (claims["iss"], claims["aud"], claims["email"], claims["email_verified"]) == (
        "https://accounts.google.com", audience, DEFAULT_EMAIL, True)
    assert before // 1000 <= claims["iat"] <= after // 1000 + 1 and claims["exp"] == claims["iat"] + 3600
    assert re.fullmatch(r"\d{21}", claims["sub"]) and claims["azp"] == claims["sub"]
    # And by PyJWT with the JWKS itself.
    assert jwt.decode(token, play_key.public_key(), algorithms=["RS256"], audience=audience,
                      issuer="https://accounts.google.com") == claims


@pytest.mark.parametrize("args, payload", [
    (["SUBSCRIPTION_PURCHASED", "--token", "t"],
     {"subscriptionNotification": {"version": "1.0", "notificationType": 4, "purchaseToken": "t"}}),
    (["canceled", "--token", "t"],
     {"subscriptionNotification": {"version": "1.0", "notificationType": 3, "purchaseToken": "t"}}),
    (["subscription_price_step_up_consent_updated", "--token", "t"],
     {"subscriptionNotification": {"version": "1.0", "notificationType": 22, "purchaseToken": "t"}}),
    (["13", "--token", "t"],
     {"subscriptionNotification": {"version": "1.0", "notificationType": 13, "purchaseToken": "t"}}),
    (["ONE_TIME_PRODUCT_PURCHASED", "--token", "t", "--sku", "gems"],
     {"oneTimeProductNotification": {"version": "1.0", "notificationType": 1, "purchaseToken": "t", "sku": "gems"}}),
    (["one_time_product_canceled", "--token", "t", "--sku", "gems"],
     {"oneTimeProductNotification": {"version": "1.0", "notificationType": 2, "purchaseToken": "t", "sku": "gems"}}),
    (["VOIDED_PURCHASE", "--token", "t", "--order-id", "GPA.1234-5678-9012-34567"],
     {"voidedPurchaseNotification": {"purchaseToken": "t", "orderId": "GPA.1234-5678-9012-34567", "productType": 1,
                                     "refundType": 1}}),
    (["VOIDED_PURCHASE", "--token", "t", "--order-id", "GPA.1", "--sku", "gems", "--refund-type", "partial"],
     {"voidedPurchaseNotification": {"purchaseToken": "t", "orderId": "GPA.1", "productType": 2, "refundType": 2}}),
    (["TEST"], {"testNotification": {"version": "1.0"}}),
])
def test_play_notify_types(capture, play_key, args, payload):
    result = play_notify(capture, play_key, *args)
    assert (result.returncode, result.stderr) == (0, ""), result
    _, notification, _ = posted(capture)
    assert {key: value for key, value in notification.items()
            if key not in ("version", "packageName", "eventTimeMillis")} == payload


def test_voided_purchase_gets_an_order_id_like_googles(capture, play_key):
    assert play_notify(capture, play_key, "VOIDED_PURCHASE", "--token", "t").returncode == 0
    _, notification, _ = posted(capture)
    assert re.fullmatch(r"GPA\.\d{4}-\d{4}-\d{4}-\d{5}", notification["voidedPurchaseNotification"]["orderId"])


def test_an_unknown_type_number_is_sent_after_a_warning(capture, play_key):
    result = play_notify(capture, play_key, "99", "--token", "t")
    assert result.returncode == 0
    assert result.stderr == "entctl: warning: subscription notification type 99 is not one Google documents; " \
                            "sending it as given\n"
    _, notification, _ = posted(capture)
    assert notification["subscriptionNotification"]["notificationType"] == 99


def test_play_notify_options_set_the_token_and_message(capture, play_key):
    result = play_notify(capture, play_key, "TEST", "--audience", "https://rtdn.example.com/push", "--email",
                         "push@example.iam.gserviceaccount.com", "--event-time", "2030-01-31T12:00:00.250Z")
    assert result.returncode == 0, result
    envelope, notification, token = posted(capture)
    assert notification["eventTimeMillis"] == str(int(datetime(2030, 1, 31, 12, tzinfo=timezone.utc).timestamp()) * 1000 + 250)
    claims = jwt.decode(token, play_key.public_key(), algorithms=["RS256"], audience="https://rtdn.example.com/push")
    assert claims["email"] == "push@example.iam.gserviceaccount.com"
    # Fresh message IDs, numeric like Pub/Sub's.
    assert re.fullmatch(r"[1-9]\d{15}", envelope["message"]["messageId"])
    assert play_notify(capture, play_key, "TEST").returncode == 0
    assert json.loads(capture.requests[1]["body"])["message"]["messageId"] != envelope["message"]["messageId"]


def test_play_notify_exits_1_unless_2xx_and_prints_json(capture, play_key):
    capture.status, capture.reply = 403, "The push token was refused (wrongEmail): ...\n"
    refused = play_notify(capture, play_key, "TEST")
    assert (refused.returncode, refused.stdout) == (1, "403 The push token was refused (wrongEmail): ...\n")
    capture.status, capture.reply = 200, "TEST_NOTIFICATION: recorded\n"
    result = entctl("--json", "--addr", capture.addr, "dev", "play-notify", "TEST", "--tenant", "t", "--package", "p",
                    "--dir", str(play_key.dir))
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"status": 200, "reply": "TEST_NOTIFICATION: recorded"}



def test_play_notify_when_refused_says_what_dev_notify_says(play_key):
    port = free_port()
    result = entctl("--addr", f"127.0.0.1:{port}", "dev", "play-notify", "TEST", "--tenant", "t", "--package", "p",
                    "--dir", str(play_key.dir))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"entctl: cannot connect to 127.0.0.1:{port}: connection refused (is the server running?)\n"


def test_play_notify_without_a_key_says_how_to_make_one(tmp_path):
    result = entctl("dev", "play-notify", "TEST", "--tenant", "t", "--package", "p", "--dir", str(tmp_path / "none"))
    assert result.returncode == 1
    assert f"no push-signing key in {tmp_path / 'none'}" in result.stderr and "entctl dev play-key" in result.stderr
    elsewhere = entctl("dev", "play-notify", "TEST", "--tenant", "t", "--package", "p", cwd=tmp_path)
    assert elsewhere.returncode == 1
    assert "no push-signing key in Config/dev-play" in elsewhere.stderr and "--dir DIR" in elsewhere.stderr


def test_play_notify_with_a_key_set_that_lacks_the_key(tmp_path, play_key):
    directory = tmp_path / "mixed"
    PlayKey(directory)
    (directory / "push-jwks.json").write_text(play_key.jwks_path.read_text())
    result = entctl("dev", "play-notify", "TEST", "--tenant", "t", "--package", "p", "--dir", str(directory))
    assert result.returncode == 1 and "has no key for" in result.stderr and "--force" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["dev", "play-notify"], "dev play-notify needs TYPE"),
    (["dev", "play-notify", "TEST", "--package", "p"], "dev play-notify needs --tenant"),
    (["dev", "play-notify", "TEST", "--tenant", "t"], "dev play-notify needs --package"),
    (["dev", "play-notify", "TEST", "--tenant", "", "--package", "p"], "--tenant must not be empty"),
    (["dev", "play-notify", "RENEWED", "--tenant", "t", "--package", "p"], "dev play-notify needs --token"),
    (["dev", "play-notify", "FROBNICATED", "--tenant", "t", "--package", "p"], "unknown TYPE 'FROBNICATED'"),
    (["dev", "play-notify", "SUBSCRIPTION-RENEWED", "--tenant", "t", "--package", "p"], "unknown TYPE"),
    (["dev", "play-notify", "99999999999", "--tenant", "t", "--package", "p"], "invalid TYPE '99999999999'"),
    (["dev", "play-notify", "TEST", "--tenant", "t", "--package", "p", "--token", "x"],
     "--token does not apply to TEST"),
    (["dev", "play-notify", "TEST", "--tenant", "t", "--package", "p", "--sku", "x"], "--sku does not apply to TEST"),
    (["dev", "play-notify", "RENEWED", "--tenant", "t", "--package", "p", "--token", "x", "--sku", "s"],
     "--sku does not apply to SUBSCRIPTION_RENEWED"),
    (["dev", "play-notify", "RENEWED", "--tenant", "t", "--package", "p", "--token", "x", "--order-id", "o"],
     "--order-id does not apply to SUBSCRIPTION_RENEWED"),
    (["dev", "play-notify", "ONE_TIME_PRODUCT_PURCHASED", "--tenant", "t", "--package", "p", "--token", "x",
      "--refund-type", "full"], "--refund-type does not apply to ONE_TIME_PRODUCT_PURCHASED"),
    (["dev", "play-notify", "ONE_TIME_PRODUCT_PURCHASED", "--tenant", "t", "--package", "p", "--token", "x"],
     "dev play-notify needs --sku"),
    (["dev", "play-notify", "VOIDED_PURCHASE", "--tenant", "t", "--package", "p", "--token", "x", "--refund-type",
      "half"], "invalid --refund-type 'half': expected full, partial"),
    (["dev", "play-notify", "TEST", "--tenant", "t", "--package", "p", "--event-time", "soon"], "invalid --event-time"),
    (["dev", "play-notify", "TEST", "--tenant", "t", "--package", "p", "--bundle-id", "b"],
     "dev play-notify does not take --bundle-id"),
    (["dev", "play-key", "extra"], "unexpected argument 'extra'"),
    (["dev", "play-key", "--tenant", "t"], "dev play-key does not take --tenant"),
])
def test_play_usage_errors_exit_2_before_anything_is_read_or_sent(tmp_path, args, message):
    result = entctl("--addr", "127.0.0.1:1", *args, "--dir", str(tmp_path / "no-key-here"))
    assert result.returncode == 2, result
    error, usage, more = result.stderr.splitlines()
    assert error.startswith("entctl: ") and message in error, error
    command = " ".join(args[:2])
    assert usage == entctl(*args[:2], "--help").stdout.splitlines()[0]
    assert more == f"see 'entctl {command} --help'"
    assert result.stdout == ""
    assert not (tmp_path / "no-key-here").exists()


# --------------------------------------------------------------------------------------------------
# Purchase, restore, refresh-purchase, customer: usage errors


@pytest.mark.parametrize("args, message", [
    (["purchase", "alice"], "purchase needs SIGNED_TRANSACTION or --play PRODUCT_ID:TOKEN"),
    (["purchase", "alice", "jws", "--play", "p:t"], "not both"),
    (["purchase", "alice", "--play", "p:t", "--play", "q:u"], "purchase takes one --play (restore takes several)"),
    (["purchase", "alice", "--play", "no-colon"], "invalid --play 'no-colon': expected PRODUCT_ID:TOKEN"),
    (["purchase", "alice", "--play", ":token"], "invalid --play ':token'"),
    (["purchase", "alice", "--play", "product:"], "invalid --play 'product:'"),
    (["purchase", "alice", "--reason", "x"], "purchase does not take --reason"),
    (["restore", "alice"], "restore needs SIGNED_TRANSACTION..., --play PRODUCT_ID:TOKEN or --history TRANSACTION_ID"),
    (["restore", "alice", "", "--play", "p:t"], "SIGNED_TRANSACTION must not be empty"),
    (["restore", "alice", *["jws"] * 60, *[f"--play=p:{n}" for n in range(41)]], "at most 100 purchases, got 101"),
    (["restore", "alice", "--play", "p"], "invalid --play 'p'"),
    (["refresh-purchase"], "refresh-purchase needs TOKEN"),
    (["refresh-purchase", "tok", "other"], "unexpected argument 'other'"),
    (["refresh-purchase", "tok", "--product", ""], "--product must not be empty"),
    (["refresh-purchase", "tok", "--product", "a", "--product", "b"], "--product given more than once"),
    (["refresh-purchase", "tok", "--play", "p:t"], "refresh-purchase does not take --play"),
    (["status", "alice", "--play", "p:t"], "status does not take --play"),
])
def test_play_command_usage_errors_exit_2(args, message):
    result = entctl("--addr", "127.0.0.1:1", *args)
    assert result.returncode == 2, result
    error, usage, more = result.stderr.splitlines()
    assert error.startswith("entctl: ") and message in error, error
    assert usage == entctl(args[0], "--help").stdout.splitlines()[0]
    assert more == f"see 'entctl {args[0]} --help'"


# --------------------------------------------------------------------------------------------------
# Against the real server: a Play tenant whose Google is the fake


def key_hash(key: str) -> str:
    return f"{key[:2]}_sha256:" + hashlib.sha256(key.encode()).hexdigest()


AUDIENCE = "https://entitlements.example.com/v1/google/notifications/play"


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle() as google:
        yield google


@pytest.fixture(scope="module")
def play_server(tenants_server, tmp_path_factory, fake, play_key):
    """A server with one tenant, `play`, for Google Play (and the demo keys, so entctl needs no --key): its API is the
    fake's, its push tokens are checked against `play_key`'s JWKS for AUDIENCE and the default development email."""
    directory = tmp_path_factory.mktemp("play-tenant")
    fake.write_service_account(directory / "service-account.json")
    tenants = directory / "tenants.json"
    tenants.write_text(json.dumps({"tenants": [{
        "id": "play",
        "public_keys": [key_hash(DEMO_PUBLIC_KEY)],
        "secret_keys": [key_hash(DEMO_SECRET_KEY)],
        "entitlements": ["pro", "premium"],
        "products": {MONTHLY: ["pro"], LIFETIME: ["premium"]},
        "play_store": {
            "package_name": PACKAGE,
            "service_account_key_file": "service-account.json",
            "environments": ["production", "test"],
            "products": {MONTHLY: {"type": "subscription"}, LIFETIME: {"type": "non_consumable"}},
            "api_base_url": fake.base_url + "/androidpublisher/v3/applications",
            "voided_purchases_poll_minutes": 0,
            "notifications": {
                "audience": AUDIENCE, "push_service_account": DEFAULT_EMAIL, "jwks_file": str(play_key.jwks_path),
            },
        },
    }]}))
    return tenants_server(tenants, {"google_play": {"acknowledgement_first_retry_seconds": 1}})


class PlayCLI:
    def __init__(self, server):
        self.addr = f"127.0.0.1:{server.port}"

    def run(self, *args: str, **kwargs):
        return entctl("--addr", self.addr, *args, **kwargs)

    def ok(self, *args: str, **kwargs) -> str:
        result = self.run(*args, **kwargs)
        assert result.returncode == 0, f"entctl {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
        return result.stdout

    def json(self, *args: str, **kwargs) -> dict:
        return json.loads(self.ok("--json", *args, **kwargs))

    def notify(self, play_key: PlayKey, *args: str, package: str = PACKAGE):
        return self.run("dev", "play-notify", *args, "--tenant", "play", "--package", package, "--dir",
                        str(play_key.dir), "--audience", AUDIENCE)


@pytest.fixture
def play(play_server) -> PlayCLI:
    return PlayCLI(play_server)


def new_token() -> str:
    return "play-" + uuid.uuid4().hex + uuid.uuid4().hex


def unique_user() -> str:
    return f"play-{uuid.uuid4().hex[:12]}"


def wait_for(check, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def test_play_notify_test_is_accepted_by_a_play_tenant(play, play_key):
    result = play.notify(play_key, "TEST")
    assert (result.returncode, result.stdout, result.stderr) == (0, "200 TEST_NOTIFICATION: recorded\n", "")
    # The same message again is recognised by its messageId.
    again = play.notify(play_key, "TEST", "--message-id", "77")
    assert again.returncode == 0
    assert play.notify(play_key, "TEST", "--message-id", "77").stdout == "200 TEST_NOTIFICATION: already processed\n"


def test_the_server_checks_the_push_token(play, play_key, tmp_path):
    wrong_email = play.notify(play_key, "TEST", "--email", "someone@example.com")
    assert wrong_email.returncode == 1 and wrong_email.stdout.startswith("403 The push token was refused (wrongEmail)")
    wrong_key = PlayKey(tmp_path / "other")
    unknown = play.notify(wrong_key, "TEST")
    assert unknown.returncode == 1 and unknown.stdout.startswith("401 The push token was refused (unknownKey)")
    # The default audience is the endpoint at --addr, which is not the tenant's configured one.
    result = play.run("dev", "play-notify", "TEST", "--tenant", "play", "--package", PACKAGE, "--dir", str(play_key.dir))
    assert result.returncode == 1 and result.stdout.startswith("403 The push token was refused (wrongAudience)")
    other_package = play.notify(play_key, "TEST", package="com.example.other")
    assert other_package.returncode == 1 and other_package.stdout.startswith("400 ")


def test_purchase_customer_refresh_and_notify_a_play_subscription(play, play_key, fake):
    user, token = unique_user(), new_token()
    fake.put_subscription(PACKAGE, token, product_id=MONTHLY, base_plan="monthly")
    bought = play.json("purchase", user, "--play", f"{MONTHLY}:{token}")
    assert bought["customer"]["status"]["state"] == "ACTIVE"
    result = bought["result"]
    assert (result["store"], result["productId"], result["originalTransactionId"], result["outcome"]) == (
        "PLAY_STORE", MONTHLY, token, "NEW")
    human = play.ok("status", user).splitlines()
    assert human[0].startswith(f"{user}  ACTIVE") and "(PLAY_STORE, com.example.pro.monthly" in human[1]

    # The server acknowledges the purchase with Google on its own.
    acknowledged = wait_for(lambda: play.json("customer", user)["transactions"][0]["acknowledgement"] == "ACKNOWLEDGED")
    assert acknowledged, play.json("customer", user)
    [transaction] = play.json("customer", user)["transactions"]
    assert (transaction["store"], transaction["supersededBy"], transaction["replaces"]) == ("PLAY_STORE", "", "")
    assert (transaction["acknowledgementAttempts"], transaction["acknowledgementError"]) == (1, "")
    lines = play.ok("customer", user).splitlines()
    index = lines.index("transactions: 1")
    assert lines[index + 1].startswith(f"  PLAY_STORE  {MONTHLY}  {token}  PRODUCTION  purchased ")
    assert lines[index + 2] == "    acknowledgement ACKNOWLEDGED"

    # Google says it renewed: refresh-purchase applies it.
    fake.put_subscription(PACKAGE, token, product_id=MONTHLY, base_plan="monthly", expiry="+60d", acknowledged=True)
    refreshed = play.json("refresh-purchase", token)
    assert refreshed["changed"] is True and refreshed["customer"]["appUserId"] == user
    assert refreshed["transaction"]["originalTransactionId"] == token
    assert parse_time(refreshed["transaction"]["expiresAt"]).timestamp() > time.time() + 59 * 86400
    again = play.ok("refresh-purchase", token, "--product", MONTHLY).splitlines()
    assert again[0] == "unchanged"
    assert again[1].startswith(f"transaction: PLAY_STORE  {MONTHLY}  {token}  PRODUCTION")
    assert again[2] == "  acknowledgement ACKNOWLEDGED"
    assert again[3].startswith(f"owner: {user}  ACTIVE  version ")

    # A notification makes the server ask Google again: the cancellation applies to the owner.
    fake.put_subscription(PACKAGE, token, product_id=MONTHLY, state="EXPIRED", acknowledged=True)
    expired = play.notify(play_key, "SUBSCRIPTION_EXPIRED", "--token", token)
    assert (expired.returncode, expired.stdout) == (0, f"200 SUBSCRIPTION_EXPIRED: applied to {user}\n"), expired
    assert play.json("status", user)["customer"]["status"]["state"] == "INACTIVE"


def test_an_upgrade_supersedes_the_old_purchase(play, fake):
    user, old, new = unique_user(), new_token(), new_token()
    fake.put_subscription(PACKAGE, old, product_id=MONTHLY)
    play.ok("purchase", user, "--play", f"{MONTHLY}:{old}")
    fake.put_subscription(PACKAGE, old, product_id=MONTHLY, state="EXPIRED", cancellation="replacement")
    fake.put_subscription(PACKAGE, new, product_id=MONTHLY, linked=old)
    play.ok("purchase", user, "--play", f"{MONTHLY}:{new}")
    transactions = {t["originalTransactionId"]: t for t in play.json("customer", user)["transactions"]}
    assert (transactions[old]["supersededBy"], transactions[new]["replaces"]) == (new, old)
    lines = play.ok("customer", user).splitlines()
    assert f"    superseded by {new}" in lines and f"    replaces {old}" in lines


def test_a_failed_acknowledgement_shows_and_refresh_tries_again(play, fake):
    user, token = unique_user(), new_token()
    fake.put_product(PACKAGE, token, product_id=LIFETIME)
    # Google answers 404 to the acknowledgement: the server gives up at once.
    fake.fail_next("POST", r".*:acknowledge$", 404, count=1)
    play.ok("purchase", user, "--play", f"{LIFETIME}:{token}")

    def failed():
        [transaction] = play.json("customer", user)["transactions"]
        return transaction if transaction["acknowledgement"] == "FAILED" else None

    transaction = wait_for(failed)
    assert transaction, play.json("customer", user)
    assert transaction["acknowledgementAttempts"] == 1 and transaction["acknowledgementError"]
    lines = play.ok("customer", user).splitlines()
    line = next(line for line in lines if line.startswith("    acknowledgement "))
    assert line == f"    acknowledgement FAILED after 1 attempt: {transaction['acknowledgementError']}"

    play.ok("refresh-purchase", token)
    assert wait_for(lambda: play.json("customer", user)["transactions"][0]["acknowledgement"] == "ACKNOWLEDGED")


def test_restore_takes_both_stores_in_one_call(play, fake):
    user, first, second = unique_user(), new_token(), new_token()
    fake.put_subscription(PACKAGE, first, product_id=MONTHLY)
    fake.put_product(PACKAGE, second, product_id=LIFETIME)
    restored = play.json("restore", user, "--play", f"{MONTHLY}:{first}", "--play", f"{LIFETIME}:{second}")
    assert [(r["productId"], r["originalTransactionId"], r["outcome"]) for r in restored["results"]] == [
        (MONTHLY, first, "NEW"), (LIFETIME, second, "NEW")]
    assert sorted(e["id"] for e in restored["customer"]["status"]["entitlements"]) == ["premium", "pro"]
    human = play.ok("restore", user, "--play", f"{MONTHLY}:{first}", "--play", f"{LIFETIME}:{second}").splitlines()
    assert [line.split("  ")[0] for line in human if line.startswith("purchase: ")] == ["purchase: UNCHANGED"] * 2
    # A token on standard input.
    assert play.json("purchase", user, "--play", f"{MONTHLY}:-", stdin=first + "\n")["result"]["outcome"] == "UNCHANGED"


def test_play_errors_from_the_server_name_the_code(play):
    """A token Google does not know, a refresh of a purchase the server does not hold without --product."""
    unknown = play.run("purchase", unique_user(), "--play", f"{MONTHLY}:{new_token()}")
    assert unknown.returncode == 1
    assert without_demo_key_note(unknown.stderr).startswith(
        "entctl: INVALID_ARGUMENT: Google Play does not confirm this purchase token"), unknown.stderr
    refresh = play.run("refresh-purchase", new_token())
    assert refresh.returncode == 1
    assert without_demo_key_note(refresh.stderr).startswith(
        "entctl: INVALID_ARGUMENT: product_id (--product) is required"), refresh.stderr
