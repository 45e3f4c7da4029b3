import COpenSSL

/// What every private key type does the same way through OpenSSL: make a fresh key and read a PEM one. Each gives
/// an `EVP_PKEY*` that the caller takes and checks for its own algorithm.
enum PrivateKeyMaking {
    /// A fresh key of OpenSSL's `algorithm` ("EC", "RSA") from its CSPRNG; `configure` sets the key's parameters on
    /// the generation context (the curve, the modulus size) and reports success. `name` names the key in errors.
    static func generate(
        _ algorithm: String, name: String, configure: (OpaquePointer) -> Bool
    ) throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw .internalError("EVP_PKEY_CTX_new_from_name: \(OpenSSLErrorQueue.drain())")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context), EVP_PKEY_generate(context, &key) == 1, let key
        else { throw .internalError("\(name) key generation: \(OpenSSLErrorQueue.drain())") }
        return key
    }

    /// The key of an unencrypted PEM private key, of whatever algorithm it is.
    static func read(pem: String) throws(CryptoError) -> OpaquePointer {
        let key = MemoryBIO.reading(pem) { bio in
            // A passphrase callback that refuses: an encrypted key fails instead of prompting on the terminal.
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key else { throw .malformed("no readable private key in PEM: \(OpenSSLErrorQueue.drain())") }
        return key
    }
}
