// Helpers the web SDK's Node tests share (Web/sdk/test; here, because every file under test/ is run as a test).

import assert from "node:assert/strict";
import crypto from "node:crypto";
import net from "node:net";

import { ConnectClient } from "../dist/entitlements.js";

export const url = process.env.ENTITLEMENTD_URL;
export const fastBackoff = { initialMs: 50, maximumMs: 400, healthyAfterMs: 200 };

export function uniqueUser(prefix) {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Grants `entitlementId` to `appUserId` for `seconds` with a tenant's secret key. */
export async function grant(secretKey, appUserId, entitlementId, seconds) {
  return new ConnectClient(url, secretKey).unary("/entitlements.v1.AdminService/GrantEntitlement", {
    appUserId, entitlementId, duration: `${seconds}s`, reason: "web sdk test",
  });
}

export async function eventually(predicate, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (predicate()) return;
    await sleep(20);
  }
  assert.fail(`timed out waiting for ${what}`);
}

export function sleep(milliseconds) {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Entitlements instances to close when the file's tests end, passed or not: an open stream keeps Node running. */
export function closer() {
  const open = [];
  return {
    track(instance) {
      open.push(instance);
      return instance;
    },
    closeAll() {
      for (const instance of open.splice(0)) instance.close();
    },
  };
}

/** Every publish a listener got: [snapshot, change]. */
export function record(entitlements) {
  const seen = [];
  const stop = entitlements.onChange((snapshot, change) => seen.push([snapshot, change]));
  return { seen, stop };
}

/** The SDK's log lines, as "level: message". */
export function logRecorder() {
  const lines = [];
  const log = (level, message) => lines.push(`${level}: ${message}`);
  return { lines, log, text: () => lines.join("\n") };
}

/** A base URL nothing listens on (a port just freed): every call fails as `unavailable`. */
export async function closedURL() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** A TCP proxy to the server that a test can cut (`cut()`: drop every connection and refuse new ones) and mend. */
export async function cuttableProxy() {
  const target = new URL(url);
  const sockets = new Set();
  let accepting = true;
  const proxy = net.createServer((client) => {
    if (!accepting) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${proxy.address().port}`,
    cut() {
      accepting = false;
      for (const socket of sockets) socket.destroy();
    },
    mend() {
      accepting = true;
    },
    close() {
      accepting = false;
      for (const socket of sockets) socket.destroy();
      proxy.close();
    },
  };
}

export function base64url(data) {
  return Buffer.from(data).toString("base64url");
}

/** The JSON of a compact JWS's part `index` (0 the header, 1 the payload). */
export function jwsPart(jws, index) {
  return JSON.parse(Buffer.from(jws.split(".")[index], "base64url").toString());
}

/** The cache's keys (see Web/sdk/src/cache.ts) for a tenant's public key. */
export function cacheKeys(publicKey) {
  const prefix = `entitlements/${publicKey}/`;
  return { identity: prefix + "app-user-id", status: (appUserId) => prefix + "status/" + appUserId };
}

/** An HS256 user token as a tenant's backend would sign it, with node:crypto (no JWT library). */
export function mintUserToken(sub, { ttl = 600, secret = process.env.ENTITLEMENTD_TOKEN_SECRET } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = base64url(JSON.stringify({
    sub, aud: process.env.ENTITLEMENTD_TOKENS_TENANT, iss: process.env.ENTITLEMENTD_TOKEN_ISSUER,
    iat: now, exp: now + ttl, jti: crypto.randomUUID(),
  }));
  const signature = crypto.createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}

/** A signed status as the server makes it (ES256, `kid`), signed here with a tenant's private key in PEM. */
export function signStatus(claims, { kid = "k1", privateKey = process.env.ENTITLEMENTD_STATUS_SIGNING_KEY } = {}) {
  const header = base64url(JSON.stringify({ alg: "ES256", kid, typ: "JWT" }));
  const signingInput = `${header}.${base64url(JSON.stringify(claims))}`;
  const signature = crypto.sign("sha256", Buffer.from(signingInput), { key: privateKey, dsaEncoding: "ieee-p1363" });
  return `${signingInput}.${base64url(signature)}`;
}
