// A small gRPC-Web client on fetch and ReadableStream (binary mode, application/grpc-web+proto): unary calls and
// server streaming, frames split as they arrive, trailers read from the 0x80 frame or, for Trailers-Only answers,
// from the HTTP headers (the server exposes them to scripts with Access-Control-Expose-Headers).

export class GrpcError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
    this.grpcMessage = message;
  }
}

const maxFrame = 4 << 20;
const text = new TextDecoder();

function frame(message) {
  const out = new Uint8Array(5 + message.length);
  new DataView(out.buffer).setUint32(1, message.length);
  out.set(message, 5);
  return out;
}

// "grpc-status: 0\r\ngrpc-message: ..." (any case, optional space) into a Map.
function parseTrailers(bytes) {
  const trailers = new Map();
  for (const line of text.decode(bytes).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return trailers;
}

function statusError(status, message) {
  const code = Number(status);
  if (code === 0) return null;
  let readable = message ?? "";
  try { readable = decodeURIComponent(readable); } catch { /* not percent-encoded as it should be: shown raw */ }
  return new GrpcError(Number.isInteger(code) ? code : 2, readable);
}

export class GrpcWebClient {
  // `agent` names the page in x-user-agent (browsers do not let scripts set user-agent).
  constructor(baseUrl, key, agent = "entitlementd-demo") {
    this.baseUrl = baseUrl;
    this.key = key;
    this.agent = agent;
  }

  // Calls `method` ("/package.Service/Method") and hands each response message to `onMessage` as it arrives.
  // Resolves when the call ends with OK; rejects with GrpcError otherwise. `signal` cancels it.
  async call(method, request, { onMessage, signal, timeoutMs } = {}) {
    const headers = {
      "content-type": "application/grpc-web+proto", "x-grpc-web": "1",
      "x-user-agent": `grpc-web-javascript/${this.agent}`, authorization: `Bearer ${this.key}`,
    };
    if (timeoutMs) headers["grpc-timeout"] = `${Math.ceil(timeoutMs)}m`;
    const response = await fetch(this.baseUrl + method, { method: "POST", headers, body: frame(request), signal });
    if (response.status !== 200) throw new GrpcError(14, `HTTP ${response.status}`);
    const headerStatus = response.headers.get("grpc-status");
    if (headerStatus !== null) {
      const error = statusError(headerStatus, response.headers.get("grpc-message"));
      if (error) throw error;
      return;
    }
    const reader = response.body.getReader();
    let buffer = new Uint8Array(0);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new GrpcError(13, "the response ended without trailers");
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
      let offset = 0;
      while (buffer.length - offset >= 5) {
        const flag = buffer[offset];
        const length = new DataView(buffer.buffer, buffer.byteOffset + offset + 1, 4).getUint32(0);
        if (length > maxFrame) throw new GrpcError(8, "a response frame is too large");
        if (buffer.length - offset - 5 < length) break;
        const payload = buffer.slice(offset + 5, offset + 5 + length);
        offset += 5 + length;
        if (flag & 0x80) {
          const trailers = parseTrailers(payload);
          const error = statusError(trailers.get("grpc-status") ?? "2", trailers.get("grpc-message"));
          reader.cancel().catch(() => {});
          if (error) throw error;
          return;
        }
        if (flag & 0x01) throw new GrpcError(13, "a compressed frame, which was not asked for");
        onMessage?.(payload);
      }
      buffer = buffer.slice(offset);
    }
  }

  // The one response message of a unary call.
  async unary(method, request, options = {}) {
    let message = null;
    await this.call(method, request, { ...options, onMessage: (payload) => { message = payload; } });
    if (message === null) throw new GrpcError(13, "no response message");
    return message;
  }
}
