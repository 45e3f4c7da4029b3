import RPCCore

/// How a call whose status travels in its response body frames that body: gRPC-Web's trailers frame, or the Connect
/// protocol's end-of-stream message. (gRPC's own calls carry the status in HTTP trailers and have no framing here.)
enum BodyFraming: Equatable {
    case grpcWeb(GRPCWebMode)
    /// A Connect streaming call (`application/connect+proto` or `+json`).
    case connect(ConnectCodec)

    /// A request content type of either family, compared as bytes; nil for gRPC's own and every other type.
    init?(contentType value: some Collection<UInt8>) {
        if let mode = GRPCWebMode(contentType: value) {
            self = .grpcWeb(mode)
        } else if let codec = ConnectCodec(streamingContentType: value) {
            self = .connect(codec)
        } else {
            return nil
        }
    }

    var rpcProtocol: RPCProtocol {
        switch self {
        case .grpcWeb: .grpcWeb
        case .connect: .connect
        }
    }

    /// The response's content type.
    var responseContentType: String {
        switch self {
        case .grpcWeb(let mode): mode.responseContentType
        case .connect(let codec): codec.streamingContentType
        }
    }

    /// Whether a status with nothing before it may go out as response headers alone (gRPC-Web's Trailers-Only). A
    /// Connect stream always answers 200 with a body that ends in its end-of-stream message.
    var allowsTrailersOnly: Bool {
        if case .grpcWeb = self { return true }
        return false
    }
}
