/// Why an HTTP exchange produced no response. The codes are what a caller decides on: whether a retry may help,
/// and whether the server may have acted on the request.
public struct HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No connection: the name does not resolve, the connect was refused or timed out.
        case connectFailed
        /// The TLS handshake failed (an untrusted or mismatched certificate, a server that does not speak TLS).
        case tlsFailed
        /// The connection closed or broke before the response was complete.
        case connectionClosed
        /// The whole exchange took longer than its timeout.
        case timedOut
        /// The server's bytes are not an HTTP/1.1 response.
        case malformedResponse
        /// The response head or body is larger than the client accepts.
        case responseTooLarge
        /// The request itself cannot be sent (a header with a line break, a bad method).
        case invalidRequest
        /// The caller's task was cancelled.
        case cancelled
    }

    public let code: Code
    public let message: String
    /// For ``Code/connectFailed``: why, classified as a gRPC client's failed connection is (refused, unresolvable,
    /// unreachable), so a command-line tool suggests the same fix for either ("is the server running?"). Its
    /// description is the message.
    public let connectionFailure: ClientConnectionFailure?

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        connectionFailure = nil
    }

    /// A connection that could not be made.
    init(connecting failure: ClientConnectionFailure) {
        code = .connectFailed
        message = failure.description
        connectionFailure = failure
    }

    /// Whether the failure is the connection's and may pass: another attempt may succeed. (A failed TLS handshake is
    /// a certificate or configuration problem that the next attempt meets again.)
    public var isTransient: Bool {
        switch code {
        case .connectFailed, .connectionClosed, .timedOut: true
        case .tlsFailed, .malformedResponse, .responseTooLarge, .invalidRequest, .cancelled: false
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: HTTPClientError, rhs: HTTPClientError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
