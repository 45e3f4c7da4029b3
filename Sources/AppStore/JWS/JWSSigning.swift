public import Crypto
import Encodings

/// Produces compact ES256 JWS: for the local signing CA, and for tests that need deliberately odd headers.
public enum JWSSigning {
    /// `base64url(header).base64url(payload).base64url(ES256 raw r||s over the first two parts)`. The header is taken
    /// as given, so its `alg` need not say ES256 (tests use that).
    public static func sign(headerJSON: [UInt8], payload: [UInt8], key: P256.PrivateKey) throws(CryptoError) -> String {
        let signingInput = Base64.encode(headerJSON, alphabet: .url, padded: false) + "." + Base64.encode(payload, alphabet: .url, padded: false)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64.encode(signature, alphabet: .url, padded: false)
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
}
