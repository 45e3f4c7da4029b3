import ProtobufWire
public import RPCCore

/// `grpc.testing.TestService`, the server side of grpc's own interop tests (`doc/interop-test-descriptions.md` in
/// grpc/grpc), so the interop clients grpc ships can judge our transport (Tests/Interop/test_ruby_interop.py).
///
/// - EmptyCall, UnaryCall, StreamingOutputCall, StreamingInputCall, FullDuplexCall and HalfDuplexCall behave as
///   the descriptions' server features say: bodies of `response_size` (or `ResponseParameters.size`) zero bytes,
///   `interval_us` slept before each streamed response.
/// - Echo Metadata and Echo Status on every method (``InteropEcho``). A request's `response_status` ends the
///   call before that request's responses are sent, as grpc's C++ and Go servers do.
/// - Not registered: UnimplementedCall (test.proto: "The test server will not implement this method"), so
///   `unimplemented_method` gets the router's UNIMPLEMENTED for a method of a known service; CacheableUnaryCall,
///   whose test needs a caching proxy; and `grpc.testing.UnimplementedService`, for `unimplemented_service`.
/// - Refused with INVALID_ARGUMENT, as the descriptions ask of a server without the feature: a `response_type`
///   other than COMPRESSABLE, and asking for compression (`response_compressed`, `ResponseParameters.compressed`,
///   `expect_compressed` set to true). This server never compresses responses, and a handler cannot see whether
///   a request message arrived compressed (the transport inflates it before).
/// - `fill_server_id` answers this server's ``serverID`` (grpc-go's `pick_first_unary` case checks that 100 calls
///   all reach one server by it). The cloud-only `fill_username`, `fill_oauth_scope` and `fill_grpclb_route_type`
///   are ignored: there is no authenticated user, scope or load balancer to report.
public struct GRPCTestService: RPCService {
    public static let serviceName = "\(GRPCTesting.package).TestService"

    /// What `fill_server_id` answers: the same for every call this server takes, another for another server.
    public let serverID: String

    public init(serverID: String) {
        self.serverID = serverID
    }

    private static func method(_ name: String) -> MethodDescriptor {
        MethodDescriptor(service: serviceName, method: name)
    }

    public func register(on router: inout RPCRouter) {
        router.registerUnary(Self.method("EmptyCall")) { (_: GRPCTesting.Empty, context) -> GRPCTesting.Empty in
            try await InteropEcho(context).around { GRPCTesting.Empty() }
        }

        router.registerUnary(Self.method("UnaryCall")) {
            (request: GRPCTesting.SimpleRequest, context) -> GRPCTesting.SimpleResponse in
            let echo = InteropEcho(context)
            return try await echo.around {
                try refuseUnsupported(request)
                try echo.failIfRequested(request.responseStatus)
                var response = GRPCTesting.SimpleResponse(payload: try zeroPayload(size: request.responseSize))
                if request.fillServerID { response.serverID = serverID }
                return response
            }
        }

        router.registerServerStreaming(Self.method("StreamingOutputCall")) {
            (request: GRPCTesting.StreamingOutputCallRequest,
             writer: ResponseWriter<GRPCTesting.StreamingOutputCallResponse>, context) in
            let echo = InteropEcho(context)
            try await echo.around {
                try await answer(request, on: writer, echo: echo)
            }
        }

        router.registerClientStreaming(Self.method("StreamingInputCall")) {
            (requests: RequestMessages<GRPCTesting.StreamingInputCallRequest>, context)
                -> GRPCTesting.StreamingInputCallResponse in
            try await InteropEcho(context).around {
                let aggregated = try await interopAggregatedPayloadSize(of: requests) { request in
                    try refuseCompression(request.expectCompressed, field: "expect_compressed")
                    return request.payload?.body.count ?? 0
                }
                return GRPCTesting.StreamingInputCallResponse(aggregatedPayloadSize: aggregated)
            }
        }

        router.registerBidirectional(Self.method("FullDuplexCall")) {
            (requests: RequestMessages<GRPCTesting.StreamingOutputCallRequest>,
             writer: ResponseWriter<GRPCTesting.StreamingOutputCallResponse>, context) in
            let echo = InteropEcho(context)
            try await echo.around {
                for try await request in requests {
                    try await answer(request, on: writer, echo: echo)
                }
            }
        }

        // Answers only after the client half-closes: every request is read before the first response is sent.
        router.registerBidirectional(Self.method("HalfDuplexCall")) {
            (requests: RequestMessages<GRPCTesting.StreamingOutputCallRequest>,
             writer: ResponseWriter<GRPCTesting.StreamingOutputCallResponse>, context) in
            let echo = InteropEcho(context)
            try await echo.around {
                var received: [GRPCTesting.StreamingOutputCallRequest] = []
                for try await request in requests {
                    received.append(request)
                }
                for request in received {
                    try await answer(request, on: writer, echo: echo)
                }
            }
        }
    }
}

// MARK: - Helpers

/// Ends the call with the request's `response_status`, or sends the responses its `response_parameters` ask for.
private func answer(
    _ request: GRPCTesting.StreamingOutputCallRequest,
    on writer: ResponseWriter<GRPCTesting.StreamingOutputCallResponse>,
    echo: InteropEcho
) async throws {
    try refuseUnsupported(request.responseType)
    for parameters in request.responseParameters {
        try refuseCompression(parameters.compressed, field: "ResponseParameters.compressed")
    }
    try echo.failIfRequested(request.responseStatus)
    for parameters in request.responseParameters {
        try await interopDelayBeforeResponse(intervalUs: parameters.intervalUs)
        try await writer.write(GRPCTesting.StreamingOutputCallResponse(payload: try zeroPayload(size: parameters.size)))
    }
}

private func zeroPayload(size: Int32) throws(RPCError) -> GRPCTesting.Payload {
    GRPCTesting.Payload(type: .compressable, body: try interopZeroBody(size: size))
}

private func refuseUnsupported(_ request: GRPCTesting.SimpleRequest) throws(RPCError) {
    try refuseUnsupported(request.responseType)
    try refuseCompression(request.responseCompressed, field: "response_compressed")
    try refuseCompression(request.expectCompressed, field: "expect_compressed")
}

/// "If the server does not support the response_type, then it should fail the RPC with INVALID_ARGUMENT."
private func refuseUnsupported(_ responseType: GRPCTesting.PayloadType) throws(RPCError) {
    guard responseType != .compressable else { return }
    throw RPCError(code: .invalidArgument, message: "Unsupported response_type \(responseType.rawValue).")
}

/// Compression asked for (a flag set to true) is refused; false asks for what this server does anyway.
private func refuseCompression(_ flag: GRPCTesting.BoolValue?, field: String) throws(RPCError) {
    guard flag?.value == true else { return }
    throw RPCError(
        code: .invalidArgument,
        message: "\(field) is not supported: this server neither compresses responses nor sees request compression."
    )
}
