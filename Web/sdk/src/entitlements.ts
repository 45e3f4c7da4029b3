// The page's view of its user's entitlements: a live cache of the server's status, as the Swift SDK keeps it.
//
// It starts with the last status the cache kept (origin `cache`; `unknown` only when nothing was ever known), asks
// the server, and holds one StreamStatus open while anyone listens, resuming after every disconnect from the last
// version seen (`afterVersion`) after a backoff with full jitter. A published status never goes back to a lower
// server version than one already seen, and each one is cached. Tabs of one site share the cache: a sign-in or
// sign-out in one is followed by the others.

import { backoffStep, Backoff, defaultBackoff } from "./backoff.js";
import { KeyValueStorage, MemoryStorage, StatusCache } from "./cache.js";
import { ConnectClient, ConnectError } from "./connect.js";
import { changeBetween, CustomerStatusJSON, snapshotOf, StatusChange, StatusSnapshot, unknownStatus } from "./status.js";

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

export type StatusListener = (snapshot: StatusSnapshot, change: StatusChange | null) => void;

const SERVICE = "/entitlements.v1.EntitlementService/";
const ANONYMOUS_PREFIX = "$anon:";
/** How the server's NOT_FOUND begins for a user it erased. */
const DELETED_PREFIX = "customer deleted";

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
    const cached = this.cache.loadAppUserId();
    this.user = cached ?? ANONYMOUS_PREFIX + randomUUID();
    if (!cached) this.cache.saveAppUserId(this.user);
    this.server = this.cache.loadStatus(this.user) ?? unknownStatus(this.user);
    this.published = this.server;
    globalThis.addEventListener?.("storage", this.onStorage as EventListener);
  }

  /** The ID the SDK speaks for: the signed-in account, or the anonymous ID (`$anon:` and a UUID). */
  get appUserId(): string {
    return this.user;
  }

  get isAnonymous(): boolean {
    return this.user.startsWith(ANONYMOUS_PREFIX);
  }

  /** What listeners were last told. */
  get current(): StatusSnapshot {
    return this.published;
  }

  /** Call once when the page loads: asks the server. Failures are logged, not thrown: the cached status stands, and
   * a listener's stream keeps trying. */
  async start(): Promise<StatusSnapshot> {
    try {
      await this.refresh();
    } catch (error) {
      this.log("warning", `SyncStatus at start failed: ${describe(error)}`);
    }
    return this.published;
  }

  /** Asks the server now and publishes its answer. */
  async refresh(): Promise<StatusSnapshot> {
    const generation = this.generation;
    const user = this.user;
    await this.identifyIfNeeded();
    if (generation !== this.generation) return this.published;
    try {
      const answer = await this.client.unary<{ customer?: CustomerStatusJSON }>(
        SERVICE + "SyncStatus", { appUserId: user }, { timeoutMs: this.timeoutMs });
      this.publishServer(answer.customer, generation);
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
    const response = await this.client.unary<IdentifyResponseJSON>(
      SERVICE + "Identify", { appUserId, anonymousId }, { timeoutMs: this.timeoutMs });
    this.switchUser(appUserId, response);
    this.log("info", `Identified${response.merged ? ", merging the anonymous customer" : ""}.`);
    return { created: response.created ?? false, merged: response.merged ?? false };
  }

  /** Signs the user out: the SDK continues as a fresh anonymous ID, which the server creates now. */
  async logOut(): Promise<void> {
    const anonymousId = ANONYMOUS_PREFIX + randomUUID();
    const response = await this.client.unary<IdentifyResponseJSON>(
      SERVICE + "Identify", { appUserId: anonymousId }, { timeoutMs: this.timeoutMs });
    this.switchUser(anonymousId, response);
    this.log("info", "Logged out; continuing as a new anonymous user.");
  }

  /** Claims a web purchase made without an account (an anonymous Stripe Checkout) with its redemption code
   * (`rc_` and 32 letters and digits): it becomes the current user's. Throws the server's refusal. */
  async redeemWebPurchase(code: string): Promise<StatusSnapshot> {
    const generation = this.generation;
    await this.identifyIfNeeded();
    const response = await this.client.unary<{ customer?: CustomerStatusJSON }>(
      SERVICE + "Purchase", { appUserId: this.user, webRedemption: { code: code.trim() } }, { timeoutMs: this.timeoutMs });
    this.publishServer(response.customer, generation);
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
    globalThis.removeEventListener?.("storage", this.onStorage as EventListener);
  }

  // Publishing

  /** Takes a server answer for the user of `generation`, unless it is older than what was seen. */
  private publishServer(customer: CustomerStatusJSON | undefined, generation: number): void {
    if (!customer || generation !== this.generation) return;
    const snapshot = snapshotOf(customer, this.user);
    if (this.server.origin === "server" && snapshot.version < this.server.version) return;
    this.server = snapshot;
    this.cache.saveStatus(snapshot);
    this.republish();
  }

  private republish(): void {
    const next = this.server;
    const previous = this.published;
    const change = changeBetween(previous, next);
    const newer = next.version !== previous.version || next.origin !== previous.origin || next.appUserId !== previous.appUserId;
    this.published = next;
    if (!change && !newer) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(next, change);
      } catch (error) {
        this.log("warning", `A status listener threw: ${describe(error)}`);
      }
    }
  }

  // Identity

  private async identifyIfNeeded(): Promise<void> {
    if (this.identifiedOnServer) return;
    const generation = this.generation;
    const response = await this.client.unary<IdentifyResponseJSON>(
      SERVICE + "Identify", { appUserId: this.user }, { timeoutMs: this.timeoutMs });
    if (generation !== this.generation) return;
    this.identifiedOnServer = true;
    this.publishServer(response.customer, generation);
  }

  /** The server answered NOT_FOUND for the user it was told of (its database was reset or restored): Identify again,
   * and take its next answer whatever the version, since the versions seen were of a customer it no longer holds. */
  private serverForgotCustomer(): void {
    this.identifiedOnServer = false;
    if (this.server.origin === "server") this.server = { ...this.server, origin: "cache" };
  }

  private switchUser(next: string, response: IdentifyResponseJSON | null): void {
    if (next === this.user) {
      this.identifiedOnServer = response !== null || this.identifiedOnServer;
      this.publishServer(response?.customer, this.generation);
      return;
    }
    this.generation += 1;
    this.user = next;
    this.identifiedOnServer = response !== null;
    this.cache.saveAppUserId(next);
    this.server = response?.customer
      ? snapshotOf(response.customer, next)
      : this.cache.loadStatus(next) ?? unknownStatus(next);
    this.cache.saveStatus(this.server);
    this.republish();
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
      this.switchUser(event.newValue, null);
    } else if (event.key === this.cache.statusKey(this.user)) {
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
   * aborted or the user changes. The backoff resets after a stream that delivered and stayed up a while. */
  private async runStream(generation: number, signal: AbortSignal): Promise<void> {
    let attempt = 0;
    while (!signal.aborted && generation === this.generation) {
      const opened = Date.now();
      let delivered = false;
      try {
        await this.identifyIfNeeded();
        if (signal.aborted || generation !== this.generation) return;
        this.streamsOpened += 1;
        const request = { appUserId: this.user, afterVersion: this.server.version.toString() };
        await this.client.serverStream(SERVICE + "StreamStatus", request, {
          signal,
          onMessage: (message) => {
            delivered = true;
            const event = message as { kind?: string; customer?: CustomerStatusJSON };
            if (event.kind !== "HEARTBEAT") this.publishServer(event.customer, generation);
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
        this.log("info", `The status stream failed (${describe(error)}); reconnecting.`);
      }
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

function describe(error: unknown): string {
  return error instanceof ConnectError ? `${error.code}: ${error.message}` : String(error);
}
