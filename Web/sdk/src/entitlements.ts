// The page's view of its user's entitlements: a live cache of the server's status, as the Swift SDK keeps it.
//
// It starts with the last status the cache kept (origin `cache`; `unknown` only when nothing was ever known), asks
// the server, and holds one StreamStatus open while anyone listens, resuming after every disconnect from the last
// version seen (`afterVersion`) after a backoff with full jitter. A published status never goes back to a lower
// server version than one already seen, and each one is cached. Tabs of one site share the cache: a sign-in or
// sign-out in one is followed by the others.
//
// Two options make it hold up against more than a flaky network. `userToken` proves the user to a tenant that
// requires user tokens (userToken.ts). `statusKeys` pins the tenant's status keys: only statuses whose signature
// verifies are shown or cached (signedStatus.ts), and with them the last status can be shown offline for as long as
// its signature is valid, and no longer.

import { backoffStep, Backoff, defaultBackoff } from "./backoff.js";
import { KeyValueStorage, MemoryStorage, StatusCache } from "./cache.js";
import { ConnectClient, ConnectError } from "./connect.js";
import { JsonWebKeySet, StatusRejection, StatusVerifier } from "./signedStatus.js";
import { changeBetween, CustomerStatusJSON, snapshotOf, StatusChange, StatusSnapshot, unknownStatus } from "./status.js";
import {
  isStreamTokenExpiry, isUserTokenRefusal, UserTokenProvider, userTokenHeaders, UserTokens,
} from "./userToken.js";

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

export type StatusListener = (snapshot: StatusSnapshot, change: StatusChange | null) => void;

const SERVICE = "/entitlements.v1.EntitlementService/";
const ANONYMOUS_PREFIX = "$anon:";
/** How the server's NOT_FOUND begins for a user it erased. */
const DELETED_PREFIX = "customer deleted";
/** Online, a signed status about to lapse with nothing changed is asked for again this long before its `exp`. */
const RENEW_BEFORE_VALIDITY_ENDS_MS = 60_000;
/** setTimeout's longest wait (a signature may be valid 30 days); a longer one is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface IdentifyResponseJSON {
  customer?: CustomerStatusJSON;
  created?: boolean;
  merged?: boolean;
}

export class Entitlements {
  private readonly client: ConnectClient;
  private readonly cache: StatusCache;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly timeoutMs: number;
  private readonly logger: EntitlementsOptions["log"];
  private readonly tokens: UserTokens;
  /** Set with `statusKeys`: then every status is verified. */
  private readonly verifier: StatusVerifier | null;
  /** Server answers and cache reads are taken one at a time, in order: verifying one is asynchronous, and a later
   * version must not be overtaken by an earlier one still being verified. */
  private queue: Promise<void> = Promise.resolve();
  /** With `statusKeys`: the server could not be reached since its last answer (what is shown is `offline`). */
  private offline = false;
  /** With `statusKeys`: the next moment what is shown changes by the clock (an expiry, the signature's end). */
  private validityTimer: ReturnType<typeof setTimeout> | null = null;
  private user: string;
  /** Whether Identify ran for `user` in this page's life (a stream of an unknown customer is refused). */
  private identifiedOnServer = false;
  /** Bumped whenever the user changes, so answers about the previous user are dropped. */
  private generation = 0;
  /** The server's last word for this user (a cached one at first). */
  private server: StatusSnapshot;
  private published: StatusSnapshot;
  private readonly listeners = new Set<StatusListener>();
  /** Aborts the open stream or the wait before reopening it. */
  private stream: AbortController | null = null;
  private closed = false;
  private readonly onStorage = (event: StorageEvent) => this.storageChanged(event);
  /** How many times the status stream was opened, for diagnostics and tests. */
  streamsOpened = 0;

  constructor(options: EntitlementsOptions) {
    this.client = new ConnectClient(options.baseURL, options.publicKey, options.fetch);
    this.cache = new StatusCache(options.storage ?? defaultStorage(), options.publicKey);
    this.backoff = options.backoff ?? defaultBackoff;
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.logger = options.log;
    this.tokens = new UserTokens(options.userToken);
    this.verifier = options.statusKeys === undefined ? null : new StatusVerifier(options.statusKeys, options.tenant ?? "");
    const cached = this.cache.loadAppUserId();
    this.user = cached ?? ANONYMOUS_PREFIX + randomUUID();
    if (!cached) this.cache.saveAppUserId(this.user);
    // A signed cached status is verified first (asynchronously): until then nothing is known.
    this.server = (!this.verifier && this.cache.loadStatus(this.user)) || unknownStatus(this.user);
    this.published = this.server;
    if (this.verifier) void this.loadSignedStatus(this.generation, "cache");
    globalThis.addEventListener?.("storage", this.onStorage as EventListener);
  }

  /** The ID the SDK speaks for: the signed-in account, or the anonymous ID (`$anon:` and a UUID). */
  get appUserId(): string {
    return this.user;
  }

  get isAnonymous(): boolean {
    return isAnonymousId(this.user);
  }

  /** What listeners were last told. */
  get current(): StatusSnapshot {
    return this.published;
  }

  /** Call once when the page loads: asks the server. Failures are logged, not thrown: the cached status stands, and
   * a listener's stream keeps trying. With `statusKeys` the cached status is shown only once verified, which is
   * asynchronous: until then `current` is unknown, and what `start()` resolves with has been through it. */
  async start(): Promise<StatusSnapshot> {
    try {
      await this.refresh();
    } catch (error) {
      this.log("warning", `SyncStatus at start failed: ${describe(error)}`);
    }
    await this.queue;
    return this.published;
  }

  /** Asks the server now and publishes its answer. With `statusKeys`, a server that cannot be reached makes what is
   * shown `offline` (and the error is still thrown). */
  async refresh(): Promise<StatusSnapshot> {
    try {
      return await this.sync();
    } catch (error) {
      if (isUnreachable(error)) await this.wentOffline();
      throw error;
    }
  }

  private async sync(): Promise<StatusSnapshot> {
    const generation = this.generation;
    const user = this.user;
    await this.identifyIfNeeded();
    if (generation !== this.generation) return this.published;
    try {
      const answer = await this.call<{ customer?: CustomerStatusJSON }>("SyncStatus", { appUserId: user }, user);
      await this.publishServer(answer.customer, generation);
    } catch (error) {
      if (!(error instanceof ConnectError) || error.code !== "not_found") throw error;
      if (error.message.startsWith(DELETED_PREFIX)) {
        await this.logOut();
        return this.published;
      }
      this.serverForgotCustomer();
      await this.identifyIfNeeded();
    }
    return this.published;
  }

  /** Calls `listener` with the current status at once, then with every change. The shared server stream opens with
   * the first listener and closes after the last one leaves. Returns the function that removes it. */
  onChange(listener: StatusListener): () => void {
    this.listeners.add(listener);
    listener(this.published, null);
    this.openStreamIfWanted();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.closeStream();
    };
  }

  /** Signs the user in as `appUserId` (the site's own account ID): the anonymous customer of this browser, if the
   * SDK was anonymous, is merged into the account, and the status, stream and cache switch to it. */
  async identify(appUserId: string): Promise<{ created: boolean; merged: boolean }> {
    const anonymousId = this.isAnonymous && this.user !== appUserId ? this.user : "";
    // The token is `appUserId`'s: merging the anonymous customer into an account takes the account's proof.
    const response = await this.call<IdentifyResponseJSON>("Identify", { appUserId, anonymousId }, appUserId);
    await this.switchUser(appUserId, response);
    this.log("info", `Identified${response.merged ? ", merging the anonymous customer" : ""}.`);
    return { created: response.created ?? false, merged: response.merged ?? false };
  }

  /** Signs the user out: the SDK continues as a fresh anonymous ID, which the server creates now. */
  async logOut(): Promise<void> {
    const anonymousId = ANONYMOUS_PREFIX + randomUUID();
    const response = await this.call<IdentifyResponseJSON>("Identify", { appUserId: anonymousId }, anonymousId);
    await this.switchUser(anonymousId, response);
    this.log("info", "Logged out; continuing as a new anonymous user.");
  }

  /** Claims a web purchase made without an account (an anonymous Stripe Checkout) with its redemption code
   * (`rc_` and 32 letters and digits): it becomes the current user's. Throws the server's refusal. */
  async redeemWebPurchase(code: string): Promise<StatusSnapshot> {
    const generation = this.generation;
    await this.identifyIfNeeded();
    const response = await this.call<{ customer?: CustomerStatusJSON }>(
      "Purchase", { appUserId: this.user, webRedemption: { code: code.trim() } }, this.user);
    await this.publishServer(response.customer, generation);
    return this.published;
  }

  /** A Stripe Checkout link (a Payment Link, or the tenant's own checkout page that passes it on) naming the
   * current user as `client_reference_id`, so the purchase is theirs when Stripe's webhook arrives. An anonymous
   * user's link names nobody: the checkout then ends with a redemption code for `redeemWebPurchase`. */
  checkoutURL(link: string): string {
    const url = new URL(link);
    if (this.isAnonymous) url.searchParams.delete("client_reference_id");
    else url.searchParams.set("client_reference_id", this.user);
    return url.toString();
  }

  /** Opens the checkout for the current user (`checkoutURL`) in this window. */
  startCheckout(link: string): void {
    globalThis.location.assign(this.checkoutURL(link));
  }

  /** Stops the stream and the listeners; the instance is done. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.closeStream();
    if (this.validityTimer !== null) clearTimeout(this.validityTimer);
    this.validityTimer = null;
    globalThis.removeEventListener?.("storage", this.onStorage as EventListener);
  }

  // Calls

  /** A unary call for `appUserId` with its user token (when the app gives them): a call the server refuses for the
   * token is made once more with a fresh one. */
  private async call<Response>(method: string, request: object, appUserId: string): Promise<Response> {
    const send = (token: string | undefined) => this.client.unary<Response>(
      SERVICE + method, request, { timeoutMs: this.timeoutMs, headers: userTokenHeaders(token) });
    const token = await this.tokens.token(appUserId, isAnonymousId(appUserId));
    try {
      return await send(token);
    } catch (error) {
      if (!this.tokens.enabled || !isUserTokenRefusal(error)) throw error;
      this.log("info", `${method}: the server refused the user token (${error.message}); asking for a fresh one.`);
      return await send(await this.tokens.fresh(appUserId));
    }
  }

  // Publishing

  /** Takes a server answer for the user of `generation` (in turn: see `queue`), unless it is older than what was
   * seen or, with `statusKeys`, does not verify. */
  private publishServer(customer: CustomerStatusJSON | undefined, generation: number): Promise<void> {
    return this.enqueue(async () => {
      if (!customer || generation !== this.generation) return;
      const snapshot = await this.trusted(customer, this.user);
      if (!snapshot || generation !== this.generation) return;
      if (this.server.origin === "server" && snapshot.version < this.server.version) return;
      if (this.replaysOlder(snapshot)) return;
      this.server = snapshot;
      this.offline = false;
      this.saveToCache(customer, snapshot);
      this.republish();
    });
  }

  /** With `statusKeys`: whether `snapshot`, of a lower version than the signed one held, was also signed before it, a
   * genuine old status replayed (by a proxy, say), which must not undo a newer one even while the held one is only
   * cached. A server whose database went back signs its lower version anew, later, and is taken. */
  private replaysOlder(snapshot: StatusSnapshot): boolean {
    const held = this.server;
    if (!this.verifier || held.validUntil === null || snapshot.version >= held.version) return false;
    if (!held.serverTime || !snapshot.serverTime || snapshot.serverTime > held.serverTime) return false;
    this.log("warning", `Ignored a status from the server: version ${snapshot.version} was signed before the ` +
      `version ${held.version} already verified (replayed).`);
    return true;
  }

  private enqueue(task: () => Promise<void> | void): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A server answer as a snapshot of `appUserId`: with `statusKeys`, the one its signed claims make, or null
   * (logged with the reason) when it is unsigned, forged, altered, another user's or expired. */
  private async trusted(customer: CustomerStatusJSON, appUserId: string): Promise<StatusSnapshot | null> {
    if (!this.verifier) return snapshotOf(customer, appUserId);
    try {
      return await this.verifier.verify(customer.signedStatus, appUserId, "server");
    } catch (error) {
      this.log("warning", `Ignored a status from the server: ${rejection(error)}.`);
      return null;
    }
  }

  /** With `statusKeys` the cache keeps the signed form, verified again when read; else the snapshot. */
  private saveToCache(customer: CustomerStatusJSON, snapshot: StatusSnapshot): void {
    if (this.verifier && customer.signedStatus) this.cache.saveSignedStatus(snapshot.appUserId, customer.signedStatus);
    else if (!this.verifier) this.cache.saveStatus(snapshot);
  }

  /** Takes the signed status the cache keeps for the user of `generation` if it verifies and is newer than what is
   * held; drops it from the cache if it does not verify. `origin`: `cache` at page load, `server` when another tab
   * just received it. */
  private loadSignedStatus(generation: number, origin: "cache" | "server"): Promise<void> {
    return this.enqueue(async () => {
      const user = this.user;
      const jws = this.cache.loadSignedStatus(user);
      if (!jws || !this.verifier || generation !== this.generation) return;
      let snapshot: StatusSnapshot;
      try {
        snapshot = await this.verifier.verify(jws, user, origin);
      } catch (error) {
        this.log("warning", `Dropped the cached status: ${rejection(error)}.`);
        if (this.cache.loadSignedStatus(user) === jws) this.cache.removeStatus(user);
        return;
      }
      if (generation !== this.generation || snapshot.version <= this.server.version) return;
      this.server = snapshot;
      this.republish();
    });
  }

  private republish(): void {
    const next = this.view(Date.now());
    const previous = this.published;
    const change = changeBetween(previous, next);
    const newer = next.version !== previous.version || next.origin !== previous.origin || next.appUserId !== previous.appUserId;
    this.published = next;
    this.scheduleValidity();
    if (!change && !newer) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(next, change);
      } catch (error) {
        this.log("warning", `A status listener threw: ${describe(error)}`);
      }
    }
  }

  /** What to show of the server's status at `now`. With `statusKeys`: `unknown` once its signature's validity ended
   * (nobody vouches for it any more), and offline, without the entitlements that expired since by the device's
   * clock (the server cannot say otherwise). */
  private view(now: number): StatusSnapshot {
    const server = this.server;
    if (!this.verifier) return server;
    const expired = server.validUntil !== null && now >= server.validUntil.getTime();
    if (!this.offline && !expired) return server;
    const origin = this.offline ? "offline" : server.origin;
    if (expired || server.state === "unknown") return { ...server, state: "unknown", entitlements: [], origin };
    const entitlements = server.entitlements.filter((item) => !item.expiresAt || item.expiresAt.getTime() > now);
    return { ...server, state: entitlements.length > 0 ? "active" : "inactive", entitlements, origin };
  }

  /** With `statusKeys`, wakes at the next moment the view changes by the clock: offline, an entitlement's expiry or
   * the signature's end; online, a minute before the signature's end, to ask for a freshly signed status. */
  private scheduleValidity(): void {
    if (this.validityTimer !== null) clearTimeout(this.validityTimer);
    this.validityTimer = null;
    const validUntil = this.server.validUntil?.getTime();
    if (!this.verifier || this.closed || validUntil === undefined) return;
    const now = Date.now();
    if (now >= validUntil) return;
    let due = validUntil;
    if (this.offline) {
      for (const item of this.server.entitlements) {
        const expiresAt = item.expiresAt?.getTime();
        if (expiresAt !== undefined && expiresAt > now) due = Math.min(due, expiresAt);
      }
    } else if (validUntil - RENEW_BEFORE_VALIDITY_ENDS_MS > now) {
      due = validUntil - RENEW_BEFORE_VALIDITY_ENDS_MS;
    }
    const timer = setTimeout(() => this.validityDue(), Math.min(due - now, MAX_TIMER_MS));
    // In Node, a status's expiry alone does not keep a script running.
    (timer as unknown as { unref?: () => void }).unref?.();
    this.validityTimer = timer;
  }

  private validityDue(): void {
    this.validityTimer = null;
    if (this.closed) return;
    this.republish();
    const validUntil = this.server.validUntil?.getTime();
    const now = Date.now();
    const renewing = validUntil !== undefined && now < validUntil && now >= validUntil - RENEW_BEFORE_VALIDITY_ENDS_MS;
    if (renewing && !this.offline) {
      void this.refresh().catch((error) => this.log("info", `Renewing the signed status failed: ${describe(error)}`));
    }
  }

  /** The server could not be reached: with `statusKeys`, show the last verified status as `offline`. */
  private wentOffline(): Promise<void> {
    return this.enqueue(() => {
      if (!this.verifier || this.offline || this.closed) return;
      this.offline = true;
      this.log("info", "The server cannot be reached: showing the last verified status while its signature is valid.");
      this.republish();
    });
  }

  /** The status stream opened: the server is reachable again, and the stream brings anything newer. */
  private backOnline(): void {
    if (!this.offline) return;
    void this.enqueue(() => {
      if (!this.offline) return;
      this.offline = false;
      this.republish();
    });
  }

  // Identity

  private async identifyIfNeeded(): Promise<void> {
    if (this.identifiedOnServer) return;
    const generation = this.generation;
    const response = await this.call<IdentifyResponseJSON>("Identify", { appUserId: this.user }, this.user);
    if (generation !== this.generation) return;
    this.identifiedOnServer = true;
    await this.publishServer(response.customer, generation);
  }

  /** The server answered NOT_FOUND for the user it was told of (its database was reset or restored): Identify again,
   * and take its next answer whatever the version, since the versions seen were of a customer it no longer holds. */
  private serverForgotCustomer(): void {
    this.identifiedOnServer = false;
    if (this.server.origin === "server") this.server = { ...this.server, origin: "cache" };
  }

  private async switchUser(next: string, response: IdentifyResponseJSON | null): Promise<void> {
    if (next === this.user) {
      this.identifiedOnServer = response !== null || this.identifiedOnServer;
      await this.publishServer(response?.customer, this.generation);
      return;
    }
    // Verified before the switch, so listeners do not see the new user as unknown in between.
    const answer = response?.customer ? await this.trusted(response.customer, next) : null;
    this.generation += 1;
    this.user = next;
    this.tokens.keepOnly(next);
    this.identifiedOnServer = response !== null;
    if (response !== null) this.offline = false;
    this.cache.saveAppUserId(next);
    if (answer && response?.customer) {
      this.server = answer;
      this.saveToCache(response.customer, answer);
    } else if (this.verifier) {
      this.server = unknownStatus(next);
    } else {
      this.server = this.cache.loadStatus(next) ?? unknownStatus(next);
      this.cache.saveStatus(this.server);
    }
    this.republish();
    if (this.verifier && !answer) void this.loadSignedStatus(this.generation, "cache");
    if (this.stream) {
      this.closeStream();
      this.openStreamIfWanted();
    }
  }

  /** Another tab of this site signed in or out, or cached a newer status of this user. */
  private storageChanged(event: StorageEvent): void {
    if (this.closed || event.newValue === null) return;
    if (event.key === this.cache.identityKey && event.newValue !== this.user) {
      this.log("info", "Another tab changed the user; following it.");
      void this.switchUser(event.newValue, null);
    } else if (event.key === this.cache.statusKey(this.user)) {
      if (this.verifier) {
        void this.loadSignedStatus(this.generation, "server");
        return;
      }
      const cached = this.cache.loadStatus(this.user);
      if (cached && cached.version > this.server.version) {
        this.server = { ...cached, origin: "server" };
        this.republish();
      }
    }
  }

  // The stream

  private openStreamIfWanted(): void {
    if (this.stream || this.listeners.size === 0 || this.closed) return;
    const controller = new AbortController();
    this.stream = controller;
    void this.runStream(this.generation, controller.signal);
  }

  private closeStream(): void {
    this.stream?.abort();
    this.stream = null;
  }

  /** Opens the stream, reads it until it ends, and reopens it after a backoff from the last version seen, until
   * aborted or the user changes. The backoff resets after a stream that delivered and stayed up a while. A stream
   * the server ended because its user token expired reopens at once with a fresh token (from the last version seen,
   * so nothing is lost); a token refused at open is replaced at once only once in a row, then waits like any
   * failure, so a provider that keeps giving refused tokens is not called in a loop. */
  private async runStream(generation: number, signal: AbortSignal): Promise<void> {
    let attempt = 0;
    let freshToken = false;
    let retriedForToken = false;
    while (!signal.aborted && generation === this.generation) {
      const opened = Date.now();
      let delivered = false;
      let atOnce = false;
      try {
        await this.identifyIfNeeded();
        const user = this.user;
        const token = freshToken ? await this.tokens.fresh(user) : await this.tokens.token(user, isAnonymousId(user));
        freshToken = false;
        // Every answer taken, so afterVersion is the last version received.
        await this.queue;
        if (signal.aborted || generation !== this.generation) return;
        this.streamsOpened += 1;
        const request = { appUserId: user, afterVersion: this.server.version.toString() };
        await this.client.serverStream(SERVICE + "StreamStatus", request, {
          signal,
          headers: userTokenHeaders(token),
          onOpen: () => this.backOnline(),
          onMessage: (message) => {
            delivered = true;
            const event = message as { kind?: string; customer?: CustomerStatusJSON };
            if (event.kind !== "HEARTBEAT") void this.publishServer(event.customer, generation);
          },
        });
        this.log("info", "The status stream ended; reconnecting.");
      } catch (error) {
        if (signal.aborted || generation !== this.generation) return;
        if (error instanceof ConnectError && error.code === "not_found") {
          if (error.message.startsWith(DELETED_PREFIX)) {
            this.log("warning", "The server deleted this user; continuing as a new anonymous user.");
            void this.logOut().catch((failure) => this.log("warning", `Logging out failed: ${describe(failure)}`));
            return;
          }
          this.serverForgotCustomer();
        }
        if (this.tokens.enabled && isUserTokenRefusal(error)) {
          this.tokens.discard(this.user);
          freshToken = true;
          atOnce = isStreamTokenExpiry(error) || !retriedForToken;
          this.log("info", isStreamTokenExpiry(error)
            ? "The status stream's user token expired; reopening it with a fresh one."
            : `The status stream's user token was refused (${error.message}); reopening it with a fresh one.`);
        } else {
          if (isUnreachable(error)) void this.wentOffline();
          this.log("info", `The status stream failed (${describe(error)}); reconnecting.`);
        }
      }
      retriedForToken = atOnce;
      if (atOnce) continue;
      if (delivered && Date.now() - opened >= this.backoff.healthyAfterMs) attempt = 0;
      const delay = this.random() * backoffStep(this.backoff, attempt);
      attempt += 1;
      await sleep(delay, signal);
    }
  }

  private log(level: "debug" | "info" | "warning", message: string): void {
    this.logger?.(level, message);
  }
}

function defaultStorage(): KeyValueStorage {
  try {
    const storage = globalThis.localStorage;
    if (storage) return storage;
  } catch {
    // Access denied (a sandboxed frame, some private modes).
  }
  return new MemoryStorage();
}

/** A version 4 UUID, lowercase; `crypto.randomUUID` exists only in secure contexts (https, localhost). */
function randomUUID(): string {
  const crypto = globalThis.crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (crypto?.getRandomValues) crypto.getRandomValues(bytes);
  else for (let index = 0; index < 16; index++) bytes[index] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

function isAnonymousId(appUserId: string): boolean {
  return appUserId.startsWith(ANONYMOUS_PREFIX);
}

/** The server could not be reached (a network failure, or a proxy's 502/503/504): with `statusKeys`, offline. */
function isUnreachable(error: unknown): boolean {
  return error instanceof ConnectError && error.code === "unavailable";
}

/** Why a status was not trusted, for the log. */
function rejection(error: unknown): string {
  return error instanceof StatusRejection ? error.message : `it could not be verified (${String(error)})`;
}

function describe(error: unknown): string {
  return error instanceof ConnectError ? `${error.code}: ${error.message}` : String(error);
}
