public import RPCCore

/// `entitlementd.testing.InteropTestService`: the server half of the Python interop suite (Tests/Interop).
///
/// Semantics follow grpc's interop TestService:
/// - responses carry `response_size` (or `ResponseParameters.size`) zero bytes;
/// - a non-zero `response_status` ends the call with that code and message;
/// - request metadata `x-grpc-test-echo-initial` comes back as a response header and every
///   `x-grpc-test-echo-trailing-bin` value as a trailer, on every method (on failed calls too);
/// - handlers running under a cancellation token (the request's `cancellation_token`, else the
///   `x-interop-cancellation-token` request header) record in ``registry`` whether they observed cancellation,
///   which `GetCancellation` reports (`NOT_FOUND` for a token no handler has used yet).
public struct InteropTestService: RPCService {
    public static let serviceName = "\(Interop.package).InteropTestService"
    public static let echoInitialKey = InteropEcho.initialKey
    public static let echoTrailingKey = InteropEcho.trailingKey
    /// Request header naming the call for calls whose request message has no token field.
    public static let cancellationTokenKey = "x-interop-cancellation-token"

    public let registry: InteropCancellationRegistry

    public init(registry: InteropCancellationRegistry = InteropCancellationRegistry()) {
        self.registry = registry
    }

    private static func method(_ name: String) -> MethodDescriptor {
        MethodDescriptor(service: serviceName, method: name)
    }

    public func register(on router: inout RPCRouter) {
        let registry = self.registry

        router.registerUnary(Self.method("EmptyCall")) { (_: Interop.Empty, context) -> Interop.Empty in
            let echo = InteropEcho(context)
            return try await tracked(registry, context, token: nil, echo: echo) { _ in Interop.Empty() }
        }

        router.registerUnary(Self.method("UnaryCall")) {
            (request: Interop.SimpleRequest, context) -> Interop.SimpleResponse in
            let echo = InteropEcho(context)
            return try await tracked(registry, context, token: nil, echo: echo) { _ in
                try echo.failIfRequested(request.responseStatus)
                return Interop.SimpleResponse(payload: try interopZeroBody(size: request.responseSize))
            }
        }

        router.registerServerStreaming(Self.method("StreamingOutputCall")) {
            (request: Interop.StreamingOutputCallRequest, writer: ResponseWriter<Interop.StreamingOutputCallResponse>,
             context) in
            let echo = InteropEcho(context)
            try await tracked(registry, context, token: request.cancellationToken, echo: echo) { tracker in
                for parameters in request.responseParameters {
                    try await send(parameters, on: writer, tracker: tracker)
                }
                try echo.failIfRequested(request.responseStatus)
            }
        }

        router.registerClientStreaming(Self.method("StreamingInputCall")) {
            (requests: RequestMessages<Interop.StreamingInputCallRequest>, context)
                -> Interop.StreamingInputCallResponse in
            let echo = InteropEcho(context)
            return try await tracked(registry, context, token: nil, echo: echo) { _ in
                let aggregated = try await interopAggregatedPayloadSize(of: requests) { $0.payload.count }
                return Interop.StreamingInputCallResponse(aggregatedPayloadSize: aggregated)
            }
        }

        router.registerBidirectional(Self.method("FullDuplexCall")) {
            (requests: RequestMessages<Interop.StreamingOutputCallRequest>,
             writer: ResponseWriter<Interop.StreamingOutputCallResponse>, context) in
            let echo = InteropEcho(context)
            try await tracked(registry, context, token: nil, echo: echo) { tracker in
                for try await request in requests {
                    tracker.bind(request.cancellationToken)
                    try echo.failIfRequested(request.responseStatus)
                    for parameters in request.responseParameters {
                        try await send(parameters, on: writer, tracker: tracker)
                    }
                }
            }
        }

        router.registerUnary(Self.method("Sleep")) { (request: Interop.SleepRequest, context) -> Interop.Empty in
            let echo = InteropEcho(context)
            return try await tracked(registry, context, token: request.cancellationToken, echo: echo) { _ in
                guard request.milliseconds >= 0 else {
                    throw RPCError(code: .invalidArgument, message: "milliseconds must not be negative.")
                }
                try await Task.sleep(for: .milliseconds(Int(request.milliseconds)))
                return Interop.Empty()
            }
        }

        router.registerUnary(Self.method("GetCancellation")) {
            (query: Interop.CancellationQuery, context) -> Interop.CancellationReport in
            let echo = InteropEcho(context)
            echo.sendHeaders()
            guard let entry = registry.entry(for: query.token) else {
                throw RPCError(
                    code: .notFound,
                    message: "No handler has run under cancellation token '\(query.token)'.",
                    metadata: echo.trailers
                )
            }
            echo.addTrailers()
            return Interop.CancellationReport(cancelled: entry.cancelled, finished: entry.finished)
        }
    }
}

// MARK: - Helpers

/// Runs a handler body with echo metadata (``InteropEcho/around(_:)``) and cancellation tracking.
private func tracked<Value: Sendable>(
    _ registry: InteropCancellationRegistry,
    _ context: ServerContext,
    token: String?,
    echo: InteropEcho,
    _ body: @Sendable (InteropCallTracker) async throws -> Value
) async throws -> Value {
    let tracker = InteropCallTracker(
        registry: registry,
        token: (token?.isEmpty == false ? token : nil) ?? context.metadata[string: InteropTestService.cancellationTokenKey]
    )
    defer {
        if Task.isCancelled { tracker.markCancelled() }
        tracker.markFinished()
    }
    do {
        return try await echo.around {
            try await withTaskCancellationHandler {
                try await body(tracker)
            } onCancel: {
                tracker.markCancelled()
            }
        }
    } catch {
        if Task.isCancelled || isCancellation(error) { tracker.markCancelled() }
        throw error
    }
}

/// Whether an error means the call went away: task cancellation, or the client resetting the stream.
private func isCancellation(_ error: any Error) -> Bool {
    if error is CancellationError { return true }
    if let rpc = error as? RPCError { return rpc.code == .cancelled || rpc.code == .deadlineExceeded }
    return false
}

/// Sleeps `interval_us`, then writes one response of `size` zero bytes; a failed write counts as cancellation.
private func send(
    _ parameters: Interop.ResponseParameters,
    on writer: ResponseWriter<Interop.StreamingOutputCallResponse>,
    tracker: InteropCallTracker
) async throws {
    try await interopDelayBeforeResponse(intervalUs: parameters.intervalUs)
    let response = Interop.StreamingOutputCallResponse(payload: try interopZeroBody(size: parameters.size))
    do {
        try await writer.write(response)
    } catch {
        tracker.markCancelled()
        throw error
    }
}
