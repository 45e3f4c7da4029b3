import Foundation
import RPCCore
import Testing

@testable import HTTP2Transport

@Suite("gRPC-Web response body")
struct FramedResponseBodyTests {
    struct NoWaker: ResponseQueueWaker {
        func wake(streamID: Int32) {}
    }

    /// A queue holding one message and the status after it, as a unary handler leaves it.
    static func queue(_ message: [UInt8], status: RPCStatus) -> GRPCResponseQueue {
        let queue = GRPCResponseQueue(highWater: 1 << 20, waker: NoWaker(), streamID: 1, metrics: nil)
        queue.complete(message: message, status: status)
        return queue
    }

    /// Reads the whole body `bufferSize` bytes at a time, as a data provider or a chunk writer does.
    static func drain(_ body: FramedResponseBody, _ queue: GRPCResponseQueue, bufferSize: Int) -> [[UInt8]] {
        var reads: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        while true {
            let (count, status) = buffer.withUnsafeMutableBytes { body.read(from: queue, into: $0) }
            if count > 0 { reads.append(Array(buffer[..<count])) }
            if let status {
                body.finish(with: status)
                while body.hasPending {
                    let count = buffer.withUnsafeMutableBytes { body.drainPending(into: $0) }
                    reads.append(Array(buffer[..<count]))
                }
                return reads
            }
        }
    }

    @Test func binaryIsFramedMessagesThenTrailers() {
        let queue = Self.queue([1, 2, 3], status: .ok)
        let reads = Self.drain(FramedResponseBody(framing: .grpcWeb(.binary)), queue, bufferSize: 4)
        #expect(Array(reads.joined()) == MessageFraming.frame([1, 2, 3]) + GRPCWebTrailers.frame(.ok, mode: .binary))
    }

    /// Every chunk decodes on its own; joined they are the binary body.
    @Test func textEncodesEachChunkOnItsOwn() throws {
        let message = [UInt8](repeating: 7, count: 40_001)
        let status = RPCStatus(code: .ok)
        let body = FramedResponseBody(framing: .grpcWeb(.text))
        let reads = Self.drain(body, Self.queue(message, status: status), bufferSize: 1000)
        let text = String(decoding: reads.joined(), as: UTF8.self)
        var decoder = GRPCWebTextDecoder()
        let decoded = try decoder.decode(Array(text.utf8))
        try decoder.finish()
        #expect(decoded == MessageFraming.frame(message) + GRPCWebTrailers.frame(status, mode: .text))
        #expect(text.hasSuffix(Data(GRPCWebTrailers.frame(status, mode: .text)).base64EncodedString()))
        #expect(text.filter { $0 == "=" }.count > 0, "the last 12 KiB chunk, 3142 bytes, is padded")
    }
}
