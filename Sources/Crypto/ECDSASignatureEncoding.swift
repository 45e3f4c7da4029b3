import COpenSSL

/// ECDSA P-256 signatures in the two shapes in use: JWS's raw r||s (RFC 7518 §3.4) and OpenSSL's DER
/// `ECDSA-Sig-Value`.
enum ECDSASignatureEncoding {
    static let scalarByteCount = 32

    /// DER for a raw r||s of exactly 64 bytes; nil for any other length.
    static func der(fromRawRS raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarByteCount else { return nil }
        return DER.sequence(
            DER.unsignedInteger(raw[..<scalarByteCount]), DER.unsignedInteger(raw[scalarByteCount...]))
    }

    /// Raw r||s, each half left-padded to 32 bytes, from a DER signature; nil when it is not one.
    static func rawRS(fromDER der: [UInt8]) -> [UInt8]? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 2 * scalarByteCount)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(scalarByteCount)) == scalarByteCount
                && BN_bn2binpad(s, buffer.baseAddress! + scalarByteCount, Int32(scalarByteCount)) == scalarByteCount
        }
        guard ok else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return raw
    }
}
