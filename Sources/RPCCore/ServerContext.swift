public import RequestTracing
/// What a handler knows about its call: the method, the request metadata, the deadline and the peer.
///
/// Immutable, and a class: it travels through the transport, the handler and its log line, and a struct of this
/// many references cost about a dozen reference-count operations per copy (2,000 instructions of a unary call).
public final class ServerContext: Sendable {
    public let method: MethodDescriptor
    /// Custom request metadata (transport and `grpc-*` headers removed).
    public let metadata: Metadata
    /// When the client stops waiting; the transport cancels the handler then.
    public var deadline: ContinuousClock.Instant? { deadlineSinceOrigin.map { Self.clockOrigin + $0 } }
    /// The deadline as a `Duration` (a type of known layout) past ``clockOrigin``: an optional
    /// `ContinuousClock.Instant` (whose layout is not known at compile time) is copied through runtime type
    /// information each time it moves, several times per call.
    private let deadlineSinceOrigin: Duration?
    private static let clockOrigin = ContinuousClock.now

    /// The call's deadline is already past. A transport checks it before it starts a handler, so that a call whose
    /// `grpc-timeout` was spent on the way in (a few nanoseconds) ends with DEADLINE_EXCEEDED, and runs nothing.
    /// Checked as a `Duration`, for the reason above: every call pays for it, twice.
    public var deadlineHasPassed: Bool {
        guard let deadlineSinceOrigin else { return false }
        return deadlineSinceOrigin <= Self.clockOrigin.duration(to: .now)
    }
    /// The remote address, for logs.
    public let peer: String
    /// Identifies the connection the call came on, unique within the process, for per-connection limits.
    public let connectionID: UInt64
    /// What services keep for the connection's later calls.
    public let connection: ConnectionMemory
    /// gRPC, gRPC-Web or Connect: streams may need what browsers' paths need (``RPCProtocol/needsHeartbeat``).
    public let rpcProtocol: RPCProtocol
    /// A gRPC-Web or Connect call's `Origin` header: the page that made it. nil for gRPC calls and for clients that
    /// send none.
    public let browserOrigin: String?
    /// The call's ``RequestID``: the client's `x-request-id` or a new one; the response headers carry it.
    public let requestID: String
    let responseSink: any ServerResponseSink

    public init(
        method: MethodDescriptor,
        metadata: Metadata,
        timeout: Duration?,
        peer: String,
        connectionID: UInt64 = 0,
        connection: ConnectionMemory = ConnectionMemory(),
        rpcProtocol: RPCProtocol = .grpc,
        browserOrigin: String? = nil,
        requestID: String = RequestID.generate(),
        responseSink: any ServerResponseSink
    ) {
        self.method = method
        self.metadata = metadata
        self.deadlineSinceOrigin = timeout.map { Self.clockOrigin.duration(to: .now) + $0 }
        self.peer = peer
        self.connectionID = connectionID
        self.connection = connection
        self.rpcProtocol = rpcProtocol
        self.browserOrigin = browserOrigin
        self.requestID = requestID
        self.responseSink = responseSink
    }

    /// Sends response headers carrying `metadata` before the first message.
    public func sendHeaders(_ metadata: Metadata) {
        responseSink.sendHeaders(metadata)
    }

    /// Adds metadata to the trailers sent when the call ends, whatever its status.
    public func addTrailer(_ value: Metadata.Value, forKey key: String) {
        responseSink.addTrailer(value, forKey: key)
    }

    /// The status the transport ended the call with, when it did so before the handler (``ServerResponseSink``).
    public var transportStatus: RPCStatus? { responseSink.transportStatus }
}
