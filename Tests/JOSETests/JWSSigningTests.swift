import CivilCalendar
import Crypto
import Encodings
import JOSE
import Testing

@Suite struct JWSSigningTests {
    let payload = Array(#"{"iss":"entitlementd","n":1}"#.utf8)

    @Test func es256IsBase64URLPartsAndARawSignature() throws {
        let key = try P256.PrivateKey()
        let header = JWSSigning.headerJSON(x5c: nil)
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256"}"#)
        let token = try JWSSigning.sign(headerJSON: header, payload: payload, key: key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(parts[0] == Base64.encode(header, alphabet: .url, padded: false))
        #expect(parts[1] == Base64.encode(payload, alphabet: .url, padded: false))
        let signature = try #require(Base64.decode(parts[2], alphabet: .url, padding: .forbidden))
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(rawRS: signature, for: Array("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test func rs256SignsTheFirstTwoPartsWithTheKey() throws {
        let key = TestKeys.first
        let header = JWSSigning.headerJSON(alg: "RS256", x5c: nil)
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"RS256"}"#)
        let token = try JWSSigning.sign(headerJSON: header, payload: payload, key: key)
        let jws = try CompactJWS(token)
        #expect(jws.headerJSON == header && jws.payload == payload)
        #expect(jws.signature.count == 256)
        #expect(try jws.signature == key.signatureRS256(for: jws.signingInput))
        #expect(jws.isSignedRS256(by: key.publicKey))
        #expect(!jws.isSignedRS256(by: TestKeys.second.publicKey))
        // Deterministic: the same inputs give the same token.
        #expect(try JWSSigning.sign(headerJSON: header, payload: payload, key: key) == token)
    }

    @Test func headersAreTakenAsGiven() throws {
        let header = Array(#"{"alg":"HS256","kid":"k"}"#.utf8)
        let jws = try CompactJWS(JWSSigning.sign(headerJSON: header, payload: payload, key: TestKeys.first))
        #expect(jws.headerJSON == header)
        #expect(jws.header.alg == "HS256")
        #expect(jws.header.kid == "k")
    }

    @Test func x5cHoldsStandardBase64DER() throws {
        let key = try P256.PrivateKey()
        let certificate = try CertificateIssuer.issue(
            commonName: "JOSE Test", subjectPublicKey: key.publicKey, serialNumber: 1, notValidBefore: 0,
            notValidAfter: Seconds.perDay, isCertificateAuthority: true, issuer: nil, issuerKey: key)
        let der = Base64.encode(certificate.derEncoded, padded: true)
        let header = String(decoding: JWSSigning.headerJSON(x5c: [certificate, certificate]), as: UTF8.self)
        #expect(header == #"{"alg":"ES256","x5c":[""# + der + #"",""# + der + #""]}"#)
        #expect(String(decoding: JWSSigning.headerJSON(alg: "ES384", x5c: []), as: UTF8.self) == #"{"alg":"ES384","x5c":[]}"#)
    }
}
