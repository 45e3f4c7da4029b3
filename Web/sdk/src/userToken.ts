// User tokens: for a tenant whose `user_tokens` require them, the site's own backend proves who the user is with a
// short-lived JWT (sub: the app user ID, aud: the tenant), which every app-facing call and stream carries as the
// header `entitlements-user-token`. The SDK only holds and schedules tokens; the server verifies them. A token is a
// credential, so none is ever logged, put into an error, or cached across page loads.

import { decodeBase64URL } from "./base64url.js";
import { ConnectError } from "./connect.js";

/**
 * Returns a user token for `appUserId` from the site's backend (a fresh one each call), or "" when there is none.
 * Called when the SDK holds no token for that user or the one it holds is about to expire, and once more after the
 * server refused one. Anonymous IDs (`$anon:…`) are asked for only after the server refused a call without one (a
 * tenant whose `allow_anonymous` is false).
 */
export type UserTokenProvider = (appUserId: string) => Promise<string> | string;

export const USER_TOKEN_HEADER = "entitlements-user-token";

/** A held token is replaced this long before its `exp`, so no call leaves with a token that expires on the way. */
const REFRESH_MARGIN_MS = 30_000;

/** Whether `error` is the server refusing a user token (missing, expired, of someone else...) or ending a stream
 * whose token expired: the cases a fresh token may fix. */
export function isUserTokenRefusal(error: unknown): error is ConnectError {
  return error instanceof ConnectError && error.code === "unauthenticated" && error.message.startsWith("user token");
}

/** The server's end of a stream whose token expired (it ends it at `exp` + 5 s), as opposed to a refusal at open. */
export function isStreamTokenExpiry(error: unknown): boolean {
  return isUserTokenRefusal(error) && error.message.startsWith("user token expired");
}

/** The request headers that carry `token` (none without one). */
export function userTokenHeaders(token: string | undefined): Record<string, string> {
  return token ? { [USER_TOKEN_HEADER]: token } : {};
}

/**
 * When a token should be replaced (ms since the epoch), read from its unverified payload: `exp` less 30 s, or half
 * its lifetime for a token that lives under a minute (else a short-lived token would be replaced at every call);
 * null when there is no readable `exp` (the SDK then keeps it until the server refuses it).
 */
export function refreshTimeOf(token: string): number | null {
  try {
    const payload = decodeBase64URL(token.split(".")[1] ?? "");
    if (!payload) return null;
    const claims = JSON.parse(new TextDecoder().decode(payload)) as { exp?: unknown; iat?: unknown };
    if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp)) return null;
    const expiresAt = claims.exp * 1000;
    const lifetime = typeof claims.iat === "number" ? expiresAt - claims.iat * 1000 : Infinity;
    return expiresAt - Math.min(REFRESH_MARGIN_MS, Math.max(0, lifetime / 2));
  } catch {
    return null;
  }
}

/** The token the SDK holds (one, for one user: a token proves one ID) and the provider calls under way. */
export class UserTokens {
  private held: { appUserId: string; token: string; refreshAt: number | null } | null = null;
  /** One provider call per user at a time: the stream and a call that start together share it. */
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly provider: UserTokenProvider | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the app gave a provider (without one, the SDK sends no token and retries nothing). */
  get enabled(): boolean {
    return this.provider !== undefined;
  }

  /** The token to send with a call for `appUserId`: the held one while it is not about to expire, else a new one
   * from the provider; for an anonymous ID only one held already (see UserTokenProvider). undefined: send none. */
  async token(appUserId: string, anonymous: boolean): Promise<string | undefined> {
    if (!this.provider) return undefined;
    const held = this.held?.appUserId === appUserId ? this.held : null;
    if (held && (held.refreshAt === null || this.now() < held.refreshAt)) return held.token;
    if (!held && anonymous) return undefined;
    return this.fresh(appUserId);
  }

  /** A new token from the provider for `appUserId` (after the server refused the held one), which is then held. */
  async fresh(appUserId: string): Promise<string | undefined> {
    if (!this.provider) return undefined;
    if (this.held?.appUserId === appUserId) this.held = null;
    let pending = this.pending.get(appUserId);
    if (!pending) {
      pending = this.ask(appUserId);
      this.pending.set(appUserId, pending);
      const forget = () => this.pending.delete(appUserId);
      pending.then(forget, forget);
    }
    const token = await pending;
    return token || undefined;
  }

  /** Forgets the held token (the server refused it). */
  discard(appUserId: string): void {
    if (this.held?.appUserId === appUserId) this.held = null;
  }

  /** Forgets a token of anyone but `appUserId` (the SDK now speaks for it: a signed-out user's token goes). */
  keepOnly(appUserId: string): void {
    if (this.held && this.held.appUserId !== appUserId) this.held = null;
  }

  private async ask(appUserId: string): Promise<string> {
    let token: unknown;
    try {
      token = await this.provider!(appUserId);
    } catch (error) {
      // The app's own failure (its backend unreachable, the user signed out): named, and no token to hide in it.
      throw new ConnectError("unauthenticated", `The userToken provider failed: ${String(error)}`);
    }
    if (typeof token !== "string") {
      throw new ConnectError("unauthenticated", "The userToken provider returned no string.");
    }
    this.held = token ? { appUserId, token, refreshAt: refreshTimeOf(token) } : null;
    return token;
  }
}
