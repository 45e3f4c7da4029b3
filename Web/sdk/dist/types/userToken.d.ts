import { ConnectError } from "./connect.js";
/**
 * Returns a user token for `appUserId` from the site's backend (a fresh one each call), or "" when there is none.
 * Called when the SDK holds no token for that user or the one it holds is about to expire, and once more after the
 * server refused one. Anonymous IDs (`$anon:…`) are asked for only after the server refused a call without one (a
 * tenant whose `allow_anonymous` is false).
 */
export declare type UserTokenProvider = (appUserId: string) => Promise<string> | string;
export declare const USER_TOKEN_HEADER = "entitlements-user-token";
/** Whether `error` is the server refusing a user token (missing, expired, of someone else...) or ending a stream
 * whose token expired: the cases a fresh token may fix. */
export declare function isUserTokenRefusal(error: unknown): error is ConnectError;
/** The server's end of a stream whose token expired (it ends it at `exp` + 5 s), as opposed to a refusal at open. */
export declare function isStreamTokenExpiry(error: unknown): boolean;
/** The request headers that carry `token` (none without one). */
export declare function userTokenHeaders(token: string | undefined): Record<string, string>;
/**
 * When a token should be replaced (ms since the epoch), read from its unverified payload: `exp` less 30 s, or half
 * its lifetime for a token that lives under a minute (else a short-lived token would be replaced at every call);
 * null when there is no readable `exp` (the SDK then keeps it until the server refuses it).
 */
export declare function refreshTimeOf(token: string): number | null;
/** The token the SDK holds (one, for one user: a token proves one ID) and the provider calls under way. */
export declare class UserTokens {
    private readonly provider;
    private readonly now;
    private held;
    /** One provider call per user at a time: the stream and a call that start together share it. */
    private readonly pending;
    constructor(provider: UserTokenProvider | undefined, now?: () => number);
    /** Whether the app gave a provider (without one, the SDK sends no token and retries nothing). */
    get enabled(): boolean;
    /** The token to send with a call for `appUserId`: the held one while it is not about to expire, else a new one
     * from the provider; for an anonymous ID only one held already (see UserTokenProvider). undefined: send none. */
    token(appUserId: string, anonymous: boolean): Promise<string | undefined>;
    /** A new token from the provider for `appUserId` (after the server refused the held one), which is then held. */
    fresh(appUserId: string): Promise<string | undefined>;
    /** Forgets the held token (the server refused it). */
    discard(appUserId: string): void;
    /** Forgets a token of anyone but `appUserId` (the SDK now speaks for it: a signed-out user's token goes). */
    keepOnly(appUserId: string): void;
    private ask;
}
