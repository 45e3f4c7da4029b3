import Crypto
import EntitlementDomain
import TestSupport
import Testing

/// The domain's tenant rules applied to tenants and App Store settings built in code (no file).
@Suite struct TenantRulesTests {
    static let publicHash = APIKey.hashString("pk_test_public")!

    /// The repository's Config/ directory, which holds AppleRootCA-G3.cer.
    static let configDirectory = RepositoryFiles.path("Config")

    @Test func tenantsBuiltInCodeAreValidatedTheSameWay() throws {
        do {
            _ = try Tenant(id: "demo", publicKeyHashes: [Self.publicHash], entitlements: ["a b"])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.description.hasPrefix("<memory>: tenant.entitlements[0]: entitlement ID"))
        }
        #expect(throws: TenantRuleError.self) { try Tenant(id: "demo") }
        #expect(throws: TenantRuleError.self) { try Tenant(id: "demo", secretKeyHashes: [Self.publicHash]) }
    }

    @Test func validateGrantable() throws {
        let strict = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], entitlements: ["pro"], products: ["p": ["premium"]])
        #expect(try strict.validateGrantable(entitlementID: "pro") == "pro")
        #expect(try strict.validateGrantable(entitlementID: "premium") == "premium")
        do {
            try strict.validateGrantable(entitlementID: "gold")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("\"gold\" is not declared"))
            #expect(error.message.contains("\"premium\", \"pro\""))
        }
        let open = try Tenant(id: "b", publicKeyHashes: [Self.publicHash], allowUndeclaredEntitlements: true)
        #expect(try open.validateGrantable(entitlementID: "gold") == "gold")
        #expect(throws: DomainError.invalidRequest("")) { try open.validateGrantable(entitlementID: "go ld") }
    }

    @Test func settingsBuiltInCodeAreValidatedTheSameWay() throws {
        let root = Self.configDirectory + "/AppleRootCA-G3.cer"
        let good = AppStoreSettings(
            bundleID: "com.example.app", appAppleID: 7, environments: [.production, .sandbox],
            rootCertificatePaths: [root], gracePeriodDays: 3, transferPolicy: .keepWithOriginal,
            products: ["p": AppStoreProduct(type: .autoRenewable), "c": AppStoreProduct(type: .consumable)])
        let tenant = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: ["p": ["pro"]], appStore: good)
        // The same settings, with the roots read from the file once, as the tenant loads.
        let loaded = try #require(tenant.appStore)
        #expect(loaded.trustedRoots.map(\.path) == [root])
        #expect(loaded.trustedRoots.first?.certificate.subjectCommonName == "Apple Root CA - G3")
        #expect(
            [loaded.bundleID, "\(loaded.appAppleID ?? 0)", "\(loaded.gracePeriodDays)"] == [good.bundleID, "7", "3"])
        #expect(loaded.environments == good.environments && loaded.rootCertificatePaths == good.rootCertificatePaths)
        #expect(loaded.transferPolicy == good.transferPolicy && loaded.products == good.products)
        #expect(try Tenant(id: "b", publicKeyHashes: [Self.publicHash]).appStore == nil)

        var local = good
        local.environments = [.production, .xcode]
        do {
            _ = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: ["p": ["pro"]], appStore: local)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .conflictingEnvironments)
            #expect(error.description.hasPrefix("<memory>: tenant.app_store.environments[1]: \"Xcode\" cannot be accepted"))
        }
        var noID = good
        noID.appAppleID = nil
        #expect(throws: TenantRuleError.self) {
            try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: ["p": ["pro"]], appStore: noID)
        }
        #expect(throws: TenantRuleError.self) {
            try Tenant(id: "a", publicKeyHashes: [Self.publicHash], appStore: good)  // "p" is not mapped.
        }
        var badPass = good
        badPass.products["pass"] = AppStoreProduct(type: .nonRenewing)
        #expect(throws: TenantRuleError.self) {
            try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: ["p": ["pro"], "pass": ["pro"]], appStore: badPass)
        }
    }
}
