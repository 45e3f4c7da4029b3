// AdminService's metric messages (GetMetrics, ListMetricRows in Protos/entitlements/v1/admin_service.proto) in
// protobuf's JSON mapping, defaults filled in as admin-messages.js does. Requests name enums by number, which the
// JSON mapping takes as well as names.

import { int64, timestamp } from "./admin-messages.js";

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

function point({ startDate = "", value, denominator, convertedValue, rates = [], missingRateDates = [] }) {
  return {
    startDate, value: int64(value), denominator: int64(denominator),
    // converted_value tracks presence: absent (a day without a rate) is null, not 0.
    convertedValue: convertedValue === undefined ? null : int64(convertedValue),
    rates: rates.map(({ date = "", rate = "" }) => ({ date, rate })), missingRateDates,
  };
}

// A group's dimension stays as the JSON names it ("COUNTRY"): ListMetricRows takes it back as it is.
function series({ group = [], currency = "", points = [] }) {
  const values = group.map(({ dimension, value = "" }) => ({ dimension, value }));
  return { group: values, currency, points: points.map(point) };
}

export function metricsResponse({ series: all = [], reportingCurrency = "" }) {
  return { series: all.map(series), reportingCurrency };
}

export function metricsRequest({ metric, from, to, interval, groupBy, environment, converted }) {
  return { metric, startDate: from, endDate: to, interval, groupBy, environment, inReportingCurrency: converted };
}

export function rowsRequest({ metric, from, to, group, environment, currency, pageToken = "" }) {
  return { metric, startDate: from, endDate: to, group, environment, currency, pageSize: 100, pageToken };
}

function ledgerRow({ kind = "", store = "", transactionId = "", originalTransactionId = "", appUserId = "",
  productId = "", country = "", offerKind = "", amountMilliunits, currency = "", occurredAt }) {
  return {
    kind, store, transactionId, originalTransactionId, appUserId, productId, country, offerKind,
    amountMilliunits: int64(amountMilliunits), currency, occurredAt: timestamp(occurredAt),
  };
}

export const rowsResponse = ({ rows = [], nextPageToken = "" }) => ({ rows: rows.map(ledgerRow), nextPageToken });
