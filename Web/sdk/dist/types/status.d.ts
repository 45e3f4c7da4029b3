/** Nothing known yet (no answer, no cache), some entitlements active, or none. */
export declare type SubscriptionState = "unknown" | "active" | "inactive";
/** Where an entitlement comes from. */
export declare type EntitlementSource = "app_store" | "play_store" | "web" | "grant" | "unknown";
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
export declare type StatusOrigin = "server" | "cache" | "offline";
/** What changed between two snapshots, as the server's event kinds say it. */
export declare type StatusChange = "entitlements" | "details";
/** protobuf JSON of entitlements.v1.CustomerStatus (default values are left out of it). */
export interface CustomerStatusJSON {
    appUserId?: string;
    status?: {
        state?: string;
        entitlements?: ActiveEntitlementJSON[];
    };
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
export declare function unknownStatus(appUserId: string): StatusSnapshot;
/** A server answer as a snapshot for `appUserId` (the ID the app asked about: an alias answers with its account). */
export declare function snapshotOf(customer: CustomerStatusJSON, appUserId: string): StatusSnapshot;
/** `entitlements` when the set of active IDs changed (or unknown became known), `details` when only what grants
 * them did, null when nothing an app shows changed. */
export declare function changeBetween(previous: StatusSnapshot, next: StatusSnapshot): StatusChange | null;
/** Whether entitlement `id` is active in `snapshot`. */
export declare function isActive(snapshot: StatusSnapshot, id: string): boolean;
/** A snapshot as the cache stores it (JSON has no bigint or Date). */
export declare function encodeSnapshot(snapshot: StatusSnapshot): string;
/** A cached snapshot, marked `cache`; null when the text is not one (another version of the SDK, a hand edit). */
export declare function decodeSnapshot(text: string | null): StatusSnapshot | null;
export {};
