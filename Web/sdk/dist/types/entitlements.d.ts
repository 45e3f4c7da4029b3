import { Backoff } from "./backoff.js";
import { KeyValueStorage } from "./cache.js";
import { JsonWebKeySet } from "./signedStatus.js";
import { StatusChange, StatusSnapshot } from "./status.js";
import { UserTokenProvider } from "./userToken.js";
export interface EntitlementsOptions {
    /** The entitlementd server: `https://entitlements.example.com`. */
    baseURL: string;
    /** The tenant's public key (it can only read and report purchases, never grant). */
    publicKey: string;
    /** Where identity and statuses are kept; `localStorage` by default, memory where there is none. */
    storage?: KeyValueStorage;
    fetch?: typeof fetch;
    backoff?: Backoff;
    /** A number in [0, 1) for the jitter; Math.random by default. */
    random?: () => number;
    /** Each unary call's deadline (Connect-Timeout-Ms); 10 s by default. */
    timeoutMs?: number;
    /** What the SDK has to say (reconnects, failures, statuses it did not trust and why); never keys or tokens. */
    log?: (level: "debug" | "info" | "warning", message: string) => void;
    /**
     * For a tenant whose `user_tokens` require them: returns a token from the site's backend proving `appUserId` (a
     * JWT: sub the app user ID, aud the tenant). The SDK sends it as `entitlements-user-token` on every call and
     * stream, asks again shortly before its `exp` (read, not verified: the server verifies), and once more, retrying
     * once, when the server refuses it. See UserTokenProvider.
     */
    userToken?: UserTokenProvider;
    /**
     * The tenant's status keys (its `GET /.well-known/entitlementd/{tenant}/jwks.json`, or that JSON), pinned with
     * the page's code rather than fetched. Then a status is shown and cached only when its `signedStatus` verifies
     * with one of them, is of this user and is within its validity; anything else is ignored and logged. When the
     * server cannot be reached, the last verified status is shown (origin `offline`) until its signature's `exp`, and
     * `unknown` after. Needs WebCrypto (`crypto.subtle`: https or localhost in a browser).
     */
    statusKeys?: JsonWebKeySet | string;
    /** The tenant's ID, needed with `statusKeys`: a status signed for another tenant (one sharing its keys) is not
     * trusted. */
    tenant?: string;
}
export declare type StatusListener = (snapshot: StatusSnapshot, change: StatusChange | null) => void;
export declare class Entitlements {
    private readonly client;
    private readonly cache;
    private readonly backoff;
    private readonly random;
    private readonly timeoutMs;
    private readonly logger;
    private readonly tokens;
    /** Set with `statusKeys`: then every status is verified. */
    private readonly verifier;
    /** Server answers and cache reads are taken one at a time, in order: verifying one is asynchronous, and a later
     * version must not be overtaken by an earlier one still being verified. */
    private queue;
    /** With `statusKeys`: the server could not be reached since its last answer (what is shown is `offline`). */
    private offline;
    /** With `statusKeys`: the next moment what is shown changes by the clock (an expiry, the signature's end). */
    private validityTimer;
    private user;
    /** Whether Identify ran for `user` in this page's life (a stream of an unknown customer is refused). */
    private identifiedOnServer;
    /** Bumped whenever the user changes, so answers about the previous user are dropped. */
    private generation;
    /** The server's last word for this user (a cached one at first). */
    private server;
    private published;
    private readonly listeners;
    /** Aborts the open stream or the wait before reopening it. */
    private stream;
    private closed;
    private readonly onStorage;
    /** How many times the status stream was opened, for diagnostics and tests. */
    streamsOpened: number;
    constructor(options: EntitlementsOptions);
    /** The ID the SDK speaks for: the signed-in account, or the anonymous ID (`$anon:` and a UUID). */
    get appUserId(): string;
    get isAnonymous(): boolean;
    /** What listeners were last told. */
    get current(): StatusSnapshot;
    /** Call once when the page loads: asks the server. Failures are logged, not thrown: the cached status stands, and
     * a listener's stream keeps trying. With `statusKeys` the cached status is shown only once verified, which is
     * asynchronous: until then `current` is unknown, and what `start()` resolves with has been through it. */
    start(): Promise<StatusSnapshot>;
    /** Asks the server now and publishes its answer. With `statusKeys`, a server that cannot be reached makes what is
     * shown `offline` (and the error is still thrown). */
    refresh(): Promise<StatusSnapshot>;
    private sync;
    /** Calls `listener` with the current status at once, then with every change. The shared server stream opens with
     * the first listener and closes after the last one leaves. Returns the function that removes it. */
    onChange(listener: StatusListener): () => void;
    /** Signs the user in as `appUserId` (the site's own account ID): the anonymous customer of this browser, if the
     * SDK was anonymous, is merged into the account, and the status, stream and cache switch to it. */
    identify(appUserId: string): Promise<{
        created: boolean;
        merged: boolean;
    }>;
    /** Signs the user out: the SDK continues as a fresh anonymous ID, which the server creates now. */
    logOut(): Promise<void>;
    /** Claims a web purchase made without an account (an anonymous Stripe Checkout) with its redemption code
     * (`rc_` and 32 letters and digits): it becomes the current user's. Throws the server's refusal. */
    redeemWebPurchase(code: string): Promise<StatusSnapshot>;
    /** A Stripe Checkout link (a Payment Link, or the tenant's own checkout page that passes it on) naming the
     * current user as `client_reference_id`, so the purchase is theirs when Stripe's webhook arrives. An anonymous
     * user's link names nobody: the checkout then ends with a redemption code for `redeemWebPurchase`. */
    checkoutURL(link: string): string;
    /** Opens the checkout for the current user (`checkoutURL`) in this window. */
    startCheckout(link: string): void;
    /** Stops the stream and the listeners; the instance is done. */
    close(): void;
    /** A unary call for `appUserId` with its user token (when the app gives them): a call the server refuses for the
     * token is made once more with a fresh one. */
    private call;
    /** Takes a server answer for the user of `generation` (in turn: see `queue`), unless it is older than what was
     * seen or, with `statusKeys`, does not verify. */
    private publishServer;
    /** With `statusKeys`: whether `snapshot`, of a lower version than the signed one held, was also signed before it, a
     * genuine old status replayed (by a proxy, say), which must not undo a newer one even while the held one is only
     * cached. A server whose database went back signs its lower version anew, later, and is taken. */
    private replaysOlder;
    private enqueue;
    /** A server answer as a snapshot of `appUserId`: with `statusKeys`, the one its signed claims make, or null
     * (logged with the reason) when it is unsigned, forged, altered, another user's or expired. */
    private trusted;
    /** With `statusKeys` the cache keeps the signed form, verified again when read; else the snapshot. */
    private saveToCache;
    /** Takes the signed status the cache keeps for the user of `generation` if it verifies and is newer than what is
     * held; drops it from the cache if it does not verify. `origin`: `cache` at page load, `server` when another tab
     * just received it. */
    private loadSignedStatus;
    private republish;
    /** What to show of the server's status at `now`. With `statusKeys`: `unknown` once its signature's validity ended
     * (nobody vouches for it any more), and offline, without the entitlements that expired since by the device's
     * clock (the server cannot say otherwise). */
    private view;
    /** With `statusKeys`, wakes at the next moment the view changes by the clock: offline, an entitlement's expiry or
     * the signature's end; online, a minute before the signature's end, to ask for a freshly signed status. */
    private scheduleValidity;
    private validityDue;
    /** The server could not be reached: with `statusKeys`, show the last verified status as `offline`. */
    private wentOffline;
    /** The status stream opened: the server is reachable again, and the stream brings anything newer. */
    private backOnline;
    private identifyIfNeeded;
    /** The server answered NOT_FOUND for the user it was told of (its database was reset or restored): Identify again,
     * and take its next answer whatever the version, since the versions seen were of a customer it no longer holds. */
    private serverForgotCustomer;
    private switchUser;
    /** Another tab of this site signed in or out, or cached a newer status of this user. */
    private storageChanged;
    private openStreamIfWanted;
    private closeStream;
    /** Opens the stream, reads it until it ends, and reopens it after a backoff from the last version seen, until
     * aborted or the user changes. The backoff resets after a stream that delivered and stayed up a while. A stream
     * the server ended because its user token expired reopens at once with a fresh token (from the last version seen,
     * so nothing is lost); a token refused at open is replaced at once only once in a row, then waits like any
     * failure, so a provider that keeps giving refused tokens is not called in a loop. */
    private runStream;
    private log;
}
