/// Encryption between a ``SocketConnection`` and its socket: a TLS session, which TransportTLS provides. The
/// connection reads and writes through it, so this module needs no TLS library. Loop-confined like its connection.
package protocol SocketEncryption: AnyObject {
    /// The handshake completed.
    var handshakeDone: Bool { get }
    /// The protocol ALPN settled on, if any.
    var negotiatedProtocol: String? { get }
    /// The handshake resumed an earlier session instead of authenticating afresh.
    var sessionReused: Bool { get }
    /// Drives the handshake; `.bytes(0)` means it completed.
    func handshake() -> EncryptedIOResult
    func read(into buffer: UnsafeMutableRawBufferPointer) -> EncryptedIOResult
    func write(_ bytes: UnsafeRawBufferPointer) -> EncryptedIOResult
    /// Sends the close notice, best effort.
    func shutdown()
}

/// The outcome of an encrypted read, write or handshake step on a non-blocking socket.
package enum EncryptedIOResult {
    case bytes(Int)
    case wantRead
    case wantWrite
    case closed
    case failed(String)
}

/// A server's TLS settings: a connection whose client starts a handshake gets a session from them.
package protocol ServerEncryption: AnyObject, Sendable {
    /// A server-side session on `fd`, or nil when one cannot be created.
    func acceptSession(fd: Int32) -> (any SocketEncryption)?
}
