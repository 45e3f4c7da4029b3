import BoundedText
public import Crypto

extension CompactJWS {
    /// Checks an ES256 token with `key`: header `alg` must be exactly `ES256` (`.unsupportedAlgorithm` otherwise,
    /// before the key is used), and the signature, raw r||s of 64 bytes (RFC 7518 §3.4), must verify over
    /// ``signingInput`` (`.invalidSignature`).
    public func verifyES256(by key: P256.PublicKey) throws(JOSEError) {
        try requireAlgorithm("ES256")
        guard signature.count == 64 else {
            throw .invalidSignature("the signature is \(signature.count) bytes; an ES256 signature is 64 (r||s)")
        }
        guard key.isValidSignature(rawRS: signature, for: signingInput) else {
            throw .invalidSignature("the ES256 signature does not match the header and payload with this key")
        }
    }

    /// Checks an HS256 token against shared `secrets` (several while one is rotated out): header `alg` must be exactly
    /// `HS256`, and the HMAC-SHA256 of ``signingInput`` under one of the secrets must equal the signature, compared in
    /// constant time. Whoever holds a secret can sign: it is for secrets only the verifier and the signer know, never
    /// for a key published anywhere (a public key taken as an HMAC secret is the classic forgery).
    public func verifyHS256(secrets: [[UInt8]]) throws(JOSEError) {
        try requireAlgorithm("HS256")
        guard signature.count == HMACSHA256.byteCount else {
            throw .invalidSignature("the signature is \(signature.count) bytes; an HS256 signature is 32")
        }
        // Every secret is tried, so how long this takes does not say which one signed.
        var matched = false
        for secret in secrets where ConstantTime.equals(HMACSHA256.authenticationCode(for: signingInput, key: secret), signature) {
            matched = true
        }
        guard matched else { throw .invalidSignature("the HS256 signature does not match with any configured secret") }
    }

    /// `.unsupportedAlgorithm` unless header `alg` is exactly `algorithm`: `none`, another algorithm, or a missing one
    /// never reaches a key.
    func requireAlgorithm(_ algorithm: String) throws(JOSEError) {
        guard header.alg == algorithm else {
            throw .unsupportedAlgorithm(
                "header alg is \(header.alg?.quotedForMessage ?? "missing"); this token must be signed with \(algorithm)")
        }
    }
}
