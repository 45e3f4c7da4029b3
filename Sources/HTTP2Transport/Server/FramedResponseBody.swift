import Encodings
import RPCCore

/// A response body drawn from a call's response queue: the framed messages as they are (gRPC-Web binary, Connect), or
/// each chunk read from the queue base64'd on its own, padding included (gRPC-Web text); then the status frame
/// (gRPC-Web's trailers frame, Connect's end-of-stream message).
///
/// Loop-confined, like the connection that reads it (HTTP/2's data provider, HTTP/1.1's chunked output).
final class FramedResponseBody {
    let framing: BodyFraming
    /// Encoded bytes not handed out yet: a text chunk larger than the reader's buffer, or the status frame.
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    /// The status frame is queued: nothing follows it.
    private(set) var isFinal = false
    /// The raw bytes read from the queue per text chunk: a multiple of 3, so only the last chunk of a burst pads.
    static let textChunkBytes = 12 * 1024

    init(framing: BodyFraming) {
        self.framing = framing
    }

    var hasPending: Bool { pendingOffset < pending.count }

    /// Fills `buffer` with what is pending, then with what the queue holds. Returns the byte count and, once the queue
    /// has nothing left but its status and nothing is pending, that status.
    func read(from responses: GRPCResponseQueue, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, status: RPCStatus?) {
        switch framing {
        case .grpcWeb(.binary), .connect:
            return responses.read(into: buffer)
        case .grpcWeb(.text):
            var written = drainPending(into: buffer)
            if !hasPending, written < buffer.count {
                let status = withUnsafeTemporaryAllocation(byteCount: Self.textChunkBytes, alignment: 1) { raw in
                    let (count, status) = responses.read(into: raw)
                    if count > 0 { setPending(Array(Base64.encode(raw[..<count], padded: true).utf8)) }
                    return status
                }
                written += drainPending(into: UnsafeMutableRawBufferPointer(rebasing: buffer[written...]))
                return (written, hasPending ? nil : status)
            }
            return (written, nil)
        }
    }

    /// Queues the status frame (base64'd on its own in text mode); ``drainPending(into:)`` hands it out.
    func finish(with status: RPCStatus) {
        switch framing {
        case .grpcWeb(.binary): setPending(GRPCWebTrailers.frame(status, mode: .binary))
        case .grpcWeb(.text): setPending(Array(Base64.encode(GRPCWebTrailers.frame(status, mode: .text), padded: true).utf8))
        case .connect: setPending(ConnectStatus.endOfStreamFrame(status))
        }
        isFinal = true
    }

    /// Copies pending bytes into `buffer`; returns how many.
    func drainPending(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, pending.count - pendingOffset)
        guard count > 0 else { return 0 }
        pending.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + pendingOffset, byteCount: count)
        }
        pendingOffset += count
        return count
    }

    private func setPending(_ bytes: [UInt8]) {
        pending = bytes
        pendingOffset = 0
    }
}
