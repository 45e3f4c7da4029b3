import COpenSSL

/// Issues certificates, for the local development CA and for tests.
///
/// The development CA needs an Apple-shaped chain (root → intermediate → leaf, with Apple's marker OIDs) so the real
/// verification path runs locally; tests need the same plus deliberately broken variants. Every certificate gets
/// subjectKeyIdentifier and authorityKeyIdentifier so OpenSSL picks the right issuer when building chains.
public struct CertificateIssuer {
    /// An extra extension; `derValue` is the extnValue contents (for Apple marker OIDs an ASN.1 NULL, 0x05 0x00).
    public struct Extension: Sendable {
        public var oid: String
        public var critical: Bool
        public var derValue: [UInt8]

        public init(oid: String, critical: Bool, derValue: [UInt8]) {
            self.oid = oid
            self.critical = critical
            self.derValue = derValue
        }
    }

    /// The extensions `issue` writes itself; a caller's extension with one of these OIDs would duplicate it.
    private static let automaticOIDs: Set<String> = ["2.5.29.19", "2.5.29.15", "2.5.29.14", "2.5.29.35"]

    /// A certificate for `subjectPublicKey` signed by `issuerKey` (with `issuer`'s subject as issuer name, or
    /// self-signed when `issuer` is nil), ECDSA-SHA256.
    ///
    /// basicConstraints is critical (CA:TRUE with optional pathLength, or CA:FALSE); keyUsage is critical
    /// (keyCertSign|cRLSign for CAs, digitalSignature for leaves). `issuerKey` is not checked against `issuer`, so
    /// tests can mint certificates whose signature does not match their claimed issuer.
    public static func issue(
        commonName: String, organization: String? = nil, subjectPublicKey: P256.PublicKey, serialNumber: UInt64,
        notValidBefore: Int64, notValidAfter: Int64, isCertificateAuthority: Bool, pathLength: Int? = nil,
        extensions: [Extension] = [], issuer: Certificate?, issuerKey: P256.PrivateKey
    ) throws(CryptoError) -> Certificate {
        guard notValidBefore <= notValidAfter else { throw .malformed("notValidAfter is before notValidBefore") }
        if let pathLength {
            guard isCertificateAuthority, pathLength >= 0 else {
                throw .malformed("a path length needs a CA certificate and must not be negative")
            }
        }
        guard let x509 = X509_new() else { throw .internalError("X509_new: \(OpenSSLErrorQueue.drain())") }
        let handle = X509Handle(taking: x509)

        let subjectKeyIdentifier = keyIdentifier(subjectPublicKey)
        let authorityKeyIdentifier = issuer.flatMap { existingKeyIdentifier(of: $0) } ?? keyIdentifier(issuerKey.publicKey)
        let basicConstraints =
            isCertificateAuthority
            ? DER.sequence(DER.boolean(true), pathLength.map(DER.unsignedInteger) ?? [])
            : DER.sequence()
        let keyUsage = DER.namedBits(isCertificateAuthority ? 0x06 : 0x80)  // keyCertSign|cRLSign : digitalSignature
        let all =
            [
                Extension(oid: "2.5.29.19", critical: true, derValue: basicConstraints),
                Extension(oid: "2.5.29.15", critical: true, derValue: keyUsage),
                Extension(oid: "2.5.29.14", critical: false, derValue: DER.octetString(subjectKeyIdentifier)),
                Extension(
                    oid: "2.5.29.35", critical: false,
                    derValue: DER.sequence(DER.tlv(0x80, authorityKeyIdentifier))),  // [0] keyIdentifier
            ] + extensions
        try checkDistinct(extensions)

        guard X509_set_version(x509, Int(X509_VERSION_3)) == 1,
            ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serialNumber) == 1,
            ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notValidBefore)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notValidAfter)) != nil,
            X509_set_pubkey(x509, subjectPublicKey.handle.pointer) == 1
        else { throw .internalError("setting certificate fields: \(OpenSSLErrorQueue.drain())") }
        try setSubject(x509, commonName: commonName, organization: organization)
        let issuerName = issuer.map { X509_get_subject_name($0.handle.pointer) } ?? X509_get_subject_name(x509)
        guard X509_set_issuer_name(x509, issuerName) == 1 else {
            throw .internalError("X509_set_issuer_name: \(OpenSSLErrorQueue.drain())")
        }
        for item in all { try add(item, to: x509) }
        guard X509_sign(x509, issuerKey.handle.pointer, EVP_sha256()) > 0 else {
            throw .internalError("X509_sign: \(OpenSSLErrorQueue.drain())")
        }
        return try Certificate(handle: handle, derEncoded: Certificate.encode(handle))
    }

    /// RFC 7093 method 1: the leftmost 160 bits of SHA-256 over the subjectPublicKey bits (the uncompressed point).
    private static func keyIdentifier(_ key: P256.PublicKey) -> [UInt8] {
        Array(SHA256.hash(key.x963Representation).prefix(20))
    }

    private static func existingKeyIdentifier(of certificate: Certificate) -> [UInt8]? {
        guard let identifier = X509_get0_subject_key_id(certificate.handle.pointer),
            let data = ASN1_STRING_get0_data(identifier)
        else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(identifier))))
    }

    private static func checkDistinct(_ extensions: [Extension]) throws(CryptoError) {
        var seen = automaticOIDs
        for item in extensions {
            let canonical = try canonicalOID(item.oid)
            guard seen.insert(canonical).inserted else {
                throw .malformed("extension \(item.oid) appears twice or duplicates one the issuer adds")
            }
        }
    }

    private static func canonicalOID(_ oid: String) throws(CryptoError) -> String {
        guard let object = OBJ_txt2obj(oid, 1) else { throw .malformed("\"\(oid)\" is not a dotted OID") }
        defer { ASN1_OBJECT_free(object) }
        var text = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&text, Int32(text.count), object, 1)
        guard length > 0, Int(length) < text.count else { throw .malformed("OID \"\(oid)\" is too long") }
        return String(decoding: text.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func setSubject(_ x509: OpaquePointer, commonName: String, organization: String?) throws(CryptoError) {
        guard let name = X509_NAME_new() else { throw .internalError("X509_NAME_new: \(OpenSSLErrorQueue.drain())") }
        defer { X509_NAME_free(name) }
        for (field, value) in [("CN", commonName), ("O", organization)] {
            guard let value else { continue }
            let bytes = Array(value.utf8)
            let added = bytes.withUnsafeBufferPointer { buffer in
                X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, buffer.baseAddress, Int32(buffer.count), -1, 0)
            }
            guard added == 1 else { throw .malformed("subject \(field) \"\(value)\": \(OpenSSLErrorQueue.drain())") }
        }
        guard X509_set_subject_name(x509, name) == 1 else {  // copies `name`
            throw .internalError("X509_set_subject_name: \(OpenSSLErrorQueue.drain())")
        }
    }

    private static func add(_ item: Extension, to x509: OpaquePointer) throws(CryptoError) {
        guard let object = OBJ_txt2obj(item.oid, 1) else { throw .malformed("\"\(item.oid)\" is not a dotted OID") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else {
            throw .internalError("ASN1_OCTET_STRING_new: \(OpenSSLErrorQueue.drain())")
        }
        defer { ASN1_OCTET_STRING_free(value) }
        guard ASN1_OCTET_STRING_set(value, item.derValue, Int32(item.derValue.count)) == 1,
            let created = X509_EXTENSION_create_by_OBJ(nil, object, item.critical ? 1 : 0, value)
        else { throw .internalError("creating extension \(item.oid): \(OpenSSLErrorQueue.drain())") }
        defer { X509_EXTENSION_free(created) }  // X509_add_ext stores a copy
        guard X509_add_ext(x509, created, -1) == 1 else {
            throw .internalError("X509_add_ext \(item.oid): \(OpenSSLErrorQueue.drain())")
        }
    }
}
