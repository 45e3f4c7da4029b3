import RPCCore

/// How a Connect call's messages are encoded: binary protobuf or protobuf's JSON mapping.
///
/// A unary call names it in a plain content type (`application/proto`, `application/json`), a streaming call in the
/// enveloped one (`application/connect+proto`, `application/connect+json`); a GET names it in `encoding=`.
enum ConnectCodec: Equatable, Sendable {
    case proto
    case json

    /// `application/proto` or `application/json` (the latter with an optional `charset=utf-8`, which is all JSON
    /// may be); other parameters are not part of either.
    init?(unaryContentType value: String) {
        // As clients send them nearly always: no split, no lowercasing.
        if value == "application/proto" {
            self = .proto
            return
        }
        if value == "application/json" {
            self = .json
            return
        }
        let parts = value.split(separator: ";", maxSplits: 1)
        guard let type = parts.first.map({ $0.trimmingSpaces.lowercased() }) else { return nil }
        switch type {
        case "application/proto": self = .proto
        case "application/json":
            if parts.count == 2 {
                guard parts[1].trimmingSpaces.lowercased().replacing("\"", with: "") == "charset=utf-8" else { return nil }
            }
            self = .json
        default: return nil
        }
    }

    /// `application/connect+proto` or `application/connect+json`, optionally followed by `;parameters`. Compared as
    /// bytes without making a string: every request's content type passes here.
    init?(streamingContentType value: some Collection<UInt8>) {
        guard value.starts(with: Self.streamingPrefix) else { return nil }
        let rest = value.dropFirst(Self.streamingPrefix.count)
        let codec: ConnectCodec
        if rest.starts(with: Self.protoName) {
            codec = .proto
        } else if rest.starts(with: Self.jsonName) {
            codec = .json
        } else {
            return nil
        }
        let after = rest.dropFirst(codec == .proto ? Self.protoName.count : Self.jsonName.count)
        guard after.first.map({ $0 == UInt8(ascii: ";") }) ?? true else { return nil }
        self = codec
    }

    /// `proto` or `json`, as a GET's `encoding=` names it.
    init?(name: some StringProtocol) {
        switch name {
        case "proto": self = .proto
        case "json": self = .json
        default: return nil
        }
    }

    private static let streamingPrefix = Array("application/connect+".utf8)
    private static let protoName = Array("proto".utf8)
    private static let jsonName = Array("json".utf8)

    var unaryContentType: String {
        switch self {
        case .proto: "application/proto"
        case .json: "application/json"
        }
    }

    var streamingContentType: String {
        switch self {
        case .proto: "application/connect+proto"
        case .json: "application/connect+json"
        }
    }
}
