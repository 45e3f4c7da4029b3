import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// A P-256 public key that checks ES256 signatures (RFC 7518 §3.4: ECDSA over SHA-256, r||s): CryptoKit on Apple
/// platforms, the project's OpenSSL module elsewhere.
struct ES256PublicKey: Sendable {
    #if canImport(CryptoKit)
        private let key: CryptoKit.P256.Signing.PublicKey
    #else
        private let key: Crypto.P256.PublicKey
    #endif

    /// From the uncompressed point (0x04 || x || y); nil when it is not on the curve.
    init?(x963Representation point: [UInt8]) {
        #if canImport(CryptoKit)
            guard let key = try? CryptoKit.P256.Signing.PublicKey(x963Representation: point) else { return nil }
        #else
            guard let key = try? Crypto.P256.PublicKey(x963Representation: point) else { return nil }
        #endif
        self.key = key
    }

    /// Whether `signature` (64 bytes, r||s) signs `message`.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        #if canImport(CryptoKit)
            guard let ecdsa = try? CryptoKit.P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: Data(message))
        #else
            return key.isValidSignature(rawRS: signature, for: message)
        #endif
    }
}
