import Crypto
import EntitlementDomain
import Encodings
import JOSE
import SigningKeys
import Testing

@testable import EntitlementServices

/// The claims rules and the signature choice of user tokens, one rule at a time, on HS256 and ES256 tokens.
@Suite struct UserTokenVerifierTests {
    static let secret = Array("a-secret-of-at-least-thirty-two-bytes!".utf8)
    static let now: Int64 = 1_800_000_000
    static let settings = UserTokenSettings(
        mode: .required, issuer: "https://auth.example.com", maxLifetimeSeconds: 3_600, hs256Secrets: [secret],
        keySource: nil, allowsAnonymous: true)

    static func claims(
        sub: String = "ana", aud: String = #""tenant-a""#, iss: String = "https://auth.example.com",
        iat: Int64 = now - 10, exp: Int64 = now + 600, extra: String = ""
    ) -> String {
        #"{"sub":"\#(sub)","aud":\#(aud),"iss":"\#(iss)","iat":\#(iat),"exp":\#(exp)\#(extra)}"#
    }

    static func hs256(_ payload: String, secret: [UInt8] = secret, alg: String = "HS256") -> String {
        let input = Base64.encode(Array(#"{"alg":"\#(alg)","typ":"JWT"}"#.utf8), alphabet: .url, padded: false) + "."
            + Base64.encode(Array(payload.utf8), alphabet: .url, padded: false)
        let mac = HMACSHA256.authenticationCode(for: Array(input.utf8), key: secret)
        return input + "." + Base64.encode(mac, alphabet: .url, padded: false)
    }

    func reason(_ token: String, _ verifier: UserTokenVerifier = UserTokenVerifier(
        tenantID: "tenant-a", settings: settings, keys: nil), user: String = "ana") -> UserTokenRefusal.Reason? {
        switch verifier.verifyNow(token, appUserID: user, nowSeconds: Self.now) {
        case .success: nil
        case .failure(let refusal): refusal.reason
        case nil: .keysUnavailable
        }
    }

    @Test func eachClaimIsChecked() {
        #expect(reason(Self.hs256(Self.claims())) == nil)
        #expect(reason(Self.hs256(Self.claims(aud: #"["other","tenant-a"]"#))) == nil)
        #expect(reason(Self.hs256(Self.claims()), user: "bob") == .subject)
        #expect(reason(Self.hs256(Self.claims(aud: #""tenant-b""#))) == .audience)
        #expect(reason(Self.hs256(Self.claims(iss: "https://evil.example.com"))) == .issuer)
        #expect(reason(Self.hs256(Self.claims(iat: Self.now - 700, exp: Self.now - 100))) == .expired)
        #expect(reason(Self.hs256(Self.claims(extra: #","nbf":\#(Self.now + 100)"#))) == .notYetValid)
        #expect(reason(Self.hs256(Self.claims(iat: Self.now + 100))) == .issuedAt)
        #expect(reason(Self.hs256(Self.claims(iat: Self.now - 10, exp: Self.now + 3_600))) == .lifetime)
        #expect(reason(Self.hs256(#"{"sub":"ana","aud":"tenant-a","iss":"https://auth.example.com","exp":\#(Self.now + 60)}"#)) == .issuedAt)
        // Within the few seconds clocks may disagree.
        #expect(reason(Self.hs256(Self.claims(iat: Self.now + 3, exp: Self.now - 3 + 600))) == nil)
        #expect(reason(Self.hs256(Self.claims(iat: Self.now - 600, exp: Self.now - 3))) == nil)
    }

    @Test func theSignatureAndAlgorithmAreTheTenants() throws {
        #expect(reason(Self.hs256(Self.claims(), secret: Array("another-secret-of-thirty-two-bytes-or-more".utf8))) == .signature)
        #expect(reason(Self.hs256(Self.claims(), alg: "none")) == .algorithm)
        #expect(reason(Self.hs256(Self.claims(), alg: "HS512")) == .algorithm)
        #expect(reason("not.a.token") == .malformed)
        #expect(reason(String(repeating: "a", count: 9_000)) == .malformed)
        // ES256 with the tenant's published key; HS256 is refused when the tenant has no secrets, whatever its key.
        let key = try P256.PrivateKey()
        let set = JSONWebKeySet(keys: [:], es256Keys: ["k1": key.publicKey])
        var settings = Self.settings
        settings.hs256Secrets = []
        settings.keySource = .file("unused")
        let verifier = UserTokenVerifier(tenantID: "tenant-a", settings: settings, keys: PublishedKeySet(fixed: set))
        func es256(kid: String, signer: P256.PrivateKey = key) throws -> String {
            try JWSSigning.sign(
                headerJSON: Array(#"{"alg":"ES256","kid":"\#(kid)"}"#.utf8), payload: Array(Self.claims().utf8), key: signer)
        }
        #expect(reason(try es256(kid: "k1"), verifier) == nil)
        #expect(reason(try es256(kid: "k2"), verifier) == .unknownKey)
        #expect(reason(try es256(kid: "k1", signer: try P256.PrivateKey()), verifier) == .signature)
        // The public key's bytes as an HMAC secret: the classic forgery.
        #expect(reason(Self.hs256(Self.claims(), secret: key.publicKey.x963Representation), verifier) == .algorithm)
    }

    @Test func aVerifiedTokenIsRememberedButItsClaimsAreCheckedEachTime() {
        let verifier = UserTokenVerifier(tenantID: "tenant-a", settings: Self.settings, keys: nil)
        let token = Self.hs256(Self.claims(exp: Self.now + 100))
        #expect(reason(token, verifier) == nil)
        #expect(reason(token, verifier, user: "bob") == .subject)
        #expect(verifier.verifyNow(token, appUserID: "ana", nowSeconds: Self.now + 200)?.failureReason == .expired)
    }
}

extension Result where Failure == UserTokenRefusal {
    fileprivate var failureReason: UserTokenRefusal.Reason? {
        if case .failure(let refusal) = self { return refusal.reason }
        return nil
    }
}
