/// The four call shapes of gRPC.
public enum RPCKind: Sendable {
    case unary, serverStreaming, clientStreaming, bidirectional
}

/// A method's implementation on raw message bytes; typed registration on ``RPCRouter`` builds these.
public struct RPCHandler: Sendable {
    public let kind: RPCKind
    let body: @Sendable (RPCRequestStream, ServerContext) async throws -> Void

    public init(kind: RPCKind, body: @escaping @Sendable (RPCRequestStream, ServerContext) async throws -> Void) {
        self.kind = kind
        self.body = body
    }

    /// Runs the handler to the end and reports its status to the context's sink.
    ///
    /// Anything thrown becomes a status through ``RPCError/init(from:)``; the transport cancels the task on a client
    /// reset or an expired deadline and reports that status itself.
    public func run(requests: RPCRequestStream, context: ServerContext) async {
        do {
            try await body(requests, context)
            context.responseSink.finish(RPCStatus(code: .ok, trailers: context.trailers))
        } catch {
            context.responseSink.finish(RPCStatus(RPCError(from: error)))
        }
    }
}
