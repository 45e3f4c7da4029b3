import AppStore
import Crypto
import Encodings
import Foundation
import JOSE
import Testing

/// Header, algorithm, x5c length, signature and tampering.
@Suite struct VerifierRejectionTests {
    private func rejection(_ token: String) throws -> AppStoreVerificationError? {
        let verifier = try Fixtures.verifier()
        return #expect(throws: AppStoreVerificationError.self) { try verifier.verifyTransaction(token) }
    }

    @Test(arguments: ["none", "HS256", "ES384", "RS256", "es256", ""])
    func onlyES256IsAccepted(alg: String) throws {
        let error = try rejection(Fixtures.token(Fixtures.transaction(), alg: alg))
        #expect(error?.code == .unsupportedAlgorithm)
        #expect(error?.message.contains("\"\(alg)\"") == true)
    }

    @Test func algNoneWithAnEmptySignatureIsRejectedBeforeAnyKeyIsUsed() throws {
        let header = Fixtures.base64URL(#"{"alg":"none","x5c":[]}"#)
        let payload = Base64.encode(LocalPayloads.json(Fixtures.transaction()), alphabet: .url, padded: false)
        // "none" tokens end with an empty signature; the algorithm is what is reported.
        #expect(try rejection("\(header).\(payload).")?.code == .unsupportedAlgorithm)
        let missing = Fixtures.base64URL(#"{"x5c":[]}"#)
        #expect(try rejection("\(missing).\(payload).")?.code == .unsupportedAlgorithm)
    }

    @Test func hs256SignedWithTheLeafKeyBytesIsRejected() throws {
        // The classic confusion attack: HMAC keyed with the public key. Rejected on alg alone.
        let error = try rejection(Fixtures.token(Fixtures.transaction(), alg: "HS256"))
        #expect(error?.code == .unsupportedAlgorithm)
    }

    @Test func x5cMissingEmptyOrTheWrongLength() throws {
        let ca = Fixtures.ca
        let missing = try rejection(Fixtures.token(Fixtures.transaction(), x5c: .some(nil)))
        #expect(missing?.code == .invalidChainLength)
        #expect(missing?.message.contains("no x5c") == true)
        for chain in [[], [ca.leaf, ca.intermediate], [ca.leaf, ca.intermediate, ca.root, ca.root]] {
            let error = try rejection(Fixtures.token(Fixtures.transaction(), x5c: chain))
            #expect(error?.code == .invalidChainLength)
            #expect(error?.message.contains("holds \(chain.count) certificates") == true)
        }
    }

    @Test func x5cEntriesMustBeBase64DER() throws {
        let payload = Base64.encode(LocalPayloads.json(Fixtures.transaction()), alphabet: .url, padded: false)
        let leaf = Base64.encode(Fixtures.ca.leaf.derEncoded, padded: true)
        let intermediate = Base64.encode(Fixtures.ca.intermediate.derEncoded, padded: true)
        for x5c in [#"["AAAA","\#(intermediate)","x"]"#, #"["\#(leaf)","not base64!","x"]"#] {
            let header = Fixtures.base64URL(#"{"alg":"ES256","x5c":\#(x5c)}"#)
            #expect(try rejection("\(header).\(payload).AA")?.code == .invalidCertificate)
        }
    }

    @Test func signatureByTheWrongKey() throws {
        let error = try rejection(Fixtures.token(Fixtures.transaction(), key: try P256.PrivateKey()))
        #expect(error?.code == .invalidSignature)
    }

    @Test func payloadTamperedAfterSigning() throws {
        let token = try Fixtures.token(Fixtures.transaction())
        var payload = Fixtures.transaction()
        payload["productId"] = "pro.lifetime"
        let tampered = Fixtures.replacingPart(1, of: token, with: Base64.encode(LocalPayloads.json(payload), alphabet: .url, padded: false))
        #expect(try rejection(tampered)?.code == .invalidSignature)
    }

    @Test func headerTamperedAfterSigning() throws {
        let token = try Fixtures.token(Fixtures.transaction())
        let ca = Fixtures.ca
        // Same certificates, one more header member: still a valid chain, but the signature no longer covers it.
        let header = String(decoding: JWSSigning.headerJSON(x5c: [ca.leaf, ca.intermediate, ca.root]), as: UTF8.self)
            .replacingOccurrences(of: #"{"alg""#, with: #"{"kid":"x","alg""#)
        let tampered = Fixtures.replacingPart(0, of: token, with: Fixtures.base64URL(header))
        #expect(try rejection(tampered)?.code == .invalidSignature)
    }

    @Test func signatureBytesFlippedOrTruncated() throws {
        let token = try Fixtures.token(Fixtures.transaction())
        var signature = try CompactJWS(token).signature
        signature[10] ^= 0x01
        let flipped = Fixtures.replacingPart(2, of: token, with: Base64.encode(signature, alphabet: .url, padded: false))
        #expect(try rejection(flipped)?.code == .invalidSignature)
        let short = Fixtures.replacingPart(2, of: token, with: Base64.encode(signature.prefix(63), alphabet: .url, padded: false))
        let error = try rejection(short)
        #expect(error?.code == .invalidSignature)
        #expect(error?.message.contains("63 bytes") == true)
    }

    @Test func aSignedPayloadThatIsNotAnObjectIsMalformed() throws {
        #expect(try rejection(Fixtures.token(rawPayload: "[]"))?.code == .malformedToken)
        #expect(try rejection(Fixtures.token(rawPayload: #"{"signedDate":"now"}"#))?.code == .malformedToken)
    }
}
