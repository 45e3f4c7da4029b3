@testable import HTTP2Transport
import RPCCore
import Testing

/// The response queue as the data provider drains it: a synchronous call's message (kept outside the message
/// array) and streamed messages come out framed, whole and in order, whatever the buffer sizes.
struct GRPCResponseQueueTests {
    struct NoWaker: ResponseQueueWaker {
        func wake(streamID: Int32) {}
    }

    private static func makeQueue() -> GRPCResponseQueue {
        GRPCResponseQueue(highWater: 1 << 20, waker: NoWaker(), streamID: 1, metrics: nil)
    }

    private static func framed(_ message: [UInt8]) -> [UInt8] {
        let length = UInt32(message.count)
        return [0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + message
    }

    /// Reads until the status comes, `size` bytes at a time; the status must come with or after the last byte.
    private static func drain(_ queue: GRPCResponseQueue, size: Int) -> (bytes: [UInt8], status: RPCStatus?) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: size)
        for _ in 0..<1_000_000 {
            let (count, status) = buffer.withUnsafeMutableBytes { queue.read(into: $0) }
            bytes += buffer[..<count]
            if let status { return (bytes, status) }
            if count == 0 { return (bytes, nil) }
        }
        return (bytes, nil)
    }

    @Test(arguments: [1, 3, 5, 6, 4096, 40_005, 65_536])
    func aSynchronousResponseComesOutWholeInAnyBufferSize(size: Int) {
        let message = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let queue = Self.makeQueue()
        queue.complete(message: message, status: .ok)
        let (bytes, status) = Self.drain(queue, size: size)
        #expect(bytes == Self.framed(message))
        #expect(status?.code == .ok)
    }

    /// A message queued by the handler before the call completes goes out first.
    @Test func aCompletionAfterStreamedMessagesKeepsTheOrder() async throws {
        let queue = Self.makeQueue()
        try await queue.sendMessage([1, 2, 3])
        try await queue.sendMessage([4])
        queue.complete(message: [5, 6], status: RPCStatus(code: .notFound, message: "m"))
        let (bytes, status) = Self.drain(queue, size: 4)
        #expect(bytes == Self.framed([1, 2, 3]) + Self.framed([4]) + Self.framed([5, 6]))
        #expect(status?.code == .notFound)
    }

    @Test func anAbortMidMessageReportsItAndDropsTheRest() {
        let queue = Self.makeQueue()
        queue.complete(message: [UInt8](repeating: 7, count: 100), status: .ok)
        var buffer = [UInt8](repeating: 0, count: 10)
        let first = buffer.withUnsafeMutableBytes { queue.read(into: $0) }
        #expect(first.count == 10 && first.status == nil)
        #expect(queue.abort(with: RPCStatus(code: .deadlineExceeded)) == .midMessage)
        #expect(Self.drain(queue, size: 64).bytes.isEmpty)
    }

    @Test func anAbortBeforeAnyByteReplacesTheResponseWithTheStatus() {
        let queue = Self.makeQueue()
        queue.complete(message: [1, 2, 3], status: .ok)
        #expect(queue.abort(with: RPCStatus(code: .unavailable)) == .statusQueued)
        let (bytes, status) = Self.drain(queue, size: 64)
        #expect(bytes.isEmpty)
        #expect(status?.code == .unavailable)
        #expect(!queue.takeControl().hasMessages)
    }
}
