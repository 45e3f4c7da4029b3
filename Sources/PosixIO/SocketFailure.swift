import Glibc

/// Why a connection failed, kept as data rather than text so a client can tell a refused connect from a peer that
/// hung up during the TLS handshake, and suggest the fix for each.
package enum SocketFailure: Sendable, Equatable, CustomStringConvertible {
    /// A socket call failed with this `errno` (a refused or unreachable connect, a reset).
    case system(Int32)
    /// The TLS handshake failed with OpenSSL's reason; nil when the peer closed the connection during it.
    case tlsHandshake(String?)
    /// A TLS read or write failed after the handshake. (`SSL_read` and `SSL_write` complete an unfinished handshake
    /// themselves; a failure there before it is done is a handshake failure.)
    case tls(String)

    package var description: String {
        switch self {
        case .system(let code): Self.text(ofErrno: code)
        case .tlsHandshake(let reason?): "TLS handshake failed: \(reason)"
        case .tlsHandshake(nil): "closed during the TLS handshake"
        case .tls(let reason): "TLS error: \(reason)"
        }
    }

    /// `strerror`, lowercased at the start to read as part of a sentence ("connection refused").
    package static func text(ofErrno code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
