import RPCCore

/// gRPC-Web's trailers: the last frame of the body, flag `0x80`, holding an HTTP/1-style header block.
enum GRPCWebTrailers {
    /// The frame for `status`: `name: value\r\n` per field, lower-case names, no final empty line. In text mode
    /// `-bin` values are the raw bytes, since the whole frame is base64'd (PROTOCOL-WEB.md); the frame itself is
    /// returned unencoded either way.
    static func frame(_ status: RPCStatus, mode: GRPCWebMode) -> [UInt8] {
        var block: [UInt8] = []
        StatusFields.forEach(status, binary: mode == .text ? .raw : .base64) { name, value in
            block.append(contentsOf: name.utf8)
            block.append(contentsOf: ": ".utf8)
            block.append(contentsOf: value)
            block.append(contentsOf: "\r\n".utf8)
        }
        return MessageFraming.frame(block, flags: MessageFraming.trailersFlag)
    }
}
