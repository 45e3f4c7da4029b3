import Crypto
import Encodings
import JOSE
import Testing

@Suite struct RS256VerificationTests {
    let payload = Array(#"{"sub":"someone"}"#.utf8)

    func token(header: String, key: RSA.PrivateKey = TestKeys.first) throws -> CompactJWS {
        try CompactJWS(JWSSigning.sign(headerJSON: Array(header.utf8), payload: payload, key: key))
    }

    func failure(_ jws: CompactJWS, _ key: RSA.PublicKey = TestKeys.first.publicKey) -> JOSEError? {
        #expect(throws: JOSEError.self) { try jws.verifyRS256(by: key) }
    }

    @Test func aTokenSignedWithTheKeyVerifies() throws {
        let jws = try token(header: #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#)
        try jws.verifyRS256(by: TestKeys.first.publicKey)
        #expect(jws.isSignedRS256(by: TestKeys.first.publicKey))
    }

    @Test(arguments: [#"{"alg":"ES256"}"#, #"{"alg":"none"}"#, #"{"alg":"HS256"}"#, #"{"alg":"rs256"}"#, #"{"alg":"RS256 "}"#, "{}"])
    func onlyRS256InTheHeaderIsAccepted(header: String) throws {
        // The signature itself is a valid RS256 one: the header decides before the key is used.
        let jws = try token(header: header)
        #expect(TestKeys.first.publicKey.isValidRS256Signature(jws.signature, for: jws.signingInput))
        #expect(!jws.isSignedRS256(by: TestKeys.first.publicKey))
        let error = failure(jws)
        #expect(error?.code == .unsupportedAlgorithm)
        #expect(error?.message.contains(jws.header.alg.map { "'\($0)'" } ?? "missing") == true, "\(error?.message ?? "")")
    }

    @Test func aLongAlgorithmIsQuotedBounded() throws {
        let jws = try token(header: #"{"alg":""# + String(repeating: "A", count: 10_000) + #""}"#)
        let error = try #require(failure(jws))
        #expect(error.code == .unsupportedAlgorithm)
        #expect(error.message.utf8.count < 400)
    }

    @Test func anotherKeyOrAChangedTokenFails() throws {
        let jws = try token(header: #"{"alg":"RS256"}"#)
        #expect(failure(jws, TestKeys.second.publicKey)?.code == .invalidSignature)
        #expect(!jws.isSignedRS256(by: TestKeys.second.publicKey))
        // The same signature under another payload.
        let signature = Base64.encode(jws.signature, alphabet: .url, padded: false)
        let header = Base64.encode(jws.headerJSON, alphabet: .url, padded: false)
        let otherPayload = Base64.encode(Array(#"{"sub":"someone else"}"#.utf8), alphabet: .url, padded: false)
        let swapped = try CompactJWS("\(header).\(otherPayload).\(signature)")
        #expect(failure(swapped)?.code == .invalidSignature)
        var flipped = jws
        flipped.signature[100] ^= 0x01
        #expect(failure(flipped)?.code == .invalidSignature)
    }

    @Test func aSignatureOfTheWrongLengthSaysSo() throws {
        // An ES256 signature (64 bytes) under an RS256 header: refused on length before any arithmetic.
        let es256 = try CompactJWS(
            JWSSigning.sign(headerJSON: Array(#"{"alg":"RS256"}"#.utf8), payload: payload, key: P256.PrivateKey()))
        let error = try #require(failure(es256))
        #expect(error.code == .invalidSignature)
        #expect(error.message.contains("64 bytes") && error.message.contains("256"), "\(error.message)")
        var empty = try token(header: #"{"alg":"RS256"}"#)
        empty.signature = []
        #expect(failure(empty)?.code == .invalidSignature)
    }
}
