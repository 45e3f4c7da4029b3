#if canImport(Glibc)
import Glibc
#endif

/// Failures of the transport itself: sockets, TLS setup, HTTP/2 sessions.
public struct TransportError: Error, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case system, tls, http2, addressInUse, invalidAddress, connectionClosed
    }

    public let code: Code
    public let message: String
    /// The `errno` of a failed connect, so the client can tell a refused connection from an unreachable one.
    package var errnoValue: Int32? = nil

    public var description: String { message }

    package static func system(_ call: String, _ errnoValue: Int32) -> TransportError {
        TransportError(code: .system, message: "\(call) failed: \(String(cString: strerror(errnoValue)))")
    }

    /// A connect that failed at once (before the non-blocking connect could report it later).
    package static func connect(_ errnoValue: Int32) -> TransportError {
        TransportError(
            code: .system, message: "connect failed: \(SocketFailure.text(ofErrno: errnoValue))", errnoValue: errnoValue)
    }

    package static func tls(_ message: String) -> TransportError {
        TransportError(code: .tls, message: message)
    }

    package static func http2(_ message: String) -> TransportError {
        TransportError(code: .http2, message: message)
    }

    package static func addressInUse(_ address: String) -> TransportError {
        TransportError(code: .addressInUse, message: "Address \(address) is already in use.")
    }

    package static func invalidAddress(_ address: String) -> TransportError {
        TransportError(code: .invalidAddress, message: "Cannot resolve listen address '\(address)'.")
    }

    package static let connectionClosed = TransportError(code: .connectionClosed, message: "The connection is closed.")

    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
