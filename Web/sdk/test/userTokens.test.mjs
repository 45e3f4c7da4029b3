// The web SDK's user tokens (`userToken`) against a tenant that requires them (HS256, minted here with node:crypto as
// the site's backend would). Environment (Tests/Interop/test_web_sdk.py): ENTITLEMENTD_URL, ENTITLEMENTD_TOKENS_TENANT,
// ENTITLEMENTD_TOKENS_PUBLIC_KEY, ENTITLEMENTD_TOKENS_SECRET_KEY, ENTITLEMENTD_TOKEN_SECRET, ENTITLEMENTD_TOKEN_ISSUER.

import assert from "node:assert/strict";
import { after, afterEach, test } from "node:test";

import { ConnectError, Entitlements, MemoryStorage, isActive } from "../dist/entitlements.js";
import {
  closer, eventually, fastBackoff, grant, logRecorder, mintUserToken, record, sleep, uniqueUser, url,
} from "../driver/testing.mjs";

const publicKey = process.env.ENTITLEMENTD_TOKENS_PUBLIC_KEY;
const secretKey = process.env.ENTITLEMENTD_TOKENS_SECRET_KEY;

/** Every token minted and every log line and stored value of every SDK in this file: no token may be in the latter. */
const minted = [];
const logs = logRecorder();
const stored = [];

class RecordingStorage extends MemoryStorage {
  setItem(key, value) {
    stored.push(value);
    super.setItem(key, value);
  }
}

const instances = closer();
afterEach(() => instances.closeAll());

function sdk(options = {}) {
  return instances.track(new Entitlements({
    baseURL: url, publicKey, storage: new RecordingStorage(), backoff: fastBackoff, log: logs.log, ...options,
  }));
}

/** A provider as a site would write one, minting with `ttl`, recording whom it was asked for. */
function provider({ ttl = 600, secrets = [] } = {}) {
  const asked = [];
  const userToken = async (appUserId) => {
    asked.push(appUserId);
    const token = mintUserToken(appUserId, { ttl, secret: secrets.shift() });
    minted.push(token);
    return token;
  };
  return { asked, userToken };
}

after(() => {
  const seen = logs.text() + "\n" + stored.join("\n");
  for (const token of minted) {
    assert.ok(!seen.includes(token), "a user token was logged or stored");
    assert.ok(!seen.includes(token.split(".")[2]), "a user token's signature was logged or stored");
  }
  assert.ok(minted.length >= 6, `tokens were minted: ${minted.length}`);
});

test("a tenant requiring user tokens refuses calls without one, and serves the provider's", async () => {
  const user = uniqueUser("token");
  const without = sdk();
  await assert.rejects(without.identify(user), (error) =>
    error instanceof ConnectError && error.code === "unauthenticated" &&
    error.message.startsWith("user token refused (missing)"));
  without.close();

  const { asked, userToken } = provider();
  const entitlements = sdk({ userToken });
  // Anonymous IDs need no token on this tenant (allow_anonymous): the provider is not asked for one.
  assert.equal((await entitlements.start()).state, "inactive");
  assert.deepEqual(asked, []);
  // Merging the anonymous customer into the account takes the account's token.
  assert.equal((await entitlements.identify(user)).merged, true);
  assert.deepEqual(asked, [user]);
  const { seen, stop } = record(entitlements);
  await eventually(() => entitlements.streamsOpened === 1, "the stream to open");
  await grant(secretKey, user, "pro", 600);
  await eventually(() => seen.some(([snapshot]) => isActive(snapshot, "pro")), "pro, by the stream");
  await entitlements.refresh();
  assert.ok(isActive(entitlements.current, "pro"));
  assert.deepEqual(asked, [user], "the token is held while it is valid");
  stop();
  entitlements.close();
});

test("a refused token is replaced once and the call retried once; a second refusal is the caller's", async () => {
  const user = uniqueUser("refused");
  const wrongSecret = "a-secret-this-tenant-never-configured-anywhere";
  const once = provider({ secrets: [wrongSecret] });
  const entitlements = sdk({ userToken: once.userToken });
  await entitlements.identify(user);
  assert.deepEqual(once.asked, [user, user]);
  assert.match(logs.text(), /Identify: the server refused the user token \(user token refused \(signature\)/);
  entitlements.close();

  const always = provider({ secrets: [wrongSecret, wrongSecret, wrongSecret] });
  const refused = sdk({ userToken: always.userToken });
  await assert.rejects(refused.identify(user), (error) =>
    error instanceof ConnectError && error.code === "unauthenticated" && /\(signature\)/.test(error.message));
  assert.equal(always.asked.length, 2, "asked again once, not in a loop");
  refused.close();
});

test("a token near expiry is replaced; a stream the server ends at expiry resumes at once, nothing lost", async () => {
  const user = uniqueUser("expiring");
  // Tokens of 4 s: replaced 2 s before their exp; the server ends a stream 5 s after its token's exp.
  const { asked, userToken } = provider({ ttl: 4 });
  const streams = [];
  let replied = 0;
  const watched = async (input, init) => {
    if (String(input).endsWith("/StreamStatus")) {
      const body = JSON.parse(new TextDecoder().decode(init.body.slice(5)));
      streams.push({ at: Date.now(), token: init.headers["entitlements-user-token"], afterVersion: body.afterVersion });
      // A change while no stream is open: the reopened one must bring it (afterVersion).
      if (streams.length === 2) await grant(secretKey, user, "premium", 600);
    }
    replied += 1;
    return fetch(input, init);
  };
  const ended = [];
  const entitlements = sdk({
    userToken, fetch: watched, random: () => 1,
    // A reconnect after a backoff would wait 3 s: the one after the token's expiry must not.
    backoff: { initialMs: 3000, maximumMs: 3000, healthyAfterMs: 60_000 },
    log: (level, message) => {
      logs.log(level, message);
      if (message.includes("user token expired")) ended.push(Date.now());
    },
  });
  await entitlements.identify(user);
  const { seen, stop } = record(entitlements);
  await grant(secretKey, user, "pro", 600);
  await eventually(() => isActive(entitlements.current, "pro"), "pro, by the first stream");
  const askedBefore = asked.length;
  await sleep(2500);
  await entitlements.refresh();
  assert.equal(asked.length, askedBefore + 1, "a token 2 s from its exp is replaced before the call");

  await eventually(() => isActive(entitlements.current, "premium"), "premium, granted between the two streams", 15_000);
  assert.ok(replied > 0);
  assert.equal(ended.length, 1, logs.text());
  assert.ok(streams.length >= 2);
  assert.ok(streams[1].at - ended[0] < 1000, "reopened at once, not after the backoff");
  assert.notEqual(streams[1].token, streams[0].token, "with a fresh token");
  const proVersion = seen.find(([snapshot]) => isActive(snapshot, "pro"))[0].version;
  assert.equal(BigInt(streams[1].afterVersion), proVersion, "from the last version received");
  const versions = seen.slice(1).map(([snapshot]) => snapshot.version);
  assert.equal(new Set(versions.map(String)).size, versions.length, `no version published twice: ${versions}`);
  assert.deepEqual(versions, [...versions].sort((a, b) => (a < b ? -1 : 1)), "versions only grow");
  stop();
  entitlements.close();
});
