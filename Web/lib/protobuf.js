// The protobuf messages of EntitlementService and status.proto the browser pages (Web/demo, Web/console) send and
// read, encoded and decoded by hand (proto3 wire format: varints, length-delimited fields). Field numbers are those
// of Protos/entitlements/v1/*.proto.

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export class Writer {
  constructor() { this.bytes = []; }
  varint(value) {
    let n = BigInt(value);
    do {
      let byte = Number(n & 0x7fn);
      n >>= 7n;
      if (n > 0n) byte |= 0x80;
      this.bytes.push(byte);
    } while (n > 0n);
    return this;
  }
  string(field, text) {
    if (!text) return this;
    const data = utf8.encode(text);
    return this.varint((field << 3) | 2).varint(data.length).raw(data);
  }
  uint64(field, value) {
    if (!value) return this;
    return this.varint(field << 3).varint(value);
  }
  message(field, data) { return this.varint((field << 3) | 2).varint(data.length).raw(data); }
  raw(data) { for (const byte of data) this.bytes.push(byte); return this; }
  finish() { return Uint8Array.from(this.bytes); }
}

// Every field of a message: number -> list of values (varints as BigInt, length-delimited as Uint8Array).
export function fields(bytes) {
  const out = new Map();
  let offset = 0;
  const varint = () => {
    let value = 0n, shift = 0n;
    for (;;) {
      if (offset >= bytes.length) throw new Error("truncated varint");
      const byte = bytes[offset++];
      value |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
      shift += 7n;
    }
  };
  while (offset < bytes.length) {
    const key = Number(varint());
    const number = key >>> 3, wire = key & 7;
    let value;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = Number(varint());
      if (offset + length > bytes.length) throw new Error("truncated field");
      value = bytes.subarray(offset, offset + length);
      offset += length;
    } else if (wire === 1) { value = bytes.subarray(offset, offset + 8); offset += 8; }
    else if (wire === 5) { value = bytes.subarray(offset, offset + 4); offset += 4; }
    else throw new Error(`unsupported wire type ${wire}`);
    if (!out.has(number)) out.set(number, []);
    out.get(number).push(value);
  }
  return out;
}

export const last = (map, n) => { const values = map.get(n); return values ? values[values.length - 1] : undefined; };
export const str = (map, n) => { const v = last(map, n); return v ? fromUtf8.decode(v) : ""; };
export const num = (map, n) => Number(last(map, n) ?? 0n);
export const bool = (map, n) => (last(map, n) ?? 0n) !== 0n;

export const Source = { 1: "APP_STORE", 2: "PLAY_STORE", 3: "WEB", 4: "GRANT" };
export const EventKind = { 1: "SNAPSHOT", 2: "STATUS_CHANGED", 3: "CUSTOMER_INFO_CHANGED", 4: "HEARTBEAT" };

export function timestamp(bytes) {
  if (!bytes) return null;
  const map = fields(bytes);
  return new Date(num(map, 1) * 1000 + Math.floor(num(map, 2) / 1e6));
}

function entitlement(bytes) {
  const map = fields(bytes);
  return {
    id: str(map, 1), source: Source[num(map, 2)] ?? "UNKNOWN", productId: str(map, 3),
    expiresAt: timestamp(last(map, 4)), willRenew: bool(map, 5), inGracePeriod: bool(map, 6),
    inBillingRetry: bool(map, 7),
  };
}

export function customerStatus(bytes) {
  if (!bytes) return null;
  const map = fields(bytes);
  const status = last(map, 2) ? fields(last(map, 2)) : new Map();
  return {
    appUserId: str(map, 1), active: num(status, 1) === 1,
    entitlements: (status.get(2) ?? []).map(entitlement), version: last(map, 3) ?? 0n,
    serverTime: timestamp(last(map, 4)),
  };
}

// SyncStatusResponse, IdentifyResponse and PurchaseResponse all carry the customer in field 1.
export const customerOf = (bytes) => customerStatus(last(fields(bytes), 1));

export function statusEvent(bytes) {
  const map = fields(bytes);
  return { kind: EventKind[num(map, 1)] ?? "UNKNOWN", customer: customerStatus(last(map, 2)), reason: str(map, 3) };
}

export const identifyRequest = (appUserId) => new Writer().string(1, appUserId).finish();
export const syncStatusRequest = (appUserId) => new Writer().string(1, appUserId).finish();
export const streamStatusRequest = (appUserId, afterVersion) =>
  new Writer().string(1, appUserId).uint64(2, afterVersion).finish();
export const redeemRequest = (appUserId, code) =>
  new Writer().string(1, appUserId).message(4, new Writer().string(1, code).finish()).finish();
