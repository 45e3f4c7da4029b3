import Crypto
import Encodings
import JOSE
import Testing

@Suite struct CompactJWSTests {
    static func base64URL(_ text: String) -> String { Base64.encode(Array(text.utf8), alphabet: .url, padded: false) }

    @Test func keepsTheExactSigningInputAndDecodesTheHeader() throws {
        let header = Array(#"{"alg":"ES256","kid":"key-1","typ":"JWT","x5c":["MIIB","MIIC"]}"#.utf8)
        let payload = Array(#"{"sub":"1234"}"#.utf8)
        let token = try JWSSigning.sign(headerJSON: header, payload: payload, key: P256.PrivateKey())
        let jws = try CompactJWS(token)
        let parts = token.split(separator: ".")
        #expect(jws.signingInput == Array("\(parts[0]).\(parts[1])".utf8))
        #expect(jws.headerJSON == header)
        #expect(jws.payload == payload)
        #expect(jws.signature.count == 64)
        #expect(jws.header.alg == "ES256")
        #expect(jws.header.x5c == ["MIIB", "MIIC"])
        #expect(jws.header.kid == "key-1")
        #expect(jws.header.typ == "JWT")
        // Substrings parse the same as the whole token.
        #expect(try CompactJWS(token[...]) == jws)
    }

    @Test func anEmptySignatureAndAnEmptyHeaderObjectAreWellFormed() throws {
        // `alg: none` tokens have no signature; refusing them is the algorithm check's job, not the parser's.
        let jws = try CompactJWS(Self.base64URL(#"{"alg":"none"}"#) + ".e30.")
        #expect(jws.signature.isEmpty)
        #expect(jws.header.alg == "none")
        let bare = try CompactJWS("e30.e30.c2ln").header
        #expect(bare.alg == nil && bare.x5c == nil && bare.kid == nil && bare.typ == nil)
    }

    @Test(arguments: [
        ("", "3 dot-separated parts"),
        ("a.b", "has 2"),
        ("a.b.c.d", "has 4"),
        (".e30.c2ln", "header is empty"),
        ("eyJhbGciOiJFUzI1NiJ9..c2ln", "payload is empty"),
        ("eyJhbGciOiJFUzI1NiJ9.e30=.c2ln", "payload is not base64url"),
        ("eyJhbGciOiJFUzI1NiJ9.e3+0.c2ln", "payload is not base64url"),
        ("eyJhbGciOiJFUzI1NiJ9.e 30.c2ln", "payload is not base64url"),
        ("eyJhbGciOiJFUzI1NiJ9.e30.c2lu!", "signature is not base64url"),
        ("bm90IGpzb24.e30.c2ln", "header is not a JSON object"),
        (base64URL(#"{"alg":5}"#) + ".e30.c2ln", "header is not a JSON object"),
        (base64URL(#"{"alg":"ES256","x5c":"MII"}"#) + ".e30.c2ln", "header is not a JSON object"),
        (base64URL(#"{"alg":"RS256","kid":7}"#) + ".e30.c2ln", "`kid`"),
        (base64URL(#"["alg"]"#) + ".e30.c2ln", "header is not a JSON object"),
    ])
    func rejectsMalformedTokensNamingTheProblem(token: String, problem: String) {
        let error = #expect(throws: JOSEError.self) { try CompactJWS(token) }
        #expect(error?.code == .malformedToken)
        #expect(error == .malformedToken(""))
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
    }
}
