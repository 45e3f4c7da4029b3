import Encodings
import RPCCore

/// A gRPC-Web response body drawn from a call's response queue: the framed messages as they are (binary), or each
/// chunk read from the queue base64'd on its own, padding included (text); then the trailers frame.
///
/// Loop-confined, like the connection that reads it (HTTP/2's data provider, HTTP/1.1's chunked output).
final class GRPCWebResponseBody {
    let mode: GRPCWebMode
    /// Encoded bytes not handed out yet: a text chunk larger than the reader's buffer, or the trailers frame.
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    /// The trailers frame is queued: nothing follows it.
    private(set) var isFinal = false
    /// The raw bytes read from the queue per text chunk: a multiple of 3, so only the last chunk of a burst pads.
    static let textChunkBytes = 12 * 1024

    init(mode: GRPCWebMode) {
        self.mode = mode
    }

    var hasPending: Bool { pendingOffset < pending.count }

    /// Fills `buffer` with what is pending, then with what the queue holds. Returns the byte count and, once the queue
    /// has nothing left but its status and nothing is pending, that status.
    func read(from responses: GRPCResponseQueue, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, status: RPCStatus?) {
        switch mode {
        case .binary:
            return responses.read(into: buffer)
        case .text:
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

    /// Queues the trailers frame (base64'd on its own in text mode); ``drainPending(into:)`` hands it out.
    func finish(with status: RPCStatus) {
        let frame = GRPCWebTrailers.frame(status, mode: mode)
        switch mode {
        case .binary: setPending(frame)
        case .text: setPending(Array(Base64.encode(frame, padded: true).utf8))
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
