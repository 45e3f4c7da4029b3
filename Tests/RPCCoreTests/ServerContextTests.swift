import RPCCore
import Testing

@Suite struct ServerContextTests {
    @Test func keepsWhatItWasGiven() throws {
        var metadata = Metadata()
        metadata.addString("abc", forKey: "x-request-id")
        let before = ContinuousClock.now
        let context = ServerContext(
            method: MethodDescriptor(service: "s.S", method: "M"), metadata: metadata, timeout: .seconds(5),
            peer: "ipv4:127.0.0.1:5555", responseSink: RecordingSink()
        )
        let after = ContinuousClock.now
        #expect(context.method.path == "/s.S/M")
        #expect(context.metadata[string: "x-request-id"] == "abc")
        let deadline = try #require(context.deadline)
        #expect(deadline >= before + .seconds(5) && deadline <= after + .seconds(5))
        #expect(context.peer == "ipv4:127.0.0.1:5555")
    }

    @Test func sendHeadersGoesStraightToTheSink() {
        let sink = RecordingSink()
        let context = ServerContext(
            method: MethodDescriptor(service: "s", method: "m"), metadata: Metadata(), timeout: nil, peer: "",
            responseSink: sink
        )
        let headers = Metadata([("X-Initial", "1")])
        context.sendHeaders(headers)
        #expect(sink.events == [.headers(headers)])
        #expect(headers.entries.first?.key == "x-initial")
    }

    @Test func trailersAddedFromManyTasksAreAllSentAndShareOneStore() async throws {
        let sink = RecordingSink()
        let context = ServerContext(
            method: MethodDescriptor(service: "s", method: "m"), metadata: Metadata(), timeout: nil, peer: "",
            responseSink: sink
        )
        let handler = RPCHandler(kind: .unary) { _, context in
            // A copy of the context adds to the same trailers.
            let copy = context
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<100 { group.addTask { copy.addTrailer(.string("\(index)"), forKey: "N") } }
            }
        }
        let stream = MessageStream()
        stream.finish()
        await handler.run(requests: stream, context: context)
        let status = try #require(sink.statuses.first)
        #expect(status.code == .ok)
        #expect(status.trailers.count == 100)
        #expect(status.trailers.entries.allSatisfy { $0.key == "n" })
        #expect(Set(status.trailers.entries.map(\.value)) == Set((0..<100).map { Metadata.Value.string("\($0)") }))
    }
}
