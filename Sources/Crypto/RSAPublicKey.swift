import COpenSSL

extension RSA {
    /// An RSA public key, for checking RS256 signatures (Google's token signing keys, read from its JWKS).
    ///
    /// Equality and hashing use (modulus, exponent).
    public struct PublicKey: Sendable, Hashable {
        let handle: PKeyHandle
        /// The modulus `n`, big-endian without leading zeros (JWK `n` before base64url).
        public let modulus: [UInt8]
        /// The public exponent `e`, big-endian without leading zeros (JWK `e` before base64url; 65537 is 01 00 01).
        public let exponent: [UInt8]

        /// A key from big-endian unsigned numbers, as a JWK's `n` and `e` decode to; leading zero bytes are ignored.
        /// `.unsupported` for a modulus under 2048 bits, `.malformed` for an even modulus or an exponent that is even
        /// or below 3.
        public init(modulus: some Collection<UInt8>, exponent: some Collection<UInt8>) throws(CryptoError) {
            let modulus = Array(modulus.drop { $0 == 0 })
            let exponent = Array(exponent.drop { $0 == 0 })
            try RSA.check(modulus: modulus, exponent: exponent)
            let document = RSA.subjectPublicKeyInfo(modulus: modulus, exponent: exponent)
            let key: OpaquePointer? = document.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            }
            guard let key else { throw .internalError("d2i_PUBKEY of an RSA key: \(OpenSSLErrorQueue.drain())") }
            self.handle = PKeyHandle(taking: key)
            self.modulus = modulus
            self.exponent = exponent
        }

        /// Reads a SubjectPublicKeyInfo ("PUBLIC KEY") or PKCS #1 ("RSA PUBLIC KEY") PEM key; `.unsupported` when it
        /// is not RSA.
        public init(pemRepresentation: String) throws(CryptoError) {
            let key = MemoryBIO.reading(pemRepresentation) { bio in
                // The refusing passphrase callback of the private key reader: nothing here may prompt.
                PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in 0 }, nil)
            }
            guard let key else { throw .malformed("no readable public key in PEM: \(OpenSSLErrorQueue.drain())") }
            try self.init(taking: key)
        }

        /// Takes ownership of `key` (freed on every path), checking it like a key given as numbers.
        init(taking key: OpaquePointer) throws(CryptoError) {
            let handle = PKeyHandle(taking: key)
            // "RSA" only: an RSA-PSS key is restricted to PSS and cannot make RS256 signatures.
            guard EVP_PKEY_is_a(key, "RSA") == 1 else { throw .unsupported("the public key is not an RSA key") }
            guard let modulus = RSA.parameter("n", of: key), let exponent = RSA.parameter("e", of: key) else {
                throw .internalError("cannot read the modulus and exponent of the RSA key")
            }
            try RSA.check(modulus: modulus, exponent: exponent)
            self.handle = handle
            self.modulus = modulus
            self.exponent = exponent
        }

        /// The key as SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----").
        public var pemRepresentation: String {
            let bytes = MemoryBIO.writing { bio in PEM_write_bio_PUBKEY(bio, handle.pointer) == 1 }
            guard let bytes else { preconditionFailure("PEM_write_bio_PUBKEY failed: \(OpenSSLErrorQueue.drain())") }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// RSASSA-PKCS1-v1_5 with SHA-256 over `message` (JWS `RS256`). A signature whose length is not the modulus
        /// length is false, as RFC 8017 §8.2.2 requires, before any arithmetic.
        public func isValidRS256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            guard signature.count == modulus.count else { return false }
            let digest = SHA256.hash(message)
            // A context per call: contexts are not shareable between threads, keys are.
            guard let context = EVP_PKEY_CTX_new(handle.pointer, nil) else {
                OpenSSLErrorQueue.clear()
                return false
            }
            defer { EVP_PKEY_CTX_free(context) }
            let valid = EVP_PKEY_verify_init(context) == 1 && RSA.configureRS256(context)
                && EVP_PKEY_verify(context, signature, signature.count, digest, digest.count) == 1
            if !valid { OpenSSLErrorQueue.clear() }
            return valid
        }

        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(modulus)
            hasher.combine(exponent)
        }
    }
}
