/// Which gRPC-Web family a request uses: binary (`application/grpc-web`) or base64 text (`application/grpc-web-text`).
///
/// Both start with `application/grpc`, so they are recognised before gRPC's own content type
/// (``HeaderBlock``), or a browser would get HTTP/2 trailers it cannot read.
enum GRPCWebMode: Equatable {
    case binary
    case text

    /// `application/grpc-web`, `application/grpc-web+proto`, `application/grpc-web-text` or
    /// `application/grpc-web-text+proto`, optionally followed by `;parameters`. Other formats (`+json`) are not served.
    ///
    /// Compared as bytes without making a string: every request's content type passes here, gRPC's included.
    init?(contentType value: some Collection<UInt8>) {
        guard value.starts(with: Self.webPrefix) else { return nil }
        var rest = value.dropFirst(Self.webPrefix.count)
        var mode = GRPCWebMode.binary
        if rest.starts(with: Self.textSuffix) {
            mode = .text
            rest = rest.dropFirst(Self.textSuffix.count)
        }
        if rest.starts(with: Self.protoSuffix) { rest = rest.dropFirst(Self.protoSuffix.count) }
        guard rest.first.map({ $0 == UInt8(ascii: ";") }) ?? true else { return nil }
        self = mode
    }

    private static let webPrefix = Array("application/grpc-web".utf8)
    private static let textSuffix = Array("-text".utf8)
    private static let protoSuffix = Array("+proto".utf8)

    /// The response's content type: the request's family, always naming the format.
    var responseContentType: String {
        switch self {
        case .binary: "application/grpc-web+proto"
        case .text: "application/grpc-web-text+proto"
        }
    }
}
