import RPCCore
import Testing

@Suite struct ServerContextTests {
    @Test func keepsWhatItWasGiven() {
        var metadata = Metadata()
        metadata.addString("abc", forKey: "x-request-id")
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        let context = ServerContext(
            method: MethodDescriptor(service: "s.S", method: "M"), metadata: metadata, deadline: deadline,
            peer: "ipv4:127.0.0.1:5555", responseSink: RecordingSink()
        )
        #expect(context.method.path == "/s.S/M")
        #expect(context.metadata[string: "x-request-id"] == "abc")
        #expect(context.deadline == deadline)
        #expect(context.peer == "ipv4:127.0.0.1:5555")
    }

    @Test func sendHeadersGoesStraightToTheSink() {
        let sink = RecordingSink()
        let context = ServerContext(
            method: MethodDescriptor(service: "s", method: "m"), metadata: Metadata(), deadline: nil, peer: "",
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
            method: MethodDescriptor(service: "s", method: "m"), metadata: Metadata(), deadline: nil, peer: "",
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
