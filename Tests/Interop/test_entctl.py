"""entctl, the bundled command-line client, against the real server over h2c and TLS."""

from __future__ import annotations

import base64
import hashlib
import json
import queue
import re
import signal
import socket
import subprocess
import threading
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from standardwebhooks import Webhook

from conftest import DEMO_PUBLIC_KEY, DEMO_SECRET_KEY, DEMO_TENANTS_FILE, free_port, REPO_ROOT
from entctl_support import entctl, entctl_binary, entctl_env, without_demo_key_note

WATCH_TIMEOUT = 10.0
# Every command entctl has, as `entctl --help` and the README's table must list them.
COMMANDS = [
    "identify", "status", "watch", "purchase", "redeem", "restore", "offers eligibility", "offers sign", "grant", "revoke", "customer", "events",
    "customers", "count", "metrics", "find", "refresh-purchase", "redemption-code", "webhooks test", "webhooks list", "webhooks redeliver",
    "appstore reconcile", "appstore lookup", "appstore extend", "appstore consumption", "appstore test-notification",
    "appstore check",
    "health", "gen-key", "hash-key", "gen-webhook-secret",
    "dev init", "dev sign-transaction", "dev sign-renewal-info", "dev sign-notification", "dev notify", "dev play-key",
    "dev play-notify", "dev stripe",
]


def test_health_over_h2c(h2c_server):
    result = entctl("--addr", f"127.0.0.1:{h2c_server.port}", "health")
    assert (result.returncode, result.stdout.strip()) == (0, "SERVING"), result.stderr


def test_health_over_tls(tls_server, certificate):
    result = entctl("--addr", f"127.0.0.1:{tls_server.port}", "--tls", "--ca", str(certificate.certificate), "health")
    assert (result.returncode, result.stdout.strip()) == (0, "SERVING"), result.stderr


def test_tls_with_an_untrusted_certificate_fails(tls_server):
    """Without --ca the system store does not know the test certificate: the handshake must fail, not fall back."""
    result = entctl("--addr", f"127.0.0.1:{tls_server.port}", "--tls", "health")
    assert result.returncode == 1
    assert "UNAVAILABLE" in result.stderr


def test_unknown_service_is_not_found(h2c_server):
    result = entctl("--addr", f"127.0.0.1:{h2c_server.port}", "health", "no.such.Service")
    assert result.returncode == 1
    assert "NOT_FOUND" in result.stderr


@pytest.mark.parametrize("service", [
    "entitlements.v1.EntitlementService", "entitlements.v1.AdminService", "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
])
def test_health_answers_for_each_service_by_name(h2c_server, service):
    result = entctl("--addr", f"127.0.0.1:{h2c_server.port}", "health", service)
    assert (result.returncode, result.stdout.strip(), result.stderr) == (0, "SERVING", "")


# --------------------------------------------------------------------------------------------------
# Connection errors name the address and the likely fix



def test_connection_refused_asks_whether_the_server_runs():
    port = free_port()
    result = entctl("--addr", f"127.0.0.1:{port}", "health")
    assert result.returncode == 1
    assert result.stderr == (
        f"entctl: UNAVAILABLE: cannot connect to 127.0.0.1:{port}: connection refused (is the server running?)\n")


def test_cleartext_against_a_tls_server_suggests_tls(tls_server):
    """The server closes a connection that does not start a TLS handshake, during the HTTP/2 preface."""
    for args in (["health"], ["identify", unique_user()]):
        result = entctl("--addr", f"127.0.0.1:{tls_server.port}", *args)
        assert result.returncode == 1, result
        message = without_demo_key_note(result.stderr)
        assert message.startswith(f"entctl: UNAVAILABLE: the connection to 127.0.0.1:{tls_server.port} closed"), message
        assert "add --tls" in message and message.count("\n") == 1, message


def test_a_tls_alert_in_answer_to_cleartext_suggests_tls():
    """A TLS server of another make answers the HTTP/2 preface with an alert record (here: protocol_version)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def answer() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(1024)
            connection.sendall(bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46]))

    threading.Thread(target=answer, daemon=True).start()
    try:
        port = listener.getsockname()[1]
        result = entctl("--addr", f"127.0.0.1:{port}", "health")
    finally:
        listener.close()
    assert result.returncode == 1
    assert result.stderr == (
        f"entctl: UNAVAILABLE: 127.0.0.1:{port} answered with TLS, not cleartext HTTP/2 (the server expects TLS: "
        "add --tls)\n")


def test_dev_notify_says_the_same_when_refused():
    """`dev notify` posts with the transport's HTTP/1.1 client; a refused connection reads as a gRPC call's does."""
    port = free_port()
    result = entctl("--addr", f"127.0.0.1:{port}", "dev", "notify", "DID_RENEW", "--tenant", "demo", "--bundle-id",
                    "com.example.app", cwd=REPO_ROOT)
    assert result.returncode == 1
    assert result.stderr == f"entctl: cannot connect to 127.0.0.1:{port}: connection refused (is the server running?)\n"


def test_tls_against_a_cleartext_server_says_the_handshake_failed(h2c_server):
    result = entctl("--addr", f"127.0.0.1:{h2c_server.port}", "--tls", "health")
    assert result.returncode == 1
    assert result.stderr.startswith(f"entctl: UNAVAILABLE: TLS handshake with 127.0.0.1:{h2c_server.port} failed")
    assert "leave out --tls" in result.stderr


@pytest.mark.parametrize("option", [["--ca", "ca.pem"], ["--server-name", "example.com"]])
def test_tls_options_without_tls_are_a_usage_error(option):
    result = entctl("--addr", "127.0.0.1:1", *option, "health")
    assert result.returncode == 2
    assert result.stderr.startswith(f"entctl: {option[0]} applies to TLS connections only: add --tls\n")


def test_usage_errors_exit_2():
    result = entctl("--bogus")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "entctl: unknown option '--bogus'", "usage: entctl [options] <command> [arguments]", "see 'entctl --help'",
    ]


# --------------------------------------------------------------------------------------------------
# Entitlement commands, against a server with the demo tenant (Config/tenants.demo.json)


def unique_user() -> str:
    return f"entctl-{uuid.uuid4().hex[:12]}"


class Entctl:
    """entctl pointed at one server."""

    def __init__(self, server):
        self.addr = f"127.0.0.1:{server.port}"

    def run(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        return entctl("--addr", self.addr, *args, **kwargs)

    def ok(self, *args: str, **kwargs) -> str:
        result = self.run(*args, **kwargs)
        assert result.returncode == 0, f"entctl {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
        assert without_demo_key_note(result.stderr) == ""
        return result.stdout

    def json(self, *args: str, **kwargs) -> dict:
        lines = self.ok("--json", *args, **kwargs).splitlines()
        assert len(lines) == 1, lines
        return json.loads(lines[0])

    def error(self, *args: str, **kwargs) -> str:
        """Runs a command that must fail with a gRPC status; its `CODE: message` from stderr."""
        result = self.run(*args, **kwargs)
        assert result.returncode == 1, f"expected exit 1, got {result.returncode}: {result.stdout}{result.stderr}"
        assert result.stdout == ""
        stderr = without_demo_key_note(result.stderr)
        assert stderr.startswith("entctl: "), result.stderr
        return stderr[len("entctl: "):].strip()


class Watch:
    """`entctl watch` in a subprocess; its output lines arrive on a queue."""

    def __init__(self, cli: Entctl, *args: str):
        self.process = subprocess.Popen(
            [str(entctl_binary()), "--addr", cli.addr, "watch", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=entctl_env(),
        )
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_line(self) -> str:
        try:
            line = self.lines.get(timeout=WATCH_TIMEOUT)
        except queue.Empty:
            line = None
        if line is None:
            self.stop()
            pytest.fail(f"watch printed no line within {WATCH_TIMEOUT}s; stderr: {self.process.stderr.read()}")
        return line

    def interrupt(self) -> int:
        """Ctrl-C: the exit status."""
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout=WATCH_TIMEOUT)
        finally:
            self.stop()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


@pytest.fixture
def cli(demo_tenants_server) -> Entctl:
    return Entctl(demo_tenants_server)


def parse_time(text: str) -> datetime:
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text[:-1] + "+00:00")


def test_walkthrough_identify_grant_watch_revoke_events_customer(cli):
    user = unique_user()

    identified = cli.json("identify", user)
    assert identified["created"] is True and identified["merged"] is False
    assert identified["customer"]["appUserId"] == user
    assert identified["customer"]["status"] == {"state": "INACTIVE", "entitlements": []}
    # The demo tenant signs status: the signed form comes last (entctl verify-status checks it).
    [line, signed] = cli.ok("status", user).splitlines()
    assert line == f"{user}  INACTIVE  version 1" and signed.startswith("signed: eyJ"), signed

    watch = Watch(cli, user)
    try:
        snapshot = watch.next_line()
        assert "  SNAPSHOT  version 1  no entitlements" in snapshot, snapshot

        grant = cli.json("grant", user, "pro", "--duration", "30d", "--reason", "support ticket 42")
        assert (grant["appUserId"], grant["entitlementId"], grant["reason"]) == (user, "pro", "support ticket 42")
        assert grant["grantId"] and "revokedAt" not in grant
        lasts = parse_time(grant["expiresAt"]) - parse_time(grant["startsAt"])
        assert abs(lasts - timedelta(days=30)) < timedelta(seconds=2), lasts

        changed = watch.next_line()
        assert "  STATUS_CHANGED  version 2  pro until " in changed, changed
        assert "reason: support ticket 42" in changed
        assert watch.interrupt() == 0
        assert without_demo_key_note(watch.process.stderr.read()) == ""
    finally:
        watch.stop()

    status = cli.json("status", user)["customer"]
    assert (status["version"], status["status"]["state"]) == ("2", "ACTIVE")
    [entitlement] = status["status"]["entitlements"]
    assert (entitlement["id"], entitlement["source"], entitlement["expiresAt"]) == ("pro", "GRANT", grant["expiresAt"])
    human = cli.ok("status", user).splitlines()
    assert human[0] == f"{user}  ACTIVE  version 2"
    assert human[1].startswith("  pro until ") and human[1].endswith("(GRANT)")

    revoked = cli.json("revoke", grant["grantId"], "--reason", "refunded")
    assert revoked["grantId"] == grant["grantId"]
    assert (revoked["revocationReason"], bool(revoked.get("revokedAt"))) == ("refunded", True)
    assert cli.json("status", user)["customer"]["status"]["state"] == "INACTIVE"

    events = cli.json("events", user)
    assert events["nextPageToken"] == ""
    assert [(e["version"], e["cause"], e["change"]) for e in events["events"]] == [
        ("3", "REVOKE", "STATUS_CHANGED"),
        ("2", "GRANT", "STATUS_CHANGED"),
        ("1", "CREATED", "CUSTOMER_INFO_CHANGED"),
    ]
    assert [e["referenceId"] for e in events["events"][:2]] == [grant["grantId"]] * 2
    human_events = cli.ok("events", user).splitlines()
    assert [line.split("  ")[2] for line in human_events] == ["REVOKE", "GRANT", "CREATED"]

    customer = cli.json("customer", user)
    assert customer["customer"]["appUserId"] == user
    assert customer["aliases"] == [] and customer["transactions"] == []
    [held] = customer["grants"]
    assert (held["grantId"], held["entitlementId"], held["revocationReason"]) == (grant["grantId"], "pro", "refunded")
    human_customer = cli.ok("customer", user)
    assert grant["grantId"] in human_customer and "REVOKED" in human_customer


def test_identify_prints_the_app_account_token(cli):
    """The app needs it for StoreKit's appAccountToken: a UUID, stable per customer, in both outputs."""
    user = unique_user()
    token = cli.json("identify", user)["appAccountToken"]
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", token), token
    [line, signed, token_line] = cli.ok("identify", user).splitlines()
    assert [line, token_line] == [f"{user}  INACTIVE  version 1", f"app account token: {token}"]
    assert signed.startswith("signed: eyJ"), signed
    assert cli.json("identify", unique_user())["appAccountToken"] != token


def test_demo_keys_go_to_loopback_addresses_only(cli):
    user = unique_user()
    result = cli.run("identify", user)
    assert result.returncode == 0
    assert result.stderr == (
        f"entctl: using the demo public key ({DEMO_PUBLIC_KEY}) because no --key/ENTCTL_KEY was given\n")
    port = cli.addr.rpartition(":")[2]
    localhost = entctl("--addr", f"localhost:{port}", "customer", user)
    assert localhost.returncode == 0, localhost.stderr
    assert localhost.stderr == (
        f"entctl: using the demo secret key ({DEMO_SECRET_KEY}) because no --key/ENTCTL_KEY was given\n")
    # ::1 is loopback too: the demo key is sent (and the connection refused, the server listening on 127.0.0.1 only).
    assert entctl("--addr", f"[::1]:{free_port()}", "status", user).returncode == 1
    # Anywhere else (TEST-NET-1 here; nothing is sent) a key must be given.
    for args in (["status", user], ["grant", user, "pro"]):
        refused = entctl("--addr", "192.0.2.1:50051", *args)
        assert refused.returncode == 2, refused
        first = refused.stderr.splitlines()[0]
        assert first.startswith("entctl: no API key for 192.0.2.1:50051: pass --key KEY or set ENTCTL_KEY"), first
        assert "using the demo" not in refused.stderr


def test_json_output_is_proto3_json(cli, protos):
    """Every --json line parses as its message with protobuf's own proto3 JSON parser (no unknown fields)."""
    from google.protobuf import json_format

    user, anonymous = unique_user(), f"$anon:{uuid.uuid4()}"
    cli.ok("identify", anonymous)
    cli.ok("grant", anonymous, "premium", "--expires-at", "2031-01-31T14:00:00.250+02:00")
    outputs = {
        "IdentifyResponse": cli.ok("--json", "identify", user, "--anonymous-id", anonymous),
        "SyncStatusResponse": cli.ok("--json", "status", user),
        "Grant": cli.ok("--json", "grant", user, "pro"),
        "Customer": cli.ok("--json", "customer", user),
        "ListCustomerEventsResponse": cli.ok("--json", "events", user),
    }
    parsed = {}
    for name, text in outputs.items():
        message = protos.message(f"entitlements.v1.{name}")()
        json_format.Parse(text, message)
        parsed[name] = message
    assert parsed["IdentifyResponse"].merged
    assert [e.id for e in parsed["SyncStatusResponse"].customer.status.entitlements] == ["premium"]
    customer = parsed["Customer"]
    assert list(customer.aliases) == [anonymous]
    premium = next(g for g in customer.grants if g.entitlement_id == "premium")
    # 14:00:00.250+02:00 is 12:00:00.250 UTC; the JSON says so with a Z.
    assert (premium.expires_at.ToJsonString(), premium.expires_at.nanos) == ("2031-01-31T12:00:00.250Z", 250_000_000)
    assert json.loads(outputs["Customer"])["grants"][0]["expiresAt"] == "2031-01-31T12:00:00.250Z"


def test_events_pages_and_all(cli):
    user = unique_user()
    cli.ok("identify", user)
    for entitlement in ("pro", "premium"):
        cli.ok("grant", user, entitlement, "--duration", "1h")
    first = cli.json("events", user, "--page-size", "2")
    assert [e["version"] for e in first["events"]] == ["3", "2"] and first["nextPageToken"]
    rest = cli.json("events", user, "--page-size", "2", "--page-token", first["nextPageToken"])
    assert ([e["version"] for e in rest["events"]], rest["nextPageToken"]) == (["1"], "")
    assert cli.ok("events", user, "--page-size", "2").splitlines()[-1] == f"more: --page-token {first['nextPageToken']}"

    pages = [json.loads(line) for line in cli.ok("--json", "events", user, "--page-size", "1", "--all").splitlines()]
    assert [e["version"] for page in pages for e in page["events"]] == ["3", "2", "1"]
    human = cli.ok("events", user, "--page-size", "1", "--all").splitlines()
    assert [line.split("  ")[0] for line in human] == ["version 3", "version 2", "version 1"]


def test_customers_and_count(cli, protos):
    """The demo server is shared, so the expectations are about what this test adds: counts grow by it, and
    --changed-since the start lists only its customers."""
    from google.protobuf import json_format

    before = cli.json("count")
    users = [unique_user() for _ in range(3)]
    for user in users:
        cli.ok("identify", user)
    cli.ok("grant", users[0], "pro")
    cli.ok("grant", users[2], "pro", "--duration", "1h")
    after = cli.json("count")
    pro = {e["id"]: int(e["customers"]) for e in after["entitlements"]}["pro"]
    assert int(after["activeCustomers"]) == int(before["activeCustomers"]) + 2
    assert pro == {e["id"]: int(e["customers"]) for e in before["entitlements"]}.get("pro", 0) + 2
    json_format.Parse(json.dumps(after), protos.message("entitlements.v1.CountCustomersResponse")())
    assert cli.ok("count").splitlines()[0] == f"active customers: {after['activeCustomers']}"

    since = ("--changed-since", before["countedAt"])
    pages = [json.loads(line) for line in cli.ok("--json", "customers", *since, "--page-size", "1", "--all").splitlines()]
    assert [c["customer"]["appUserId"] for page in pages for c in page["customers"]] == users
    for page in pages:
        json_format.Parse(json.dumps(page), protos.message("entitlements.v1.ListCustomersResponse")())
    active = cli.json("customers", *since, "--entitlement", "pro", "--store", "grant")
    assert [c["customer"]["appUserId"] for c in active["customers"]] == [users[0], users[2]]
    human = cli.ok("customers", *since, "--state", "INACTIVE").splitlines()
    assert human[0].startswith(f"{users[1]}  INACTIVE  version 1  (changed ")
    first = cli.ok("customers", *since, "--page-size", "2").splitlines()
    assert first[-1].startswith("more: --page-token ")
    rest = cli.json("customers", *since, "--page-size", "2", "--page-token", first[-1].split()[-1])
    assert [c["customer"]["appUserId"] for c in rest["customers"]] == [users[2]]

    refused = cli.run("customers", "--state", "SOMETIMES")
    assert refused.returncode == 2 and "--state" in refused.stderr
    invalid = cli.run("customers", "--entitlement", "gold")
    assert invalid.returncode == 1 and "INVALID_ARGUMENT" in invalid.stderr


def test_grant_with_expiry_and_idempotency_key(cli):
    user = unique_user()
    cli.ok("identify", user)
    first = cli.json("grant", user, "pro", "--expires-at", "2030-06-15T10:00:00-05:30", "--idempotency-key", "k-1")
    assert first["expiresAt"] == "2030-06-15T15:30:00Z"
    again = cli.json("grant", user, "pro", "--expires-at", "2030-06-15T10:00:00-05:30", "--idempotency-key", "k-1")
    assert again["grantId"] == first["grantId"]
    assert len(cli.json("customer", user)["grants"]) == 1
    forever = cli.json("grant", user, "premium")
    assert "expiresAt" not in forever
    assert "expires      never" in cli.ok("revoke", forever["grantId"]).splitlines()


def test_watch_resumes_after_version_and_prints_json(cli):
    user = unique_user()
    cli.ok("identify", user)
    cli.ok("grant", user, "pro", "--duration", "1d")
    watch = Watch(cli, user, "--after-version", "1", "--json")
    try:
        replayed = json.loads(watch.next_line())
        assert (replayed["kind"], replayed["customer"]["version"]) == ("STATUS_CHANGED", "2")
        assert [e["id"] for e in replayed["customer"]["status"]["entitlements"]] == ["pro"]
        # Stamped with when the grant happened, as `events` shows it, not with the time of the replay.
        granted = next(e for e in cli.json("events", user)["events"] if e["version"] == "2")
        assert replayed["customer"]["serverTime"] == granted["occurredAt"], (replayed, granted)
        assert watch.interrupt() == 0
    finally:
        watch.stop()


def test_wrong_key_is_unauthenticated(cli):
    user = unique_user()
    for message in (
        cli.error("--key", "pk_" + "0" * 64, "identify", user),
        cli.error("status", user, env_key="pk_not_a_real_key"),
        cli.error("--key", "sk_" + "0" * 64, "customer", user),
    ):
        assert message.startswith("UNAUTHENTICATED: ") and message.endswith("(check --key or ENTCTL_KEY)"), message


def test_public_key_on_an_admin_command_is_permission_denied(cli):
    user = unique_user()
    cli.ok("identify", user)
    assert cli.error("--key", DEMO_PUBLIC_KEY, "grant", user, "pro").startswith("PERMISSION_DENIED: ")
    assert cli.error("customer", user, env_key=DEMO_PUBLIC_KEY).startswith("PERMISSION_DENIED: ")
    # --key wins over ENTCTL_KEY.
    customer = cli.json("--key", DEMO_SECRET_KEY, "customer", user, env_key=DEMO_PUBLIC_KEY)
    assert customer["customer"]["appUserId"] == user


def test_server_errors_name_the_code(cli):
    assert cli.error("status", "null").startswith("INVALID_ARGUMENT: ")
    assert cli.error("revoke", "gr_no_such_grant").startswith("NOT_FOUND: ")


def test_server_errors_name_the_option_that_sets_the_field(cli):
    """The server words its errors in the API's field names; entctl adds the option that sets the field."""
    assert cli.error("refresh-purchase", f"token-{uuid.uuid4().hex}") == (
        "INVALID_ARGUMENT: product_id (--product) is required for a purchase the server does not hold yet.")
    user = unique_user()
    assert cli.error("grant", user, "pro", "--reason", "r" * 1025) == (
        "INVALID_ARGUMENT: reason (--reason) must be at most 1024 bytes.")
    assert cli.error("webhooks", "list", "--page-token", "bogus").startswith(
        "INVALID_ARGUMENT: page_token (--page-token) ")


def test_status_and_watch_of_an_unknown_user_agree(cli):
    """Both NOT_FOUND, as every read of a customer no one identified (SyncStatus once answered INACTIVE version 0)."""
    user = unique_user()
    status, watch = cli.error("status", user), cli.error("watch", user)
    assert status == watch == f"NOT_FOUND: No customer has app_user_id '{user}' yet; call Identify first."


@pytest.mark.parametrize(
    "args, message",
    [
        (["grant", "alice"], "grant needs APP_USER_ID ENTITLEMENT"),
        (["grant", "alice", "pro", "--duration", "3x"], "invalid --duration '3x'"),
        (["grant", "alice", "pro", "--duration", "0s"], "invalid --duration '0s'"),
        (["grant", "alice", "pro", "--expires-at", "2030-02-30T00:00:00Z"], "invalid --expires-at"),
        (["grant", "alice", "pro", "--duration", "1d", "--expires-at", "2030-01-01T00:00:00Z"], "not both"),
        (["status", "alice", "--reason", "x"], "status does not take --reason"),
        (["status", "alice", "bob"], "unexpected argument 'bob'"),
        (["events", "alice", "--page-size", "0"], "invalid --page-size '0'"),
        (["watch", "alice", "--after-version", "-1"], "invalid --after-version '-1'"),
        (["revoke", "g", "--reason", "a", "--reason", "b"], "--reason given more than once"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["hash-key", "not-a-key"], "a key starts with pk_ (public) or sk_ (secret)"),
        (["gen-key", "private"], "expected public or secret"),
    ],
)
def test_command_usage_errors_exit_2(args, message):
    """The error, then one usage line and where to read more: the whole help would bury the message."""
    result = entctl("--addr", "127.0.0.1:1", *args)
    assert result.returncode == 2, result
    error, usage, more = result.stderr.splitlines()
    assert error.startswith("entctl: ") and message in error
    command = args[0]
    if command == "frobnicate":
        assert (usage, more) == ("usage: entctl [options] <command> [arguments]", "see 'entctl --help'")
    else:
        assert usage == entctl(command, "--help").stdout.splitlines()[0]
        assert more == f"see 'entctl {command} --help'"


@pytest.mark.parametrize("args, message", [
    (["idnetify", "alice"], "unknown command 'idnetify' (did you mean 'identify'?)"),
    (["stauts", "alice"], "unknown command 'stauts' (did you mean 'status'?)"),
    (["webhooks", "lsit"], "unknown command 'webhooks lsit' (did you mean 'webhooks list'?)"),
    (["appstore", "chek"], "unknown command 'appstore chek' (did you mean 'appstore check'?)"),
    (["dev", "sing-transaction"], "unknown command 'dev sing-transaction' (did you mean 'dev sign-transaction'?)"),
    (["help", "idnetify"], "unknown command 'idnetify' (did you mean 'identify'?)"),
    (["frobnicate"], "unknown command 'frobnicate'"),
])
def test_an_unknown_command_suggests_the_closest_one(args, message):
    result = entctl("--addr", "127.0.0.1:1", *args)
    assert result.returncode == 2, result
    assert result.stderr.splitlines()[0] == "entctl: " + message, result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_its_own_help(command):
    words = command.split()
    result = entctl(*words, "--help")
    assert (result.returncode, result.stderr) == (0, "")
    page = result.stdout
    assert page.startswith(f"usage: entctl {command} "), page
    assert page.count("usage: ") == 1
    # Only this command: no other command's usage.
    assert not any(f"entctl {other} " in page for other in COMMANDS if other != command), page
    assert len(page.splitlines()) < 40
    # Every spelling asks for the same page.
    assert entctl("help", *words).stdout == page
    assert entctl(*words, "-h").stdout == page
    assert entctl("--json", *words, "some-argument", "--help").stdout == page


@pytest.mark.parametrize("command, options", [
    ("grant", ["--duration", "--expires-at", "--reason", "--idempotency-key"]),
    ("events", ["--page-size", "--page-token", "--all"]),
    ("customers", ["--entitlement", "--store", "--product", "--state", "--changed-since", "--page-size", "--page-token",
                   "--all"]),
    ("identify", ["--anonymous-id"]),
    ("offers sign", ["--offer ID", "--transaction-id ID", "--app-transaction-id ID"]),
    ("dev sign-transaction", ["--product", "--bundle-id", "--dir", "--type", "--expires", "--original-transaction-id",
                              "--transaction-id", "--app-account-token", "--environment", "--purchase-date",
                              "--ownership", "--revocation-date", "--signed-date", "--upgraded", "--offer"]),
    ("dev notify", ["--tenant", "--bundle-id", "--dir", "--app-apple-id", "--transaction", "--renewal-info"]),
    ("metrics", ["--from DATE, --to DATE", "--interval I", "--group-by D", "--store S", "--csv", "--environment E", "--in-reporting-currency"]),
    ("purchase", ["--play"]),
    ("restore", ["--play"]),
    ("refresh-purchase", ["--product"]),
    ("dev play-key", ["--dir", "--force"]),
    ("dev play-notify", ["--tenant", "--package", "--token", "--sku", "--order-id", "--refund-type", "--audience",
                         "--email", "--dir", "--message-id", "--event-time"]),
])
def test_a_commands_help_lists_its_options(command, options):
    page = entctl(*command.split(), "--help").stdout
    for option in options:
        assert f"  {option} " in page or f"  {option}\n" in page, (option, page)


def test_dev_help_lists_its_subcommands():
    page = entctl("dev", "--help").stdout
    assert page.startswith("usage: entctl dev ")
    for command in COMMANDS:
        if command.startswith("dev "):
            assert f"  {command} " in page, command


def test_help_and_readme_list_every_command():
    """`entctl --help` names every command, and so does the README's table of them."""
    page = entctl("--help").stdout
    assert entctl("--help").returncode == 0
    readme = (REPO_ROOT / "README.md").read_text()
    table = readme[readme.index("| Command | Calls |"):readme.index("Options go before or after the command")]
    for command in COMMANDS:
        assert f"\n  {command} " in page, command
        assert f"\n| `{command} " in table or f"\n| `{command}`" in table, command


def test_version_is_the_same_for_both_binaries():
    result = entctl("--version")
    assert result.returncode == 0 and result.stderr == ""
    name, version = result.stdout.split()
    assert name == "entctl" and re.fullmatch(r"\d+\.\d+\.\d+", version), result.stdout
    server = entctl_binary().parent / "entitlementd"
    served = subprocess.run([str(server), "--version"], capture_output=True, text=True, timeout=30)
    assert (served.returncode, served.stdout, served.stderr) == (0, f"entitlementd {version}\n", "")


# --------------------------------------------------------------------------------------------------
# Key helpers (offline)


def test_hash_key_of_the_demo_keys_matches_the_demo_tenants_file():
    tenant = json.loads(DEMO_TENANTS_FILE.read_text())["tenants"][0]
    assert entctl("hash-key", DEMO_PUBLIC_KEY).stdout.strip() == tenant["public_keys"][0]
    assert entctl("hash-key", DEMO_SECRET_KEY).stdout.strip() == tenant["secret_keys"][0]


@pytest.mark.parametrize("kind, prefix", [("public", "pk"), ("secret", "sk")])
def test_gen_key_and_hash_key_round_trip(kind, prefix):
    generated = json.loads(entctl("--json", "gen-key", kind).stdout)
    key, digest = generated["key"], generated["hash"]
    assert key.startswith(f"{prefix}_") and len(key) == 3 + 64
    assert digest == f"{prefix}_sha256:" + hashlib.sha256(key.encode()).hexdigest()
    assert generated["field"] == f"{'public' if kind == 'public' else 'secret'}_keys"
    assert entctl("hash-key", key).stdout.strip() == digest
    assert entctl("hash-key", "-", stdin=key + "\n").stdout.strip() == digest
    human = entctl("gen-key", kind).stdout.splitlines()
    assert human[0].startswith(f"key:  {prefix}_") and human[1].startswith(f"hash: {prefix}_sha256:")
    assert entctl("hash-key", human[0].split()[1]).stdout.strip() == human[1].split()[1]
    assert entctl("gen-key", kind).stdout != entctl("gen-key", kind).stdout


def test_gen_webhook_secret_is_taken_by_the_standard_webhooks_library():
    """The secret entctl prints is what any Standard Webhooks library takes: checked with the Python reference."""
    human = entctl("gen-webhook-secret")
    assert (human.returncode, human.stderr) == (0, "")
    secret = human.stdout.strip()
    assert human.stdout == secret + "\n", "only the secret, so $(entctl gen-webhook-secret) needs no parsing"
    generated = json.loads(entctl("--json", "gen-webhook-secret").stdout)
    assert generated["bytes"] == 32
    for text in (secret, generated["secret"]):
        assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{43}=", text), text
        assert len(base64.b64decode(text[len("whsec_"):], validate=True)) == 32
        webhook = Webhook(text)
        now = datetime.now(tz=timezone.utc)
        headers = {"webhook-id": "msg_entctl", "webhook-timestamp": str(int(now.timestamp())),
                   "webhook-signature": webhook.sign("msg_entctl", now, "{}")}
        assert webhook.verify(b"{}", headers) == {}
    assert secret != generated["secret"] != entctl("gen-webhook-secret").stdout.strip()
    refused = entctl("gen-webhook-secret", "extra")
    assert refused.returncode == 2 and "unexpected argument" in refused.stderr


def test_generated_keys_authenticate_through_a_tenants_file(tenants_server, tmp_path):
    public = json.loads(entctl("--json", "gen-key", "public").stdout)
    secret = json.loads(entctl("--json", "gen-key", "secret").stdout)
    tenants = tmp_path / "tenants.json"
    tenants.write_text(json.dumps({"tenants": [{
        "id": "generated",
        "public_keys": [public["hash"]],
        "secret_keys": [secret["hash"]],
        "entitlements": ["pro"],
        "products": {},
    }]}))
    cli = Entctl(tenants_server(tenants))
    user = unique_user()
    assert cli.json("--key", public["key"], "identify", user)["created"] is True
    assert cli.json("grant", user, "pro", env_key=secret["key"])["entitlementId"] == "pro"
    # The demo keys, which entctl sends by default, belong to no tenant of this server.
    assert cli.error("status", user).startswith("UNAUTHENTICATED: ")
