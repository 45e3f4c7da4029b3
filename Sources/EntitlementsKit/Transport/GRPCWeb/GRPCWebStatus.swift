/// The status a gRPC-Web call ended with, from its trailers (or, for a Trailers-Only answer, its headers).
enum GRPCWebStatus {
    /// nil for OK; the error otherwise. `grpc-message` is percent-encoded on the wire (gRPC's PROTOCOL-HTTP2).
    static func error(from fields: [String: String]) -> EntitlementsError? {
        guard let status = fields["grpc-status"] else { return nil }
        guard let number = Int(status) else {
            return EntitlementsError(code: .unknown, message: "The server sent grpc-status '\(status.prefix(16))'.")
        }
        guard let code = EntitlementsError.code(grpcStatus: number) else { return nil }
        return EntitlementsError(code: code, message: percentDecoded(fields["grpc-message"] ?? ""))
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

    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2,
                let high = hexValue(input[input.startIndex]), let low = hexValue(input[input.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                input.removeFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
