import COpenSSL

/// ECDSA over NIST P-256 with SHA-256 (JWS `ES256`), the only algorithm App Store signed data uses.
public enum P256 {
    /// The DER SubjectPublicKeyInfo prefix of every P-256 key (id-ecPublicKey, prime256v1, 65-byte BIT STRING):
    /// appending an uncompressed point gives a document `d2i_PUBKEY` reads, checking that the point is on the curve.
    static let subjectPublicKeyInfoPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    static let uncompressedPointByteCount = 65

    /// Whether `key` is an EC key on P-256 (OpenSSL reports the curve as "prime256v1", or "P-256" from some paths).
    static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_is_a(key, "EC") == 1 else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
            OpenSSLErrorQueue.clear()
            return false
        }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }

    /// The uncompressed point (0x04 || X || Y) of an EC key, whatever form it was encoded in.
    static func uncompressedPoint(of key: OpaquePointer) -> [UInt8]? {
        var point: [UInt8] = [0x04]
        for name in ["qx", "qy"] {
            var coordinate: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &coordinate) == 1, let coordinate else {
                OpenSSLErrorQueue.clear()
                return nil
            }
            defer { BN_free(coordinate) }
            var bytes = [UInt8](repeating: 0, count: 32)
            guard BN_bn2binpad(coordinate, &bytes, 32) == 32 else {
                OpenSSLErrorQueue.clear()
                return nil
            }
            point += bytes
        }
        return point
    }
}
