import HTTP1

/// No response from an outbound request after every attempt the policy allowed, or a request that could not be sent.
public struct OutboundHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The host could not be reached or kept the connection (refused, reset, unresolvable): try later.
        case unreachable
        /// No complete answer within the attempt timeout.
        case timedOut
        /// TLS failed: the certificate is not trusted or not for this host.
        case tlsFailed
        /// The answer was not HTTP, or larger than allowed.
        case badResponse
        /// The request could not be sent as given (a bug or bad configuration on our side).
        case invalidRequest
        /// The client could not be set up (an unreadable CA file).
        case configuration
        case cancelled
    }

    public let code: Code
    public let attempts: Int
    public let message: String

    public init(code: Code, attempts: Int, message: String) {
        self.code = code
        self.attempts = attempts
        self.message = message
    }

    init(_ error: HTTPClientError, attempts: Int, url: OutboundURL) {
        let code: Code =
            switch error.code {
            case .connectFailed, .connectionClosed: .unreachable
            case .timedOut: .timedOut
            case .tlsFailed: .tlsFailed
            case .malformedResponse, .responseTooLarge: .badResponse
            case .invalidRequest: .invalidRequest
            case .cancelled: .cancelled
            }
        let tries = attempts == 1 ? "" : " (after \(attempts) attempts)"
        self.init(code: code, attempts: attempts, message: "\(error.message)\(tries)")
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: OutboundHTTPError, rhs: OutboundHTTPError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
