import COpenSSL
import COpenSSLShims

extension P256 {
    /// A P-256 public key, for checking ES256 signatures (one per App Store token, so the path is kept short).
    ///
    /// Equality and hashing use the uncompressed point.
    public struct PublicKey: Sendable, Hashable {
        let handle: PKeyHandle
        /// The uncompressed point, 0x04 || X || Y (65 bytes), as in ANSI X9.63.
        public let x963Representation: [UInt8]

        /// Reads a 65-byte uncompressed point; `.malformed` for any other length or form, or a point not on the curve.
        public init(x963Representation: [UInt8]) throws(CryptoError) {
            guard x963Representation.count == P256.uncompressedPointByteCount, x963Representation.first == 0x04 else {
                throw .malformed("a P-256 public key is a 65-byte uncompressed point starting 0x04")
            }
            let document = P256.subjectPublicKeyInfoPrefix + x963Representation
            let key: OpaquePointer? = document.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            }
            guard let key else {
                throw .malformed("not a point on P-256: \(OpenSSLErrorQueue.drain())")
            }
            self.handle = PKeyHandle(taking: key)
            self.x963Representation = x963Representation
        }

        /// Shares a key another object owns (a certificate's), or nil when it is not P-256.
        init?(sharing key: OpaquePointer) {
            guard P256.isP256(key), let point = P256.uncompressedPoint(of: key), EVP_PKEY_up_ref(key) == 1 else {
                OpenSSLErrorQueue.clear()
                return nil
            }
            self.handle = PKeyHandle(taking: key)
            self.x963Representation = point
        }

        /// ECDSA P-256 with SHA-256 over `message`; `signature` is the JWS form: raw r||s, exactly 64 bytes (anything
        /// else → false).
        public func isValidSignature(rawRS signature: [UInt8], for message: [UInt8]) -> Bool {
            guard let der = ECDSASignatureEncoding.der(fromRawRS: signature) else { return false }
            return isValidSignature(derEncoded: der, for: message)
        }

        /// ECDSA P-256 with SHA-256 over `message`, the signature a DER `ECDSA-Sig-Value` (OpenSSL rejects non-DER
        /// encodings of it, so one signature has one accepted spelling).
        public func isValidSignature(derEncoded signature: [UInt8], for message: [UInt8]) -> Bool {
            var digest = [UInt8](repeating: 0, count: 32)
            message.withUnsafeBytes { cshim_sha256($0.baseAddress, $0.count, &digest) }
            // A context per call: contexts are not shareable between threads, keys are.
            guard let context = EVP_PKEY_CTX_new(handle.pointer, nil) else {
                OpenSSLErrorQueue.clear()
                return false
            }
            defer { EVP_PKEY_CTX_free(context) }
            let valid = EVP_PKEY_verify_init(context) == 1
                && EVP_PKEY_verify(context, signature, signature.count, digest, digest.count) == 1
            if !valid { OpenSSLErrorQueue.clear() }
            return valid
        }

        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.x963Representation == rhs.x963Representation
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(x963Representation) }
    }
}
