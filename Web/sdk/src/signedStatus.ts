// Signed status: a tenant with `signed_status` signs every status the server sends (CustomerStatus.signedStatus, a
// compact ES256 JWS), and an app that pins the tenant's public keys (`statusKeys`) trusts a status only when its
// signature verifies. Then neither a proxy, nor an extension rewriting responses, nor an edit of localStorage can
// make the page show entitlements the server did not grant, and a cached status can be shown offline for as long as
// the signature's `exp` allows. The status shown is built from the signed claims only, never from the unsigned
// fields beside them.

import { decodeBase64URL } from "./base64url.js";
import { Entitlement, EntitlementSource, StatusSnapshot } from "./status.js";
import { subtleCrypto } from "./webCrypto.js";

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
export class StatusRejection extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "StatusRejection";
  }
}

/** The claims of a signed status (the server's StatusClaims), in the webhooks' vocabulary. */
export interface SignedStatusClaims {
  tenant: string;
  /** The canonical app user ID. */
  sub: string;
  /** The ID the app asked about, when it is an alias of `sub`. */
  alias?: string;
  version: number;
  status: { state: "active" | "inactive"; entitlements: SignedEntitlementClaims[] };
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

const SOURCES: Record<string, EntitlementSource> = {
  app_store: "app_store", play_store: "play_store", web: "web", grant: "grant",
};

/** Checks signed statuses against the pinned keys: the keys are given with the app, never fetched, so whoever can
 * change what the page downloads at run time cannot change which keys it trusts. Only statuses signed for `tenant`
 * count: an operator may sign several tenants' statuses with one key. */
export class StatusVerifier {
  private readonly keys = new Map<string, StatusPublicKey>();
  private readonly imported = new Map<string, Promise<CryptoKey>>();
  private readonly tenant: string;

  /** Throws a TypeError when `keySet` (a JWKS, or its JSON) holds no usable key or `tenant` is not a tenant ID: a
   * configuration mistake. */
  constructor(keySet: JsonWebKeySet | string, tenant: string) {
    if (typeof tenant !== "string" || tenant === "") {
      throw new TypeError("statusKeys needs tenant: the ID of the tenant whose statuses they sign.");
    }
    this.tenant = tenant;
    let parsed: unknown = keySet;
    if (typeof keySet === "string") {
      try {
        parsed = JSON.parse(keySet);
      } catch {
        throw new TypeError("statusKeys is not JSON.");
      }
    }
    const keys = (parsed as { keys?: unknown })?.keys;
    if (!Array.isArray(keys)) throw new TypeError('statusKeys is not a JSON Web Key Set ({"keys": [...]}).');
    for (const key of keys as StatusPublicKey[]) {
      if (key?.kty === "EC" && key.crv === "P-256" && typeof key.kid === "string" && typeof key.x === "string" &&
          typeof key.y === "string") {
        this.keys.set(key.kid, key);
      }
    }
    if (this.keys.size === 0) throw new TypeError("statusKeys holds no P-256 key with a kid.");
  }

  /**
   * The snapshot `jws` vouches for, if it is a status of this tenant's `appUserId` (its `sub`, or its `alias` when the
   * app knows the user by an alias), signed by a pinned key, and not expired at `now` by the device's clock; rejects with a
   * StatusRejection naming what failed otherwise.
   */
  async verify(
    jws: string | undefined, appUserId: string, origin: "server" | "cache", now = Date.now(),
  ): Promise<StatusSnapshot> {
    if (!jws) throw new StatusRejection("it is not signed");
    const parts = jws.split(".");
    if (parts.length !== 3) throw new StatusRejection("its signature is not a compact JWS");
    const header = parseJSONPart(parts[0], "header");
    if (header.alg !== "ES256") throw new StatusRejection(`its algorithm is ${quote(header.alg)}, not ES256`);
    const kid = typeof header.kid === "string" ? header.kid : "";
    const key = this.keys.get(kid);
    if (!key) throw new StatusRejection(`its key ${quote(header.kid)} is not one of statusKeys`);
    const signature = decodePart(parts[2], "signature");
    if (signature.length !== 64) throw new StatusRejection("its signature is not an ES256 signature");
    const subtle = await subtleCrypto();
    if (!subtle) throw new StatusRejection("this page has no WebCrypto to verify it with (crypto.subtle needs https)");
    const signed = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
    const publicKey = await this.importKey(kid, key, subtle);
    if (!(await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, publicKey, signature, signed))) {
      throw new StatusRejection(`its signature does not verify with key ${quote(kid)}: forged, or altered since`);
    }
    const claims = checkClaims(parseJSONPart(parts[1], "claims"));
    if (claims.tenant !== this.tenant) {
      throw new StatusRejection(`it is signed for tenant ${quote(claims.tenant)}, not this page's`);
    }
    if (claims.sub !== appUserId && claims.alias !== appUserId) {
      throw new StatusRejection("it is the status of another user");
    }
    if (claims.exp * 1000 <= now) {
      throw new StatusRejection(`its signature's validity ended at ${new Date(claims.exp * 1000).toISOString()}`);
    }
    return snapshotOfClaims(claims, appUserId, origin);
  }

  private importKey(kid: string, key: StatusPublicKey, subtle: SubtleCrypto): Promise<CryptoKey> {
    let imported = this.imported.get(kid);
    if (!imported) {
      // Only the key's own fields: a JWK's `alg`, `use` or `key_ops` must not make WebCrypto refuse it.
      const jwk = { kty: "EC", crv: "P-256", x: key.x, y: key.y, ext: true };
      imported = subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"])
        .catch(() => {
          throw new StatusRejection(`key ${quote(kid)} of statusKeys is not a valid P-256 public key`);
        });
      this.imported.set(kid, imported);
    }
    return imported;
  }
}

/** The snapshot of verified claims: state and entitlements as signed; `serverTime` the signed `iat`, `validUntil`
 * the signed `exp`. */
function snapshotOfClaims(claims: SignedStatusClaims, appUserId: string, origin: "server" | "cache"): StatusSnapshot {
  const entitlements: Entitlement[] = claims.status.entitlements.map((item) => ({
    id: item.id,
    source: SOURCES[item.source] ?? "unknown",
    productId: item.product_id,
    expiresAt: item.expires_at === null ? null : new Date(item.expires_at),
    willRenew: item.will_renew,
    inGracePeriod: item.in_grace_period,
    inBillingRetry: item.in_billing_retry,
  }));
  return {
    appUserId,
    state: claims.status.state,
    entitlements,
    version: BigInt(claims.version),
    origin,
    serverTime: new Date(claims.iat * 1000),
    validUntil: new Date(claims.exp * 1000),
  };
}

/** The claims, if they have the shape the server signs (a signed status of another shape is not understood, so not
 * trusted). */
function checkClaims(value: Record<string, unknown>): SignedStatusClaims {
  const bad = (what: string): never => {
    throw new StatusRejection(`its claims have no valid ${what}`);
  };
  if (typeof value.tenant !== "string") bad("tenant");
  if (typeof value.sub !== "string") bad("sub");
  if (value.alias !== undefined && typeof value.alias !== "string") bad("alias");
  if (!Number.isSafeInteger(value.version) || (value.version as number) < 0) bad("version");
  for (const name of ["iat", "exp"]) if (typeof value[name] !== "number" || !Number.isFinite(value[name])) bad(name);
  const status = value.status as Record<string, unknown> | undefined;
  if (status?.state !== "active" && status?.state !== "inactive") bad("status.state");
  if (!Array.isArray(status?.entitlements)) bad("status.entitlements");
  for (const item of status!.entitlements as Record<string, unknown>[]) {
    const expiresAt = item?.expires_at;
    if (typeof item?.id !== "string" || typeof item.source !== "string" || typeof item.product_id !== "string" ||
        !(expiresAt === null || (typeof expiresAt === "string" && !Number.isNaN(Date.parse(expiresAt)))) ||
        typeof item.will_renew !== "boolean" || typeof item.in_grace_period !== "boolean" ||
        typeof item.in_billing_retry !== "boolean") {
      bad("entitlement");
    }
  }
  return value as unknown as SignedStatusClaims;
}

function parseJSONPart(part: string, what: string): Record<string, unknown> {
  const bytes = decodePart(part, what);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new StatusRejection(`its ${what} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new StatusRejection(`its ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

function decodePart(text: string, what: string): Uint8Array {
  const bytes = decodeBase64URL(text);
  if (!bytes) throw new StatusRejection(`its ${what} is not base64url`);
  return bytes;
}

/** A value from the JWS for a log line: short, so a hostile header cannot flood the log. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 70 ? text.slice(0, 67) + "..." : text;
}
