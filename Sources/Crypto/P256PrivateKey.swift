import COpenSSL
import COpenSSLShims

extension P256 {
    /// A P-256 private key: the local development CA's keys and test signers.
    public struct PrivateKey: Sendable {
        let handle: PKeyHandle
        public let publicKey: PublicKey
        private let contexts: SigningContexts

        /// A fresh key from OpenSSL's CSPRNG.
        public init() throws(CryptoError) {
            let key = try PrivateKeyMaking.generate("EC", name: "P-256") {
                EVP_PKEY_CTX_set_group_name($0, "P-256") == 1
            }
            try self.init(taking: key)
        }

        /// Reads an unencrypted PKCS#8 ("PRIVATE KEY") or SEC1 ("EC PRIVATE KEY") PEM key; `.unsupported` when it is
        /// not P-256.
        public init(pemRepresentation: String) throws(CryptoError) {
            try self.init(taking: PrivateKeyMaking.read(pem: pemRepresentation))
        }

        private init(taking key: OpaquePointer) throws(CryptoError) {
            let handle = PKeyHandle(taking: key)
            guard P256.isP256(key) else { throw .unsupported("the private key is not an EC P-256 key") }
            guard let point = P256.uncompressedPoint(of: key) else {
                throw .internalError("cannot read the public point of the private key")
            }
            self.handle = handle
            self.publicKey = try PublicKey(x963Representation: point)
            contexts = SigningContexts(key: handle)
        }

        /// The key as unencrypted PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----").
        public var pemRepresentation: String {
            let bytes = MemoryBIO.writing { bio in
                PEM_write_bio_PrivateKey(bio, handle.pointer, nil, nil, 0, nil, nil) == 1
            }
            guard let bytes else { preconditionFailure("PEM_write_bio_PrivateKey failed: \(OpenSSLErrorQueue.drain())") }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// ECDSA P-256/SHA-256 over `message`, as raw r||s (64 bytes, each half left-padded to 32): JWS's shape.
        public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
            guard let raw = ECDSASignatureEncoding.rawRS(fromDER: try derSignature(for: message)) else {
                throw .internalError("OpenSSL produced an unreadable ECDSA signature")
            }
            return raw
        }

        /// ECDSA P-256/SHA-256 over `message`, as DER `ECDSA-Sig-Value`: the shape StoreKit's promotional offer
        /// signatures take.
        public func derSignature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: 32)
            message.withUnsafeBytes { cshim_sha256($0.baseAddress, $0.count, &digest) }
            return try contexts.withContext { (context) throws(CryptoError) in
                // At most 72 bytes: a SEQUENCE of two INTEGERs of up to 33 bytes each.
                var der = [UInt8](repeating: 0, count: 80)
                var length = der.count
                guard EVP_PKEY_sign(context, &der, &length, digest, digest.count) == 1 else {
                    throw .internalError("EVP_PKEY_sign: \(OpenSSLErrorQueue.drain())")
                }
                der.removeLast(der.count - length)
                return der
            }
        }
    }
}
