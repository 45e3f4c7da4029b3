/// Cuts a gRPC-Web response body (binary mode) into frames as its bytes arrive, in pieces of any size: each frame is
/// a flag byte, a 4-byte big-endian length and the payload; flag bit 0x80 marks the trailers frame (HTTP/1-style
/// header lines), anything else with bit 0x01 a compressed message, which the SDK never asks for.
struct GRPCWebFrameDecoder {
    enum Frame: Equatable {
        case message([UInt8])
        case trailers([String: String])
    }

    struct Malformed: Error, Equatable {
        let reason: String
    }

    /// Messages larger than this end the call (the server's own limit is far below).
    let maxFrameLength: Int
    private var buffer: [UInt8] = []
    private var start = 0

    init(maxFrameLength: Int = 4 << 20) {
        self.maxFrameLength = maxFrameLength
    }

    /// Whether bytes of an unfinished frame are waiting: a body that ends here was cut.
    var hasPartialFrame: Bool { start < buffer.count }

    /// The frames completed by `bytes`, in order.
    mutating func append(_ bytes: some Sequence<UInt8>) throws(Malformed) -> [Frame] {
        buffer.append(contentsOf: bytes)
        var frames: [Frame] = []
        while buffer.count - start >= 5 {
            let flags = buffer[start]
            // Read as 32 bits: in a 32-bit Int (watchOS) a length past 2^31 would turn negative and pass the check.
            let declared = buffer[(start + 1)...(start + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard let length = Int(exactly: declared), length <= maxFrameLength else {
                throw Malformed(reason: "a frame of \(declared) bytes is larger than the \(maxFrameLength) allowed")
            }
            guard buffer.count - start - 5 >= length else { break }
            let payload = Array(buffer[(start + 5)..<(start + 5 + length)])
            start += 5 + length
            if flags & 0x80 != 0 {
                frames.append(.trailers(Self.parseTrailers(payload)))
            } else if flags & 0x01 != 0 {
                throw Malformed(reason: "the server sent a compressed message, which was not asked for")
            } else {
                frames.append(.message(payload))
            }
        }
        // Drop what was consumed once it is most of the buffer, so a long stream does not keep every byte.
        if start > 0, start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return frames
    }

    /// `name: value` lines separated by CRLF; names are lowercased, as HTTP header names compare.
    static func parseTrailers(_ payload: [UInt8]) -> [String: String] {
        var trailers: [String: String] = [:]
        for line in String(decoding: payload, as: UTF8.self).split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces.lowercased()
            trailers[name] = String(line[line.index(after: colon)...].trimmingSpaces)
        }
        return trailers
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
