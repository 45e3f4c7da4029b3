import COpenSSL
import COpenSSLShims
import Glibc
package import PosixIO

/// One TLS session on a non-blocking socket. Loop-confined like the connection that owns it.
///
/// OpenSSL's error queue belongs to the thread, which every connection of the loop shares, and `SSL_get_error` reads
/// it: each I/O call starts with an empty queue, and a session that failed is never used again (not even for
/// close_notify), so one connection's failure cannot be read as another's.
package final class TLSStream: SocketEncryption {
    private let ssl: OpaquePointer
    /// Kept for what the session reads from it during handshakes (a server's ticket keys).
    private let context: TLSContext
    package private(set) var handshakeDone = false
    /// Set by a fatal error (`SSL_ERROR_SSL`, `SSL_ERROR_SYSCALL`), after which OpenSSL forbids `SSL_shutdown`, or
    /// once close_notify was sent.
    private var isFinished = false

    package init(context: TLSContext, fd: Int32, serverName: String? = nil) throws(TransportError) {
        guard let ssl = SSL_new(context.context) else { throw .tls("SSL_new failed") }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        if let serverName {
            SSL_set_connect_state(ssl)
            // Without the name to check, any trusted certificate would do: a failure to set it fails the connection.
            let nameSet =
                if Self.isIPAddress(serverName) {
                    // An address is checked against the certificate's IP entries, never sent as SNI (RFC 6066 §3).
                    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1
                } else {
                    cshim_ssl_set_tlsext_host_name(ssl, serverName) == 1 && SSL_set1_host(ssl, serverName) == 1
                }
            // (Thrown once every property is set, so deinit frees the session.)
            guard nameSet else { throw .tls("cannot set the server name to verify: \(TLSContext.lastError())") }
        } else {
            SSL_set_accept_state(ssl)
        }
    }

    deinit { SSL_free(ssl) }

    private static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Drives the handshake; `.bytes(0)` means it completed.
    package func handshake() -> EncryptedIOResult {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            return .bytes(0)
        }
        return classify(result)
    }

    /// The handshake resumed a session from a ticket, without the certificate and its signature.
    package var sessionReused: Bool { SSL_session_reused(ssl) == 1 }

    /// The protocol ALPN settled on, if any.
    package var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> EncryptedIOResult {
        ERR_clear_error()
        let result = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        return result > 0 ? .bytes(Int(result)) : classify(result)
    }

    package func write(_ bytes: UnsafeRawBufferPointer) -> EncryptedIOResult {
        guard bytes.count > 0 else { return .bytes(0) }
        ERR_clear_error()
        let result = SSL_write(ssl, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max))))
        return result > 0 ? .bytes(Int(result)) : classify(result)
    }

    /// Sends close_notify once; best effort on a non-blocking socket, and nothing after a fatal error or before the
    /// handshake completed (where `SSL_shutdown` only queues an error).
    package func shutdown() {
        guard handshakeDone, !isFinished else { return }
        isFinished = true
        ERR_clear_error()
        SSL_shutdown(ssl)
        // Nobody reads its outcome: what it queued must not reach the thread's next connection.
        ERR_clear_error()
    }

    private func classify(_ result: Int32) -> EncryptedIOResult {
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let reason = errno
            isFinished = true
            ERR_clear_error()
            return reason == 0 ? .closed : .failed(String(cString: strerror(reason)))
        default:
            isFinished = true
            return .failed(TLSContext.lastError())
        }
    }
}
