import RPCCore
import Testing

@Suite struct MessageStreamTests {
    @Test func yieldBeforeNextIsQueuedInOrder() async throws {
        let consumed = Recorder<Int>()
        let stream = MessageStream(onConsume: { consumed.append($0) })
        stream.yield([1])
        stream.yield([2, 3])
        stream.yield([])
        #expect(consumed.values == [], "nothing is consumed before the handler reads")
        #expect(try await stream.next() == [1])
        #expect(try await stream.next() == [2, 3])
        #expect(try await stream.next() == [])
        #expect(consumed.values == [1, 2, 0])
    }

    @Test func nextBeforeYieldSuspendsThenResumes() async throws {
        let consumed = Recorder<Int>()
        let stream = MessageStream(onConsume: { consumed.append($0) })
        let returned = Recorder<Bool>()
        let reader = Task {
            let message = try await stream.next()
            returned.append(true)
            return message
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(returned.values.isEmpty, "next() returned before any message arrived")
        #expect(consumed.values == [])
        stream.yield([7, 7, 7])
        #expect(try await reader.value == [7, 7, 7])
        #expect(consumed.values == [3])
    }

    @Test func finishEndsIterationAfterQueuedMessages() async throws {
        let stream = MessageStream()
        stream.yield([1])
        stream.yield([2])
        stream.finish()
        var received: [[UInt8]] = []
        for try await message in stream { received.append(message) }
        #expect(received == [[1], [2]])
        #expect(try await stream.next() == nil, "stays ended")
    }

    @Test func finishWakesAWaitingReaderWithNil() async throws {
        let stream = MessageStream()
        let reader = Task { try await stream.next() }
        try await Task.sleep(for: .milliseconds(20))
        stream.finish()
        #expect(try await reader.value == nil)
    }

    @Test func finishThrowingDeliversQueuedMessagesThenTheError() async throws {
        let stream = MessageStream()
        stream.yield([1])
        stream.finish(throwing: RPCError(code: .dataLoss, message: "stream reset"))
        #expect(try await stream.next() == [1])
        let error = await #expect(throws: RPCError.self) { try await stream.next() }
        #expect(error?.code == .dataLoss)
        #expect(error?.message == "stream reset")
        let again = await #expect(throws: RPCError.self) { try await stream.next() }
        #expect(again?.code == .dataLoss)
    }

    @Test func finishThrowingWakesAWaitingReaderWithTheError() async throws {
        let stream = MessageStream()
        let reader = Task { try await stream.next() }
        try await Task.sleep(for: .milliseconds(20))
        stream.finish(throwing: RPCError(code: .cancelled, message: "client reset"))
        let error = await #expect(throws: RPCError.self) { try await reader.value }
        #expect(error?.code == .cancelled)
    }

    @Test func onlyTheFirstFinishCounts() async throws {
        let stream = MessageStream()
        stream.finish()
        stream.finish(throwing: RPCError(code: .internal, message: "late"))
        #expect(try await stream.next() == nil)

        let failed = MessageStream()
        failed.finish(throwing: RPCError(code: .unavailable, message: "first"))
        failed.finish()
        let error = await #expect(throws: RPCError.self) { try await failed.next() }
        #expect(error?.message == "first")
    }

    @Test func messagesAfterFinishAreDropped() async throws {
        let consumed = Recorder<Int>()
        let stream = MessageStream(onConsume: { consumed.append($0) })
        stream.yield([1])
        stream.finish()
        stream.yield([2])
        #expect(try await stream.next() == [1])
        #expect(try await stream.next() == nil)
        #expect(consumed.values == [1])

        let failed = MessageStream()
        failed.finish(throwing: RPCError(code: .aborted, message: "x"))
        failed.yield([9])
        await #expect(throws: RPCError.self) { try await failed.next() }
    }

    @Test func cancellingAWaitingReaderThrowsCancellationError() async throws {
        let stream = MessageStream()
        let reader = Task { try await stream.next() }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }

        // The cancelled wait left no stale waiter behind: the next message reaches the next reader.
        stream.yield([4])
        #expect(try await stream.next() == [4])
    }

    @Test func nextInAnAlreadyCancelledTaskThrowsWhenItWouldWait() async throws {
        let stream = MessageStream()
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await stream.next()
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
    }

    @Test func concurrentProducerAndConsumerKeepOrderAndCountBytes() async throws {
        let consumed = Recorder<Int>()
        let stream = MessageStream(onConsume: { consumed.append($0) })
        let messages = (0..<2_000).map { index in [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: index % 9) }
        let producer = Task {
            for (index, message) in messages.enumerated() {
                stream.yield(message)
                if index % 7 == 0 { await Task.yield() }
            }
            stream.finish()
        }
        var received: [[UInt8]] = []
        for try await message in stream {
            received.append(message)
            if received.count % 5 == 0 { await Task.yield() }
        }
        await producer.value
        #expect(received == messages)
        #expect(consumed.values == messages.map(\.count))
    }
}
