import EntitlementDomain
import EntitlementServices
import Foundation
import TestSupport
import Testing

@Suite struct AppStoreTrustWarningsTests {
    private func directory(root: String, environments: Set<AppStoreEnvironmentName>) throws -> TenantDirectory {
        let settings = AppStoreSettings(
            bundleID: "com.example.app", appAppleID: environments.contains(.production) ? 1234 : nil,
            environments: environments, rootCertificatePaths: [root])
        let tenant = try Tenant(
            id: "shop", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!], appStore: settings)
        return try TenantDirectory(tenants: [tenant])
    }

    @Test func appleRootInProductionIsQuiet() throws {
        let apple = RepositoryFiles.path("Config/AppleRootCA-G3.cer")
        #expect(AppStoreTrustWarnings.messages(for: try directory(root: apple, environments: [.production])).isEmpty)
    }

    @Test func anotherRootInProductionIsAnnounced() throws {
        // Any certificate that is not Apple's root: the intermediate from the test data will do.
        let other = RepositoryFiles.path("Tests/Fixtures/apple/certs/AppleWWDRCA-G6.cer")
        let messages = AppStoreTrustWarnings.messages(for: try directory(root: other, environments: [.production]))
        #expect(messages.count == 1)
        #expect(messages.first?.contains("not Apple Root CA - G3") == true)
        #expect(AppStoreTrustWarnings.messages(for: try directory(root: other, environments: [.sandbox])).isEmpty)
    }
}
