/** A Connect error: the code's name as the protocol writes it (`not_found`, `unauthenticated`, ...). */
export declare class ConnectError extends Error {
    readonly code: string;
    readonly metadata: Record<string, string[]>;
    constructor(code: string, message: string, metadata?: Record<string, string[]>);
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
export declare class ConnectClient {
    private readonly baseURL;
    private readonly key;
    private readonly fetch;
    /**
     * @param baseURL the server, `https://entitlements.example.com` (no trailing slash needed).
     * @param key the tenant's public key, sent as `authorization: Bearer …`.
     */
    constructor(baseURL: string, key: string, fetchImplementation?: typeof fetch);
    /** A unary call: `path` is `/package.Service/Method`; the request and the answer are protobuf JSON objects. */
    unary<Response>(path: string, request: object, options?: CallOptions): Promise<Response>;
    /** A server-streaming call: resolves when the stream ends well, rejects with its error otherwise. */
    serverStream(path: string, request: object, options: StreamOptions): Promise<void>;
    private post;
}
