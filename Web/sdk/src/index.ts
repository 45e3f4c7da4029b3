// entitlementd's web SDK: what the signed-in (or anonymous) user may unlock, live, over the Connect protocol.

export { Entitlements } from "./entitlements.js";
export type { EntitlementsOptions, StatusListener } from "./entitlements.js";
export { ConnectClient, ConnectError } from "./connect.js";
export type { CallOptions, StreamOptions } from "./connect.js";
export { MemoryStorage } from "./cache.js";
export type { KeyValueStorage } from "./cache.js";
export { isActive } from "./status.js";
export type {
  Entitlement, EntitlementSource, StatusChange, StatusOrigin, StatusSnapshot, SubscriptionState,
} from "./status.js";
export { StatusRejection, StatusVerifier } from "./signedStatus.js";
export type { JsonWebKeySet, SignedStatusClaims, StatusPublicKey } from "./signedStatus.js";
export { USER_TOKEN_HEADER } from "./userToken.js";
export type { UserTokenProvider } from "./userToken.js";
export type { Backoff } from "./backoff.js";
