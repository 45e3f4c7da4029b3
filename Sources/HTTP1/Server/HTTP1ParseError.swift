/// Why an HTTP/1.1 request was rejected. After one of these the connection must answer `status` (with
/// `Connection: close`) and close: the parser cannot know where the next request would start.
public struct HTTP1ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable identifiers (for logs, metrics and tests); each implies one status.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The request line is not `method SP request-target SP HTTP-version`.
        case invalidRequestLine
        /// The method is not a token.
        case invalidMethod
        /// The method is longer than `HTTP1Limits.maxMethodBytes`.
        case methodTooLong
        /// The request target has characters outside RFC 3986 or a bad `%` escape.
        case invalidRequestTarget
        /// Asterisk-form (`*`) or authority-form (`host:port`) targets are not served.
        case unsupportedTargetForm
        /// The request target is longer than `HTTP1Limits.maxRequestTargetBytes`.
        case requestTargetTooLong
        /// The version is not `HTTP/` DIGIT `.` DIGIT.
        case invalidVersion
        /// A well-formed version other than HTTP/1.0 or HTTP/1.1.
        case unsupportedVersion
        /// A line ended with a bare LF, or a CR appeared without an LF after it.
        case invalidLineEnding
        /// A header (or trailer) field name is empty or not a token, or the colon is missing.
        case invalidHeaderName
        /// Whitespace between a field name and its colon (RFC 9112 §5.1: MUST reject).
        case whitespaceBeforeColon
        /// A field line starts with whitespace (obsolete line folding, RFC 9112 §5.2).
        case obsoleteLineFolding
        /// A field value contains a control character other than HTAB.
        case invalidHeaderValue
        /// The request line and header section exceed `HTTP1Limits.maxHeaderBytes`.
        case headerSectionTooLarge
        /// More than `HTTP1Limits.maxHeaderCount` header field lines.
        case tooManyHeaders
        /// HTTP/1.1 without a Host header field.
        case missingHost
        /// More than one Host header field.
        case duplicateHost
        /// A Host value that is not an authority.
        case invalidHost
        /// Content-Length is not one or more decimal digits.
        case invalidContentLength
        /// Several Content-Length fields with different values.
        case conflictingContentLength
        /// Both Transfer-Encoding and Content-Length (request smuggling vector).
        case contentLengthWithTransferEncoding
        /// A malformed Transfer-Encoding, chunked not last or repeated, or Transfer-Encoding in HTTP/1.0.
        case invalidTransferEncoding
        /// A transfer coding other than chunked.
        case unsupportedTransferEncoding
        /// A chunk size that is empty or not hexadecimal.
        case invalidChunkSize
        /// A chunk size over 16 hex digits or beyond the integer range.
        case chunkSizeOverflow
        /// A malformed chunk extension.
        case invalidChunkExtension
        /// A chunk-size line longer than `HTTP1Limits.maxChunkLineBytes`.
        case chunkLineTooLong
        /// Chunk data not followed by CRLF.
        case missingChunkTerminator
        /// The trailer section exceeds `maxHeaderBytes` or `maxHeaderCount`.
        case trailerSectionTooLarge
        /// The body exceeds `HTTP1Limits.maxBodyBytes`.
        case bodyTooLarge

        /// The HTTP status to answer with.
        public var status: Int {
            switch self {
            case .methodTooLong, .unsupportedTransferEncoding: 501
            case .requestTargetTooLong: 414
            case .unsupportedVersion: 505
            case .headerSectionTooLarge, .tooManyHeaders, .trailerSectionTooLarge: 431
            case .bodyTooLarge: 413
            default: 400
            }
        }
    }

    public let code: Code
    /// What exactly was wrong, quoting (escaped, truncated) client bytes where useful.
    public let message: String

    public var status: Int { code.status }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "HTTP/1.1 \(status) \(code.rawValue): \(message)" }

    /// The response to send before closing the connection.
    public var response: HTTPResponse {
        .text(status, message + "\n")
    }
}
