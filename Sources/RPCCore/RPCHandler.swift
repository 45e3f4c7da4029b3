/// The four call shapes of gRPC.
public enum RPCKind: Sendable {
    case unary, serverStreaming, clientStreaming, bidirectional
}

/// A method's implementation on raw message bytes; typed registration on ``RPCRouter`` builds these.
public struct RPCHandler: Sendable {
    public let kind: RPCKind
    let body: @Sendable (MessageStream, ServerContext) async throws -> Void
    /// For unary methods that answer from memory when they can: request bytes to response bytes, or to the rest of
    /// the work when it must wait (``UnaryAnswer``).
    ///
    /// A transport may run it on its own thread when the whole request has arrived, skipping the task, the request
    /// stream and the hop back to the connection: the hot path's cost is then the protocol's alone.
    public let synchronousUnary: (@Sendable ([UInt8], ServerContext) throws -> UnaryAnswer)?
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

    /// A unary handler with a synchronous fast path; ``run(requests:context:)`` still serves it for transports that
    /// always use tasks.
    public init(synchronousUnary: @escaping @Sendable ([UInt8], ServerContext) throws -> UnaryAnswer) {
        self.kind = .unary
        self.endsAtShutdown = false
        self.synchronousUnary = synchronousUnary
        self.body = { stream, context in
            let request = try await singleRequestBytes(stream)
            switch try synchronousUnary(request, context) {
            case .now(let response): try await context.responseSink.sendMessage(response)
            case .later(let rest): try await context.responseSink.sendMessage(rest())
            }
        }
    }

    /// What running a synchronous unary handler on the caller's thread gave.
    public enum SynchronousOutcome {
        /// The response (nil when the call failed) and status, for the caller to send.
        case answered(response: [UInt8]?, status: RPCStatus)
        /// The rest of the handler's work, for the caller to run as a task with ``run(later:context:)``.
        case later(@Sendable () async throws -> [UInt8])
    }

    /// Runs a synchronous unary handler on the caller's thread.
    public func runSynchronously(request: [UInt8], context: ServerContext) -> SynchronousOutcome {
        guard let synchronousUnary else {
            return .answered(
                response: nil, status: RPCStatus(code: .internal, message: "The method is not synchronous."))
        }
        // The transport runs it inline as the request completes, before its deadline timer's turn: a deadline
        // already past (a `grpc-timeout` of a few nanoseconds) would otherwise be answered OK.
        guard !context.deadlineHasPassed else {
            return .answered(response: nil, status: RPCStatus(RPCError.deadlineExceeded))
        }
        do {
            switch try synchronousUnary(request, context) {
            case .now(let response): return .answered(response: response, status: .ok)
            case .later(let rest): return .later(rest)
            }
        } catch {
            return .answered(response: nil, status: RPCStatus(RPCError(from: error)))
        }
    }

    /// Runs the handler to the end and reports its status to the context's sink.
    ///
    /// Anything thrown becomes a status through ``RPCError/init(from:)``; the transport cancels the task on a client
    /// reset or an expired deadline and reports that status itself.
    public func run(requests: MessageStream, context: ServerContext) async {
        await Self.reportingStatus(context) { try await body(requests, context) }
    }

    /// Runs the rest of a synchronous handler's work (``SynchronousOutcome/later(_:)``) and sends its response and
    /// status, as ``run(requests:context:)`` does.
    public func run(later rest: @Sendable () async throws -> [UInt8], context: ServerContext) async {
        await Self.reportingStatus(context) { try await context.responseSink.sendMessage(rest()) }
    }

    private static func reportingStatus(_ context: ServerContext, _ body: () async throws -> Void) async {
        do {
            try await body()
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
