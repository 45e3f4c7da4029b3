// The web SDK against a real entitlementd, with Node's own test runner and fetch (Node 18 or later). Started by
// Tests/Interop/test_web_sdk.py, which runs the server and passes, in the environment:
//   ENTITLEMENTD_URL, ENTITLEMENTD_PUBLIC_KEY, ENTITLEMENTD_SECRET_KEY, ENTITLEMENTD_OTHER_PUBLIC_KEY (another
//   tenant's), ENTITLEMENTD_REDEMPTION_CODES (codes of anonymous web purchases, comma-separated: premium each).

import assert from "node:assert/strict";
import { test } from "node:test";

import { ConnectError, Entitlements, MemoryStorage, isActive } from "../dist/entitlements.js";
import {
  cuttableProxy, eventually, fastBackoff, grant as grantWith, record, uniqueUser, url,
} from "../driver/testing.mjs";

const publicKey = process.env.ENTITLEMENTD_PUBLIC_KEY;
const secretKey = process.env.ENTITLEMENTD_SECRET_KEY;
const codes = (process.env.ENTITLEMENTD_REDEMPTION_CODES ?? "").split(",").filter(Boolean);

function sdk(storage = new MemoryStorage(), options = {}) {
  return new Entitlements({ baseURL: url, publicKey, storage, backoff: fastBackoff, ...options });
}

const grant = (appUserId, entitlementId, seconds) => grantWith(secretKey, appUserId, entitlementId, seconds);

test("unknown only before any answer; the next page load starts from the cache, then the server", async () => {
  const storage = new MemoryStorage();
  const first = sdk(storage);
  assert.equal(first.current.state, "unknown");
  assert.ok(first.isAnonymous && first.appUserId.startsWith("$anon:"));
  const user = uniqueUser("cached");
  await first.identify(user);
  assert.equal(first.current.state, "inactive");
  assert.equal(first.current.origin, "server");
  await grant(user, "pro", 3600);
  await first.refresh();
  assert.ok(isActive(first.current, "pro"));
  first.close();

  const second = sdk(storage);
  assert.equal(second.appUserId, user);
  assert.equal(second.current.origin, "cache");
  assert.ok(isActive(second.current, "pro"), "the cached status before any call");
  const snapshot = await second.start();
  assert.equal(snapshot.origin, "server");
  assert.ok(snapshot.version >= first.current.version);
  second.close();
});

test("the live stream publishes a gained entitlement, then a change of details only", async () => {
  const entitlements = sdk();
  const user = uniqueUser("live");
  await entitlements.identify(user);
  const { seen, stop } = record(entitlements);
  await eventually(() => entitlements.streamsOpened === 1, "the stream to open");
  await grant(user, "pro", 600);
  await eventually(() => seen.some(([snapshot]) => isActive(snapshot, "pro")), "pro to arrive");
  const gained = seen.find(([snapshot]) => isActive(snapshot, "pro"));
  assert.equal(gained[1], "entitlements");
  await grant(user, "pro", 7200);
  await eventually(() => seen.at(-1)[1] === "details", "a details change");
  const expiries = seen.filter(([snapshot]) => isActive(snapshot, "pro")).map(([s]) => s.entitlements[0].expiresAt.getTime());
  assert.ok(expiries.at(-1) > expiries[0], "the later expiry");
  const versions = seen.slice(1).map(([snapshot]) => snapshot.version);
  assert.deepEqual(versions, [...versions].sort((a, b) => (a < b ? -1 : 1)), "versions only grow");
  stop();
  entitlements.close();
});

test("a stream cut mid-way resumes after the last version: nothing lost, nothing repeated", async () => {
  const proxy = await cuttableProxy();
  const entitlements = sdk(new MemoryStorage(), { baseURL: proxy.url });
  const user = uniqueUser("resume");
  await entitlements.identify(user);
  const { seen, stop } = record(entitlements);
  await eventually(() => entitlements.streamsOpened === 1 && seen.length >= 1, "the stream");
  await new Promise((resolve) => setTimeout(resolve, 200));

  proxy.cut();
  await grant(user, "pro", 600);
  await grant(user, "premium", 600);
  proxy.mend();

  await eventually(() => isActive(entitlements.current, "premium") && isActive(entitlements.current, "pro"), "both grants");
  assert.ok(entitlements.streamsOpened >= 2, "the stream was reopened");
  const versions = seen.map(([snapshot]) => snapshot.version);
  assert.equal(new Set(versions.map(String)).size, versions.length, `no version published twice: ${versions}`);
  stop();
  entitlements.close();
  proxy.close();
});

test("identify merges the anonymous customer; logOut continues as a new anonymous one", async () => {
  const entitlements = sdk();
  const anonymous = entitlements.appUserId;
  await entitlements.start();
  await grant(anonymous, "pro", 600);
  const user = uniqueUser("merge");
  const identified = await entitlements.identify(user);
  // The anonymous customer becomes the account (so it is not a new customer).
  assert.equal(identified.merged, true);
  assert.equal(entitlements.appUserId, user);
  assert.ok(isActive(entitlements.current, "pro"), "the anonymous purchase came along");
  await entitlements.logOut();
  assert.ok(entitlements.isAnonymous && entitlements.appUserId !== anonymous);
  assert.equal(entitlements.current.state, "inactive");
  entitlements.close();
});

test("redeemWebPurchase claims an anonymous web purchase once", async (t) => {
  if (codes.length === 0) return t.skip("no redemption code given");
  const entitlements = sdk();
  await entitlements.identify(uniqueUser("redeemer"));
  const snapshot = await entitlements.redeemWebPurchase(` ${codes[0]} `);
  assert.ok(isActive(snapshot, "premium"));
  const other = sdk();
  await other.identify(uniqueUser("late"));
  await assert.rejects(other.redeemWebPurchase(codes[0]), (error) =>
    error instanceof ConnectError && error.code === "failed_precondition" && /already used/.test(error.message));
  entitlements.close();
  other.close();
});

test("errors are ConnectErrors with the server's code; another tenant's key sees nobody", async () => {
  const stranger = new Entitlements({
    baseURL: url, publicKey: process.env.ENTITLEMENTD_OTHER_PUBLIC_KEY, storage: new MemoryStorage(),
  });
  const user = uniqueUser("isolated");
  const entitlements = sdk();
  await entitlements.identify(user);
  await grant(user, "pro", 600);
  await stranger.identify(user);
  assert.equal(stranger.current.state, "inactive", "the other tenant's customer of that ID has nothing");
  const badKey = new Entitlements({ baseURL: url, publicKey: "pk_nope", storage: new MemoryStorage() });
  await assert.rejects(badKey.refresh(), (error) => error instanceof ConnectError && error.code === "unauthenticated");
  const unreachable = new Entitlements({ baseURL: "http://127.0.0.1:9", publicKey, storage: new MemoryStorage() });
  await assert.rejects(unreachable.refresh(), (error) => error instanceof ConnectError && error.code === "unavailable");
  assert.equal((await unreachable.start()).state, "unknown", "start logs the failure and keeps what it had");
  for (const sdkInstance of [stranger, entitlements, badKey, unreachable]) sdkInstance.close();
});

test("checkoutURL names an identified user as client_reference_id, and nobody for an anonymous one", async () => {
  const entitlements = sdk();
  const link = "https://buy.stripe.com/test_abc?prefilled_email=a%40b.test&client_reference_id=forged";
  assert.equal(new URL(entitlements.checkoutURL(link)).searchParams.get("client_reference_id"), null);
  await entitlements.identify("checkout-user_1");
  const named = new URL(entitlements.checkoutURL(link));
  assert.equal(named.searchParams.get("client_reference_id"), "checkout-user_1");
  assert.equal(named.searchParams.get("prefilled_email"), "a@b.test");
  entitlements.close();
});
