public import Crypto

extension CompactJWS {
    /// Checks an RS256 token with `key`: header `alg` must be exactly `RS256` (`.unsupportedAlgorithm` otherwise, before
    /// the key is used, so `none` or an HMAC claim never reaches it), and the signature over ``signingInput`` must
    /// verify (`.invalidSignature`). Which key to use (the header's `kid` in a ``JSONWebKeySet``) is the caller's
    /// choice.
    public func verifyRS256(by key: RSA.PublicKey) throws(JOSEError) {
        try requireAlgorithm("RS256")
        guard signature.count == key.modulus.count else {
            throw .invalidSignature(
                "the signature is \(signature.count) bytes; an RS256 signature with this key is \(key.modulus.count)")
        }
        guard key.isValidRS256Signature(signature, for: signingInput) else {
            throw .invalidSignature("the RS256 signature does not match the header and payload with this key")
        }
    }

    /// Whether header `alg` is `RS256` and the signature verifies with `key` (``verifyRS256(by:)`` without the why).
    public func isSignedRS256(by key: RSA.PublicKey) -> Bool {
        do {
            try verifyRS256(by: key)
            return true
        } catch {
            return false
        }
    }
}
