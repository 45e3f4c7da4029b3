import CivilCalendar
import Crypto
import Encodings
import Foundation
import GooglePlayAPI
import JOSE
import OutboundHTTP
import SigningKeys
import TestSupport
import Testing

/// The OIDC token Pub/Sub attaches to a push, checked claim by claim: each wrong claim refused with its own code.
@Suite struct PushTokenVerifierTests {
    static let audience = "https://entitlements.example.com/v1/google/notifications/shop"
    static let email = "rtdn-push@entitlementd-test.iam.gserviceaccount.com"
    static let expected = PushTokenExpectations(audience: audience, serviceAccountEmail: email)
    /// Milliseconds since 1970, and the same in seconds as tokens carry it.
    static let now: Int64 = 1_781_481_600_000
    static let seconds = now / 1000

    let verifier = PushTokenVerifier(keys: PublishedKeySet(fixed: JSONWebKeySet(keys: ["push-1": GoogleKeys.pushSigner.publicKey])))

    /// The claims Pub/Sub's token carries, with `changes` applied (NSNull removes one).
    static func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": "https://accounts.google.com", "aud": audience, "azp": "104729000000000000002", "email": email,
            "email_verified": true, "sub": "104729000000000000002", "iat": seconds - 10, "exp": seconds + 3590,
        ]
        for (key, value) in changes { claims[key] = value is NSNull ? nil : value }
        return claims
    }

    static func token(
        _ claims: [String: Any] = claims(), header: [String: Any] = ["alg": "RS256", "kid": "push-1", "typ": "JWT"],
        key: RSA.PrivateKey = GoogleKeys.pushSigner
    ) throws -> String {
        let headerJSON = Array(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let payload = Array(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return try JWSSigning.sign(headerJSON: headerJSON, payload: payload, key: key)
    }

    /// RFC 2104 HMAC with SHA-256.
    static func hmacSHA256(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256.hash(block.map { $0 ^ 0x5c } + inner)
    }

    func verdict(_ authorization: String?, now: Int64 = now) async -> PushTokenError.Code? {
        guard case .failure(let error) = await verifier.verify(authorization: authorization, expecting: Self.expected, now: now)
        else { return nil }
        return error.code
    }

    @Test func aTokenAsPubSubSendsItIsAccepted() async throws {
        #expect(await verdict("Bearer " + (try Self.token())) == nil)
        #expect(await verdict("bearer " + (try Self.token())) == nil)
        #expect(await verdict("Bearer " + (try Self.token(Self.claims(["iss": "accounts.google.com"])))) == nil)
        #expect(await verdict("Bearer " + (try Self.token(Self.claims(["aud": ["other", Self.audience]])))) == nil)
        // Some encoders send the boolean as a string.
        #expect(await verdict("Bearer " + (try Self.token(Self.claims(["email_verified": "true"])))) == nil)
    }

    @Test func aTokenPyJWTSignsIsAccepted() async throws {
        let pyjwt = try PyJWTGoogle()
        defer { pyjwt.removeFiles() }
        let minted = try await pyjwt.mintPush(claims: Self.claims())
        let verifier = PushTokenVerifier(keys: PublishedKeySet(fixed: try JSONWebKeySet(json: minted.jwks)))
        let result = await verifier.verify(authorization: "Bearer " + minted.token, expecting: Self.expected, now: Self.now)
        #expect((try? result.get()) != nil, "\(result)")
    }

    @Test func eachWrongClaimIsRefusedWithItsOwnCode() async throws {
        let cases: [([String: Any], PushTokenError.Code)] = [
            (["iss": "https://evil.example.com"], .wrongIssuer),
            (["iss": NSNull()], .wrongIssuer),
            (["aud": "https://entitlements.example.com/v1/google/notifications/other"], .wrongAudience),
            (["aud": NSNull()], .wrongAudience),
            (["aud": ["a", "b"]], .wrongAudience),
            (["exp": Self.seconds - Seconds.perHour], .expired),
            (["iat": Self.seconds + Seconds.perHour, "exp": Self.seconds + 2 * Seconds.perHour], .notYetValid),
            (["email": "someone-else@example.iam.gserviceaccount.com"], .wrongEmail),
            (["email": NSNull()], .wrongEmail),
            (["email_verified": false], .emailNotVerified),
            (["email_verified": NSNull()], .emailNotVerified),
            (["email_verified": "false"], .emailNotVerified),
            (["exp": NSNull()], .malformed),
            (["iat": NSNull()], .malformed),
            (["exp": "tomorrow"], .malformed),
        ]
        for (changes, code) in cases {
            #expect(await verdict("Bearer " + (try Self.token(Self.claims(changes)))) == code, "\(changes)")
        }
    }

    @Test func expiryAndIssueTimeAllowThirtySecondsOfClockSkew() async throws {
        let expiresNow = try Self.token(Self.claims(["exp": Self.seconds]))
        #expect(await verdict("Bearer " + expiresNow, now: Self.now + 29_999) == nil)
        #expect(await verdict("Bearer " + expiresNow, now: Self.now + 30_000) == .expired)
        let issuedNow = try Self.token(Self.claims(["iat": Self.seconds, "exp": Self.seconds + Seconds.perHour]))
        #expect(await verdict("Bearer " + issuedNow, now: Self.now - 30_000) == nil)
        #expect(await verdict("Bearer " + issuedNow, now: Self.now - 31_000) == .notYetValid)
    }

    @Test func timesAtTheEndsOfTheRangeAreComparedNotOverflowed() async throws {
        #expect(await verdict("Bearer " + (try Self.token(Self.claims(["exp": Int64.max])))) == nil)
        #expect(await verdict("Bearer " + (try Self.token(Self.claims(["iat": Int64.min])))) == nil)
        #expect(await verdict("Bearer " + (try Self.token(Self.claims(["exp": Int64.min])))) == .expired)
        #expect(await verdict("Bearer " + (try Self.token(Self.claims(["iat": Int64.max])))) == .notYetValid)
    }

    @Test func onlyRS256IsAccepted() async throws {
        // alg none: no signature at all.
        let none = try Self.token(header: ["alg": "none", "kid": "push-1"]).split(separator: ".").prefix(2).joined(separator: ".") + "."
        #expect(await verdict("Bearer " + none) == .malformed)
        // HS256 keyed with the public key's bytes: the classic confusion attack.
        let header = Base64.encode(Array(#"{"alg":"HS256","kid":"push-1","typ":"JWT"}"#.utf8), alphabet: .url, padded: false)
        let payload = Base64.encode(
            Array(try JSONSerialization.data(withJSONObject: Self.claims())), alphabet: .url, padded: false)
        let mac = Self.hmacSHA256(
            Array("\(header).\(payload)".utf8), key: Array(GoogleKeys.pushSigner.publicKey.pemRepresentation.utf8))
        let hs256 = "\(header).\(payload).\(Base64.encode(mac, alphabet: .url, padded: false))"
        #expect(await verdict("Bearer " + hs256) == .malformed)
        #expect(await verdict("Bearer " + (try Self.token(header: ["kid": "push-1"]))) == .malformed)
    }

    @Test func aTokenSignedByAnotherKeyIsRefused() async throws {
        #expect(await verdict("Bearer " + (try Self.token(key: GoogleKeys.stranger))) == .badSignature)
        // The claims changed after signing.
        let parts = try Self.token().split(separator: ".").map(String.init)
        let forged = Base64.encode(
            Array(try JSONSerialization.data(withJSONObject: Self.claims(["email": "attacker@example.com"]))), alphabet: .url,
            padded: false)
        #expect(await verdict("Bearer \(parts[0]).\(forged).\(parts[2])") == .badSignature)
    }

    @Test func aKidGoogleDoesNotPublishIsAnUnknownKey() async throws {
        #expect(await verdict("Bearer " + (try Self.token(header: ["alg": "RS256", "kid": "push-2"]))) == .unknownKey)
        #expect(await verdict("Bearer " + (try Self.token(header: ["alg": "RS256"]))) == .malformed)
        #expect(await verdict("Bearer " + (try Self.token(header: ["alg": "RS256", "kid": ""]))) == .malformed)
    }

    @Test func anAuthorizationHeaderThatIsNotABearerJWTIsRefused() async throws {
        #expect(await verdict(nil) == .missing)
        #expect(await verdict("") == .missing)
        for header in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer not-a-jwt", "Bearer a.b", "Token " + (try Self.token())] {
            #expect(await verdict(header) == .malformed, "\(header)")
        }
        let huge = "Bearer " + String(repeating: "a", count: PushTokenVerifier.maxTokenBytes)
        #expect(await verdict(huge) == .malformed)
        let notJSONClaims = try JWSSigning.sign(
            headerJSON: Array(#"{"alg":"RS256","kid":"push-1"}"#.utf8), payload: Array("[1,2]".utf8), key: GoogleKeys.pushSigner)
        #expect(await verdict("Bearer " + notJSONClaims) == .malformed)
    }

    @Test func keysThatCannotBeFetchedAreNotTheTokensFault() async throws {
        let server = try ScriptedHTTPServer { _ in .status(503) }
        let keys = PublishedKeySet(
            url: OutboundURL(server.baseURL + "/oauth2/v3/certs")!, http: try OutboundHTTPClient(configuration: .init(retry: .once)),
            target: .googleSigningKeys, clock: { Self.now })
        let verifier = PushTokenVerifier(keys: keys)
        let result = await verifier.verify(authorization: "Bearer " + (try Self.token()), expecting: Self.expected, now: Self.now)
        guard case .failure(let error) = result else {
            Issue.record("verified without keys")
            return
        }
        #expect(error.code == .keysUnavailable)
    }

    @Test func theMessageNeverHoldsTheToken() async throws {
        let token = try Self.token(Self.claims(["email": "other@example.com"]))
        guard case .failure(let error) = await verifier.verify(authorization: "Bearer " + token, expecting: Self.expected, now: Self.now)
        else {
            Issue.record("accepted")
            return
        }
        #expect(!error.message.contains(token.split(separator: ".")[2]))
        #expect(!error.description.contains(token))
    }
}
