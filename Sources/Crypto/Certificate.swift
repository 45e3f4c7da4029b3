import COpenSSL

/// An X.509 certificate (immutable; backed by a reference-counted `X509*`).
///
/// Parsed once, so the signed-data verifier can read fields, pick out the key and build chains without re-decoding.
/// Equality and hashing use the DER bytes, which is what chain results are cached by.
public struct Certificate: Sendable, Hashable {
    let handle: X509Handle
    /// The exact DER encoding the certificate was read from.
    public let derEncoded: [UInt8]
    /// Start of the validity period, Unix seconds.
    public let notValidBefore: Int64
    /// End of the validity period, Unix seconds.
    public let notValidAfter: Int64

    /// Parses one DER certificate; trailing bytes after it are rejected as `.malformed`.
    public init(derEncoded: [UInt8]) throws(CryptoError) {
        let parsed: OpaquePointer? = derEncoded.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let x509 = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == base + buffer.count else {
                X509_free(x509)
                return nil
            }
            return x509
        }
        guard let parsed else {
            throw .malformed("not a DER X.509 certificate: \(OpenSSLErrorQueue.drain(fallback: "trailing or missing bytes"))")
        }
        try self.init(handle: X509Handle(taking: parsed), derEncoded: derEncoded)
    }

    init(handle: X509Handle, derEncoded: [UInt8]) throws(CryptoError) {
        guard let notBefore = CertificateTime.seconds(of: X509_get0_notBefore(handle.pointer)),
            let notAfter = CertificateTime.seconds(of: X509_get0_notAfter(handle.pointer))
        else { throw .malformed("certificate validity times are unreadable") }
        self.handle = handle
        self.derEncoded = derEncoded
        self.notValidBefore = notBefore
        self.notValidAfter = notAfter
    }

    /// The subject's first commonName as UTF-8, or "" when it has none.
    public var subjectCommonName: String { Self.commonName(of: handle.pointer) }

    /// Whether basicConstraints says CA:TRUE (keyUsage alone or a v1 self-signed certificate does not count).
    public var isCertificateAuthority: Bool {
        X509_get_extension_flags(handle.pointer) & UInt32(EXFLAG_CA) != 0
    }

    /// Whether the certificate carries an extension with this dotted OID (e.g. "1.2.840.113635.100.6.11.1"), critical
    /// or not, whatever its value. Apple marks its receipt-signing leaf and WWDR intermediate this way.
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(handle.pointer, object, -1) >= 0
    }

    /// The subject public key when it is an EC P-256 key; nil otherwise.
    public var p256PublicKey: P256.PublicKey? {
        guard let key = X509_get0_pubkey(handle.pointer) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return P256.PublicKey(sharing: key)
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derEncoded == rhs.derEncoded }

    public func hash(into hasher: inout Hasher) { hasher.combine(derEncoded) }

    /// The first commonName of `x509`'s subject, for properties and for naming certificates in chain errors.
    static func commonName(of x509: OpaquePointer) -> String {
        guard let name = X509_get_subject_name(x509) else { return "" }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry)
        else { return "" }
        var utf8: UnsafeMutablePointer<UInt8>?
        let count = ASN1_STRING_to_UTF8(&utf8, data)
        guard count >= 0, let utf8 else {
            OpenSSLErrorQueue.clear()
            return ""
        }
        defer { CRYPTO_free(utf8, nil, 0) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(count)), as: UTF8.self)
    }
}
