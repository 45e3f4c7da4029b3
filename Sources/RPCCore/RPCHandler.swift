/// The four call shapes of gRPC.
public enum RPCKind: Sendable {
    case unary, serverStreaming, clientStreaming, bidirectional
}

/// A method's implementation on raw message bytes; typed registration on ``RPCRouter`` builds these.
public struct RPCHandler: Sendable {
    public let kind: RPCKind
    let body: @Sendable (MessageStream, ServerContext) async throws -> Void
    /// For unary methods that never suspend (in-memory reads): request bytes to response bytes.
    ///
    /// A transport may run it on its own thread when the whole request has arrived, skipping the task, the request
    /// stream and the hop back to the connection: the hot path's cost is then the protocol's alone.
    public let synchronousUnary: (@Sendable ([UInt8], ServerContext) throws -> [UInt8])?
    /// A subscription that never ends on its own (a status stream, a health watch): at shutdown it ends at once with
    /// `UNAVAILABLE`, so its client reconnects elsewhere, instead of holding the server for the whole grace period.
    public let endsAtShutdown: Bool

    public init(
        kind: RPCKind, endsAtShutdown: Bool = false,
        body: @escaping @Sendable (MessageStream, ServerContext) async throws -> Void
    ) {
        self.kind = kind
        self.body = body
        self.synchronousUnary = nil
        self.endsAtShutdown = endsAtShutdown
    }

    /// A unary handler that never suspends; ``run(requests:context:)`` still serves it for transports that
    /// always use tasks.
    public init(synchronousUnary: @escaping @Sendable ([UInt8], ServerContext) throws -> [UInt8]) {
        self.kind = .unary
        self.endsAtShutdown = false
        self.synchronousUnary = synchronousUnary
        self.body = { stream, context in
            let request = try await singleRequestBytes(stream)
            try await context.responseSink.sendMessage(synchronousUnary(request, context))
        }
    }

    /// Runs a synchronous unary handler on the caller's thread; returns its response and status for the caller to send.
    public func runSynchronously(request: [UInt8], context: ServerContext) -> (response: [UInt8]?, status: RPCStatus) {
        guard let synchronousUnary else {
            return (nil, RPCStatus(code: .internal, message: "The method is not synchronous."))
        }
        // The transport runs it inline as the request completes, before its deadline timer's turn: a deadline
        // already past (a `grpc-timeout` of a few nanoseconds) would otherwise be answered OK.
        guard !context.deadlineHasPassed else { return (nil, RPCStatus(RPCError.deadlineExceeded)) }
        do {
            let response = try synchronousUnary(request, context)
            return (response, .ok)
        } catch {
            return (nil, RPCStatus(RPCError(from: error)))
        }
    }

    /// Runs the handler to the end and reports its status to the context's sink.
    ///
    /// Anything thrown becomes a status through ``RPCError/init(from:)``; the transport cancels the task on a client
    /// reset or an expired deadline and reports that status itself.
    public func run(requests: MessageStream, context: ServerContext) async {
        do {
            try await body(requests, context)
            context.responseSink.finish(.ok)
        } catch {
            context.responseSink.finish(RPCStatus(RPCError(from: error)))
        }
    }
}

extension RPCError {
    /// The status of a call whose deadline passed, before its handler ran or while it ran.
    public static let deadlineExceeded = RPCError(code: .deadlineExceeded, message: "Deadline exceeded.")
}
