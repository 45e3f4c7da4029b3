import COpenSSL
import COpenSSLShims
package import PosixIO

/// An OpenSSL context: TLS 1.2+ with ALPN. One per server or client, shared by its connections.
package final class TLSContext: ServerEncryption, @unchecked Sendable {
    // SSL_CTX is internally reference counted and safe to share once configured.
    let context: OpaquePointer
    /// A server's ticket keys, which its sessions (``TLSStream`` holds its context) read until the last is gone.
    private let ticketKeys: SessionTicketKeys?

    /// A server context from PEM files; fails with the file and OpenSSL's reason. Sessions resume with tickets
    /// made with `ticketKeys`; nil: every handshake is a full one.
    package init(serverCertificatePath: String, privateKeyPath: String, ticketKeys: SessionTicketKeys?) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .tls("SSL_CTX_new failed") }
        self.context = context
        self.ticketKeys = ticketKeys
        let ticketsSet =
            if let ticketKeys {
                cshim_ssl_ctx_use_ticket_keys(context, ticketKeys.keys) == 1
            } else {
                cshim_ssl_ctx_disable_tickets(context) == 1
            }
        guard cshim_ssl_ctx_configure_server(context) == 1, ticketsSet else { throw .tls("could not configure TLS") }
        guard SSL_CTX_use_certificate_chain_file(context, serverCertificatePath) == 1 else {
            throw .tls("cannot load certificate chain '\(serverCertificatePath)': \(Self.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw .tls("cannot load private key '\(privateKeyPath)': \(Self.lastError())")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .tls("private key '\(privateKeyPath)' does not match the certificate: \(Self.lastError())")
        }
    }

    /// The protocol a client offers in ALPN.
    package enum ClientProtocol {
        case http2
        case http1

        /// The ALPN wire form: length-prefixed names.
        var alpnList: [UInt8] {
            switch self {
            case .http2: [2] + Array("h2".utf8)
            case .http1: [8] + Array("http/1.1".utf8)
            }
        }
    }

    /// A client context that verifies the server against `trustedCertificatesPath` (PEM) or the system store.
    package init(clientTrusting trustedCertificatesPath: String?, alpn: ClientProtocol = .http2) throws(TransportError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tls("SSL_CTX_new failed") }
        self.context = context
        ticketKeys = nil
        let protocols = alpn.alpnList
        guard cshim_ssl_ctx_configure_client(context) == 1,
            SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count)) == 0
        else { throw .tls("could not configure TLS") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let trustedCertificatesPath {
            guard SSL_CTX_load_verify_locations(context, trustedCertificatesPath, nil) == 1 else {
                throw .tls("cannot load trusted certificates '\(trustedCertificatesPath)': \(Self.lastError())")
            }
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
    }

    deinit { SSL_CTX_free(context) }

    /// A server-side session for a client that starts a handshake on `fd`.
    package func acceptSession(fd: Int32) -> (any SocketEncryption)? {
        try? TLSStream(context: self, fd: fd)
    }

    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}
