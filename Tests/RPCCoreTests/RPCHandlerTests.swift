import RPCCore
import Testing

private struct Leaky: Error, CustomStringConvertible {
    var description: String { "internal stack: /srv/secret.swift:42" }
}

private func makeContext(_ sink: RecordingSink, timeout: Duration? = nil) -> ServerContext {
    ServerContext(
        method: MethodDescriptor(service: "s", method: "m"), metadata: Metadata(), timeout: timeout, peer: "p",
        responseSink: sink
    )
}

extension RPCHandler.SynchronousOutcome {
    /// The response and status of a handler that answered at once; an answer left for later is an issue.
    var answered: (response: [UInt8]?, status: RPCStatus) {
        guard case .answered(let response, let status) = self else {
            Issue.record("the handler answered later")
            return (nil, RPCStatus(code: .unknown, message: "answered later"))
        }
        return (response, status)
    }
}

@Suite struct RPCHandlerTests {
    private func run(_ handler: RPCHandler, requests: [[UInt8]] = [], sink: RecordingSink = RecordingSink()) async
        -> RecordingSink
    {
        let stream = MessageStream()
        for request in requests { stream.yield(request) }
        stream.finish()
        await handler.run(requests: stream, context: makeContext(sink))
        return sink
    }

    @Test func successEndsWithOKAndTheAddedTrailers() async {
        let sink = RecordingSink()
        let handler = RPCHandler(kind: .bidirectional) { requests, context in
            for try await message in requests { try await sink.sendMessage(message.reversed()) }
            context.addTrailer(.string("done"), forKey: "X-State")
            context.addTrailer(.binary([0, 1]), forKey: "x-blob-bin")
        }
        _ = await run(handler, requests: [[1, 2], [3]], sink: sink)
        var trailers = Metadata()
        trailers.addString("done", forKey: "x-state")
        trailers.addBinary([0, 1], forKey: "x-blob-bin")
        #expect(sink.events == [.message([2, 1]), .message([3]), .status(RPCStatus(code: .ok, trailers: trailers))])
    }

    @Test func rpcErrorEndsWithItsStatusAfterTheAddedTrailers() async {
        var errorMetadata = Metadata()
        errorMetadata.addString("why", forKey: "reason")
        let thrown = RPCError(code: .failedPrecondition, message: "account frozen", metadata: errorMetadata)
        let handler = RPCHandler(kind: .unary) { _, context in
            context.addTrailer(.string("added"), forKey: "x-extra")
            throw thrown
        }
        let sink = await run(handler)
        let expected = Metadata([("x-extra", "added"), ("reason", "why")])
        #expect(sink.events == [.status(RPCStatus(code: .failedPrecondition, message: "account frozen", trailers: expected))])
    }

    @Test func otherErrorsEndWithUnknownAndHideTheirDescription() async throws {
        let sink = await run(RPCHandler(kind: .unary) { _, _ in throw Leaky() })
        let status = try #require(sink.statuses.first)
        #expect(sink.statuses.count == 1)
        #expect(status.code == .unknown)
        #expect(!status.message.contains("secret"))
        #expect(status.trailers.isEmpty)
    }

    @Test func cancellationEndsWithCancelled() async throws {
        let sink = await run(RPCHandler(kind: .unary) { _, _ in throw CancellationError() })
        #expect(sink.statuses.map(\.code) == [.cancelled])
    }

    @Test func kindIsKept() {
        for kind in [RPCKind.unary, .serverStreaming, .clientStreaming, .bidirectional] {
            let handler = RPCHandler(kind: kind) { _, _ in }
            #expect(handler.kind == kind)
            #expect(handler.synchronousUnary == nil)
        }
    }

    // MARK: Synchronous unary

    private static let reversing = RPCHandler(synchronousUnary: { request, context in
        context.addTrailer(.string("sync"), forKey: "X-Path")
        if request == [0xBA, 0xD0] { throw RPCError(code: .invalidArgument, message: "bad request") }
        if request == [0x5E] { throw Leaky() }
        return .now(request.reversed())
    })

    @Test func synchronousHandlerIsUnary() {
        #expect(Self.reversing.kind == .unary)
        #expect(Self.reversing.synchronousUnary != nil)
    }

    @Test func runSynchronouslyReturnsTheResponseAndOK() {
        let sink = RecordingSink()
        let (response, status) = Self.reversing.runSynchronously(request: [1, 2, 3], context: makeContext(sink)).answered
        #expect(response == [3, 2, 1])
        #expect(status == .ok)
        #expect(sink.pendingTrailers == Metadata([("x-path", "sync")]), "trailers still go to the sink")
    }

    @Test func runSynchronouslyMapsErrors() {
        let (response, status) = Self.reversing.runSynchronously(request: [0xBA, 0xD0], context: makeContext(RecordingSink())).answered
        #expect(response == nil)
        #expect(status == RPCStatus(code: .invalidArgument, message: "bad request"))

        let (leakResponse, leakStatus) = Self.reversing.runSynchronously(request: [0x5E], context: makeContext(RecordingSink())).answered
        #expect(leakResponse == nil)
        #expect(leakStatus.code == .unknown)
        #expect(!leakStatus.message.contains("secret"))
    }

    // MARK: Deadlines

    /// The largest `grpc-timeout` (99999999H) is a deadline like any other: nothing overflows and the handler runs.
    static let largestTimeout = Duration.seconds(Int64(99_999_999) * 3_600)

    /// A deadline already past when a synchronous handler would start (`grpc-timeout: 0n` here, `1n` through the
    /// server) ends the call with DEADLINE_EXCEEDED and never runs the handler: the transport runs it inline, before
    /// its deadline timer's turn.
    @Test func aDeadlinePastBeforeASynchronousHandlerStartsEndsTheCallWithoutRunningIt() {
        let sink = RecordingSink()
        let (response, status) = Self.reversing.runSynchronously(request: [1], context: makeContext(sink, timeout: .zero)).answered
        #expect(response == nil && status == RPCStatus(RPCError.deadlineExceeded))
        #expect(sink.pendingTrailers.isEmpty, "the handler did not run")
    }

    @Test func aContextKnowsWhenItsDeadlineHasPassed() {
        #expect(makeContext(RecordingSink(), timeout: .zero).deadlineHasPassed)
        #expect(!makeContext(RecordingSink(), timeout: nil).deadlineHasPassed)
        #expect(!makeContext(RecordingSink(), timeout: Self.largestTimeout).deadlineHasPassed)
    }

    @Test func theLargestTimeoutLetsTheHandlerRun() async {
        let context = makeContext(RecordingSink(), timeout: Self.largestTimeout)
        #expect(context.deadline != nil)
        let (response, status) = Self.reversing.runSynchronously(request: [1, 2], context: context).answered
        #expect(response == [2, 1] && status == .ok)
        let sink = RecordingSink()
        let stream = MessageStream()
        stream.yield([1, 2])
        stream.finish()
        await Self.reversing.run(requests: stream, context: makeContext(sink, timeout: Self.largestTimeout))
        #expect(sink.messages == [[2, 1]] && sink.statuses.map(\.code) == [.ok])
    }

    @Test func runSynchronouslyRefusesAnAsynchronousHandler() {
        let handler = RPCHandler(kind: .unary) { _, _ in Issue.record("must not run") }
        let (response, status) = handler.runSynchronously(request: [1], context: makeContext(RecordingSink())).answered
        #expect(response == nil)
        #expect(status.code == .internal)
    }

    // MARK: Answered later

    /// Answers an empty request at once and any other after a suspension; `[0xBA]` fails later.
    private static let answeringLater = RPCHandler(synchronousUnary: { request, context in
        guard !request.isEmpty else { return .now([0]) }
        return .later {
            await Task.yield()
            if request == [0xBA] { throw RPCError(code: .unavailable, message: "not now") }
            return request.reversed()
        }
    })

    @Test func aHandlerThatMustWaitHandsItsRestBackAndItRunsToItsStatus() async {
        guard case .later(let rest) = Self.answeringLater.runSynchronously(request: [1, 2], context: makeContext(RecordingSink()))
        else {
            Issue.record("a request it cannot answer at once is answered later")
            return
        }
        let sink = RecordingSink()
        await Self.answeringLater.run(later: rest, context: makeContext(sink))
        #expect(sink.events == [.message([2, 1]), .status(.ok)])
        #expect(Self.answeringLater.runSynchronously(request: [], context: makeContext(RecordingSink())).answered == ([0], .ok))
    }

    @Test func whatTheRestThrowsIsTheStatus() async {
        guard case .later(let rest) = Self.answeringLater.runSynchronously(request: [0xBA], context: makeContext(RecordingSink()))
        else {
            Issue.record("answered later")
            return
        }
        let sink = RecordingSink()
        await Self.answeringLater.run(later: rest, context: makeContext(sink))
        #expect(sink.events == [.status(RPCStatus(code: .unavailable, message: "not now"))])
    }

    @Test func aHandlerAnsweringLaterAlsoRunsAsATask() async {
        let sink = await run(Self.answeringLater, requests: [[1, 2]])
        #expect(sink.events == [.message([2, 1]), .status(.ok)])
    }

    @Test func synchronousHandlerAlsoRunsAsATask() async {
        let sink = await run(Self.reversing, requests: [[1, 2]])
        #expect(sink.events == [.message([2, 1]), .status(RPCStatus(code: .ok, trailers: Metadata([("x-path", "sync")])))])
    }

    @Test func synchronousHandlerAsATaskChecksRequestCardinality() async {
        let none = await run(Self.reversing, requests: [])
        let two = await run(Self.reversing, requests: [[1], [2]])
        #expect(none.statuses == [RPCStatus(RPCError.noRequestMessage)])
        #expect(two.statuses == [RPCStatus(RPCError.tooManyRequestMessages)])
        #expect(none.messages.isEmpty && two.messages.isEmpty)
        #expect(none.pendingTrailers.isEmpty, "the body did not run")
    }

    @Test func synchronousHandlerAsATaskMapsErrors() async {
        let sink = await run(Self.reversing, requests: [[0xBA, 0xD0]])
        #expect(sink.events == [
            .status(RPCStatus(code: .invalidArgument, message: "bad request", trailers: Metadata([("x-path", "sync")])))
        ])
    }

    @Test func cardinalityErrorsAreUnimplemented() {
        #expect(RPCError.noRequestMessage.code == .unimplemented)
        #expect(RPCError.tooManyRequestMessages.code == .unimplemented)
        #expect(RPCError.noRequestMessage.message != RPCError.tooManyRequestMessages.message)
    }
}
