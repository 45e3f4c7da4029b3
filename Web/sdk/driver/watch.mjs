// Prints what an Entitlements instance publishes, one JSON line each, for tests that change the server under it
// (Tests/Interop/test_web_sdk.py restarts it). Environment: ENTITLEMENTD_URL, ENTITLEMENTD_PUBLIC_KEY, APP_USER_ID.

import { Entitlements, MemoryStorage } from "../dist/entitlements.js";

const entitlements = new Entitlements({
  baseURL: process.env.ENTITLEMENTD_URL,
  publicKey: process.env.ENTITLEMENTD_PUBLIC_KEY,
  storage: new MemoryStorage(),
  // Reconnects exactly 1.5 s after a drop (no jitter): a test changes the server in that gap.
  backoff: { initialMs: 1500, maximumMs: 3000, healthyAfterMs: 500 },
  random: () => 1,
  log: (level, message) => console.error(`${level}: ${message}`),
});
await entitlements.identify(process.env.APP_USER_ID);
entitlements.onChange((snapshot, change) => {
  console.log(JSON.stringify({
    version: snapshot.version.toString(), origin: snapshot.origin, change,
    entitlements: snapshot.entitlements.map((item) => item.id).sort(), streamsOpened: entitlements.streamsOpened,
  }));
});
