// A Connect protocol client over fetch, in JSON: unary calls as plain POSTs, server streams as enveloped bodies read
// as they arrive. No runtime dependency: messages are protobuf's JSON mapping, which the server speaks.

/** A Connect error: the code's name as the protocol writes it (`not_found`, `unauthenticated`, ...). */
export class ConnectError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly metadata: Record<string, string[]> = {},
  ) {
    super(message);
    this.name = "ConnectError";
  }
}

export interface CallOptions {
  /** Connect-Timeout-Ms: the server ends the call with `deadline_exceeded` after it. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** More request headers (the SDK's user token); never part of an error or a log. */
  headers?: Record<string, string>;
}

export interface StreamOptions extends CallOptions {
  /** Each message as it arrives, in order. */
  onMessage: (message: unknown) => void;
  /** The server accepted the stream (its headers arrived): it is reachable, even before it has anything to send. */
  onOpen?: () => void;
}

/** The end of a Connect stream's body: flag 0x02, JSON. */
const END_OF_STREAM = 0x02;
const COMPRESSED = 0x01;
/** Larger messages are refused rather than buffered. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export class ConnectClient {
  private readonly fetch: typeof fetch;

  /**
   * @param baseURL the server, `https://entitlements.example.com` (no trailing slash needed).
   * @param key the tenant's public key, sent as `authorization: Bearer …`.
   */
  constructor(
    private readonly baseURL: string,
    private readonly key: string,
    fetchImplementation?: typeof fetch,
  ) {
    this.baseURL = baseURL.replace(/\/+$/, "");
    this.fetch = fetchImplementation ?? globalThis.fetch.bind(globalThis);
  }

  /** A unary call: `path` is `/package.Service/Method`; the request and the answer are protobuf JSON objects. */
  async unary<Response>(path: string, request: object, options: CallOptions = {}): Promise<Response> {
    const response = await this.post(path, "application/json", JSON.stringify(request), options);
    const text = await response.text();
    if (response.ok) return parseJSON(text) as Response;
    throw errorFromBody(response.status, text, trailerMetadata(response.headers));
  }

  /** A server-streaming call: resolves when the stream ends well, rejects with its error otherwise. */
  async serverStream(path: string, request: object, options: StreamOptions): Promise<void> {
    const message = new TextEncoder().encode(JSON.stringify(request));
    const envelope = new Uint8Array(5 + message.length);
    new DataView(envelope.buffer).setUint32(1, message.length);
    envelope.set(message, 5);
    const response = await this.post(path, "application/connect+json", envelope, options);
    if (!response.ok || !response.body) {
      // Before the stream began (a proxy's answer, or a refusal of the protocol itself).
      throw errorFromBody(response.status, await response.text(), {});
    }
    options.onOpen?.();
    const reader = new EnvelopeReader(response.body.getReader());
    for (;;) {
      const envelope = await reader.next();
      if (!envelope) throw new ConnectError("unavailable", "The stream ended without its end-of-stream message.");
      if (envelope.flags & COMPRESSED) throw new ConnectError("internal", "The server sent a compressed message.");
      const text = new TextDecoder().decode(envelope.payload);
      if (envelope.flags & END_OF_STREAM) {
        const end = parseJSON(text) as { error?: { code?: string; message?: string }; metadata?: Record<string, string[]> };
        if (end.error) throw new ConnectError(end.error.code ?? "unknown", end.error.message ?? "", end.metadata ?? {});
        return;
      }
      options.onMessage(parseJSON(text));
    }
  }

  private async post(path: string, contentType: string, body: BodyInit, options: CallOptions): Promise<Response> {
    const headers: Record<string, string> = {
      ...options.headers,
      "content-type": contentType,
      "connect-protocol-version": "1",
      authorization: `Bearer ${this.key}`,
    };
    if (options.timeoutMs !== undefined) headers["connect-timeout-ms"] = String(Math.max(1, Math.ceil(options.timeoutMs)));
    try {
      return await this.fetch(this.baseURL + path, { method: "POST", headers, body, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw new ConnectError("canceled", "The call was cancelled.");
      throw new ConnectError("unavailable", `The server could not be reached: ${(error as Error).message}`);
    }
  }
}

/** Envelopes (flags, 4-byte big-endian length, payload) from a body that arrives in pieces of any size. */
class EnvelopeReader {
  private buffer = new Uint8Array(0);

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  async next(): Promise<{ flags: number; payload: Uint8Array } | null> {
    for (;;) {
      if (this.buffer.length >= 5) {
        const length = new DataView(this.buffer.buffer, this.buffer.byteOffset, 5).getUint32(1);
        if (length > MAX_MESSAGE_BYTES) {
          await this.reader.cancel();
          throw new ConnectError("resource_exhausted", `A message of ${length} bytes is larger than the SDK reads.`);
        }
        if (this.buffer.length >= 5 + length) {
          const envelope = { flags: this.buffer[0], payload: this.buffer.slice(5, 5 + length) };
          this.buffer = this.buffer.slice(5 + length);
          return envelope;
        }
      }
      const { done, value } = await this.reader.read();
      if (done) return null;
      const joined = new Uint8Array(this.buffer.length + value.length);
      joined.set(this.buffer);
      joined.set(value, this.buffer.length);
      this.buffer = joined;
    }
  }
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConnectError("internal", "The server's answer is not JSON.");
  }
}

/** A unary error's body is Connect's error JSON; anything else (a proxy's page) is named by its HTTP status. */
function errorFromBody(status: number, text: string, metadata: Record<string, string[]>): ConnectError {
  try {
    const error = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof error.code === "string") {
      return new ConnectError(error.code, typeof error.message === "string" ? error.message : "", metadata);
    }
  } catch {
    // Not Connect's JSON: fall through to the HTTP status.
  }
  return new ConnectError(codeOfHTTPStatus(status), `HTTP ${status}`, metadata);
}

/** What Connect clients infer from an HTTP status without an error body (the protocol's table). */
function codeOfHTTPStatus(status: number): string {
  switch (status) {
    case 400: return "internal";
    case 401: return "unauthenticated";
    case 403: return "permission_denied";
    case 404: return "unimplemented";
    case 429: case 502: case 503: case 504: return "unavailable";
    default: return "unknown";
  }
}

/** A unary response's trailers: its `trailer-` headers. */
function trailerMetadata(headers: Headers): Record<string, string[]> {
  const metadata: Record<string, string[]> = {};
  headers.forEach((value, name) => {
    if (name.startsWith("trailer-")) (metadata[name.slice(8)] ??= []).push(value);
  });
  return metadata;
}
