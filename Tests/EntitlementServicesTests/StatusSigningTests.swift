import Crypto
import EntitlementDomain
import Encodings
import JOSE
import Testing

@testable import EntitlementServices

/// What a signed status says and how it is signed, checked with the JOSE verifier.
@Suite struct StatusSigningTests {
    static let now = UnixTime(milliseconds: 1_800_000_000_250)

    static func state(appUserID: String = "ana") -> CustomerState {
        CustomerState(
            customerID: 7, appUserID: appUserID, version: 12,
            status: ComputedStatus(
                entitlements: [
                    ActiveEntitlementValue(
                        id: "pro", source: .appStore, productID: "pro_monthly",
                        expiresAt: UnixTime(milliseconds: 1_800_086_400_300), willRenew: true, inGracePeriod: false,
                        inBillingRetry: true, referenceID: "2000000000000001"),
                    ActiveEntitlementValue(
                        id: "vip", source: .grant, productID: "", expiresAt: nil, willRenew: false, inGracePeriod: false,
                        inBillingRetry: false, referenceID: "gr_1"),
                ],
                nextChangeAt: nil))
    }

    @Test func theClaimsAreTheStatusInTheWebhooksFormWithIssueAndExpiryInSeconds() throws {
        let key = try P256.PrivateKey()
        let settings = StatusSigningSettings(keys: [.init(kid: "k-1", privateKey: key)], offlineValiditySeconds: 7_200)
        let signed = try StatusSigning.sign(Self.state(), askedAs: "ana", tenantID: "acme", settings: settings, at: Self.now)
        let jws = try CompactJWS(signed.token)
        try jws.verifyES256(by: key.publicKey)
        #expect(jws.header.alg == "ES256" && jws.header.kid == "k-1" && jws.header.typ == "JWT")
        #expect(
            String(decoding: jws.payload, as: UTF8.self)
                == #"{"tenant":"acme","sub":"ana","version":12,"status":{"state":"active","entitlements":["#
                + #"{"id":"pro","source":"app_store","product_id":"pro_monthly","expires_at":"2027-01-16T08:00:00.300Z","#
                + #""will_renew":true,"in_grace_period":false,"in_billing_retry":true},"#
                + #"{"id":"vip","source":"grant","product_id":"","expires_at":null,"will_renew":false,"#
                + #""in_grace_period":false,"in_billing_retry":false}]},"iat":1800000000,"exp":1800007200}"#)
        #expect(signed.issuedAt == 1_800_000_000 && signed.validitySeconds == 7_200)
    }

    @Test func anAliasIsNamedOnlyWhenTheCallerAskedByOne() throws {
        let settings = StatusSigningSettings(keys: [.init(kid: "k", privateKey: try P256.PrivateKey())])
        for (asked, alias) in [("ana", nil), ("$anon:1", "$anon:1")] as [(String, String?)] {
            let token = try StatusSigning.sign(Self.state(), askedAs: asked, tenantID: "t", settings: settings, at: Self.now)
            let claims = try JSONReader.read(JSONValue.self, from: try CompactJWS(token.token).payload)
            #expect(claims["sub"]?.string == "ana" && claims["alias"]?.string == alias)
        }
    }

    @Test func onlyTheFirstKeySigns() throws {
        let (first, second) = (try P256.PrivateKey(), try P256.PrivateKey())
        let settings = StatusSigningSettings(keys: [.init(kid: "new", privateKey: first), .init(kid: "old", privateKey: second)])
        let token = try StatusSigning.sign(Self.state(), askedAs: "ana", tenantID: "t", settings: settings, at: Self.now)
        let jws = try CompactJWS(token.token)
        #expect(jws.header.kid == "new")
        #expect(throws: JOSEError.self) { try jws.verifyES256(by: second.publicKey) }
    }
}
