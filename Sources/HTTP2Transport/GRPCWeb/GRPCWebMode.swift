/// Which gRPC-Web family a request uses: binary (`application/grpc-web`) or base64 text (`application/grpc-web-text`).
///
/// Both start with `application/grpc`, so they are recognised before gRPC's own content type
/// (``HeaderBlock``), or a browser would get HTTP/2 trailers it cannot read.
enum GRPCWebMode: Equatable {
    case binary
    case text

    /// `application/grpc-web`, `application/grpc-web+proto`, `application/grpc-web-text` or
    /// `application/grpc-web-text+proto`, optionally followed by `;parameters`. Other formats (`+json`) are not served.
    init?(contentType value: some Collection<UInt8>) {
        let type = value.prefix { $0 != UInt8(ascii: ";") }
        switch String(decoding: type, as: UTF8.self) {
        case "application/grpc-web", "application/grpc-web+proto": self = .binary
        case "application/grpc-web-text", "application/grpc-web-text+proto": self = .text
        default: return nil
        }
    }

    /// The response's content type: the request's family, always naming the format.
    var responseContentType: String {
        switch self {
        case .binary: "application/grpc-web+proto"
        case .text: "application/grpc-web-text+proto"
        }
    }
}
