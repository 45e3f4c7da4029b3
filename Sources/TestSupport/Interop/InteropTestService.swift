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
    public static let echoInitialKey = "x-grpc-test-echo-initial"
    public static let echoTrailingKey = "x-grpc-test-echo-trailing-bin"
    /// Request header asking for this many bytes of `x-interop-padding-bin` trailers (in 8 KiB values), for tests of
    /// trailers larger than a client or the server's send limit allows.
    public static let trailerPaddingKey = "x-interop-trailer-padding-bytes"
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
            let echo = Echo(context)
            return try await tracked(registry, context, token: nil, echo: echo) { _ in Interop.Empty() }
        }

        router.registerUnary(Self.method("UnaryCall")) {
            (request: Interop.SimpleRequest, context) -> Interop.SimpleResponse in
            let echo = Echo(context)
            return try await tracked(registry, context, token: nil, echo: echo) { _ in
                try echo.failIfRequested(request.responseStatus)
                return Interop.SimpleResponse(payload: try zeros(request.responseSize))
            }
        }

        router.registerServerStreaming(Self.method("StreamingOutputCall")) {
            (request: Interop.StreamingOutputCallRequest, writer: ResponseWriter<Interop.StreamingOutputCallResponse>,
             context) in
            let echo = Echo(context)
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
            let echo = Echo(context)
            return try await tracked(registry, context, token: nil, echo: echo) { _ in
                var total = 0
                for try await request in requests {
                    total += request.payload.count
                }
                guard let aggregated = Int32(exactly: total) else {
                    throw RPCError(code: .outOfRange, message: "Aggregated payload size \(total) exceeds int32.")
                }
                return Interop.StreamingInputCallResponse(aggregatedPayloadSize: aggregated)
            }
        }

        router.registerBidirectional(Self.method("FullDuplexCall")) {
            (requests: RequestMessages<Interop.StreamingOutputCallRequest>,
             writer: ResponseWriter<Interop.StreamingOutputCallResponse>, context) in
            let echo = Echo(context)
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
            let echo = Echo(context)
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
            let echo = Echo(context)
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

/// The echo metadata of one call.
private struct Echo: Sendable {
    let context: ServerContext
    let initial: String?
    let trailers: Metadata

    init(_ context: ServerContext) {
        self.context = context
        initial = context.metadata[string: InteropTestService.echoInitialKey]
        var trailers = Metadata()
        for value in context.metadata[binary: InteropTestService.echoTrailingKey] {
            trailers.addBinary(value, forKey: InteropTestService.echoTrailingKey)
        }
        if let text = context.metadata[string: InteropTestService.trailerPaddingKey], var remaining = Int(text) {
            // Bytes that neither HPACK's Huffman code nor its table shrink: the block on the wire is this large.
            var generator = SystemRandomNumberGenerator()
            remaining = min(remaining, 16 * 1024 * 1024)
            while remaining > 0 {
                let count = min(remaining, 8 * 1024)
                trailers.addBinary((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }, forKey: "x-interop-padding-bin")
                remaining -= count
            }
        }
        self.trailers = trailers
    }

    /// Sends `x-grpc-test-echo-initial` back as a response header, before any message.
    func sendHeaders() {
        guard let initial else { return }
        var headers = Metadata()
        headers.addString(initial, forKey: InteropTestService.echoInitialKey)
        context.sendHeaders(headers)
    }

    /// Adds the echoed `-bin` values to the trailers of a successful call.
    func addTrailers() {
        for (key, value) in trailers {
            context.addTrailer(value, forKey: key)
        }
    }

    /// Throws the requested status (with the echoed trailers) when its code is not OK.
    func failIfRequested(_ status: Interop.EchoStatus?) throws {
        guard let status, status.code != 0 else { return }
        throw RPCError(code: RPCError.Code(rawValue: Int(status.code)), message: status.message, metadata: trailers)
    }
}

/// Runs a handler body with echo metadata and cancellation tracking.
///
/// The body's errors keep their status; any error gets the echoed trailers attached, since the trailers a
/// context collects are only sent on success.
private func tracked<Value: Sendable>(
    _ registry: InteropCancellationRegistry,
    _ context: ServerContext,
    token: String?,
    echo: Echo,
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
    echo.sendHeaders()
    do {
        let result = try await withTaskCancellationHandler {
            try await body(tracker)
        } onCancel: {
            tracker.markCancelled()
        }
        echo.addTrailers()
        return result
    } catch {
        if Task.isCancelled || isCancellation(error) { tracker.markCancelled() }
        var rpcError = RPCError(from: error)
        if rpcError.metadata.isEmpty { rpcError.metadata = echo.trailers }
        throw rpcError
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
    if parameters.intervalUs > 0 {
        try await Task.sleep(for: .microseconds(Int(parameters.intervalUs)))
    }
    let response = Interop.StreamingOutputCallResponse(payload: try zeros(parameters.size))
    do {
        try await writer.write(response)
    } catch {
        tracker.markCancelled()
        throw error
    }
}

private func zeros(_ size: Int32) throws(RPCError) -> [UInt8] {
    guard size >= 0 else {
        throw RPCError(code: .invalidArgument, message: "Response size \(size) is negative.")
    }
    return [UInt8](repeating: 0, count: Int(size))
}
