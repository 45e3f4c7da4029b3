// What the app gates on: the server's status (protobuf JSON of entitlements.v1.CustomerStatus) as the SDK keeps it.

/** Nothing known yet (no answer, no cache), some entitlements active, or none. */
export type SubscriptionState = "unknown" | "active" | "inactive";

/** Where an entitlement comes from. */
export type EntitlementSource = "app_store" | "play_store" | "web" | "grant" | "unknown";

export interface Entitlement {
  id: string;
  source: EntitlementSource;
  productId: string;
  /** null: never expires. */
  expiresAt: Date | null;
  willRenew: boolean;
  inGracePeriod: boolean;
  inBillingRetry: boolean;
}

export interface StatusSnapshot {
  appUserId: string;
  state: SubscriptionState;
  entitlements: Entitlement[];
  /** The server's version of this customer: grows by one with every change. 0n before any answer. */
  version: bigint;
  origin: StatusOrigin;
  /** The server's clock when it answered (null before any answer): judge expiry by it, not the device's. With
   * `statusKeys`, the signed `iat` (when the server computed the status; up to a minute before it answered). */
  serverTime: Date | null;
  /** With `statusKeys`: until when the server's signature vouches for this status (its `exp`), which is how long it
   * may be shown offline. null without `statusKeys`, and before any status. */
  validUntil: Date | null;
}

/**
 * Where a snapshot comes from:
 * - `server`: an answer in this page's life (or one another tab of the site received, through the shared cache);
 * - `cache`: kept from an earlier page load, shown until the server answers; nothing has failed yet;
 * - `offline` (only with `statusKeys`): the server cannot be reached, so the last verified status is shown while its
 *   signature is valid, without the entitlements that expired since by the device's clock, and `unknown` after:
 *   a status nobody can vouch for any more is never shown as active.
 */
export type StatusOrigin = "server" | "cache" | "offline";

/** What changed between two snapshots, as the server's event kinds say it. */
export type StatusChange = "entitlements" | "details";

/** protobuf JSON of entitlements.v1.CustomerStatus (default values are left out of it). */
export interface CustomerStatusJSON {
  appUserId?: string;
  status?: { state?: string; entitlements?: ActiveEntitlementJSON[] };
  version?: string;
  serverTime?: string;
  /** The status as a compact JWS signed by the tenant (tenants with `signed_status`); see signedStatus.ts. */
  signedStatus?: string;
}

interface ActiveEntitlementJSON {
  id?: string;
  source?: string;
  productId?: string;
  expiresAt?: string;
  willRenew?: boolean;
  inGracePeriod?: boolean;
  inBillingRetry?: boolean;
}

const SOURCES: Record<string, EntitlementSource> = {
  APP_STORE: "app_store", PLAY_STORE: "play_store", WEB: "web", GRANT: "grant",
};

export function unknownStatus(appUserId: string): StatusSnapshot {
  return {
    appUserId, state: "unknown", entitlements: [], version: 0n, origin: "cache", serverTime: null, validUntil: null,
  };
}

/** A server answer as a snapshot for `appUserId` (the ID the app asked about: an alias answers with its account). */
export function snapshotOf(customer: CustomerStatusJSON, appUserId: string): StatusSnapshot {
  const entitlements = (customer.status?.entitlements ?? []).map((item) => ({
    id: item.id ?? "",
    source: SOURCES[item.source ?? ""] ?? "unknown",
    productId: item.productId ?? "",
    expiresAt: item.expiresAt ? new Date(item.expiresAt) : null,
    willRenew: item.willRenew ?? false,
    inGracePeriod: item.inGracePeriod ?? false,
    inBillingRetry: item.inBillingRetry ?? false,
  }));
  return {
    appUserId,
    state: entitlements.length > 0 ? "active" : "inactive",
    entitlements,
    version: BigInt(customer.version ?? "0"),
    origin: "server",
    serverTime: customer.serverTime ? new Date(customer.serverTime) : null,
    validUntil: null,
  };
}

/** `entitlements` when the set of active IDs changed (or unknown became known), `details` when only what grants
 * them did, null when nothing an app shows changed. */
export function changeBetween(previous: StatusSnapshot, next: StatusSnapshot): StatusChange | null {
  const ids = (snapshot: StatusSnapshot) => snapshot.entitlements.map((item) => item.id).sort().join("\n");
  if (ids(previous) !== ids(next) || (previous.state === "unknown") !== (next.state === "unknown")) return "entitlements";
  const details = (snapshot: StatusSnapshot) =>
    JSON.stringify(
      [...snapshot.entitlements]
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((item) => ({ ...item, expiresAt: item.expiresAt?.getTime() ?? null })),
    );
  return details(previous) === details(next) ? null : "details";
}

/** Whether entitlement `id` is active in `snapshot`. */
export function isActive(snapshot: StatusSnapshot, id: string): boolean {
  return snapshot.entitlements.some((item) => item.id === id);
}

/** A snapshot as the cache stores it (JSON has no bigint or Date). */
export function encodeSnapshot(snapshot: StatusSnapshot): string {
  return JSON.stringify({
    ...snapshot,
    version: snapshot.version.toString(),
    serverTime: snapshot.serverTime?.toISOString() ?? null,
    validUntil: snapshot.validUntil?.toISOString() ?? null,
    entitlements: snapshot.entitlements.map((item) => ({ ...item, expiresAt: item.expiresAt?.toISOString() ?? null })),
  });
}

/** A cached snapshot, marked `cache`; null when the text is not one (another version of the SDK, a hand edit). */
export function decodeSnapshot(text: string | null): StatusSnapshot | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text);
    if (typeof value?.appUserId !== "string" || !Array.isArray(value.entitlements)) return null;
    return {
      appUserId: value.appUserId,
      state: value.state === "active" || value.state === "inactive" ? value.state : "unknown",
      entitlements: value.entitlements.map((item: Record<string, unknown>) => ({
        id: String(item.id ?? ""),
        source: (Object.values(SOURCES) as string[]).includes(String(item.source)) ? item.source : "unknown",
        productId: String(item.productId ?? ""),
        expiresAt: typeof item.expiresAt === "string" ? new Date(item.expiresAt) : null,
        willRenew: item.willRenew === true,
        inGracePeriod: item.inGracePeriod === true,
        inBillingRetry: item.inBillingRetry === true,
      })),
      version: BigInt(/^\d{1,20}$/.test(String(value.version)) ? value.version : "0"),
      origin: "cache",
      serverTime: typeof value.serverTime === "string" ? new Date(value.serverTime) : null,
      validUntil: null,
    };
  } catch {
    return null;
  }
}
