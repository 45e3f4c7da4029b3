import ProtobufWire
import RPCCore
import Testing

private let unaryMethod = MethodDescriptor(service: "test.Typed", method: "Unary")
private let serverStreamingMethod = MethodDescriptor(service: "test.Typed", method: "ServerStreaming")
private let clientStreamingMethod = MethodDescriptor(service: "test.Typed", method: "ClientStreaming")
private let bidirectionalMethod = MethodDescriptor(service: "test.Typed", method: "Bidirectional")

private func bytes(_ text: String) -> [UInt8] { TextMessage(text).serializedBytes() }

/// A router whose handlers record every request they see.
private func makeRouter(seen: Recorder<String>) -> RPCRouter {
    var router = RPCRouter()
    router.registerUnary(unaryMethod) { (request: TextMessage, context: ServerContext) in
        seen.append(request.text)
        context.sendHeaders(Metadata([("X-Initial", "yes")]))
        context.addTrailer(.string("trailer-value"), forKey: "X-Trailer")
        context.addTrailer(.binary([0xDE, 0xAD]), forKey: "x-raw-bin")
        if request.text == "fail" { throw RPCError(code: .notFound, message: "no such thing") }
        return TextMessage(request.text + "!")
    }
    router.registerServerStreaming(serverStreamingMethod) {
        (request: TextMessage, writer: ResponseWriter<TextMessage>, _: ServerContext) in
        seen.append(request.text)
        for character in request.text { try await writer.write(TextMessage(String(character))) }
    }
    router.registerClientStreaming(clientStreamingMethod) {
        (requests: RequestMessages<TextMessage>, _: ServerContext) -> TextMessage in
        var joined: [String] = []
        for try await request in requests {
            seen.append(request.text)
            joined.append(request.text)
        }
        return TextMessage(joined.joined(separator: "+"))
    }
    router.registerBidirectional(bidirectionalMethod) {
        (requests: RequestMessages<TextMessage>, writer: ResponseWriter<TextMessage>, _: ServerContext) in
        for try await request in requests {
            seen.append(request.text)
            try await writer.write(TextMessage(request.text.uppercased()))
        }
    }
    return router
}

@Suite struct TypedHandlersTests {
    @Test func registrationsHaveTheirKinds() throws {
        let router = makeRouter(seen: Recorder())
        #expect(try #require(router.handler(forPath: unaryMethod.path)).kind == .unary)
        #expect(try #require(router.handler(forPath: serverStreamingMethod.path)).kind == .serverStreaming)
        #expect(try #require(router.handler(forPath: clientStreamingMethod.path)).kind == .clientStreaming)
        #expect(try #require(router.handler(forPath: bidirectionalMethod.path)).kind == .bidirectional)
        #expect(router.serviceNames == ["test.Typed"])
    }

    // MARK: Unary

    @Test func unarySendsOneMessageThenOKWithTrailers() async throws {
        let seen = Recorder<String>()
        let sink = try await runCall(makeRouter(seen: seen), path: unaryMethod.path, requests: [bytes("hi")])
        var trailers = Metadata()
        trailers.addString("trailer-value", forKey: "x-trailer")
        trailers.addBinary([0xDE, 0xAD], forKey: "x-raw-bin")
        #expect(sink.events == [
            .headers(Metadata([("x-initial", "yes")])),
            .message(bytes("hi!")),
            .status(RPCStatus(code: .ok, trailers: trailers)),
        ])
        #expect(seen.values == ["hi"])
        #expect(try TextMessage(serializedBytes: sink.messages[0]).text == "hi!")
    }

    @Test func unaryWithoutARequestIsUnimplemented() async throws {
        let seen = Recorder<String>()
        let sink = try await runCall(makeRouter(seen: seen), path: unaryMethod.path, requests: [])
        #expect(sink.messages.isEmpty)
        #expect(sink.statuses.map(\.code) == [.unimplemented])
        #expect(seen.values.isEmpty, "the handler body must not run")
    }

    @Test func unaryWithTwoRequestsIsUnimplemented() async throws {
        let seen = Recorder<String>()
        let sink = try await runCall(makeRouter(seen: seen), path: unaryMethod.path, requests: [bytes("a"), bytes("b")])
        #expect(sink.messages.isEmpty)
        #expect(sink.statuses.map(\.code) == [.unimplemented])
        #expect(sink.statuses.first?.message.contains("more than one") == true)
        #expect(seen.values.isEmpty)
    }

    @Test func unaryWithAnUnparsableRequestIsInternal() async throws {
        let seen = Recorder<String>()
        let sink = try await runCall(makeRouter(seen: seen), path: unaryMethod.path, requests: [TextMessage.unparsableBytes])
        #expect(sink.events.count == 1)
        #expect(sink.statuses.map(\.code) == [.internal])
        #expect(seen.values.isEmpty)
    }

    @Test func unaryWhoseRequestStreamFailsEndsWithThatError() async throws {
        let sink = try await runCall(
            makeRouter(seen: Recorder()), path: unaryMethod.path, requests: [],
            end: RPCError(code: .cancelled, message: "client went away")
        )
        #expect(sink.statuses == [RPCStatus(code: .cancelled, message: "client went away")])
    }

    @Test func unaryHandlerErrorBecomesTheStatusWithTheAddedTrailers() async throws {
        let sink = try await runCall(makeRouter(seen: Recorder()), path: unaryMethod.path, requests: [bytes("fail")])
        var trailers = Metadata()
        trailers.addString("trailer-value", forKey: "x-trailer")
        trailers.addBinary([0xDE, 0xAD], forKey: "x-raw-bin")
        #expect(sink.messages.isEmpty)
        #expect(sink.statuses == [RPCStatus(code: .notFound, message: "no such thing", trailers: trailers)])
    }

    // MARK: Server streaming

    @Test func serverStreamingWritesEveryMessageThenOK() async throws {
        let sink = try await runCall(makeRouter(seen: Recorder()), path: serverStreamingMethod.path, requests: [bytes("abc")])
        #expect(sink.events == [.message(bytes("a")), .message(bytes("b")), .message(bytes("c")), .status(.ok)])
    }

    @Test func serverStreamingChecksRequestCardinality() async throws {
        let seen = Recorder<String>()
        let router = makeRouter(seen: seen)
        let none = try await runCall(router, path: serverStreamingMethod.path, requests: [])
        let two = try await runCall(router, path: serverStreamingMethod.path, requests: [bytes("a"), bytes("b")])
        let bad = try await runCall(router, path: serverStreamingMethod.path, requests: [TextMessage.unparsableBytes])
        #expect(none.statuses.map(\.code) == [.unimplemented])
        #expect(two.statuses.map(\.code) == [.unimplemented])
        #expect(bad.statuses.map(\.code) == [.internal])
        #expect(seen.values.isEmpty)
    }

    // MARK: Client streaming

    @Test func clientStreamingReadsAllRequestsThenRespondsOnce() async throws {
        let seen = Recorder<String>()
        let sink = try await runCall(
            makeRouter(seen: seen), path: clientStreamingMethod.path, requests: [bytes("x"), bytes("y"), bytes("z")]
        )
        #expect(sink.events == [.message(bytes("x+y+z")), .status(.ok)])
        #expect(seen.values == ["x", "y", "z"])
    }

    @Test func clientStreamingWithNoRequestsStillResponds() async throws {
        let sink = try await runCall(makeRouter(seen: Recorder()), path: clientStreamingMethod.path, requests: [])
        #expect(sink.events == [.message(bytes("")), .status(.ok)])
    }

    @Test func clientStreamingStopsAtAnUnparsableRequestWithInternal() async throws {
        let seen = Recorder<String>()
        let sink = try await runCall(
            makeRouter(seen: seen), path: clientStreamingMethod.path,
            requests: [bytes("ok"), TextMessage.unparsableBytes, bytes("never")]
        )
        #expect(sink.messages.isEmpty)
        #expect(sink.statuses.map(\.code) == [.internal])
        #expect(seen.values == ["ok"])
    }

    // MARK: Bidirectional

    @Test func bidirectionalAnswersEachRequest() async throws {
        let sink = try await runCall(
            makeRouter(seen: Recorder()), path: bidirectionalMethod.path, requests: [bytes("a"), bytes("bc")]
        )
        #expect(sink.events == [.message(bytes("A")), .message(bytes("BC")), .status(.ok)])
    }

    @Test func bidirectionalUnparsableRequestIsInternalAfterEarlierResponses() async throws {
        let sink = try await runCall(
            makeRouter(seen: Recorder()), path: bidirectionalMethod.path, requests: [bytes("a"), TextMessage.unparsableBytes]
        )
        #expect(sink.messages == [bytes("A")])
        #expect(sink.statuses.map(\.code) == [.internal])
    }

    // MARK: Synchronous unary

    private static func synchronousRouter(seen: Recorder<String>) -> RPCRouter {
        var router = RPCRouter()
        router.registerSynchronousUnary(unaryMethod) { (request: TextMessage, context: ServerContext) in
            seen.append(request.text)
            context.addTrailer(.string("1"), forKey: "X-Sync")
            if request.text.isEmpty { throw RPCError(code: .invalidArgument, message: "empty") }
            return TextMessage(String(request.text.reversed()))
        }
        return router
    }

    private static func context(_ sink: RecordingSink) -> ServerContext {
        ServerContext(method: unaryMethod, metadata: Metadata(), timeout: nil, peer: "p", responseSink: sink)
    }

    @Test func synchronousUnaryDecodesCallsAndEncodes() throws {
        let seen = Recorder<String>()
        let handler = try #require(Self.synchronousRouter(seen: seen).handler(forPath: unaryMethod.path))
        #expect(handler.kind == .unary)
        let sink = RecordingSink()
        let (response, status) = handler.runSynchronously(request: bytes("abc"), context: Self.context(sink)).answered
        #expect(status == .ok)
        #expect(try TextMessage(serializedBytes: try #require(response)).text == "cba")
        #expect(seen.values == ["abc"])
        #expect(sink.pendingTrailers == Metadata([("x-sync", "1")]))
    }

    @Test func synchronousUnaryWithAnUnparsableRequestIsInternal() throws {
        let seen = Recorder<String>()
        let handler = try #require(Self.synchronousRouter(seen: seen).handler(forPath: unaryMethod.path))
        let (response, status) = handler.runSynchronously(request: TextMessage.unparsableBytes, context: Self.context(RecordingSink())).answered
        #expect(response == nil)
        #expect(status.code == .internal)
        #expect(seen.values.isEmpty)
    }

    @Test func synchronousUnaryHandlerErrorsBecomeTheStatus() throws {
        let handler = try #require(Self.synchronousRouter(seen: Recorder()).handler(forPath: unaryMethod.path))
        let (response, status) = handler.runSynchronously(request: bytes(""), context: Self.context(RecordingSink())).answered
        #expect(response == nil)
        #expect(status == RPCStatus(code: .invalidArgument, message: "empty"))
    }

    /// A fast path that answers "fast" at once and anything else later, reversed.
    private static func fastPathRouter() -> RPCRouter {
        var router = RPCRouter()
        router.registerUnaryWithFastPath(unaryMethod) { (request: TextMessage, _: ServerContext) in
            if request.text == "fast" { return .now(TextMessage("now").serializedBytes()) }
            return .later { TextMessage(String(request.text.reversed())).serializedBytes() }
        }
        return router
    }

    @Test func aFastPathAnswersAtOnceOrHandsBackTheRestEncoded() async throws {
        let handler = try #require(Self.fastPathRouter().handler(forPath: unaryMethod.path))
        let (response, status) = handler.runSynchronously(request: bytes("fast"), context: Self.context(RecordingSink())).answered
        #expect(status == .ok)
        #expect(try TextMessage(serializedBytes: try #require(response)).text == "now")
        guard case .later(let rest) = handler.runSynchronously(request: bytes("slow"), context: Self.context(RecordingSink()))
        else {
            Issue.record("answered later")
            return
        }
        #expect(try TextMessage(serializedBytes: try await rest()).text == "wols")
        let asTask = try await runCall(Self.fastPathRouter(), path: unaryMethod.path, requests: [bytes("ab")])
        #expect(asTask.events == [.message(bytes("ba")), .status(.ok)])
    }

    @Test func synchronousUnaryServedAsATaskBehavesLikeUnary() async throws {
        let seen = Recorder<String>()
        let router = Self.synchronousRouter(seen: seen)
        let ok = try await runCall(router, path: unaryMethod.path, requests: [bytes("ab")])
        #expect(ok.events == [.message(bytes("ba")), .status(RPCStatus(code: .ok, trailers: Metadata([("x-sync", "1")])))])
        let none = try await runCall(router, path: unaryMethod.path, requests: [])
        #expect(none.statuses.map(\.code) == [.unimplemented])
        let two = try await runCall(router, path: unaryMethod.path, requests: [bytes("a"), bytes("b")])
        #expect(two.statuses.map(\.code) == [.unimplemented])
        let bad = try await runCall(router, path: unaryMethod.path, requests: [TextMessage.unparsableBytes])
        #expect(bad.statuses.map(\.code) == [.internal])
        #expect(seen.values == ["ab"])
    }
}
