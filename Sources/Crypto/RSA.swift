import COpenSSL

/// RSA signatures with RSASSA-PKCS1-v1_5 and SHA-256 (JWS `RS256`): what Google signs its OAuth and Play tokens with,
/// and what a service account's key signs its token requests with.
///
/// Keys are 2048 to 16384 bits with an odd public exponent of 3 to 64 bits; anything else is refused when read, so a
/// key value that exists can always be used.
public enum RSA {
    /// NIST SP 800-131A's floor since 2014; Google's service-account keys and published signing keys are 2048 bits.
    public static let minimumModulusBitCount = 2048
    /// OpenSSL's `OPENSSL_RSA_MAX_MODULUS_BITS`: every operation on a larger key fails, so it is refused when read.
    public static let maximumModulusBitCount = 16_384
    /// OpenSSL refuses exponents over 64 bits (`OPENSSL_RSA_MAX_PUBEXP_BITS`) for moduli over 3072 bits; one rule
    /// for every size instead. Real keys use 65537.
    static let maximumExponentBitCount = 64

    /// rsaEncryption (1.2.840.113549.1.1.1) with its NULL parameters: the AlgorithmIdentifier of an RSA
    /// SubjectPublicKeyInfo.
    private static let algorithmIdentifier: [UInt8] = [
        0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00,
    ]

    /// Refuses what no sound RSA key has (a zero or even modulus, an exponent of 0, 1 or an even one) as `.malformed`
    /// and sizes outside this module's bounds as `.unsupported`. Both are big-endian without leading zeros.
    static func check(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        guard let last = modulus.last else { throw .malformed("the RSA modulus is zero") }
        guard last & 1 == 1 else { throw .malformed("the RSA modulus is even; a product of two odd primes is odd") }
        let bits = bitCount(modulus)
        guard bits >= minimumModulusBitCount else {
            throw .unsupported("the RSA modulus is \(bits) bits; at least \(minimumModulusBitCount) are required")
        }
        guard bits <= maximumModulusBitCount else {
            throw .unsupported("the RSA modulus is \(bits) bits; at most \(maximumModulusBitCount) are supported")
        }
        guard bitCount(exponent) > 1 else {
            throw .malformed("the RSA public exponent is \(exponent.first ?? 0); it must be odd and at least 3")
        }
        guard exponent[exponent.count - 1] & 1 == 1 else {
            throw .malformed("the RSA public exponent is even; it must be odd and at least 3")
        }
        guard bitCount(exponent) <= maximumExponentBitCount else {
            throw .unsupported(
                "the RSA public exponent is \(bitCount(exponent)) bits; at most \(maximumExponentBitCount) are supported")
        }
    }

    /// The number of significant bits of a big-endian magnitude without leading zeros.
    static func bitCount(_ magnitude: [UInt8]) -> Int {
        guard let first = magnitude.first else { return 0 }
        return (magnitude.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }

    /// The DER SubjectPublicKeyInfo of (modulus, exponent), which `d2i_PUBKEY` reads: the one encoding path for keys
    /// given as numbers (JWK `n` and `e`), without OpenSSL's parameter-builder API.
    static func subjectPublicKeyInfo(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let rsaPublicKey = DER.sequence(DER.unsignedInteger(modulus), DER.unsignedInteger(exponent))
        return DER.sequence(algorithmIdentifier, DER.tlv(0x03, [0x00] + rsaPublicKey))
    }

    /// The BIGNUM parameter `name` ("n", "e") of an RSA key as big-endian bytes without leading zeros.
    static func parameter(_ name: String, of key: OpaquePointer) -> [UInt8]? {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(number)) + 7) / 8)
        guard Int(BN_bn2bin(number, &bytes)) == bytes.count else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return bytes
    }

    /// Sets an RS256 sign or verify context (after its `_init`) to PKCS #1 v1.5 padding over a SHA-256 DigestInfo:
    /// without the digest set, OpenSSL would sign the bare 32 bytes, which no JWT library accepts.
    static func configureRS256(_ context: OpaquePointer) -> Bool {
        EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
            && EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
    }
}
