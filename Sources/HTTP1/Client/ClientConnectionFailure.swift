import Glibc
package import PosixIO

/// Why a client's connection failed: the `RPCError.cause` of the `UNAVAILABLE` error a gRPC client's calls end with
/// (HTTP2Transport), and ``HTTPClientError/connectionFailure`` for ``HTTPClient``.
///
/// The kinds are the mistakes a person makes when pointing a client at a server (nothing listening, cleartext
/// against a TLS port, an untrusted certificate), so a command-line tool can suggest the fix instead of repeating
/// the symptom. The description names the address and is the calls' status message.
public struct ClientConnectionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The host name does not resolve.
        case unresolvable
        /// Nothing accepts connections at the address (ECONNREFUSED).
        case refused
        /// The connection could not be made for another reason (unreachable network, timeout).
        case unreachable
        /// Cleartext HTTP/2 was answered with a TLS record (an alert): the server expects TLS.
        case answeredWithTLS
        /// A cleartext connection closed before the server's HTTP/2 preface (its SETTINGS frame), as a TLS-only
        /// server closes one that does not start a handshake.
        case closedDuringPreface
        /// The TLS handshake failed: an untrusted or mismatched certificate, or a server that does not speak TLS.
        case tlsHandshake
        /// The connection closed or broke after the HTTP/2 preface.
        case closed
    }

    public let kind: Kind
    /// `HOST:PORT` as the client was configured.
    public let address: String
    public let description: String

    init(_ kind: Kind, address: String, _ description: String) {
        self.kind = kind
        self.address = address
        self.description = description
    }

    /// A connect that failed before there was a connection: an unresolvable host, or a connect refused at once.
    package init(connecting error: TransportError, address: String) {
        if error.code == .invalidAddress {
            self.init(.unresolvable, address: address, "cannot connect to \(address): cannot resolve the host name")
        } else if let code = error.errnoValue {
            self.init(connectErrno: code, address: address)
        } else {
            self.init(.unreachable, address: address, "cannot connect to \(address): \(error.message)")
        }
    }

    /// A `connect(2)` to `address` that failed with `code`: the gRPC client's, or the HTTP/1.1 client's (see
    /// ``HTTPClientError/connectionFailure``), which say the same.
    public init(connectErrno code: Int32, address: String) {
        self.init(
            code == ECONNREFUSED ? .refused : .unreachable, address: address,
            "cannot connect to \(address): \(SocketFailure.text(ofErrno: code))")
    }

    /// Classifies a closed connection from what the socket reported and how far HTTP/2 got. `received` is the first
    /// bytes the server sent (up to three, a TLS record header's length).
    package static func classify(
        _ failure: SocketFailure?, address: String, usesTLS: Bool, received: [UInt8], prefaceReceived: Bool
    ) -> ClientConnectionFailure {
        // A non-blocking connect reports its failure as the socket's first error, before any byte arrives.
        if case .system(let code)? = failure, received.isEmpty, !prefaceReceived,
            [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL].contains(code)
        {
            return Self(connectErrno: code, address: address)
        }
        if case .tlsHandshake(let reason)? = failure {
            return Self(
                .tlsHandshake, address: address,
                reason.map { "TLS handshake with \(address) failed: \($0)" }
                    ?? "\(address) closed the connection during the TLS handshake")
        }
        if !usesTLS, !prefaceReceived {
            if isTLSRecordHeader(received) {
                return Self(.answeredWithTLS, address: address, "\(address) answered with TLS, not cleartext HTTP/2")
            }
            if received.isEmpty {
                return Self(
                    .closedDuringPreface, address: address,
                    "the connection to \(address) closed during the HTTP/2 preface" + (failure.map { ": \($0)" } ?? ""))
            }
        }
        if !prefaceReceived, !received.isEmpty {
            return Self(.closed, address: address, "\(address) did not answer with HTTP/2")
        }
        return Self(.closed, address: address, "the connection to \(address) closed" + (failure.map { ": \($0)" } ?? ""))
    }

    /// The start of a TLS record: content type alert (21) or handshake (22), then protocol version 3.x.
    static func isTLSRecordHeader(_ bytes: [UInt8]) -> Bool {
        guard let type = bytes.first, type == 21 || type == 22 else { return false }
        guard bytes.count > 1 else { return true }
        return bytes[1] == 3 && (bytes.count < 3 || bytes[2] <= 4)
    }
}
