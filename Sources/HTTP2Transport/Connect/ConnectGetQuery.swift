import Encodings
import HTTP1
import RPCCore

/// The query of a Connect GET: `message` (the request, percent-encoded, base64url when `base64=1`), `encoding`
/// (`proto` or `json`), and optionally `compression` and `connect=v1`. Form-encoded, as Connect clients write it.
struct ConnectGetQuery {
    var message: [UInt8]
    var encoding: String
    var compression: String?

    init(_ query: String) throws(RPCError) {
        var message: [UInt8]?
        var encoding: String?
        var base64 = false
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = HTTPPercentDecoding.bytes(parts[0], plusIsSpace: true).map({ String(decoding: $0, as: UTF8.self) }),
                let value = HTTPPercentDecoding.bytes(parts.count == 2 ? Array(parts[1]) : [], plusIsSpace: true)
            else {
                throw RPCError(code: .invalidArgument, message: "The query has a malformed percent-encoding.")
            }
            switch name {
            case "message": message = value
            case "encoding": encoding = String(decoding: value, as: UTF8.self)
            case "base64": base64 = value == Array("1".utf8)
            case "compression": compression = String(decoding: value, as: UTF8.self)
            case "connect":
                guard value == Array("v1".utf8) else {
                    throw RPCError(code: .invalidArgument, message: "The query's connect must be v1.")
                }
            default: break
            }
        }
        guard let message, let encoding else {
            throw RPCError(code: .invalidArgument, message: "A Connect GET needs message and encoding in its query.")
        }
        if base64 {
            guard let decoded = Base64.decode(utf8: message, alphabet: .url, padding: .optional) else {
                throw RPCError(code: .invalidArgument, message: "The query's message is not valid base64url.")
            }
            self.message = decoded
        } else {
            self.message = message
        }
        self.encoding = encoding
    }
}
