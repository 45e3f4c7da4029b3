public import Crypto
import Encodings

/// Produces compact JWS: ES256 for the App Store's local signing CA, RS256 for Google-shaped tokens (a service
/// account's token requests, a fake's signed data), and deliberately odd headers for tests.
public enum JWSSigning {
    /// `base64url(header).base64url(payload).base64url(ES256 raw r||s over the first two parts)`. The header is taken
    /// as given, so its `alg` need not say ES256 (tests use that).
    public static func sign(headerJSON: [UInt8], payload: [UInt8], key: P256.PrivateKey) throws(CryptoError) -> String {
        try sign(encodedHeader: encodedHeader(headerJSON), payload: payload, key: key)
    }

    /// ``sign(headerJSON:payload:key:)`` with the header already in base64url (``encodedHeader(_:)``): a signer
    /// whose header never changes encodes it once.
    public static func sign(encodedHeader: String, payload: [UInt8], key: P256.PrivateKey) throws(CryptoError) -> String {
        try sign(encodedHeader: encodedHeader, payload: payload) { (input) throws(CryptoError) in
            try key.signature(for: input)
        }
    }

    /// A header's base64url form, as a compact JWS carries it.
    public static func encodedHeader(_ headerJSON: [UInt8]) -> String {
        Base64.encode(headerJSON, alphabet: .url, padded: false)
    }

    /// `base64url(header).base64url(payload).base64url(RS256 signature over the first two parts)`, the signature as
    /// many bytes as the key's modulus. The header is taken as given, as for ES256.
    public static func sign(headerJSON: [UInt8], payload: [UInt8], key: RSA.PrivateKey) throws(CryptoError) -> String {
        try sign(encodedHeader: encodedHeader(headerJSON), payload: payload) { (input) throws(CryptoError) in
            try key.signatureRS256(for: input)
        }
    }

    /// `base64url(header).base64url(payload).base64url(HMAC-SHA256 over the first two parts with secret)`: HS256, for
    /// tokens signed with a shared secret (a tenant backend's user tokens, made by `entctl dev user-token`).
    public static func signHS256(headerJSON: [UInt8], payload: [UInt8], secret: [UInt8]) -> String {
        let signingInput = encodedHeader(headerJSON) + "." + Base64.encode(payload, alphabet: .url, padded: false)
        let mac = HMACSHA256.authenticationCode(for: Array(signingInput.utf8), key: secret)
        return signingInput + "." + Base64.encode(mac, alphabet: .url, padded: false)
    }

    /// `{"alg":"<alg>","x5c":["<base64 DER>", ...]}`; `x5c` left out when nil.
    public static func headerJSON(alg: String = "ES256", x5c: [Certificate]?) -> [UInt8] {
        var json = #"{"alg":"\#(alg)""#
        if let x5c {
            json += #","x5c":["# + x5c.map { #"""# + Base64.encode($0.derEncoded, padded: true) + #"""# }
                .joined(separator: ",") + "]"
        }
        return Array((json + "}").utf8)
    }

    private static func sign(
        encodedHeader: String, payload: [UInt8], signature: ([UInt8]) throws(CryptoError) -> [UInt8]
    ) throws(CryptoError) -> String {
        let signingInput = encodedHeader + "." + Base64.encode(payload, alphabet: .url, padded: false)
        return signingInput + "." + Base64.encode(try signature(Array(signingInput.utf8)), alphabet: .url, padded: false)
    }
}
