import BoundedText
import Encodings
import RPCCore

/// The header fields of custom metadata and of a call's status, as every framing writes them: HTTP/2 headers and
/// trailers, HTTP/1.1 headers, the gRPC-Web trailers frame.
enum StatusFields {
    /// How a `-bin` value is written.
    enum BinaryValues {
        /// Base64 without padding (headers and trailers).
        case base64
        /// The bytes as they are: a text-mode trailers frame is base64'd whole (PROTOCOL-WEB.md, "binary trailers").
        case raw
    }

    /// Custom metadata in order. Keys not allowed as metadata are skipped, and so are string values with control
    /// characters (they could split a header).
    static func forEach(_ metadata: Metadata, binary: BinaryValues = .base64, _ body: (String, [UInt8]) -> Void) {
        for (key, value) in metadata where Metadata.isValidCustomKey(key) {
            switch value {
            case .string(let string):
                if Metadata.isBinaryKey(key) {
                    body(key, binaryValue(Array(string.utf8), binary))
                } else if string.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 < 0x7F) }) {
                    body(key, Array(string.utf8))
                }
            case .binary(let bytes):
                body(key, binaryValue(bytes, binary))
            }
        }
    }

    /// `grpc-status`, `grpc-message` (percent-encoded, truncated) when there is one, then the status's trailers.
    static func forEach(_ status: RPCStatus, binary: BinaryValues = .base64, _ body: (String, [UInt8]) -> Void) {
        body("grpc-status", Array(String(status.code.rawValue).utf8))
        if !status.message.isEmpty {
            body(
                "grpc-message",
                Array(PercentEncoding.encode(status.message.truncated(toUTF8Bytes: RPCStatus.maxMessageBytes)).utf8))
        }
        forEach(status.trailers, binary: binary, body)
    }

    private static func binaryValue(_ bytes: [UInt8], _ binary: BinaryValues) -> [UInt8] {
        switch binary {
        case .base64: Array(Base64.encode(bytes, padded: false).utf8)
        case .raw: bytes
        }
    }
}
