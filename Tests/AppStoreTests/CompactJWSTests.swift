import AppStore
import Crypto
import Encodings
import JOSE
import Testing

/// App Store tokens through JOSE's compact JWS (its parsing rules are tested in JOSETests).
@Suite struct CompactJWSTests {
    @Test func keepsTheExactSigningInputAndDecodesTheHeader() throws {
        let token = try Fixtures.token(Fixtures.transaction())
        let jws = try CompactJWS(appStoreToken: token)
        let parts = token.split(separator: ".")
        #expect(jws.signingInput == Array("\(parts[0]).\(parts[1])".utf8))
        #expect(jws.signature.count == 64)
        #expect(jws.header.alg == "ES256")
        #expect(jws.header.x5c?.count == 3)
        #expect(Base64.decode(jws.header.x5c?[0] ?? "", padding: .required) == Fixtures.ca.leaf.derEncoded)
    }

    @Test(arguments: ["", "a.b.c.d", "eyJhbGciOiJFUzI1NiJ9..c2ln", "bm90IGpzb24.e30.c2ln"])
    func aMalformedTokenIsTheAppStoresMalformedTokenWithJOSEsMessage(token: String) throws {
        let jose = try #require(#expect(throws: JOSEError.self) { try CompactJWS(token) })
        let appStore = #expect(throws: AppStoreVerificationError.self) { try CompactJWS(appStoreToken: token) }
        #expect(appStore == AppStoreVerificationError(.malformedToken, jose.message))
        let verifier = try Fixtures.verifier()
        let verified = #expect(throws: AppStoreVerificationError.self) { try verifier.verifyTransaction(token) }
        #expect(verified == AppStoreVerificationError(.malformedToken, jose.message))
    }
}
