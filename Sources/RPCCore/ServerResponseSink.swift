/// Where a handler's responses go: implemented by a transport for each accepted call.
///
/// Methods may be called from any task; the transport hands the work to the thread that owns the connection.
public protocol ServerResponseSink: Sendable {
    /// Sends the response headers with custom metadata now instead of with the first message.
    func sendHeaders(_ metadata: Metadata)
    /// Queues one unframed message. Suspends while the stream has too many unsent bytes (the client reads slowly);
    /// throws `CancellationError` once the stream is gone.
    func sendMessage(_ message: [UInt8]) async throws
    /// Adds metadata for the trailers; the sink sends it with whatever status ends the call.
    func addTrailer(_ value: Metadata.Value, forKey key: String)
    /// Ends the call with trailers (those added before, then the status's own), or Trailers-Only when nothing was
    /// sent yet. Later calls are ignored.
    func finish(_ status: RPCStatus)
    /// The status the transport gave the client when it ended the call itself (its deadline passed, the server is
    /// shutting down), before the handler did; nil otherwise. What the client got, whatever the handler, cancelled
    /// by it, reports afterwards.
    var transportStatus: RPCStatus? { get }
}

/// How a call ended: the code, a message for the caller and trailing metadata.
public struct RPCStatus: Sendable, Hashable {
    public var code: RPCError.Code
    public var message: String
    public var trailers: Metadata

    public init(code: RPCError.Code, message: String = "", trailers: Metadata = Metadata()) {
        self.code = code
        self.message = message
        self.trailers = trailers
    }

    public static let ok = RPCStatus(code: .ok)

    /// The longest message sent in `grpc-message` (UTF-8 bytes, before percent-encoding): even fully encoded it stays
    /// well inside the 8 KiB metadata limit of grpc C-core and grpc-java clients, which would otherwise report
    /// RESOURCE_EXHAUSTED instead of the real status.
    public static let maxMessageBytes = 1024

    public init(_ error: RPCError) {
        self.init(code: error.code, message: error.message, trailers: error.metadata)
    }

    /// This status with `trailers` sent ahead of its own.
    public func adding(_ trailers: Metadata) -> RPCStatus {
        guard !trailers.isEmpty else { return self }
        var merged = trailers
        merged.append(contentsOf: self.trailers)
        return RPCStatus(code: code, message: message, trailers: merged)
    }
}
