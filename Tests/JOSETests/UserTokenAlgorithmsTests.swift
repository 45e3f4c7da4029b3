import Crypto
import Encodings
import JOSE
import Testing

/// ES256 and HS256 verification and P-256 keys in a JWKS, against RFC 7515's worked examples (Appendix A.1 and A.3:
/// tokens signed by another implementation, with the keys printed beside them), and a JWT's registered claims.
@Suite struct UserTokenAlgorithmsTests {
    /// RFC 7515 A.1: HS256 with this key (base64url).
    static let rfcHMACKey = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"
    static let rfcHS256Token =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFt"
        + "cGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    /// RFC 7515 A.3: ES256, the public key's coordinates.
    static let rfcX = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let rfcY = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let rfcES256Token =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp"
        + "0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    static func keySet(_ jwks: String...) -> [UInt8] { keySet(jwks) }
    static func keySet(_ jwks: [String]) -> [UInt8] { Array(#"{"keys":[\#(jwks.joined(separator: ","))]}"#.utf8) }

    @Test func hs256() throws {
        let key = try #require(Base64.decode(Self.rfcHMACKey, alphabet: .url, padding: .forbidden))
        let jws = try CompactJWS(Self.rfcHS256Token)
        try jws.verifyHS256(secrets: [Array("another secret, first in the list".utf8), key])
        #expect(throws: JOSEError.invalidSignature("")) { try jws.verifyHS256(secrets: [Array("not it".utf8)]) }
        var altered = jws
        altered.signature[31] ^= 1
        #expect(throws: JOSEError.invalidSignature("")) { try altered.verifyHS256(secrets: [key]) }
        // The algorithm is the header's to say, and only HS256 reaches an HMAC secret.
        let es256 = try CompactJWS(Self.rfcES256Token)
        #expect(throws: JOSEError.unsupportedAlgorithm("")) { try es256.verifyHS256(secrets: [key]) }
    }

    @Test func es256WithAKeyFromAKeySet() throws {
        let set = try JSONWebKeySet(json: Self.keySet(
            #"{"kty":"EC","crv":"P-256","kid":"rfc","x":"\#(Self.rfcX)","y":"\#(Self.rfcY)"}"#))
        let key = try #require(set.es256Keys["rfc"])
        #expect(set.keys.isEmpty)
        let jws = try CompactJWS(Self.rfcES256Token)
        try jws.verifyES256(by: key)
        var altered = jws
        altered.signature[0] ^= 1
        #expect(throws: JOSEError.invalidSignature("")) { try altered.verifyES256(by: key) }
        let hs256 = try CompactJWS(Self.rfcHS256Token)
        #expect(throws: JOSEError.unsupportedAlgorithm("")) { try hs256.verifyES256(by: key) }
        // Written and read back to the same keys.
        #expect(try JSONWebKeySet(json: set.jsonRepresentation) == set)
    }

    @Test func p256KeysOfOtherShapesAreRefusedOrSkipped() throws {
        func refusal(_ jwks: String...) -> String? {
            do {
                _ = try JSONWebKeySet(json: Self.keySet(jwks))
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal(#"{"kty":"EC","crv":"P-256","kid":"k","x":"\#(Self.rfcX)"}"#)?.contains("lacks `x` or `y`") == true)
        #expect(refusal(#"{"kty":"EC","crv":"P-256","kid":"k","x":"AAAA","y":"\#(Self.rfcY)"}"#)?.contains("32 bytes") == true)
        // A point off the curve.
        let offCurve = String(Self.rfcY.dropLast()) + (Self.rfcY.last == "A" ? "B" : "A")
        #expect(refusal(#"{"kty":"EC","crv":"P-256","kid":"k","x":"\#(Self.rfcX)","y":"\#(offCurve)"}"#)?
            .contains("not a usable ES256 key") == true)
        #expect(refusal(#"{"kty":"EC","crv":"P-256","x":"\#(Self.rfcX)","y":"\#(Self.rfcY)"}"#)?.contains("has no kid") == true)
        // Keys for something else are skipped: another curve, another algorithm, encryption.
        for skipped in [
            #"{"kty":"EC","crv":"P-384","kid":"a","x":"AAAA","y":"AAAA"}"#,
            #"{"kty":"EC","crv":"P-256","kid":"b","alg":"ES384","x":"\#(Self.rfcX)","y":"\#(Self.rfcY)"}"#,
            #"{"kty":"EC","crv":"P-256","kid":"c","use":"enc","x":"\#(Self.rfcX)","y":"\#(Self.rfcY)"}"#,
        ] {
            let set = try JSONWebKeySet(json: Self.keySet(skipped))
            #expect(set.es256Keys.isEmpty && set.keys.isEmpty, "\(skipped)")
        }
        // One kid for two kept keys is refused, whatever their types.
        let twice = #"{"kty":"EC","crv":"P-256","kid":"same","x":"\#(Self.rfcX)","y":"\#(Self.rfcY)"}"#
        #expect(refusal(twice, twice)?.contains("keys[1] (kid 'same'): another signing key has the same kid") == true)
    }

    @Test func registeredClaims() throws {
        let claims = try JSONWebTokenClaims(payload: Array(
            #"{"iss":"https://auth","sub":"ana","aud":["t1","t2"],"exp":1700000060.9,"nbf":1700000000,"iat":1700000000,"jti":"j","x":{"y":[1]}}"#
                .utf8))
        #expect(claims.issuer == "https://auth" && claims.subject == "ana" && claims.audience == ["t1", "t2"])
        #expect(claims.expiresAt == 1_700_000_060 && claims.notBefore == 1_700_000_000 && claims.issuedAt == 1_700_000_000)
        #expect(claims.tokenID == "j")
        #expect(try JSONWebTokenClaims(payload: Array(#"{"aud":"t1"}"#.utf8)).audience == ["t1"])
        for bad in [#"{"exp":"soon"}"#, #"{"exp":-1}"#, #"{"exp":1e300}"#, #"{"aud":[1]}"#, #"{"sub":7}"#, "[]", #"{"iat":253402300800}"#] {
            #expect(throws: JOSEError.malformedToken("")) { try JSONWebTokenClaims(payload: Array(bad.utf8)) }
        }
    }
}
