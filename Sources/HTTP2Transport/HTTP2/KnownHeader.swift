import Glibc

/// The request header names the transport acts on, recognised once per field without making a string of the name:
/// the request rules (``RequestFieldRules``) and the request head (``HeaderBlock``) both switch on the result.
/// Only the exact lowercase names match; any other spelling is nil.
enum KnownHeader {
    case method, path, scheme, authority, contentType, te, userAgent, grpcTimeout, grpcEncoding, grpcAcceptEncoding
    case host, contentLength
    /// `connection`, `keep-alive`, `proxy-connection`, `transfer-encoding` or `upgrade`: HTTP/1.1's, which HTTP/2
    /// forbids (RFC 9113 §8.2.2).
    case connectionSpecific

    init?(_ name: UnsafeRawBufferPointer) {
        func matches(_ candidate: StaticString) -> Bool {
            memcmp(name.baseAddress!, candidate.utf8Start, name.count) == 0
        }
        let found: KnownHeader? =
            switch name.count {
            case 2: matches("te") ? .te : nil
            case 4: matches("host") ? .host : nil
            case 5: matches(":path") ? .path : nil
            case 7: matches(":method") ? .method : matches(":scheme") ? .scheme : matches("upgrade") ? .connectionSpecific : nil
            case 10:
                matches(":authority")
                    ? .authority
                    : matches("user-agent")
                        ? .userAgent : matches("connection") || matches("keep-alive") ? .connectionSpecific : nil
            case 12: matches("content-type") ? .contentType : matches("grpc-timeout") ? .grpcTimeout : nil
            case 13: matches("grpc-encoding") ? .grpcEncoding : nil
            case 14: matches("content-length") ? .contentLength : nil
            case 16: matches("proxy-connection") ? .connectionSpecific : nil
            case 17: matches("transfer-encoding") ? .connectionSpecific : nil
            case 20: matches("grpc-accept-encoding") ? .grpcAcceptEncoding : nil
            default: nil
            }
        guard let found else { return nil }
        self = found
    }
}
