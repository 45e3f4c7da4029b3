"""Per-tenant retention (the tenants file's "retention") through the real interop-server, on SQLite and on PostgreSQL.

The retention job runs for each tenant when a server starts, so the module builds a history through the API, stops
the server, ages rows behind its back (as the passing of 40 days would: every time column moved back) and starts a
new server on the same database, which removes what the tenant's settings no longer keep:

- tenant "ret" keeps events 30 days (each customer's newest always), delivered deliveries and notices 7, failed
  deliveries 30, used, replaced or expired redemption codes 30. Its customer "old" has a history of several changes,
  all aged 40 days; "quiet" one change, aged 40 days; "recent" several changes, not aged. The deliveries of "old" are
  aged 40 days and those of "quiet" 10 (so a failed one of "quiet" is between the two periods). Its webhook endpoints
  answer 200 ("ok"), 410 ("gone": disabled, its deliveries failed, a `webhook.disabled` notice) and 503 with a
  Retry-After of an hour ("busy": pending throughout). "old" redeemed a code for an anonymous web purchase (the code
  its `purchase.unclaimed` message carried, and one more, were replaced first); its codes are aged 40 days. Another
  anonymous purchase's codes are not aged.
- tenant "ret-plain" sets no retention (the defaults: events kept, delivered deliveries 7 days, ...); its customer's
  events and deliveries are aged 40 days too.

Also: the server-wide `[webhooks] retention_days` / `failed_retention_days` keys are refused at startup, and (on
PostgreSQL) of two instances sharing a database, one applies a tenant's retention.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import fake_stripe as fs
from conftest import (
    ON_POSTGRES, ServerProcess, entitlementd_binary, postgres_schema, query_database, start_server, stop_and_check,
)
from entitlement_support import SNAPSHOT, STATUS_CHANGED, Clients, new_tenant, unique_id, write_tenants
from stripe_support import PRICE_LIFETIME, StripeEnv, StripeTenantSpec, entitlement_ids, stripe_tenant
from test_customer_export import wait_for
from webhook_receiver import Receiver

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
DAY_MS = 86_400_000
AGED_DAYS = 40
RETENTION = {"event_days": 30, "webhook_days": 7, "failed_webhook_days": 30, "spent_code_days": 30}
DEFAULTS = {"webhook_days": 7, "failed_webhook_days": 30}
PENDING, DELIVERED, FAILED, NOTICE = 1, 2, 3, 4  # WebhookDeliveryState
APPLIED = re.compile(r"\bINFO \S+ retention applied (.*)$", re.MULTILINE)
# How long a started server may take to log its first pass (it runs at start).
PASS_TIMEOUT = 20.0


@dataclass
class RetentionTenantSpec(StripeTenantSpec):
    retention: dict | None = None

    def entry(self) -> dict:
        entry = super().entry()
        if self.retention is not None:
            entry["retention"] = self.retention
        return entry


def with_retention(spec, retention: dict | None, **fields) -> RetentionTenantSpec:
    values = {name: getattr(spec, name) for name in spec.__dataclass_fields__}
    return RetentionTenantSpec(**{**values, **fields}, retention=retention)


# --------------------------------------------------------------------------------------------------
# The database behind the server's back


def execute(directory: Path, sql: str) -> None:
    """Runs `sql` (a write) on the database of the server started on `directory`, which must be stopped (SQLite), or
    on its PostgreSQL schema."""
    database = directory / "entitlements.db"
    if ON_POSTGRES:
        conninfo = f"{os.environ['ENTITLEMENTD_TEST_POSTGRES']} options=-csearch_path={postgres_schema(database)}"
        subprocess.run(["psql", conninfo, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                       capture_output=True, text=True, timeout=60)
        return
    with sqlite3.connect(database, timeout=10) as connection:
        connection.executescript(sql)


def quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def in_list(values) -> str:
    return "(" + ", ".join(quoted(value) for value in values) + ")"


def age_sql(tenant: str, days: int, *, events_of=(), deliveries_of=(), codes_of=()) -> str:
    """Moves back by `days` the events and deliveries of the customers `events_of` / `deliveries_of` (app user IDs)
    and the redemption codes of the purchases `codes_of` (original transaction IDs) in `tenant`."""
    shift = days * DAY_MS
    statements = []
    if events_of:
        statements.append(
            f"UPDATE events SET occurred_at = occurred_at - {shift} WHERE tenant_id = {quoted(tenant)} AND customer_id "
            f"IN (SELECT id FROM customers WHERE tenant_id = {quoted(tenant)} AND app_user_id IN {in_list(events_of)})")
        # Where the last compaction ended moves back too: it never sees an event behind it otherwise, as time passing
        # never puts one there.
        statements.append(
            f"UPDATE poll_cursors SET position = position - {shift} "
            f"WHERE tenant_id = {quoted(tenant)} AND name = 'event_compaction'")
    if deliveries_of:
        statements.append(
            f"UPDATE webhook_deliveries SET created_at = created_at - {shift} "
            f"WHERE tenant_id = {quoted(tenant)} AND app_user_id IN {in_list(deliveries_of)}")
    if codes_of:
        statements.append(
            f"UPDATE redemption_codes SET created_at = created_at - {shift}, expires_at = expires_at - {shift}, "
            f"used_at = used_at - {shift}, replaced_at = replaced_at - {shift} "
            f"WHERE tenant_id = {quoted(tenant)} AND original_transaction_id IN {in_list(codes_of)}")
    return ";\n".join(statements) + ";\n"


def count(directory: Path, sql: str) -> int:
    return int(query_database(directory, sql)[0][0])


def applied(server: ServerProcess) -> dict[str, dict[str, str]]:
    """The "retention applied" lines of the server's log, by tenant: their fields."""
    lines = {}
    for match in APPLIED.finditer(server.log()):
        fields = dict(re.findall(r"(\w+)=(\S+)", match.group(1)))
        assert fields["tenant"] not in lines, f"two passes removed rows of {fields['tenant']}:\n{server.log()}"
        lines[fields["tenant"]] = fields
    return lines


def problems(server: ServerProcess) -> list[str]:
    return [line for line in server.log().splitlines() if re.search(r"\b(WARN|ERROR)\b", line)]


# --------------------------------------------------------------------------------------------------
# Reading through the API


def without_time(message):
    """A copy of a message holding a CustomerStatus (or the status itself) without its server_time."""
    copy = type(message)()
    copy.CopyFrom(message)
    status = copy if hasattr(copy, "server_time") else copy.customer
    status.ClearField("server_time")
    return copy


def shifted(event, days: int):
    """A copy of a CustomerEvent as it reads once its row was moved back `days`."""
    copy = type(event)()
    copy.CopyFrom(event)
    copy.occurred_at.FromMilliseconds(event.occurred_at.ToMilliseconds() - days * DAY_MS)
    return copy


def deliveries(admin) -> dict[int, object]:
    """The tenant's delivery log by delivery ID (every page)."""
    found, token = {}, ""
    while True:
        page = admin.call("ListWebhookDeliveries", page_size=500, page_token=token)
        found.update({delivery.delivery_id: delivery for delivery in page.deliveries})
        token = page.next_page_token
        if not token:
            return found


def settled(admin) -> dict[int, object] | None:
    """The delivery log once every attempt the module waits for has been made: "ok" and "gone" have nothing pending,
    and each customer's first delivery to "busy" was tried (the later ones wait behind it)."""
    log = deliveries(admin)
    if any(d.state == PENDING for d in log.values() if d.endpoint_id != "busy"):
        return None
    first_to_busy: dict[str, object] = {}
    for delivery in sorted(log.values(), key=lambda d: d.delivery_id):
        if delivery.endpoint_id == "busy":
            first_to_busy.setdefault(delivery.app_user_id, delivery)
    return log if all(first.attempts >= 1 for first in first_to_busy.values()) else None


def first_event(api, app_user_id: str, after_version: int):
    stream = api.stream(app_user_id, after_version)
    try:
        return stream.next(timeout=10)
    finally:
        stream.cancel()


@dataclass
class Observed:
    """What the API answered about the module's customers (app user IDs by name) at one moment."""

    customers: dict[str, object] = field(default_factory=dict)
    syncs: dict[str, object] = field(default_factory=dict)
    events: dict[str, list] = field(default_factory=dict)
    deliveries: dict[str, dict[int, object]] = field(default_factory=dict)
    resumed: object = None  # old's stream resumed from the version before its newest


def observe(env, users: dict[str, tuple[str, str]]) -> Observed:
    """`users`: name -> (tenant name, app user ID)."""
    seen = Observed()
    for name, (tenant, user) in users.items():
        admin, public = getattr(env, f"{tenant}_admin"), getattr(env, tenant)
        seen.customers[name] = without_time(admin.customer(user))
        seen.syncs[name] = without_time(public.sync(user))
        seen.events[name] = admin.all_events(user)
    for tenant in ("ret", "plain"):
        seen.deliveries[tenant] = deliveries(getattr(env, f"{tenant}_admin"))
    old = users["old"][1]
    seen.resumed = without_time(first_event(env.ret, old, seen.customers["old"].customer.version - 1))
    return seen


# --------------------------------------------------------------------------------------------------
# The module's history, aged, and the server that applied retention to it


@pytest.fixture(scope="module")
def receivers():
    made = {"ok": Receiver(secrets=[SECRET]), "gone": Receiver(secrets=[SECRET], default_status=410),
            "busy": Receiver(secrets=[SECRET], default_status=503, retry_after="3600")}
    yield made
    for receiver in made.values():
        receiver.close()


@pytest.fixture(scope="module")
def tenants(receivers):
    endpoints = [{"id": name, "url": receiver.url, "secrets": [SECRET]} for name, receiver in receivers.items()]
    return {
        "ret": with_retention(stripe_tenant("ret"), RETENTION, webhooks=endpoints),
        "plain": with_retention(new_tenant("ret-plain"), None, webhooks=endpoints[:1]),
    }


@dataclass
class Story:
    users: dict[str, tuple[str, str]]  # name -> (tenant name, app user ID)
    aged_purchase: str  # the payment intent whose codes are aged
    live_purchase: str  # the one whose codes are not
    live_code: str  # the code last issued for it
    before: Observed
    after: Observed
    server: ServerProcess
    env: StripeEnv
    codes_before: dict[str, int]  # codes of each purchase, by name


def anonymous_purchase(env) -> str:
    """An anonymous one-time web checkout in "ret", owned by nobody: its payment intent."""
    pi = fs.new_id("pi")
    session = fs.checkout_session(mode="payment", payment_intent=pi, metadata={"price_id": PRICE_LIFETIME})
    env.post_ok("ret", fs.event("checkout.session.completed", session), "recorded")
    return pi


def codes_of(directory: Path, pi: str) -> int:
    return count(directory, f"SELECT count(*) FROM redemption_codes WHERE original_transaction_id = {quoted(pi)}")


@pytest.fixture(scope="module")
def story(tmp_path_factory, tenants, protos) -> Story:
    directory = tmp_path_factory.mktemp("retention")
    tenants_file = directory / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    users = {"old": ("ret", unique_id("old")), "quiet": ("ret", unique_id("quiet")),
             "recent": ("ret", unique_id("recent")), "plain": ("plain", unique_id("plain"))}
    user = {name: app_user_id for name, (_, app_user_id) in users.items()}
    started: list[ServerProcess] = []
    try:
        server = start_server(directory, tenants_file)
        started.append(server)
        env = StripeEnv(server, tenants, protos)
        # "old": created, granted pro and premium, premium revoked, then a redeemed purchase (its code issued a
        # second time, then a third); "quiet": created; "recent" and "plain": a few changes each.
        env.ret.identify(user["old"])
        # The first delivery to "gone" (so its webhook.disabled notice) is "old"'s.
        wait_for(lambda: any(d.type == "webhook.disabled" for d in deliveries(env.ret_admin).values()),
                 '"gone" disabled')
        env.ret_admin.grant(user["old"], "pro", reason="launch")
        premium = env.ret_admin.grant(user["old"], "premium", reason="trial")
        env.ret_admin.revoke(premium.grant_id, reason="trial over")
        aged_purchase = anonymous_purchase(env)
        env.ret_admin.redemption_code(aged_purchase)
        env.ret.redeem(user["old"], env.ret_admin.redemption_code(aged_purchase).code)
        env.ret.identify(user["quiet"])
        for name, tenant in (("recent", "ret"), ("plain", "plain")):
            getattr(env, tenant).identify(user[name])
            grant = getattr(env, f"{tenant}_admin").grant(user[name], "pro", reason="beta")
            getattr(env, f"{tenant}_admin").revoke(grant.grant_id, reason="beta over")
        live_purchase = anonymous_purchase(env)
        live_code = env.ret_admin.redemption_code(live_purchase).code
        wait_for(lambda: settled(env.ret_admin) and settled(env.plain_admin), "webhook deliveries settled")
        before = observe(env, users)
        codes_before = {"aged": codes_of(directory, aged_purchase), "live": codes_of(directory, live_purchase)}
        env.close()
        stop_and_check(server)

        execute(directory, age_sql("ret", AGED_DAYS, events_of=[user["old"], user["quiet"]],
                                   deliveries_of=[user["old"]], codes_of=[aged_purchase])
                + age_sql("ret", 10, deliveries_of=[user["quiet"]])
                + age_sql("ret-plain", AGED_DAYS, events_of=[user["plain"]], deliveries_of=[user["plain"]]))

        server = start_server(directory, tenants_file)
        started.append(server)
        wait_for(lambda: {"ret", "ret-plain"} <= set(applied(server)), "both tenants' passes logged", PASS_TIMEOUT)
        env = StripeEnv(server, tenants, protos)
        after = observe(env, users)
        yield Story(users=users, aged_purchase=aged_purchase, live_purchase=live_purchase, live_code=live_code,
                    before=before, after=after, server=server, env=env, codes_before=codes_before)
        env.close()
        stop_and_check(server)
    finally:
        for server in started:
            server.kill()


def aged_days(story: Story, tenant: str, delivery) -> int:
    """How far back the module moved `delivery` of `tenant` ("ret" or "plain")."""
    name = next((name for name, (owner, user) in story.users.items()
                 if owner == tenant and user == delivery.app_user_id), None)
    return {"old": AGED_DAYS, "quiet": 10, "plain": AGED_DAYS}.get(name, 0)


def removable(story: Story, tenant: str, delivery) -> bool:
    """Whether the tenant's settings remove `delivery` once its row was aged as the module aged it."""
    periods = RETENTION if tenant == "ret" else DEFAULTS
    age = aged_days(story, tenant, delivery)
    if delivery.state in (DELIVERED, NOTICE):
        return age > periods["webhook_days"]
    if delivery.state == FAILED:
        return age > periods["failed_webhook_days"]
    return False


# --------------------------------------------------------------------------------------------------
# Tests


def test_every_customers_status_is_unchanged(story):
    """Compaction removes history, never state: GetCustomer (grants, purchases, attributes) and SyncStatus answer
    as before for every customer, compacted or not."""
    for name in story.users:
        assert story.after.customers[name] == story.before.customers[name], name
        assert story.after.syncs[name] == story.before.syncs[name], name


def test_events_older_than_event_days_go_but_each_customers_newest(story):
    """"old" keeps only its newest event (the same row: its version, cause, status, reason, moved-back time);
    "quiet", whose only event is its newest, keeps it; "recent" (not aged) keeps every event."""
    before, after = story.before.events, story.after.events
    assert len(before["old"]) >= 5 and [e.version for e in before["old"]] == list(range(len(before["old"]), 0, -1))
    assert after["old"] == [shifted(before["old"][0], AGED_DAYS)]
    assert after["old"][0].version == story.after.customers["old"].customer.version
    assert after["quiet"] == [shifted(event, AGED_DAYS) for event in before["quiet"]] and len(after["quiet"]) == 1
    assert after["recent"] == before["recent"] and len(after["recent"]) >= 3
    # The table holds what the API shows.
    old = story.users["old"][1]
    rows = query_database(story.server.config.parent,
                          "SELECT e.version FROM events e JOIN customers c ON c.id = e.customer_id "
                          f"WHERE c.app_user_id = {quoted(old)}")
    assert rows == [(str(after["old"][0].version),)]


def test_a_tenant_without_retention_keeps_its_events(story):
    """"ret-plain" sets no retention: its customer's events, aged as much, all stay (and its status too)."""
    before, after = story.before.events["plain"], story.after.events["plain"]
    assert len(before) >= 3 and after == [shifted(event, AGED_DAYS) for event in before]


def test_a_stream_resuming_from_a_removed_version_starts_with_a_snapshot(story):
    """After compaction a client resuming from a version whose successors are gone gets a SNAPSHOT of the current
    status rather than an error or a gap; one resuming from the version before the newest gets the newest event as
    before; one resuming from the newest gets nothing stale, the next live change first."""
    env, old = story.env, story.users["old"][1]
    current = story.after.customers["old"].customer
    event = first_event(env.ret, old, 2)
    assert event.kind == SNAPSHOT and without_time(event.customer) == current
    assert story.before.resumed.kind == STATUS_CHANGED and story.before.resumed.customer.version == current.version
    assert without_time(first_event(env.ret, old, current.version - 1)) == story.before.resumed
    stream = env.ret.stream(old, current.version)
    try:
        env.ret_admin.grant(old, "premium", reason="after compaction")
        live = stream.next(timeout=10)
        assert (live.customer.version, live.reason) == (current.version + 1, "after compaction")
    finally:
        stream.cancel()


def test_deliveries_go_after_their_states_period_and_pending_ones_stay(story):
    """Delivered deliveries and notices older than webhook_days go, failed ones older than failed_webhook_days go,
    pending ones stay however old; the rest of the log is as it was (from the API and in the table)."""
    before, after = story.before.deliveries["ret"], story.after.deliveries["ret"]
    gone = {i for i, d in before.items() if removable(story, "ret", d)}
    assert set(after) == set(before) - gone
    for delivery_id, delivery in after.items():
        assert (delivery.state, delivery.type, delivery.app_user_id) == (
            before[delivery_id].state, before[delivery_id].type, before[delivery_id].app_user_id)

    def kinds(ids, age):
        return {(before[i].state, before[i].endpoint_id) for i in ids if aged_days(story, "ret", before[i]) == age}

    # Each case the module set up happened: delivered and failed (40 days) and a notice gone; a failed one between
    # the two periods (10 days), pending ones (aged 40 days) and everything recent kept.
    assert {(DELIVERED, "ok"), (FAILED, "gone"), (NOTICE, "gone")} <= kinds(gone, AGED_DAYS)
    assert kinds(gone, 10) == {(DELIVERED, "ok")}
    assert {(FAILED, "gone"), (PENDING, "busy")} <= kinds(after, 10)
    assert (PENDING, "busy") in kinds(after, AGED_DAYS)
    assert {(DELIVERED, "ok"), (FAILED, "gone"), (PENDING, "busy")} <= kinds(after, 0)
    # (Another test may have added deliveries since: only the rows the module made are compared.)
    rows = query_database(story.server.config.parent, "SELECT id FROM webhook_deliveries "
                                                      f"WHERE tenant_id = 'ret' AND id <= {max(before)}")
    assert {int(row[0]) for row in rows} == set(after)


def test_a_tenant_without_retention_loses_old_deliveries_after_the_default_week(story):
    """"ret-plain"'s deliveries, delivered 40 days ago, are gone under the default webhook_days (7)."""
    before, after = story.before.deliveries["plain"], story.after.deliveries["plain"]
    assert before and all(d.state == DELIVERED and d.app_user_id == story.users["plain"][1] for d in before.values())
    assert after == {}


def test_codes_used_or_replaced_long_ago_go_and_recent_ones_stay(story):
    """The redeemed purchase's codes (replaced and used 40 days ago) are gone; the other anonymous purchase's codes
    (issued now, one of them replaced now) stay, and its latest still redeems."""
    directory = story.server.config.parent
    assert story.codes_before["aged"] >= 2 and story.codes_before["live"] >= 1
    assert codes_of(directory, story.aged_purchase) == 0
    assert codes_of(directory, story.live_purchase) == story.codes_before["live"]
    assert [t.original_transaction_id for t in story.after.customers["old"].transactions] == [story.aged_purchase]
    buyer = unique_id("buyer")
    assert entitlement_ids(story.env.ret.redeem(buyer, story.live_code).customer) == ["premium"]


def test_the_log_line_counts_what_was_removed(story):
    """One "retention applied" line per tenant with rows removed, counting them; nothing warned or failed."""
    events = len(story.before.events["old"]) - 1
    ret_deliveries = sum(removable(story, "ret", d) for d in story.before.deliveries["ret"].values())
    plain_deliveries = len(story.before.deliveries["plain"])
    lines = applied(story.server)
    assert lines == {
        "ret": {"tenant": "ret", "events": str(events), "webhook_deliveries": str(ret_deliveries),
                "redemption_codes": str(story.codes_before["aged"])},
        "ret-plain": {"tenant": "ret-plain", "events": "0", "webhook_deliveries": str(plain_deliveries),
                      "redemption_codes": "0"},
    }
    assert problems(story.server) == []


# --------------------------------------------------------------------------------------------------
# The server settings that moved to the tenants file


@pytest.mark.parametrize("key, moved_to", [("retention_days", "webhook_days"),
                                           ("failed_retention_days", "failed_webhook_days")])
def test_the_server_wide_retention_keys_are_refused_naming_the_tenant_key(tmp_path, key, moved_to):
    """`[webhooks] retention_days` (or `failed_retention_days`) is refused at startup, saying where the setting is
    now, before any database is opened."""
    config = tmp_path / "entitlementd.toml"
    config.write_text('[server]\nlisten = "127.0.0.1:0"\n\n[storage]\ndatabase = "data/entitlements.db"\n\n'
                      f"[webhooks]\n{key} = 7\n")
    result = subprocess.run([str(entitlementd_binary()), "--config", str(config)], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    assert result.returncode != 0, result.stderr
    assert f"[webhooks] {key}: no longer a server setting" in result.stderr, result.stderr
    assert f'"retention": {{"{moved_to}": N}} in the tenants file' in result.stderr, result.stderr
    assert not (tmp_path / "data" / "entitlements.db").exists()


# --------------------------------------------------------------------------------------------------
# Several instances on one PostgreSQL database


# README ("Several instances on PostgreSQL"): the others ask every 5 s, and a stopped holder's session ends at once.
TAKEOVER_TIMEOUT = 15.0


def taken_on(server: ServerProcess) -> int:
    """How often the instance took the retention work (one hold for every tenant) on."""
    return len(re.findall(r"background work taken on .*work=retention\b", server.log()))


@pytest.mark.skipif(not ON_POSTGRES, reason="several instances share a database on PostgreSQL only")
def test_of_two_instances_sharing_a_database_one_applies_a_tenants_retention(tmp_path, protos):
    """Two instances started together on the aged rows: one takes the tenant's retention on and removes them; the
    other does not while it runs, takes the work over when it stops (and finds nothing left), and neither logs a
    warning or an error."""
    tenant = with_retention(new_tenant("ret-shared"), {"event_days": 30})
    tenants_file = tmp_path / "tenants.json"
    write_tenants(tenants_file, [tenant])
    shared = tmp_path / "shared"
    schema = postgres_schema(shared / "entitlements.db")
    base = os.environ["ENTITLEMENTD_TEST_POSTGRES"]
    subprocess.run(["psql", base, "-qc", f"CREATE SCHEMA {schema}"], check=True, capture_output=True, timeout=60)
    settings = {"storage": {"backend": "postgres", "postgres_url": f"{base} options=-csearch_path={schema}"}}
    users = [unique_id("shared") for _ in range(3)]
    started: dict[str, ServerProcess] = {}

    def start(name: str) -> None:
        started[name] = start_server(tmp_path / name, tenants_file, settings)

    try:
        start("first")
        clients = Clients(started["first"], protos)
        clients.channel()
        admin = clients.api(tenant.secret_key)
        for user in users:
            for index in range(4):
                admin.grant(user, "pro" if index % 2 == 0 else "premium", reason=f"change {index}")
        versions = {user: admin.customer(user).customer.version for user in users}
        clients.close()
        stop_and_check(started.pop("first"))
        execute(shared, age_sql(tenant.id, AGED_DAYS, events_of=users))

        threads = [threading.Thread(target=start, args=(name,)) for name in ("a", "b")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert set(started) == {"a", "b"}, "an instance did not start"
        holder = wait_for(lambda: [s for s in started.values() if tenant.id in applied(s)], "the pass logged",
                          PASS_TIMEOUT)
        assert len(holder) == 1
        (other,) = [s for s in started.values() if s is not holder[0]]
        removed = sum(version - 1 for version in versions.values())
        assert applied(holder[0])[tenant.id] == {"tenant": tenant.id, "events": str(removed),
                                                 "webhook_deliveries": "0", "redemption_codes": "0"}
        rows = query_database(shared, "SELECT c.app_user_id, e.version FROM events e JOIN customers c "
                                      "ON c.id = e.customer_id ORDER BY 1")
        assert rows == sorted((user, str(version)) for user, version in versions.items())
        assert (taken_on(holder[0]), taken_on(other)) == (1, 0)
        # The other was asking all along: once the holder stops it takes the work over and runs a pass at once, which
        # finds nothing left to remove (no line).
        stop_and_check(holder[0])
        wait_for(lambda: taken_on(other) == 1, "the work taken over", TAKEOVER_TIMEOUT)
        assert query_database(shared, "SELECT count(*) FROM events") == [(str(len(users)),)]
        stop_and_check(other)
        assert applied(other) == {}
        assert problems(holder[0]) == [] and problems(other) == []
    finally:
        for server in started.values():
            server.kill()
