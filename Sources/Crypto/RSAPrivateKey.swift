import COpenSSL

extension RSA {
    /// An RSA private key: a Google service account's (its JSON file's `private_key`), or a test's.
    public struct PrivateKey: Sendable {
        let handle: PKeyHandle
        public let publicKey: PublicKey

        /// A fresh key of `bits` (2048 to 16384) with exponent 65537, from OpenSSL's CSPRNG: for tests and local
        /// fakes. Finding the primes takes a varying time, about a tenth of a second at 2048 bits and far more above.
        public init(bits: Int = RSA.minimumModulusBitCount) throws(CryptoError) {
            guard (RSA.minimumModulusBitCount...RSA.maximumModulusBitCount).contains(bits) else {
                throw .unsupported(
                    "an RSA key of \(bits) bits; \(RSA.minimumModulusBitCount) to \(RSA.maximumModulusBitCount) are supported")
            }
            let key = try PrivateKeyMaking.generate("RSA", name: "RSA") {
                EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) == 1
            }
            try self.init(taking: key)
        }

        /// Reads an unencrypted PKCS #8 ("PRIVATE KEY", what Google's service-account files hold) or PKCS #1
        /// ("RSA PRIVATE KEY") PEM key; `.unsupported` when it is not RSA or its modulus is under 2048 bits.
        public init(pemRepresentation: String) throws(CryptoError) {
            try self.init(taking: PrivateKeyMaking.read(pem: pemRepresentation))
        }

        private init(taking key: OpaquePointer) throws(CryptoError) {
            let handle = PKeyHandle(taking: key)
            // "RSA" only: an RSA-PSS key is restricted to PSS and cannot make RS256 signatures.
            guard EVP_PKEY_is_a(key, "RSA") == 1 else { throw .unsupported("the private key is not an RSA key") }
            guard let modulus = RSA.parameter("n", of: key), let exponent = RSA.parameter("e", of: key) else {
                throw .internalError("cannot read the modulus and exponent of the RSA private key")
            }
            self.handle = handle
            self.publicKey = try PublicKey(modulus: modulus, exponent: exponent)
        }

        /// The key as unencrypted PKCS #8 PEM ("-----BEGIN PRIVATE KEY-----"), the form service-account files use.
        public var pemRepresentation: String {
            let bytes = MemoryBIO.writing { bio in
                PEM_write_bio_PKCS8PrivateKey(bio, handle.pointer, nil, nil, 0, nil, nil) == 1
            }
            guard let bytes else {
                preconditionFailure("PEM_write_bio_PKCS8PrivateKey failed: \(OpenSSLErrorQueue.drain())")
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// RSASSA-PKCS1-v1_5 with SHA-256 over `message` (JWS `RS256`): as many bytes as the modulus. Deterministic, so
        /// the same key and message always give the same signature.
        public func signatureRS256(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
            let digest = SHA256.hash(message)
            guard let context = EVP_PKEY_CTX_new(handle.pointer, nil) else {
                throw .internalError("EVP_PKEY_CTX_new: \(OpenSSLErrorQueue.drain())")
            }
            defer { EVP_PKEY_CTX_free(context) }
            var length = 0
            guard EVP_PKEY_sign_init(context) == 1, RSA.configureRS256(context),
                EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1
            else { throw .internalError("EVP_PKEY_sign: \(OpenSSLErrorQueue.drain())") }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else {
                throw .internalError("EVP_PKEY_sign: \(OpenSSLErrorQueue.drain())")
            }
            return Array(signature.prefix(length))
        }
    }
}
