import Encodings

/// The status a gRPC-Web call ended with, from its trailers (or, for a Trailers-Only answer, its headers).
enum GRPCWebStatus {
    /// nil for OK; the error otherwise. `grpc-message` is percent-encoded on the wire (gRPC's PROTOCOL-HTTP2).
    static func error(from fields: [String: String]) -> EntitlementsError? {
        guard let status = fields["grpc-status"] else { return nil }
        guard let number = Int(status) else {
            return EntitlementsError(code: .unknown, message: "The server sent grpc-status '\(status.prefix(16))'.")
        }
        guard let code = EntitlementsError.code(grpcStatus: number) else { return nil }
        return EntitlementsError(code: code, message: PercentEncoding.decode(fields["grpc-message"] ?? ""))
    }

    /// The status gRPC assigns to an HTTP answer that carries none (gRPC's http-grpc-status-mapping.md).
    static func error(httpStatus: Int) -> EntitlementsError {
        let code: EntitlementsError.Code =
            switch httpStatus {
            case 400: .internal
            case 401: .unauthenticated
            case 403: .permissionDenied
            case 404: .unimplemented
            case 429, 502, 503, 504: .unavailable
            default: .unknown
            }
        return EntitlementsError(code: code, message: "The server answered HTTP \(httpStatus) without a gRPC status.")
    }
}
