import Crypto
import Encodings
import Foundation
import JOSE
import TestSupport
import Testing

@Suite struct JSONWebKeySetTests {
    /// The fixture key's JWK members, as Python `cryptography` printed them (Tests/Fixtures/rsa/public-jwk.json).
    struct FixtureJWK: Decodable {
        var n: String
        var e: String
    }

    static let fixture: FixtureJWK = {
        do {
            return try JSONDecoder().decode(FixtureJWK.self, from: RepositoryFiles.data("Tests/Fixtures/rsa/public-jwk.json"))
        } catch {
            fatalError("Tests/Fixtures/rsa/public-jwk.json: \(error)")
        }
    }()

    static func rsaJWK(kid: String? = "fixture", n: String = fixture.n, e: String = fixture.e, extra: String = "") -> String {
        let kid = kid.map { #""kid":"\#($0)","# } ?? ""
        return #"{"kty":"RSA",\#(kid)"n":"\#(n)","e":"\#(e)"\#(extra)}"#
    }

    static func keySet(_ keys: String...) -> [UInt8] { Array(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8) }

    func failure(_ json: [UInt8]) -> JOSEError? {
        #expect(throws: JOSEError.self) { try JSONWebKeySet(json: json) }
    }

    @Test func readsAGoogleShapedSet() throws {
        let second = TestKeys.second.publicKey
        let json = Self.keySet(
            Self.rsaJWK(kid: "a1b2", extra: #","alg":"RS256","use":"sig""#),
            #"{"e":"\#(Base64.encode(second.exponent, alphabet: .url, padded: false))","kty":"RSA","alg":"RS256","#
                + #""n":"\#(Base64.encode(second.modulus, alphabet: .url, padded: false))","use":"sig","kid":"c3d4"}"#)
        let set = try JSONWebKeySet(json: json)
        let fixtureKey = try RSA.PublicKey(pemRepresentation: String(
            decoding: RepositoryFiles.data("Tests/Fixtures/rsa/public-spki.pem"), as: UTF8.self))
        #expect(set.keys == ["a1b2": fixtureKey, "c3d4": second])
        // A token names its key by kid.
        let token = try CompactJWS(JWSSigning.sign(
            headerJSON: Array(#"{"alg":"RS256","kid":"c3d4"}"#.utf8), payload: Array("{}".utf8), key: TestKeys.second))
        let key = try #require(set.keys[token.header.kid ?? ""])
        #expect(token.isSignedRS256(by: key))
    }

    @Test func keysNotForRS256SigningAreSkipped() throws {
        let json = Self.keySet(
            #"{"kty":"EC","kid":"ec","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#,
            #"{"kty":"oct","kid":"hmac","k":5,"use":7}"#,
            Self.rsaJWK(kid: "encryption", extra: #","use":"enc""#),
            Self.rsaJWK(kid: "rs384", extra: #","alg":"RS384""#),
            Self.rsaJWK(kid: "ps256", extra: #","alg":"PS256","use":"sig""#),
            Self.rsaJWK(kid: "bare"))
        let set = try JSONWebKeySet(json: json)
        // `use` and `alg` may be absent (RFC 7517 makes both optional); a key with neither is for us.
        #expect(Array(set.keys.keys) == ["bare"])
        #expect(try JSONWebKeySet(json: Self.keySet()).keys.isEmpty)
    }

    @Test func jsonRepresentationReadsBackAndIsWhatGooglePublishes() throws {
        let set = JSONWebKeySet(keys: ["b": TestKeys.second.publicKey, "a": TestKeys.first.publicKey])
        let json = String(decoding: set.jsonRepresentation, as: UTF8.self)
        let n = Base64.encode(TestKeys.first.publicKey.modulus, alphabet: .url, padded: false)
        #expect(json.hasPrefix(#"{"keys":[{"alg":"RS256","e":"AQAB","kid":"a","kty":"RSA","n":"\#(n)","use":"sig"},"#))
        #expect(try JSONWebKeySet(json: set.jsonRepresentation) == set)
        let odd = JSONWebKeySet(keys: [#"quote " slash / backslash \ é"#: TestKeys.first.publicKey])
        #expect(try JSONWebKeySet(json: odd.jsonRepresentation) == odd)
    }

    @Test(arguments: [
        ("", "not a JSON object"),
        ("[]", "not a JSON object"),
        ("{}", "`keys`"),
        (#"{"keys":{}}"#, "`keys`"),
        (#"{"keys":[5]}"#, "`keys[0]`"),
        (#"{"keys":[{"kid":"x"}]}"#, "`keys[0]`"),
        (#"{"keys":[{"kty":"EC"},{"kty":7}]}"#, "`keys[1].kty`"),
        (#"{"keys":[{"kty":"RSA","kid":"k","n":5,"e":"AQAB"}]}"#, "`keys[0].n`"),
        (#"{"keys":[{"kty":"RSA","kid":"k","n":"AQAB","e":"AQAB","use":true}]}"#, "`keys[0].use`"),
    ])
    func refusesDocumentsOfAnotherShape(json: String, problem: String) throws {
        let error = try #require(failure(Array(json.utf8)))
        #expect(error.code == .malformedKeySet)
        #expect(error.message.contains(problem), "\(error.message)")
        #expect(error.message.utf8.count < 600, "\(error.message)")
    }

    @Test func refusesRS256KeysItCannotUse() throws {
        let cases: [(String, String)] = [
            (Self.rsaJWK(kid: nil), "keys[0] has no kid"),
            (Self.rsaJWK(kid: ""), "keys[0] has no kid"),
            (#"{"kty":"RSA","kid":"k","e":"AQAB"}"#, "lacks `n` or `e`"),
            (Self.rsaJWK(n: Self.fixture.n + "="), "must be base64url"),
            (Self.rsaJWK(e: "AQAB=="), "must be base64url"),
            (Self.rsaJWK(n: Self.fixture.n.replacingOccurrences(of: "-", with: "+")), "must be base64url"),
            (Self.rsaJWK(n: Self.fixture.n.replacingOccurrences(of: "_", with: "/")), "must be base64url"),
            (Self.rsaJWK(n: " " + Self.fixture.n), "must be base64url"),
            (Self.rsaJWK(e: "AQAA"), "exponent is even"),
            (Self.rsaJWK(e: "AQ"), "exponent is 1"),
        ]
        for (jwk, problem) in cases {
            let error = try #require(failure(Self.keySet(jwk)), "\(jwk)")
            #expect(error.code == .malformedKeySet)
            #expect(error.message.contains(problem), "\(error.message)")
        }
        // 1024 bits, odd: a sound key, but too short.
        var short = Array(try #require(Base64.decode(Self.fixture.n, alphabet: .url, padding: .forbidden)).suffix(128))
        short[0] |= 0x80
        short[127] |= 0x01
        let weak = try #require(failure(Self.keySet(Self.rsaJWK(kid: "weak", n: Base64.encode(short, alphabet: .url, padded: false)))))
        #expect(weak.message.contains("keys[0] (kid 'weak') is not a usable RS256 key: the RSA modulus is 1024 bits"), "\(weak.message)")
        let duplicate = try #require(failure(Self.keySet(Self.rsaJWK(kid: "same"), Self.rsaJWK(kid: "same"))))
        #expect(duplicate.message.contains("keys[1] (kid 'same'): another signing key has the same kid"), "\(duplicate.message)")
        // Only among the keys that are kept: a skipped key may share a kid.
        #expect(try JSONWebKeySet(json: Self.keySet(#"{"kty":"EC","kid":"same"}"#, Self.rsaJWK(kid: "same"))).keys.count == 1)
    }

    @Test func sizesAreBounded() throws {
        let hundred = [String](repeating: #"{"kty":"EC"}"#, count: 100)
        #expect(try JSONWebKeySet(json: Array(#"{"keys":[\#(hundred.joined(separator: ","))]}"#.utf8)).keys.isEmpty)
        let tooMany = try #require(failure(Array(#"{"keys":[\#((hundred + [#"{"kty":"EC"}"#]).joined(separator: ","))]}"#.utf8)))
        #expect(tooMany.message.contains("101 keys; at most 100"), "\(tooMany.message)")
        let padding = [UInt8](repeating: UInt8(ascii: " "), count: JSONWebKeySet.maximumDocumentBytes)
        let tooLarge = try #require(failure(Self.keySet() + padding))
        #expect(tooLarge.message.contains("at most \(JSONWebKeySet.maximumDocumentBytes) are read"), "\(tooLarge.message)")
        // A long kid is quoted cut short.
        let kid = String(repeating: "k", count: 10_000)
        let long = try #require(failure(Self.keySet(Self.rsaJWK(kid: kid), Self.rsaJWK(kid: kid))))
        #expect(long.message.utf8.count < 400, "\(long.message.utf8.count) bytes")
    }
}
