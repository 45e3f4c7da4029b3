export { Entitlements } from "./entitlements.js";
export type { EntitlementsOptions, StatusListener } from "./entitlements.js";
export { ConnectClient, ConnectError } from "./connect.js";
export type { CallOptions, StreamOptions } from "./connect.js";
export { MemoryStorage } from "./cache.js";
export type { KeyValueStorage } from "./cache.js";
export { isActive } from "./status.js";
export type { Entitlement, EntitlementSource, StatusChange, StatusSnapshot, SubscriptionState } from "./status.js";
export type { Backoff } from "./backoff.js";
