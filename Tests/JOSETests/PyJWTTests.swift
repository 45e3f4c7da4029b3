import Crypto
import Encodings
import Foundation
import JOSE
import Testing

/// RS256 against PyJWT both ways: what we sign and publish, PyJWT accepts; what PyJWT signs and publishes, we accept;
/// and both refuse the same altered tokens.
@Suite struct PyJWTTests {
    static func sign(_ header: String, _ payload: String, _ key: RSA.PrivateKey) throws -> String {
        try JWSSigning.sign(headerJSON: Array(header.utf8), payload: Array(payload.utf8), key: key)
    }

    @Test func pyjwtAcceptsOurTokensWithOurKeySet() async throws {
        let pyjwt = try PyJWT()
        defer { pyjwt.removeFiles() }
        let set = JSONWebKeySet(keys: ["a": TestKeys.first.publicKey, "b": TestKeys.second.publicKey])
        let good = try Self.sign(#"{"alg":"RS256","kid":"a","typ":"JWT"}"#, #"{"iss":"entitlementd","n":1}"#, TestKeys.first)
        let second = try Self.sign(#"{"alg":"RS256","kid":"b"}"#, #"{"sub":"second"}"#, TestKeys.second)
        let wrongKid = try Self.sign(#"{"alg":"RS256","kid":"b"}"#, #"{"sub":"x"}"#, TestKeys.first)
        let parts = good.split(separator: ".")
        let otherPayload = Base64.encode(Array(#"{"iss":"entitlementd","n":2}"#.utf8), alphabet: .url, padded: false)
        let swapped = "\(parts[0]).\(otherPayload).\(parts[2])"
        let tokens = [good, second, wrongKid, swapped]

        let verdicts = try await pyjwt.verify(jwks: set.jsonRepresentation, tokens: tokens)
        #expect(verdicts.map(\.valid) == [true, true, false, false], "\(verdicts)")
        #expect(verdicts[0].claims == ["iss": .string("entitlementd"), "n": .number(1)])
        #expect(verdicts[1].claims == ["sub": .string("second")])
        // Our verdicts agree, token for token.
        let ours = try tokens.map { token in
            let jws = try CompactJWS(token)
            return set.keys[jws.header.kid ?? ""].map { jws.isSignedRS256(by: $0) } ?? false
        }
        #expect(ours == verdicts.map(\.valid))
    }

    @Test func weAcceptPyJWTsTokenWithItsKeySet() async throws {
        let pyjwt = try PyJWT()
        defer { pyjwt.removeFiles() }
        let signed = try await pyjwt.sign()
        let set = try JSONWebKeySet(json: [UInt8](signed.jwks))
        let key = try #require(set.keys["pyjwt-key"])
        #expect(set.keys.count == 1)
        #expect(try key == RSA.PublicKey(pemRepresentation: signed.publicKeyPEM))

        let jws = try CompactJWS(signed.token)
        #expect(jws.header.alg == "RS256" && jws.header.typ == "JWT" && jws.header.kid == "pyjwt-key")
        try jws.verifyRS256(by: key)
        let claims = try JSONDecoder().decode([String: PyJWT.Claim].self, from: Data(jws.payload))
        #expect(claims == ["iss": .string("pyjwt"), "sub": .string("differential"), "n": .number(42)])

        var altered = jws
        altered.signature[0] ^= 0x80
        #expect(!altered.isSignedRS256(by: key))
        #expect(!jws.isSignedRS256(by: TestKeys.first.publicKey))
        // And PyJWT refuses what we refuse.
        let alteredToken = String(decoding: jws.signingInput, as: UTF8.self) + "."
            + Base64.encode(altered.signature, alphabet: .url, padded: false)
        #expect(try await pyjwt.verify(jwks: [UInt8](signed.jwks), tokens: [signed.token, alteredToken]).map(\.valid) == [true, false])
    }
}
