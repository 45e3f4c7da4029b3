// The AdminService messages the console sends and reads (Protos/entitlements/v1/admin_service.proto), on the
// shared wire helpers of protobuf.js.

import { Writer, fields, last, str, num, bool, timestamp, customerStatus, Source } from "./protobuf.js";

export const Service = "/entitlements.v1.AdminService/";

const Environment = { 1: "PRODUCTION", 2: "SANDBOX", 3: "XCODE", 4: "LOCAL_TESTING" };
const Acknowledgement = { 1: "NOT_REQUIRED", 2: "PENDING", 3: "ACKNOWLEDGED", 4: "FAILED" };
export const Cause = {
  1: "CREATED", 2: "MERGED", 3: "PURCHASE", 4: "RESTORE", 5: "TRANSFERRED_IN", 6: "TRANSFERRED_OUT",
  7: "APP_STORE_NOTIFICATION", 8: "PLAY_STORE_NOTIFICATION", 9: "GRANT", 10: "REVOKE", 11: "EXPIRY", 12: "STORE_API",
  13: "STRIPE_WEBHOOK", 14: "REDEMPTION", 15: "SUPPORT", 16: "ATTRIBUTES", 17: "OFFER_SIGNED",
};
const Change = { 2: "STATUS_CHANGED", 3: "CUSTOMER_INFO_CHANGED" };
export const DeliveryState = { 1: "PENDING", 2: "DELIVERED", 3: "FAILED", 4: "NOTICE" };
const MatchedBy = {
  1: "app user ID", 2: "alias", 3: "original transaction ID", 4: "latest transaction ID", 5: "Stripe ID",
  6: "e-mail address",
};

const all = (map, n, decode) => (map.get(n) ?? []).map(decode);
const strings = (map, n) => all(map, n, (bytes) => new TextDecoder().decode(bytes));

function grant(bytes) {
  const map = fields(bytes);
  return {
    grantId: str(map, 1), entitlementId: str(map, 3), startsAt: timestamp(last(map, 4)),
    expiresAt: timestamp(last(map, 5)), revokedAt: timestamp(last(map, 6)), reason: str(map, 7),
    revocationReason: str(map, 8),
  };
}

function attribute(bytes) {
  const map = fields(bytes);
  return { key: str(map, 1), value: str(map, 2), updatedAt: timestamp(last(map, 3)) };
}

function transaction(bytes) {
  const map = fields(bytes);
  return {
    store: Source[num(map, 1)] ?? "UNKNOWN", productId: str(map, 2), originalTransactionId: str(map, 3),
    transactionId: str(map, 4), environment: Environment[num(map, 5)] ?? "", purchasedAt: timestamp(last(map, 6)),
    expiresAt: timestamp(last(map, 8)), revokedAt: timestamp(last(map, 9)), revocationReason: str(map, 10),
    familyShared: num(map, 12) === 2, willRenew: bool(map, 13), inGracePeriod: bool(map, 14),
    inBillingRetry: bool(map, 15), renewalProductId: str(map, 16), supersededBy: str(map, 17),
    acknowledgement: Acknowledgement[num(map, 19)] ?? "", acknowledgementError: str(map, 21), suspended: bool(map, 22),
  };
}

function offerSignature(bytes) {
  const map = fields(bytes);
  return {
    offerId: str(map, 1), productId: str(map, 2), nonce: str(map, 3), signedAt: timestamp(last(map, 4)),
    redeemedTransactionId: str(map, 5), redeemedAt: timestamp(last(map, 6)),
  };
}

export function customer(bytes) {
  const map = fields(bytes);
  return {
    status: customerStatus(last(map, 1)), aliases: strings(map, 2), grants: all(map, 3, grant),
    transactions: all(map, 4, transaction), attributes: all(map, 5, attribute),
    offerSignatures: all(map, 6, offerSignature),
  };
}

function event(bytes) {
  const map = fields(bytes);
  return {
    version: last(map, 1) ?? 0n, cause: Cause[num(map, 2)] ?? "UNKNOWN", change: Change[num(map, 3)] ?? "",
    reason: str(map, 4), occurredAt: timestamp(last(map, 5)), related: str(map, 7), reference: str(map, 8),
    keyName: str(map, 9),
    entitlements: last(map, 6) ? (fields(last(map, 6)).get(2) ?? []).map((e) => str(fields(e), 1)) : [],
  };
}

export function eventPage(bytes) {
  const map = fields(bytes);
  return { events: all(map, 1, event), nextPageToken: str(map, 2) };
}

function delivery(bytes) {
  const map = fields(bytes);
  return {
    id: last(map, 1) ?? 0n, endpointId: str(map, 2), webhookId: str(map, 3), type: str(map, 4),
    state: DeliveryState[num(map, 5)] ?? "UNKNOWN", version: last(map, 7) ?? 0n, createdAt: timestamp(last(map, 8)),
    attempts: num(map, 9), lastStatus: num(map, 11), lastError: str(map, 12), nextAttemptAt: timestamp(last(map, 13)),
    deliveredAt: timestamp(last(map, 14)),
  };
}

export function deliveryPage(bytes) {
  return { deliveries: all(fields(bytes), 1, delivery) };
}

export function keyDescription(bytes) {
  const map = fields(bytes);
  return {
    tenantId: str(map, 1), keyName: str(map, 2), canWrite: num(map, 3) === 2, entitlements: strings(map, 4),
    allowsUndeclared: bool(map, 5), webhookEndpoints: strings(map, 6),
  };
}

export function matches(bytes) {
  return all(fields(bytes), 1, (match) => {
    const map = fields(match);
    return {
      appUserId: str(map, 1), matchedBy: MatchedBy[num(map, 2)] ?? "", store: Source[num(map, 3)] ?? "",
      originalTransactionId: str(map, 4),
    };
  });
}

export function counts(bytes) {
  const map = fields(bytes);
  const count = (entry) => { const m = fields(entry); return { id: str(m, 1), customers: num(m, 2) }; };
  return { active: num(map, 1), entitlements: all(map, 2, count), countedAt: timestamp(last(map, 5)) };
}

export const describeKeyRequest = () => new Uint8Array(0);
export const countCustomersRequest = () => new Uint8Array(0);
export const findCustomersRequest = (query) => new Writer().string(1, query).finish();
export const getCustomerRequest = (appUserId) => new Writer().string(1, appUserId).finish();
export const eventsRequest = (appUserId, pageToken = "") =>
  new Writer().string(1, appUserId).uint64(2, 50).string(3, pageToken).finish();
export const deliveriesRequest = (appUserId) => new Writer().string(2, appUserId).uint64(6, 50).finish();
export const redeliverRequest = (deliveryId) => new Writer().uint64(1, deliveryId).finish();
export const deleteRequest = (appUserId, confirmation) =>
  new Writer().string(1, appUserId).string(2, confirmation).finish();
export const exportRequest = (appUserId) => new Writer().string(1, appUserId).finish();
// An ExportCustomerChunk's bytes: the parts joined in order are the JSON document.
export const exportChunk = (bytes) => last(fields(bytes), 1) ?? new Uint8Array(0);
// SetCustomerAttributesRequest: one key set to a value, or removed.
export const setAttributeRequest = (appUserId, key, value) =>
  new Writer().string(1, appUserId).message(2, new Writer().string(1, key).string(2, value).finish()).finish();
export const unsetAttributeRequest = (appUserId, key) => new Writer().string(1, appUserId).string(3, key).finish();
export const revokeRequest = (grantId, reason) => new Writer().string(1, grantId).string(2, reason).finish();
export const grantRequest = (appUserId, entitlementId, days, reason, idempotencyKey) =>
  new Writer().string(1, appUserId).string(2, entitlementId)
    .message(4, new Writer().uint64(1, Math.round(days * 86400)).finish())
    .string(5, reason).string(6, idempotencyKey).finish();
