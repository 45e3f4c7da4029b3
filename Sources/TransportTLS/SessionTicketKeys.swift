import COpenSSL
import COpenSSLShims
import FileAccess
package import PosixIO

/// The keys of a server's TLS session tickets: one a rotation period, derived from a secret, so that every instance
/// given the same secret and period resumes the sessions of the others (see `ticket_keys.c` for the schedule).
package final class SessionTicketKeys: @unchecked Sendable {
    // cshim_ticket_keys locks the keys it derives: the event loops share it.
    let keys: OpaquePointer

    /// The bytes a secret may have: 32 at least, as many as the AES-256 key derived from it.
    package static let secretLengths = 32...4096

    package init(secret: some Collection<UInt8>, rotationSeconds: Int) throws(TransportError) {
        let made = Array(secret).withUnsafeBufferPointer { bytes in
            cshim_ticket_keys_new(bytes.baseAddress, bytes.count, Int64(rotationSeconds))
        }
        guard let made else { throw .tls("cannot make the session ticket keys: \(TLSContext.lastError())") }
        keys = made
    }

    /// The secret is the file's bytes without the whitespace around them (the newline `openssl rand -base64 48`
    /// ends with), so that instances whose copies differ only there share it. The error names the file, never its
    /// contents.
    package convenience init(secretFile path: String, rotationSeconds: Int) throws(TransportError) {
        let contents: [UInt8]
        switch FileSystem.readFile(path) {
        case .success(let bytes): contents = bytes
        case .failure(let error): throw .tls("cannot read the session ticket secret '\(path)': \(error.reason)")
        }
        let isWhitespace: (UInt8) -> Bool = { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let start = contents.firstIndex { !isWhitespace($0) } ?? contents.endIndex
        let end = contents.lastIndex { !isWhitespace($0) }.map { $0 + 1 } ?? start
        let secret = contents[start..<end]
        guard Self.secretLengths.contains(secret.count) else {
            throw .tls(
                "the session ticket secret '\(path)' holds \(secret.count) bytes; it needs \(Self.secretLengths.lowerBound) "
                    + "to \(Self.secretLengths.upperBound) (make one with: openssl rand -base64 48 > \(path))")
        }
        try self.init(secret: secret, rotationSeconds: rotationSeconds)
    }

    /// Keys from a random secret: this process resumes its own sessions only.
    package static func random(rotationSeconds: Int) throws(TransportError) -> SessionTicketKeys {
        var secret = [UInt8](repeating: 0, count: secretLengths.lowerBound)
        guard RAND_bytes(&secret, Int32(secret.count)) == 1 else {
            throw .tls("cannot make a random session ticket secret: \(TLSContext.lastError())")
        }
        return try SessionTicketKeys(secret: secret, rotationSeconds: rotationSeconds)
    }

    deinit { cshim_ticket_keys_free(keys) }

    /// One period's key: its name, the AES-256-CBC key and the HMAC-SHA256 key.
    package struct Key: Equatable {
        package var name: [UInt8]
        package var encryption: [UInt8]
        package var authentication: [UInt8]
    }

    /// The key new tickets get at `unixTime`. (The handshake reads the same schedule from C; this is how tests
    /// read it with a time of their choice.)
    package func currentKey(at unixTime: Int64) -> Key? {
        var key = cshim_ticket_key()
        guard cshim_ticket_keys_current(keys, unixTime, &key) == 1 else { return nil }
        return Key(key)
    }

    /// What becomes of a ticket made with the key named `name`, offered at `unixTime`.
    package enum Acceptance: Equatable {
        /// Opened with this key, the current period's.
        case current(Key)
        /// Opened with this key, the previous or next period's; the client gets a new ticket.
        case renewed(Key)
        /// Ignored: the handshake is a full one.
        case ignored
    }

    package func acceptance(ofKeyNamed name: [UInt8], at unixTime: Int64) -> Acceptance {
        guard name.count == 16 else { return .ignored }
        var key = cshim_ticket_key()
        switch cshim_ticket_keys_find(keys, name, unixTime, &key) {
        case 1: return .current(Key(key))
        case 2: return .renewed(Key(key))
        default: return .ignored
        }
    }
}

extension SessionTicketKeys.Key {
    fileprivate init(_ key: cshim_ticket_key) {
        var key = key
        name = withUnsafeBytes(of: &key.name) { Array($0) }
        encryption = withUnsafeBytes(of: &key.aes_key) { Array($0) }
        authentication = withUnsafeBytes(of: &key.hmac_key) { Array($0) }
    }
}
