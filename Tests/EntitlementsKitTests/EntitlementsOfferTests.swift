import Crypto
import EntitlementClient
import EntitlementDomain
import EntitlementServices
import EntitlementsKit
import EntitlementsProto
import Foundation
import Testing
import TestSupport

/// The SDK's offers against the real server over each transport: without StoreKit the calls return the signed parts,
/// which verify with the tenant's key over Apple's payload for the SDK's own user.
@Suite struct EntitlementsOfferTests {
    /// Tenant A of `server`, given an App Store app, an In-App Purchase key (written to `directory`) and one offer.
    static func offering(_ server: EntitlementTestServer, key: P256.PrivateKey) throws {
        let keyFile = server.directory + "/SubscriptionKey_2X9R4HXF34.p8"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let a = server.tenantA.tenant
        let offering = try Tenant(
            id: a.id, publicKeyHashes: [APIKey.hashString(server.tenantA.publicKey)!],
            secretKeyHashes: [APIKey.hashString(server.tenantA.secretKey)!],
            entitlements: EntitlementTestServer.entitlements, products: EntitlementTestServer.products,
            appStore: AppStoreSettings(
                bundleID: "com.example.app", environments: [.sandbox],
                rootCertificatePaths: [RepositoryFiles.path("Config/AppleRootCA-G3.cer")],
                serverAPI: AppStoreServerAPISettings(
                    keyFilePath: keyFile, keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a"),
                offers: AppStoreOffers(promotional: [
                    "welcome": PromotionalOfferRules(productIDs: ["com.example.premium"], audience: .newSubscribers),
                    "stay": PromotionalOfferRules(productIDs: ["com.example.premium"], audience: .subscribed),
                ])))
        server.tenants.replace(with: try TenantDirectory(tenants: [offering, server.tenantB.tenant]))
    }

    @Test(arguments: TransportKind.allCases)
    func theSDKGetsItsUsersOffersSigned(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let key = try P256.PrivateKey()
        try Self.offering(server, key: key)
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server), cache: cache))

        let eligibility = try await entitlements.offerEligibility(productIDs: ["com.example.premium"])
        #expect(eligibility.introductory["com.example.premium"]?.eligible == true)
        #expect(eligibility.introductory["com.example.premium"]?.reason == .neverSubscribed)
        #expect(eligibility.promotional.map { "\($0.offerID) \($0.eligible) \($0.refusedRule)" } == [
            "stay false subscribers", "welcome true ",
        ])

        let offer = try await entitlements.promotionalOffer(for: "welcome", productID: "com.example.premium")
        let token = try #require(await entitlements.appAccountToken)
        #expect(offer.appAccountToken == token.uuidString.lowercased())
        #expect(offer.keyID == "2X9R4HXF34" && offer.offerID == "welcome" && offer.productID == "com.example.premium")
        let payload = ["com.example.app", "2X9R4HXF34", "com.example.premium", "welcome", offer.appAccountToken, offer.nonce,
            String(offer.timestamp)].joined(separator: "\u{2063}")
        let signature = try #require(Data(base64Encoded: offer.signature))
        #expect(key.publicKey.isValidSignature(derEncoded: Array(signature), for: Array(payload.utf8)))
        #expect(offer.compactJWS.split(separator: ".").count == 3)

        // The rules' refusal reaches the app as failedPrecondition naming the rule.
        await #expect { try await entitlements.promotionalOffer(for: "stay", productID: "com.example.premium") } throws: {
            let error = $0 as? EntitlementsError
            return error?.code == .failedPrecondition && error?.message.contains("\"subscribers\"") == true
        }
        // The introductory offer is for the user as far as the server knows: StoreKit's own eligibility stands.
        #expect(try await entitlements.introductoryOfferEligibility(productID: "com.example.premium", appTransactionID: "705") == nil)

        let admin = try EntitlementsLiveTests.admin(server)
        let recorded = try await admin.getCustomer(appUserID: user).offerSignatures
        #expect(recorded.map(\.nonce) == [offer.nonce])
    }
}
