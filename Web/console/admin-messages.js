// The AdminService messages the console sends and reads (Protos/entitlements/v1/admin_service.proto), and
// EntitlementService.StreamStatus's (status.proto), in protobuf's JSON mapping as the Connect client carries them.
// The server leaves out every field at its default, so each reader fills those in: the pages see every field,
// 64-bit integers as BigInt and times as Date (null when unset).

export const Service = "/entitlements.v1.AdminService/";

// What FindCustomers' query matched, in the words the results say it.
const MatchedBy = {
  APP_USER_ID: "app user ID", ALIAS: "alias", ORIGINAL_TRANSACTION_ID: "original transaction ID",
  TRANSACTION_ID: "latest transaction ID", STORE_REFERENCE: "Stripe ID", EMAIL: "e-mail address",
};
const DeliveryStatePrefix = "WEBHOOK_DELIVERY_STATE_";

// An int64 or uint64, which the JSON carries as a decimal string.
export const int64 = (text = "0") => BigInt(text);
// A Timestamp, which the JSON carries as RFC 3339 (Date keeps the milliseconds).
export const timestamp = (text) => (text ? new Date(text) : null);

function entitlement({ id = "", source = "UNKNOWN", productId = "", expiresAt, willRenew = false,
  inGracePeriod = false, inBillingRetry = false }) {
  return { id, source, productId, expiresAt: timestamp(expiresAt), willRenew, inGracePeriod, inBillingRetry };
}

function customerStatus({ appUserId = "", status = {}, version, serverTime }) {
  return {
    appUserId, active: status.state === "ACTIVE", entitlements: (status.entitlements ?? []).map(entitlement),
    version: int64(version), serverTime: timestamp(serverTime),
  };
}

// A StreamStatus event; a HEARTBEAT carries no customer.
export function statusEvent({ kind = "UNKNOWN", customer, reason = "" }) {
  return { kind, customer: customer ? customerStatus(customer) : null, reason };
}

function grant({ grantId = "", entitlementId = "", startsAt, expiresAt, revokedAt, reason = "",
  revocationReason = "" }) {
  return {
    grantId, entitlementId, startsAt: timestamp(startsAt), expiresAt: timestamp(expiresAt),
    revokedAt: timestamp(revokedAt), reason, revocationReason,
  };
}

const attribute = ({ key = "", value = "", updatedAt }) => ({ key, value, updatedAt: timestamp(updatedAt) });

function transaction({ store = "UNKNOWN", productId = "", originalTransactionId = "", transactionId = "",
  environment = "", purchasedAt, expiresAt, revokedAt, revocationReason = "", ownership, willRenew = false,
  inGracePeriod = false, inBillingRetry = false, renewalProductId = "", supersededBy = "", acknowledgement = "",
  acknowledgementError = "", suspended = false }) {
  return {
    store, productId, originalTransactionId, transactionId, environment, purchasedAt: timestamp(purchasedAt),
    expiresAt: timestamp(expiresAt), revokedAt: timestamp(revokedAt), revocationReason,
    familyShared: ownership === "FAMILY_SHARED", willRenew, inGracePeriod, inBillingRetry, renewalProductId,
    supersededBy, acknowledgement, acknowledgementError, suspended,
  };
}

function offerSignature({ offerId = "", productId = "", nonce = "", signedAt, redeemedTransactionId = "",
  redeemedAt }) {
  return {
    offerId, productId, nonce, signedAt: timestamp(signedAt), redeemedTransactionId,
    redeemedAt: timestamp(redeemedAt),
  };
}

export function customer({ customer, aliases = [], grants = [], transactions = [], attributes = [],
  offerSignatures = [] }) {
  return {
    status: customerStatus(customer), aliases, grants: grants.map(grant), transactions: transactions.map(transaction),
    attributes: attributes.map(attribute), offerSignatures: offerSignatures.map(offerSignature),
  };
}

function event({ version, cause = "UNKNOWN", change = "", reason = "", occurredAt, status = {}, relatedAppUserId = "",
  referenceId = "", keyName = "" }) {
  return {
    version: int64(version), cause, change, reason, occurredAt: timestamp(occurredAt), related: relatedAppUserId,
    reference: referenceId, keyName, entitlements: (status.entitlements ?? []).map((e) => e.id ?? ""),
  };
}

export const eventPage = ({ events = [], nextPageToken = "" }) => ({ events: events.map(event), nextPageToken });

function delivery({ deliveryId, endpointId = "", webhookId = "", type = "", state, version, createdAt, attempts = 0,
  lastStatusCode = 0, lastError = "", nextAttemptAt, deliveredAt }) {
  return {
    id: int64(deliveryId), endpointId, webhookId, type,
    // "FAILED" rather than the enum's full name: the page shows it, lower-cased.
    state: state ? state.replace(DeliveryStatePrefix, "") : "UNKNOWN", version: int64(version),
    createdAt: timestamp(createdAt), attempts, lastStatus: lastStatusCode, lastError,
    nextAttemptAt: timestamp(nextAttemptAt), deliveredAt: timestamp(deliveredAt),
  };
}

export const deliveryPage = ({ deliveries = [] }) => ({ deliveries: deliveries.map(delivery) });

export function keyDescription({ tenantId = "", keyName = "", scope, entitlements = [],
  allowsUndeclaredEntitlements = false, webhookEndpoints = [] }) {
  return {
    tenantId, keyName, canWrite: scope === "WRITE", entitlements, allowsUndeclared: allowsUndeclaredEntitlements,
    webhookEndpoints,
  };
}

export const matches = ({ matches = [] }) => matches.map(
  ({ appUserId = "", matchedBy, store = "", originalTransactionId = "" }) =>
    ({ appUserId, matchedBy: MatchedBy[matchedBy] ?? "", store, originalTransactionId }));

export function counts({ activeCustomers = 0, entitlements = [], countedAt }) {
  return {
    active: Number(activeCustomers), countedAt: timestamp(countedAt),
    entitlements: entitlements.map(({ id = "", customers = 0 }) => ({ id, customers: Number(customers) })),
  };
}

// DescribeTrust: the tenant's user tokens (mode, this instance's counts) and its status signing keys (null: none).
export function trust({ userTokens = {}, signedStatus = null }) {
  const { mode = "OFF", issuer = "", maxLifetimeSeconds = 0, hs256Secrets = 0, keysFrom = "", allowsAnonymous = false,
    counts = [], countedSince } = userTokens;
  return {
    userTokens: {
      mode, issuer, maxLifetimeSeconds, hs256Secrets, keysFrom, allowsAnonymous, countedSince: timestamp(countedSince),
      counts: counts.map(({ outcome = "", reason = "", count = 0 }) => ({ outcome, reason, count: Number(count) })),
    },
    signedStatus: signedStatus && {
      signingKeyId: signedStatus.signingKeyId ?? "", keyIds: signedStatus.keyIds ?? [],
      offlineValidityHours: signedStatus.offlineValidityHours ?? 0,
    },
  };
}

// An ExportCustomerChunk's bytes (base64 in the JSON): the parts joined in order are the JSON document.
export const exportChunk = ({ data = "" }) => Uint8Array.from(atob(data), (c) => c.charCodeAt(0));

// From the current status on: after_version 0 starts with a SNAPSHOT.
export const streamStatusRequest = (appUserId) => ({ appUserId, afterVersion: "0" });
export const describeKeyRequest = () => ({});
export const countCustomersRequest = () => ({});
export const describeTrustRequest = () => ({});
export const findCustomersRequest = (query) => ({ query });
export const getCustomerRequest = (appUserId) => ({ appUserId });
export const eventsRequest = (appUserId, pageToken = "") => ({ appUserId, pageSize: 50, pageToken });
export const deliveriesRequest = (appUserId) => ({ appUserId, pageSize: 50 });
export const redeliverRequest = (deliveryId) => ({ deliveryId: String(deliveryId) });
export const deleteRequest = (appUserId, confirmation) => ({ appUserId, confirmAppUserId: confirmation });
export const exportRequest = (appUserId) => ({ appUserId });
// SetCustomerAttributesRequest: one key set to a value, or removed.
export const setAttributeRequest = (appUserId, key, value) => ({ appUserId, attributes: [{ key, value }] });
export const unsetAttributeRequest = (appUserId, key) => ({ appUserId, unsetKeys: [key] });
export const revokeRequest = (grantId, reason) => ({ grantId, reason });
export const grantRequest = (appUserId, entitlementId, days, reason, idempotencyKey) =>
  ({ appUserId, entitlementId, duration: `${Math.round(days * 86400)}s`, reason, idempotencyKey });
