import AppStore
import Encodings
import Testing

@Suite struct CompactJWSTests {
    @Test func keepsTheExactSigningInputAndDecodesTheHeader() throws {
        let token = try Fixtures.token(Fixtures.transaction())
        let jws = try CompactJWS(token)
        let parts = token.split(separator: ".")
        #expect(jws.signingInput == Array("\(parts[0]).\(parts[1])".utf8))
        #expect(jws.signature.count == 64)
        #expect(jws.header.alg == "ES256")
        #expect(jws.header.x5c?.count == 3)
        #expect(Base64.decode(jws.header.x5c?[0] ?? "", padding: .required) == Fixtures.ca.leaf.derEncoded)
    }

    @Test(arguments: [
        ("", "3 dot-separated parts"),
        ("a.b", "has 2"),
        ("a.b.c.d", "has 4"),
        ("eyJhbGciOiJFUzI1NiJ9..c2ln", "payload is empty"),
        ("eyJhbGciOiJFUzI1NiJ9.e30=.c2ln", "payload is not base64url"),
        ("eyJhbGciOiJFUzI1NiJ9.e3+0.c2ln", "payload is not base64url"),
        ("eyJhbGciOiJFUzI1NiJ9.e 30.c2ln", "payload is not base64url"),
        ("eyJhbGciOiJFUzI1NiJ9.e30.c2lu!", "signature is not base64url"),
        ("bm90IGpzb24.e30.c2ln", "header is not a JSON object"),
        (Fixtures.base64URL(#"{"alg":5}"#) + ".e30.c2ln", "header is not a JSON object"),
        (Fixtures.base64URL(#"{"alg":"ES256","x5c":"MII"}"#) + ".e30.c2ln", "header is not a JSON object"),
    ])
    func rejectsMalformedTokensNamingTheProblem(token: String, problem: String) {
        let error = #expect(throws: AppStoreVerificationError.self) { try CompactJWS(token) }
        #expect(error?.code == .malformedToken)
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
    }
}
