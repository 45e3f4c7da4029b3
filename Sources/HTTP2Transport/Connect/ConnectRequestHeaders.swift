import RPCCore

/// The Connect protocol's request headers, read the same way for unary calls (plain HTTP requests) and streams:
/// the protocol version, the deadline and the request's compression.
struct ConnectRequestHeaders {
    var timeout: Duration?
    /// The encoding the request is compressed with (a unary body's `Content-Encoding`, a stream's
    /// `Connect-Content-Encoding`); nil for identity.
    var encoding: String?

    /// - Parameters:
    ///   - head: the request's header block (read in place: a closure over it would copy it).
    ///   - encodingHeader: `content-encoding` for a unary POST, `connect-content-encoding` for a stream, nil for a
    ///     GET (its query names the compression).
    init(head: borrowing HeaderBlock, encodingHeader: String?) throws(RPCError) {
        // Optional (connect-go sends it, a plain curl need not), but a version this server does not speak is refused.
        if let version = head.value(of: "connect-protocol-version"), version != "1" {
            throw RPCError(code: .invalidArgument, message: "Connect-Protocol-Version must be 1, not '\(version.prefix(16))'.")
        }
        if let header = head.value(of: "connect-timeout-ms") {
            guard let milliseconds = Self.timeoutMilliseconds(header) else {
                throw RPCError(
                    code: .invalidArgument, message: "Connect-Timeout-Ms must be 1 to 10 digits, not '\(header.prefix(16))'.")
            }
            timeout = .milliseconds(milliseconds)
        }
        if let encodingHeader, let encoding = head.value(of: encodingHeader)?.lowercased(), encoding != "identity" {
            self.encoding = encoding
        }
    }

    /// 1 to 10 ASCII digits, as the protocol allows; parsed without overflow (10 digits fit an Int64).
    private static func timeoutMilliseconds(_ value: String) -> Int64? {
        let utf8 = value.utf8
        guard (1...10).contains(utf8.count) else { return nil }
        var amount: Int64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            amount = amount * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return amount
    }
}
