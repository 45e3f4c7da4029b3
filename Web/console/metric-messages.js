// AdminService's metric messages (GetMetrics, ListMetricRows in Protos/entitlements/v1/admin_service.proto), on the
// shared wire helpers of protobuf.js.

import { Writer, fields, last, str, num, timestamp } from "./protobuf.js";

// Each Metric by its number: what the chart calls it and how its values read.
export const Metrics = [
  { id: 12, label: "MRR", kind: "amount" },
  { id: 10, label: "Active subscriptions", kind: "count" },
  { id: 11, label: "Active trials", kind: "count" },
  { id: 1, label: "Revenue", kind: "amount" },
  { id: 3, label: "Net revenue", kind: "amount" },
  { id: 2, label: "Refunds", kind: "amount" },
  { id: 4, label: "Proceeds", kind: "amount" },
  { id: 5, label: "New subscriptions", kind: "count" },
  { id: 6, label: "Trial starts", kind: "count" },
  { id: 7, label: "Trial conversions", kind: "count" },
  { id: 15, label: "Trial conversion rate", kind: "rate" },
  { id: 8, label: "Renewals", kind: "count" },
  { id: 13, label: "Churn", kind: "rate" },
  { id: 14, label: "Reactivations", kind: "count" },
  { id: 9, label: "Refund rate", kind: "rate" },
  { id: 16, label: "In grace period", kind: "count" },
  { id: 18, label: "MRR in grace period", kind: "amount" },
  { id: 17, label: "In billing retry", kind: "count" },
  { id: 19, label: "MRR in billing retry", kind: "amount" },
];

export const Intervals = { day: 1, week: 2, month: 3 };
export const Dimensions = { store: 1, product: 2, entitlement: 3, country: 4, offer_kind: 5 };
export const Environments = { production: 1, sandbox: 2 };

// A varint field as a signed 64-bit integer (BigInt).
const int64 = (map, n) => BigInt.asIntN(64, last(map, n) ?? 0n);

function point(bytes) {
  const map = fields(bytes);
  return {
    startDate: str(map, 1), value: int64(map, 2), denominator: int64(map, 3),
    convertedValue: map.has(4) ? int64(map, 4) : null,
    rates: (map.get(5) ?? []).map((rate) => { const m = fields(rate); return { date: str(m, 1), rate: str(m, 2) }; }),
    missingRateDates: (map.get(6) ?? []).map((date) => new TextDecoder().decode(date)),
  };
}

function series(bytes) {
  const map = fields(bytes);
  return {
    group: (map.get(1) ?? []).map((group) => { const m = fields(group); return { dimension: num(m, 1), value: str(m, 2) }; }),
    currency: str(map, 2), points: (map.get(3) ?? []).map(point),
  };
}

export function metricsResponse(bytes) {
  const map = fields(bytes);
  return { series: (map.get(2) ?? []).map(series), reportingCurrency: str(map, 3) };
}

export function metricsRequest({ metric, from, to, interval, groupBy, environment, converted }) {
  const writer = new Writer().uint64(1, metric).string(2, from).string(3, to).uint64(4, interval);
  for (const dimension of groupBy) writer.uint64(5, dimension);
  return writer.uint64(7, environment).uint64(8, converted ? 1 : 0).finish();
}

export function rowsRequest({ metric, from, to, group, environment, currency, pageToken = "" }) {
  const writer = new Writer().uint64(1, metric).string(2, from).string(3, to);
  for (const { dimension, value } of group) {
    writer.message(4, new Writer().uint64(1, dimension).string(2, value).finish());
  }
  return writer.uint64(6, environment).string(7, currency).uint64(8, 100).string(9, pageToken).finish();
}

function ledgerRow(bytes) {
  const map = fields(bytes);
  return {
    kind: str(map, 1), store: str(map, 3), transactionId: str(map, 4), originalTransactionId: str(map, 5),
    appUserId: str(map, 6), productId: str(map, 7), country: str(map, 10), offerKind: str(map, 11),
    amountMilliunits: int64(map, 12), currency: str(map, 13), occurredAt: timestamp(last(map, 18)),
  };
}

export function rowsResponse(bytes) {
  const map = fields(bytes);
  return { rows: (map.get(1) ?? []).map(ledgerRow), nextPageToken: str(map, 2) };
}
