/// Where a handler's responses go: implemented by a transport for each accepted call.
///
/// Methods may be called from any task; the transport hands the work to the thread that owns the connection.
public protocol ServerResponseSink: Sendable {
    /// Sends the response headers with custom metadata now instead of with the first message.
    func sendHeaders(_ metadata: Metadata)
    /// Queues one unframed message. Suspends while the stream has too many unsent bytes (the client reads slowly);
    /// throws `CancellationError` once the stream is gone.
    func sendMessage(_ message: [UInt8]) async throws
    /// Ends the call with trailers, or Trailers-Only when nothing was sent yet. Later calls are ignored.
    func finish(_ status: RPCStatus)
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

    public init(_ error: RPCError) {
        self.init(code: error.code, message: error.message, trailers: error.metadata)
    }
}
