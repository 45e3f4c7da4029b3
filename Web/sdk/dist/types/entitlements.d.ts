import { Backoff } from "./backoff.js";
import { KeyValueStorage } from "./cache.js";
import { StatusChange, StatusSnapshot } from "./status.js";
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
    /** What the SDK has to say (reconnects, failures); never keys or tokens. */
    log?: (level: "debug" | "info" | "warning", message: string) => void;
}
export declare type StatusListener = (snapshot: StatusSnapshot, change: StatusChange | null) => void;
export declare class Entitlements {
    private readonly client;
    private readonly cache;
    private readonly backoff;
    private readonly random;
    private readonly timeoutMs;
    private readonly logger;
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
     * a listener's stream keeps trying. */
    start(): Promise<StatusSnapshot>;
    /** Asks the server now and publishes its answer. */
    refresh(): Promise<StatusSnapshot>;
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
    /** Takes a server answer for the user of `generation`, unless it is older than what was seen. */
    private publishServer;
    private republish;
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
     * aborted or the user changes. The backoff resets after a stream that delivered and stayed up a while. */
    private runStream;
    private log;
}
