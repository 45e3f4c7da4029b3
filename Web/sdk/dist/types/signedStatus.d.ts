import { StatusSnapshot } from "./status.js";
/** A public key as the server publishes it (GET /.well-known/entitlementd/{tenant}/jwks.json): P-256, named by kid. */
export interface StatusPublicKey {
    kty: string;
    crv?: string;
    x?: string;
    y?: string;
    kid?: string;
    alg?: string;
    use?: string;
}
/** A JSON Web Key Set (RFC 7517): the tenant's published status keys, as the app pins them. */
export interface JsonWebKeySet {
    keys: StatusPublicKey[];
}
/** Why a status was not trusted; the message is the reason the SDK logs. */
export declare class StatusRejection extends Error {
    constructor(reason: string);
}
/** The claims of a signed status (the server's StatusClaims), in the webhooks' vocabulary. */
export interface SignedStatusClaims {
    tenant: string;
    /** The canonical app user ID. */
    sub: string;
    /** The ID the app asked about, when it is an alias of `sub`. */
    alias?: string;
    version: number;
    status: {
        state: "active" | "inactive";
        entitlements: SignedEntitlementClaims[];
    };
    /** Seconds since the epoch: when the server computed the status, and until when it vouches for it. */
    iat: number;
    exp: number;
}
interface SignedEntitlementClaims {
    id: string;
    source: string;
    product_id: string;
    expires_at: string | null;
    will_renew: boolean;
    in_grace_period: boolean;
    in_billing_retry: boolean;
}
/** Checks signed statuses against the pinned keys: the keys are given with the app, never fetched, so whoever can
 * change what the page downloads at run time cannot change which keys it trusts. Only statuses signed for `tenant`
 * count: an operator may sign several tenants' statuses with one key. */
export declare class StatusVerifier {
    private readonly keys;
    private readonly imported;
    private readonly tenant;
    /** Throws a TypeError when `keySet` (a JWKS, or its JSON) holds no usable key or `tenant` is not a tenant ID: a
     * configuration mistake. */
    constructor(keySet: JsonWebKeySet | string, tenant: string);
    /**
     * The snapshot `jws` vouches for, if it is a status of this tenant's `appUserId` (its `sub`, or its `alias` when the
     * app knows the user by an alias), signed by a pinned key, and not expired at `now` by the device's clock; rejects with a
     * StatusRejection naming what failed otherwise.
     */
    verify(jws: string | undefined, appUserId: string, origin: "server" | "cache", now?: number): Promise<StatusSnapshot>;
    private importKey;
}
export {};
