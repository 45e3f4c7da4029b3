import ProtobufWire
import RPCCore
import Testing
import TestSupport

/// grpc.testing.TestService's handlers, driven in-process, against the server features of grpc's
/// doc/interop-test-descriptions.md.
@Suite(.timeLimit(.minutes(1))) struct GRPCTestServiceTests {
    typealias Request = GRPCTesting.StreamingOutputCallRequest
    typealias Response = GRPCTesting.StreamingOutputCallResponse
    typealias Parameters = GRPCTesting.ResponseParameters

    let router: RPCRouter = {
        var router = RPCRouter()
        router.register([GRPCTestService(serverID: "test-server-1")])
        return router
    }()

    func path(_ method: String) -> String { "/grpc.testing.TestService/\(method)" }

    func echoMetadata() -> Metadata {
        var metadata = Metadata()
        metadata.addString("test_initial_metadata_value", forKey: InteropEcho.initialKey)
        metadata.addBinary([0x0A, 0x0B, 0x0A, 0x0B, 0x0A, 0x0B], forKey: InteropEcho.trailingKey)
        return metadata
    }

    func expectEchoed(_ headers: Metadata?, _ status: RPCStatus) {
        #expect(headers?[string: InteropEcho.initialKey] == "test_initial_metadata_value")
        #expect(status.trailers[binary: InteropEcho.trailingKey] == [[0x0A, 0x0B, 0x0A, 0x0B, 0x0A, 0x0B]])
    }

    func bodySizes(_ result: InProcessResult) throws -> [Int] {
        try result.messages(as: Response.self).map { try #require($0.payload).body.count }
    }

    /// A request of FullDuplexCall, HalfDuplexCall or StreamingOutputCall asking for responses of `sizes`.
    func request(_ sizes: Int32..., payload: Int = 0) -> Request {
        Request(
            responseParameters: sizes.map { Parameters(size: $0) }, payload: GRPCTesting.Payload(body: zeros(payload))
        )
    }

    func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

    // MARK: Unary

    @Test func emptyCallAnswersEmpty() async throws {
        let response: GRPCTesting.Empty = try await InProcessCall.unary(
            router: router, path: path("EmptyCall"), request: GRPCTesting.Empty()
        )
        #expect(response.serializedBytes().isEmpty)
    }

    @Test func unaryCallAnswersResponseSizeZeroBytes() async throws {
        var request = GRPCTesting.SimpleRequest()
        request.responseSize = 314_159
        request.payload = GRPCTesting.Payload(body: zeros(271_828))
        request.fillUsername = true  // cloud-only: ignored, not refused
        let response: GRPCTesting.SimpleResponse = try await InProcessCall.unary(
            router: router, path: path("UnaryCall"), request: request
        )
        let payload = try #require(response.payload)
        #expect(payload.type == .compressable)
        #expect(payload.body == zeros(314_159))
        #expect(response.username.isEmpty)
        #expect(response.serverID.isEmpty)  // not asked for
    }

    /// grpc-go's `pick_first_unary`: every call asking for it gets the same, non-empty server ID.
    @Test func fillServerIDAnswersTheServersID() async throws {
        var request = GRPCTesting.SimpleRequest()
        request.responseSize = 1
        request.fillServerID = true
        for _ in 0..<3 {
            let response: GRPCTesting.SimpleResponse = try await InProcessCall.unary(
                router: router, path: path("UnaryCall"), request: request
            )
            #expect(response.serverID == "test-server-1")
        }
    }

    @Test func unaryCallEchoesMetadataAndStatus() async throws {
        let success = await InProcessCall.run(
            router: router, path: path("UnaryCall"), requests: [GRPCTesting.SimpleRequest()], metadata: echoMetadata()
        )
        #expect(success.status.code == .ok)
        expectEchoed(success.headers, success.status)

        var failing = GRPCTesting.SimpleRequest()
        failing.responseSize = 1
        failing.responseStatus = GRPCTesting.EchoStatus(code: 2, message: "test status message")
        let failure = await InProcessCall.run(
            router: router, path: path("UnaryCall"), requests: [failing], metadata: echoMetadata()
        )
        #expect(failure.status.code == .unknown)
        #expect(failure.status.message == "test status message")
        #expect(failure.messages.isEmpty)
        expectEchoed(failure.headers, failure.status)
    }

    @Test func unsupportedRequestsAreInvalidArguments() async {
        var compressedResponse = GRPCTesting.SimpleRequest()
        compressedResponse.responseCompressed = GRPCTesting.BoolValue(true)
        var compressedRequest = GRPCTesting.SimpleRequest()
        compressedRequest.expectCompressed = GRPCTesting.BoolValue(true)
        var otherType = GRPCTesting.SimpleRequest()
        otherType.responseType = GRPCTesting.PayloadType(rawValue: 1)
        var negative = GRPCTesting.SimpleRequest()
        negative.responseSize = -1
        for request in [compressedResponse, compressedRequest, otherType, negative] {
            let result = await InProcessCall.run(router: router, path: path("UnaryCall"), requests: [request])
            #expect(result.status.code == .invalidArgument, "\(request)")
        }

        var uncompressed = GRPCTesting.SimpleRequest()
        uncompressed.responseCompressed = GRPCTesting.BoolValue(false)
        uncompressed.expectCompressed = GRPCTesting.BoolValue(false)
        let result = await InProcessCall.run(router: router, path: path("UnaryCall"), requests: [uncompressed])
        #expect(result.status.code == .ok, "false asks for what the server does anyway")
    }

    /// unimplemented_method and unimplemented_service: neither is registered, so the router answers both.
    @Test func unimplementedCallsAreUnimplemented() async {
        let paths = [
            path("UnimplementedCall"),
            path("CacheableUnaryCall"),
            "/grpc.testing.UnimplementedService/UnimplementedCall",
        ]
        for path in paths {
            let result = await InProcessCall.run(router: router, path: path, requests: [GRPCTesting.Empty()])
            #expect(result.status.code == .unimplemented, "\(path)")
        }
        #expect(router.serviceNames == ["grpc.testing.TestService"])
    }

    // MARK: Streaming

    @Test func streamingOutputCallAnswersEachParameterInOrder() async throws {
        let result = await InProcessCall.run(
            router: router, path: path("StreamingOutputCall"), requests: [request(31_415, 9, 2653, 58_979)]
        )
        #expect(result.status.code == .ok)
        #expect(try bodySizes(result) == [31_415, 9, 2653, 58_979])
    }

    @Test func intervalsAreSleptBeforeEachResponse() async throws {
        let request = Request(responseParameters: [
            Parameters(size: 1, intervalUs: 60_000), Parameters(size: 2, intervalUs: 60_000),
        ])
        let started = ContinuousClock.now
        let result = await InProcessCall.run(router: router, path: path("StreamingOutputCall"), requests: [request])
        #expect(ContinuousClock.now - started >= .milliseconds(120), "the intervals add up")
        #expect(try bodySizes(result) == [1, 2])
    }

    @Test func streamingOutputCallEndsWithTheRequestedStatusInsteadOfResponses() async {
        var failing = request(1)
        failing.responseStatus = GRPCTesting.EchoStatus(code: 9, message: "failed precondition")
        let result = await InProcessCall.run(
            router: router, path: path("StreamingOutputCall"), requests: [failing], metadata: echoMetadata()
        )
        #expect(result.status.code == .failedPrecondition)
        #expect(result.status.message == "failed precondition")
        #expect(result.messages.isEmpty)
        expectEchoed(result.headers, result.status)
    }

    @Test func streamingInputCallAggregatesPayloadSizes() async throws {
        let requests = [27_182, 8, 1828, 45_904].map {
            GRPCTesting.StreamingInputCallRequest(payload: GRPCTesting.Payload(body: zeros($0)))
        }
        let result = await InProcessCall.run(router: router, path: path("StreamingInputCall"), requests: requests)
        #expect(result.status.code == .ok)
        let responses = try result.messages(as: GRPCTesting.StreamingInputCallResponse.self)
        #expect(responses.map(\.aggregatedPayloadSize) == [74_922])

        var compressed = GRPCTesting.StreamingInputCallRequest()
        compressed.expectCompressed = GRPCTesting.BoolValue(true)
        let refused = await InProcessCall.run(router: router, path: path("StreamingInputCall"), requests: [compressed])
        #expect(refused.status.code == .invalidArgument)
    }

    /// ping_pong: each request is answered before the next is sent.
    @Test func fullDuplexCallAnswersEachRequestAsItArrives() async throws {
        let call = InProcessCall(router: router, path: path("FullDuplexCall"), metadata: echoMetadata())
        for (requestSize, responseSize) in [(27_182, 31_415), (8, 9), (1828, 2653), (45_904, 58_979)] {
            call.send(request(Int32(responseSize), payload: requestSize))
            let response = try #require(try await call.nextMessage(as: Response.self))
            #expect(response.payload?.body.count == responseSize)
        }
        call.finishSending()
        let status = await call.status()
        #expect(status.code == .ok)
        expectEchoed(call.sink.headers, status)
    }

    @Test func fullDuplexCallWithNoRequestsAnswersNothing() async {
        let result = await InProcessCall.run(router: router, path: path("FullDuplexCall"), requests: [[UInt8]]())
        #expect(result.status.code == .ok)
        #expect(result.messages.isEmpty)
    }

    @Test func fullDuplexCallEndsWithTheRequestedStatus() async {
        var failing = request(1, payload: 1)
        failing.responseStatus = GRPCTesting.EchoStatus(code: 2, message: "test status message")
        let result = await InProcessCall.run(router: router, path: path("FullDuplexCall"), requests: [failing])
        #expect(result.status.code == .unknown)
        #expect(result.status.message == "test status message")
    }

    /// timeout_on_sleeping_server: the client sends one request and waits past its deadline.
    @Test func fullDuplexCallWaitingForRequestsEndsAtTheDeadline() async {
        let call = InProcessCall(router: router, path: path("FullDuplexCall"), timeout: .milliseconds(50))
        call.send(request(payload: 27_182))
        #expect(await call.status().code == .deadlineExceeded)
        await call.waitForHandler()
    }

    @Test func halfDuplexCallAnswersOnlyAfterTheClientHalfCloses() async throws {
        let call = InProcessCall(router: router, path: path("HalfDuplexCall"))
        call.send(request(3, 4))
        call.send(request(5))
        try await Task.sleep(for: .milliseconds(50))
        #expect(call.sink.messages.isEmpty)
        call.finishSending()
        #expect(await call.status().code == .ok)
        #expect(try call.messages(as: Response.self).map { $0.payload?.body.count } == [3, 4, 5])
    }
}
