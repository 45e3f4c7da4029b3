// The web SDK's signed status (`statusKeys`) against tenants that sign it. Environment (Tests/Interop/test_web_sdk.py):
//   ENTITLEMENTD_URL; ENTITLEMENTD_SIGNED_PUBLIC_KEY and _SECRET_KEY (a tenant whose k1 signs, k2 published beside
//   it); ENTITLEMENTD_ROTATED_PUBLIC_KEY and _SECRET_KEY (the same keys, k2 signing); ENTITLEMENTD_UNSIGNED_PUBLIC_KEY
//   and _SECRET_KEY (a tenant that signs nothing); ENTITLEMENTD_STATUS_KEYS (the signed tenant's published JWKS: k1
//   and k2), ENTITLEMENTD_STATUS_KEYS_K1 (k1 alone), ENTITLEMENTD_FORGED_STATUS_KEYS (another key named k1);
//   ENTITLEMENTD_STATUS_SIGNING_KEY (k1's private key, PEM, for statuses this file signs itself).

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { Entitlements, MemoryStorage, StatusVerifier, isActive } from "../dist/entitlements.js";
import {
  base64url, cacheKeys, closedURL, closer, cuttableProxy, eventually, fastBackoff, grant, jwsPart, logRecorder, record,
  signStatus, sleep, uniqueUser, url,
} from "../driver/testing.mjs";

const env = process.env;
const signed = {
  id: "web-sdk-signed", publicKey: env.ENTITLEMENTD_SIGNED_PUBLIC_KEY, secretKey: env.ENTITLEMENTD_SIGNED_SECRET_KEY,
};
const rotated = {
  id: "web-sdk-rotated", publicKey: env.ENTITLEMENTD_ROTATED_PUBLIC_KEY, secretKey: env.ENTITLEMENTD_ROTATED_SECRET_KEY,
};
const unsigned = {
  id: "web-sdk-other", publicKey: env.ENTITLEMENTD_UNSIGNED_PUBLIC_KEY,
  secretKey: env.ENTITLEMENTD_UNSIGNED_SECRET_KEY,
};
const keys = cacheKeys(signed.publicKey);
const instances = closer();
afterEach(() => instances.closeAll());

function sdk({ tenant = signed, statusKeys = env.ENTITLEMENTD_STATUS_KEYS, ...options } = {}) {
  return instances.track(new Entitlements({
    baseURL: url, publicKey: tenant.publicKey, storage: new MemoryStorage(), backoff: fastBackoff, statusKeys,
    tenant: tenant.id, ...options,
  }));
}

/** A storage holding what a signed-in page of the signed tenant left: its user, and `jws` as that user's status. */
function storageWith(user, jws) {
  const storage = new MemoryStorage();
  storage.setItem(keys.identity, user);
  if (jws) storage.setItem(keys.status(user), jws);
  return storage;
}

/** A storage warmed by a real page load: `user` identified on the signed tenant, with `pro` granted for `seconds`. */
async function warmStorage(user, seconds = 600) {
  const storage = new MemoryStorage();
  const page = sdk({ storage });
  await page.identify(user);
  await grant(signed.secretKey, user, "pro", seconds);
  await page.refresh();
  assert.ok(isActive(page.current, "pro"));
  page.close();
  return { storage, version: page.current.version };
}

function claims(user, { version = 3, entitlements = [], iat, exp }) {
  const now = Math.floor(Date.now() / 1000);
  return {
    tenant: "web-sdk-signed", sub: user, version,
    status: { state: entitlements.length > 0 ? "active" : "inactive", entitlements },
    iat: iat ?? now, exp: exp ?? now + 3600,
  };
}

function entitlement(id, expiresAt) {
  return {
    id, source: "grant", product_id: "", expires_at: expiresAt ? expiresAt.toISOString() : null,
    will_renew: false, in_grace_period: false, in_billing_retry: false,
  };
}

test("statusKeys must hold a P-256 key with a kid, and come with the tenant's ID", () => {
  assert.throws(() => new StatusVerifier("not json", signed.id), TypeError);
  assert.throws(
    () => new StatusVerifier({ keys: [{ kty: "RSA", kid: "r", n: "AQAB", e: "AQAB" }] }, signed.id), TypeError);
  assert.throws(() => new StatusVerifier(env.ENTITLEMENTD_STATUS_KEYS, ""), TypeError);
  assert.throws(() => new Entitlements({
    baseURL: url, publicKey: signed.publicKey, storage: new MemoryStorage(), statusKeys: env.ENTITLEMENTD_STATUS_KEYS,
  }), /statusKeys needs tenant/);
  assert.ok(new StatusVerifier(env.ENTITLEMENTD_STATUS_KEYS, signed.id));
});

test("a signed status is verified, published from its claims (not the unsigned fields) and cached signed", async () => {
  // A proxy (or an extension) adds an entitlement to each answer's unsigned fields: it must not show.
  const meddling = async (input, init) => {
    const response = await fetch(input, init);
    if (String(input).endsWith("/StreamStatus") || !response.ok) return response;
    const body = await response.json();
    if (body.customer) {
      body.customer.status = { state: "ACTIVE", entitlements: [{ id: "forged", source: "GRANT" }] };
      body.customer.version = "999";
    }
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
  const logs = logRecorder();
  const storage = new MemoryStorage();
  const entitlements = sdk({ storage, fetch: meddling, log: logs.log });
  const user = uniqueUser("signed");
  await entitlements.identify(user);
  assert.equal(entitlements.current.state, "inactive");
  assert.equal(entitlements.current.origin, "server");
  assert.ok(entitlements.current.validUntil > new Date(Date.now() + 3_600_000), "valid for the tenant's 72 hours");
  await grant(signed.secretKey, user, "pro", 600);
  await entitlements.refresh();
  assert.ok(isActive(entitlements.current, "pro"));
  assert.ok(!isActive(entitlements.current, "forged"), "the unsigned fields are not what is shown");
  assert.ok(entitlements.current.version < 999n);
  const cached = storage.getItem(keys.status(user));
  assert.match(cached, /^[\w-]+\.[\w-]+\.[\w-]+$/, "the cache keeps the JWS");
  assert.equal(BigInt(jwsPart(cached, 1).version), entitlements.current.version);
  assert.equal(jwsPart(cached, 0).kid, "k1");

  // The stream's events are verified too.
  const { seen, stop } = record(entitlements);
  await grant(signed.secretKey, user, "premium", 600);
  await eventually(() => seen.some(([snapshot]) => isActive(snapshot, "premium")), "premium, by the stream");
  assert.doesNotMatch(logs.text(), /Ignored/);
  stop();
  entitlements.close();
});

test("a forged status (pinned to another key) or an unsigned one is not published, and the log says why", async () => {
  const user = uniqueUser("forged");
  const logs = logRecorder();
  const storage = new MemoryStorage();
  const forged = sdk({ storage, statusKeys: env.ENTITLEMENTD_FORGED_STATUS_KEYS, log: logs.log });
  const seen = [];
  const stop = forged.onChange((snapshot) => seen.push(snapshot));
  await forged.identify(user);
  await grant(signed.secretKey, user, "pro", 600);
  await forged.refresh();
  await eventually(() => forged.streamsOpened >= 1, "the stream");
  await sleep(300);
  assert.equal(forged.current.state, "unknown");
  assert.ok(seen.every((snapshot) => snapshot.state === "unknown"), "nothing from the server was published");
  assert.equal(storage.getItem(keys.status(user)), null, "nor cached");
  assert.match(logs.text(), /Ignored a status from the server: its signature does not verify with key "k1"/);
  stop();
  forged.close();

  const unsignedLogs = logRecorder();
  const plain = sdk({ tenant: unsigned, log: unsignedLogs.log });
  await plain.identify(uniqueUser("unsigned"));
  assert.equal(plain.current.state, "unknown");
  assert.match(unsignedLogs.text(), /Ignored a status from the server: it is not signed/);
  plain.close();
});

test("a tampered cached status is dropped: nothing is shown from it, even offline", async () => {
  const user = uniqueUser("tampered");
  const { storage } = await warmStorage(user);
  const jws = storage.getItem(keys.status(user));
  const [header, , signature] = jws.split(".");
  const payload = jwsPart(jws, 1);
  payload.version += 1;
  payload.status.entitlements.push({ ...payload.status.entitlements[0], id: "premium" });
  storage.setItem(keys.status(user), `${header}.${base64url(JSON.stringify(payload))}.${signature}`);

  const logs = logRecorder();
  const reloaded = sdk({ storage, baseURL: await closedURL(), log: logs.log });
  const snapshot = await reloaded.start();
  assert.equal(snapshot.state, "unknown");
  assert.deepEqual(snapshot.entitlements, []);
  assert.equal(snapshot.origin, "offline");
  assert.match(logs.text(), /Dropped the cached status: its signature does not verify/);
  assert.equal(storage.getItem(keys.status(user)), null, "dropped from the cache");
  reloaded.close();

  // Another user's (genuine) status under this user's key is not this user's.
  const other = uniqueUser("other");
  const { storage: othersStorage } = await warmStorage(other);
  const stolen = storageWith(user, othersStorage.getItem(keys.status(other)));
  const thief = sdk({ storage: stolen, baseURL: await closedURL(), log: logs.log });
  assert.equal((await thief.start()).state, "unknown");
  assert.match(logs.text(), /Dropped the cached status: it is the status of another user/);
  thief.close();
});

test("offline within its validity, the cached status is shown as offline; online again, as the server's", async () => {
  const user = uniqueUser("offline");
  const { storage, version } = await warmStorage(user);
  const offline = sdk({ storage, baseURL: await closedURL() });
  await eventually(() => offline.current.origin === "cache" && isActive(offline.current, "pro"), "the verified cache");
  const snapshot = await offline.start();
  assert.equal(snapshot.origin, "offline");
  assert.equal(snapshot.version, version);
  assert.ok(isActive(snapshot, "pro"));
  offline.close();

  // A live page whose stream is cut: offline while it is, back to the server's after.
  const proxy = await cuttableProxy();
  try {
    const live = sdk({ storage, baseURL: proxy.url });
    const { seen, stop } = record(live);
    await live.start();
    await eventually(() => live.streamsOpened >= 1 && live.current.origin === "server", "the server's status");
    proxy.cut();
    await eventually(() => live.current.origin === "offline", "offline");
    assert.ok(isActive(live.current, "pro"));
    proxy.mend();
    await eventually(() => live.current.origin === "server", "back online");
    assert.ok(seen.some(([snapshot]) => snapshot.origin === "offline"));
    stop();
  } finally {
    proxy.close();
  }
});

test("a signature's validity bounds what is shown offline: expired entitlements go, then it is unknown", async () => {
  const user = uniqueUser("lapsing");
  const now = Date.now();
  const logs = logRecorder();
  // Long expired: dropped when read.
  const expired = storageWith(user, signStatus(claims(user, {
    entitlements: [entitlement("pro", null)], iat: Math.floor(now / 1000) - 7200, exp: Math.floor(now / 1000) - 60,
  })));
  const stale = sdk({ storage: expired, baseURL: await closedURL(), log: logs.log });
  const snapshot = await stale.start();
  assert.equal(snapshot.state, "unknown");
  assert.equal(snapshot.origin, "offline");
  assert.match(logs.text(), /Dropped the cached status: its signature's validity ended at/);
  stale.close();

  // Valid for 3 s more, with a lifetime `pro` and a `trial` that ends in 1 s: both shown, then `pro`, then nothing.
  const exp = Math.floor(now / 1000) + 3;
  const lapsing = storageWith(user, signStatus(claims(user, {
    entitlements: [entitlement("pro", null), entitlement("trial", new Date(now + 1000))], exp,
  })));
  const page = sdk({ storage: lapsing, baseURL: await closedURL() });
  const { seen, stop } = record(page);
  const first = await page.start();
  assert.equal(first.origin, "offline");
  assert.deepEqual(first.entitlements.map((item) => item.id).sort(), ["pro", "trial"]);
  await eventually(() => !isActive(page.current, "trial"), "the trial to end", 3000);
  assert.ok(isActive(page.current, "pro"));
  assert.equal(page.current.state, "active");
  await eventually(() => page.current.state === "unknown", "the signature's end", 5000);
  assert.ok(Date.now() >= exp * 1000, "not before its exp");
  assert.deepEqual(page.current.entitlements, []);
  const counts = seen.map(([snapshot]) => snapshot.entitlements.length)
    .filter((count, index, all) => count !== all[index - 1]);
  assert.deepEqual(counts.slice(-3), [2, 1, 0], "each step published");
  stop();
  page.close();
});

test("a lower version signed before the status held is a replay, ignored even while the held one is cached", async () => {
  const user = uniqueUser("replay");
  const { version } = await warmStorage(user);
  // The page holds a later version signed a minute from now: the server's own answer (lower, signed now) is, to it,
  // an old status replayed.
  const now = Math.floor(Date.now() / 1000);
  const later = signStatus(claims(user, { version: Number(version) + 5, iat: now + 60, exp: now + 3600 }));
  const logs = logRecorder();
  const page = sdk({ storage: storageWith(user, later), log: logs.log });
  await page.start();
  await page.refresh().catch(() => undefined);
  assert.equal(page.current.version, version + 5n);
  assert.equal(page.current.state, "inactive");
  assert.match(logs.text(), /was signed before the version \d+ already verified \(replayed\)/);
});

test("key rotation: a status signed by either pinned key verifies; one by a key not pinned does not", async () => {
  const logs = logRecorder();
  for (const tenant of [signed, rotated]) {
    const entitlements = sdk({ tenant, log: logs.log });
    const user = uniqueUser("rotation");
    await entitlements.identify(user);
    await grant(tenant.secretKey, user, "pro", 600);
    await entitlements.refresh();
    assert.ok(isActive(entitlements.current, "pro"));
    entitlements.close();
  }
  assert.doesNotMatch(logs.text(), /Ignored/);

  const k1Only = logRecorder();
  const entitlements = sdk({ tenant: rotated, statusKeys: env.ENTITLEMENTD_STATUS_KEYS_K1, log: k1Only.log });
  await entitlements.identify(uniqueUser("rotation"));
  assert.equal(entitlements.current.state, "unknown");
  assert.match(k1Only.text(), /Ignored a status from the server: its key "k2" is not one of statusKeys/);
  entitlements.close();
});

test("a status signed for another tenant sharing the keys is ignored and logged", async () => {
  // "rotated" signs with the same keys as "signed": pinned for "signed", its statuses are not this page's.
  const logs = logRecorder();
  const entitlements = sdk({ tenant: { ...rotated, id: signed.id }, log: logs.log });
  const user = uniqueUser("elsewhere");
  await entitlements.identify(user);
  await grant(rotated.secretKey, user, "pro", 600);
  await entitlements.refresh();
  assert.equal(entitlements.current.state, "unknown");
  assert.match(logs.text(), /Ignored a status from the server: it is signed for tenant "web-sdk-rotated", not this page's/);
});
