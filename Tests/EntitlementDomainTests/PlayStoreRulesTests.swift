import EntitlementDomain
import Foundation
import TestSupport
import Testing

/// The domain's `play_store` rules applied to settings built in code (no file), and the rule functions the tenants
/// file reader shares.
@Suite struct PlayStoreRulesTests {
    static let publicHash = APIKey.hashString("pk_test_public")!

    private func good(_ files: PlayStoreTestFiles) -> PlayStoreSettings {
        PlayStoreSettings(
            packageName: "com.example.app", serviceAccountKeyPath: files.keyFilePath, environments: [.production, .test],
            transferPolicy: .transferIfNoActive, products: ["premium": .subscription, "coins": .consumable],
            apiBaseURL: "http://127.0.0.1:8080/v3/applications", voidedPurchasesPollMinutes: 5,
            notifications: PlayNotificationSettings(
                audience: "https://example.com/push", pushServiceAccount: "push@example.iam.gserviceaccount.com",
                signingKeys: .file(files.jwksFilePath), verifiesPushTokens: false))
    }

    private func refusal(
        _ settings: PlayStoreSettings, products: [String: [String]] = ["premium": ["pro"]],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> TenantRuleError? {
        do {
            _ = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: products, playStore: settings)
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.description == "<memory>: \(error.path): \(error.message)", sourceLocation: sourceLocation)
            return error
        }
    }

    @Test func settingsBuiltInCodeAreValidatedTheSameWay() throws {
        let files = try PlayStoreTestFiles()
        defer { files.remove() }
        let good = good(files)
        let tenant = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: ["premium": ["pro"]], playStore: good)
        #expect(tenant.playStore == good)
        #expect(try Tenant(id: "b", publicKeyHashes: [Self.publicHash]).playStore == nil)

        var badPackage = good
        badPackage.packageName = "example"
        let package = try #require(refusal(badPackage))
        #expect(package.code == .invalidValue)
        #expect(package.path == "tenant.play_store.package_name")

        var noEnvironments = good
        noEnvironments.environments = []
        #expect(refusal(noEnvironments)?.path == "tenant.play_store.environments")

        let unmapped = try #require(refusal(good, products: [:]))
        #expect(unmapped.code == .unmappedProduct)
        #expect(unmapped.path == "tenant.play_store.products[\"premium\"]")
        // A base plan's entry maps the subscription.
        #expect(throws: Never.self) {
            try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: ["premium:monthly": ["pro"]], playStore: good)
        }

        var badID = good
        badID.products = ["\u{7}x": .consumable]
        #expect(refusal(badID)?.path == "tenant.play_store.products[\"\u{7}x\"]")

        var remote = good
        remote.apiBaseURL = "http://example.com/v3"
        #expect(refusal(remote)?.path == "tenant.play_store.api_base_url")

        var poll = good
        poll.voidedPurchasesPollMinutes = -1
        let pollError = try #require(refusal(poll))
        #expect(pollError.path == "tenant.play_store.voided_purchases_poll_minutes")
        #expect(pollError.message == "expected a whole number of minutes from 0 to 1440, found -1")

        var audience = good
        audience.notifications?.audience = ""
        #expect(refusal(audience)?.path == "tenant.play_store.notifications.audience")

        var account = good
        account.notifications?.pushServiceAccount = "not an email"
        #expect(refusal(account)?.path == "tenant.play_store.notifications.push_service_account")

        var jwksURL = good
        jwksURL.notifications?.signingKeys = .url("https://keys.example.com/certs?x=1")
        #expect(refusal(jwksURL)?.path == "tenant.play_store.notifications.jwks_url")

        var jwksFile = good
        jwksFile.notifications?.signingKeys = .file(files.directory + "/none.json")
        let jwksError = try #require(refusal(jwksFile))
        #expect(jwksError.code == .unreadableKeyFile)
        #expect(jwksError.path == "tenant.play_store.notifications.jwks_file")
    }

    @Test func relativePathsFollowTheWorkingDirectory() throws {
        let files = try PlayStoreTestFiles()
        defer { files.remove() }
        // The temporary files named relative to the working directory ("../../tmp/..."), made absolute.
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let up = String(repeating: "../", count: depth)
        var settings = good(files)
        settings.serviceAccountKeyPath = up + files.keyFilePath.dropFirst()
        settings.notifications?.signingKeys = .file(up + files.jwksFilePath.dropFirst())
        let loaded = try #require(
            try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: ["premium": ["pro"]], playStore: settings)
                .playStore)
        #expect(loaded.serviceAccountKeyPath == files.keyFilePath)
        #expect(loaded.notifications?.signingKeys == .file(files.jwksFilePath))
    }

    @Test func keyFileErrorsNeverQuoteTheKey() throws {
        let files = try PlayStoreTestFiles()
        defer { files.remove() }
        let body = String(files.privateKeyPEM.split(separator: "\n")[2])
        for (name, contents) in [
            ("type.json", files.serviceAccountJSON(["type": "user"])),
            ("email.json", files.serviceAccountJSON(["client_email": nil])),
            ("token.json", files.serviceAccountJSON(["token_uri": "ftp://x"])),
            ("body.json", files.serviceAccountJSON(["private_key": body])),
            ("raw.json", files.privateKeyPEM),
        ] {
            let path = try files.write(name, contents)
            do {
                _ = try PlayStoreSettings.serviceAccountKeyFile(path, against: "/")
                Issue.record("expected \(name) to be refused")
            } catch {
                #expect(error.code == .unreadableKeyFile)
                #expect(error.path == "")
                #expect(!error.message.contains(body), "\(name): \(error.message)")
            }
        }
        #expect(try PlayStoreSettings.serviceAccountKeyFile(PlayStoreTestFiles.keyFileName, against: files.directory) == files.keyFilePath)
    }

    @Test func packageNames() {
        for name in ["com.example.app", "a.b", "Com.Example_1.x9", "a_.b__"] {
            #expect(throws: Never.self) { try PlayStoreSettings.checkPackageName(name) }
        }
        for name in ["", "app", "com.", ".com", "com..app", "1com.app", "com.9", "com._a", "com.ex-ample", "com.ex ample", "cöm.app",
            String(repeating: "a", count: 254) + ".b"]
        {
            #expect(throws: TenantRuleError.self, "\(name)") { try PlayStoreSettings.checkPackageName(name) }
        }
    }

    @Test func serviceURLs() {
        for url in [
            "https://androidpublisher.googleapis.com/androidpublisher/v3/applications", "https://example.com",
            "HTTPS://Example.com:443/", "https://[2001:db8::1]:8443/x", "http://127.0.0.1", "http://127.255.0.9:1/",
            "http://localhost:65535/a/b", "http://[::1]/",
        ] {
            #expect(throws: Never.self, "\(url)") { try PlayStoreSettings.checkAPIBaseURL(url) }
            #expect(throws: Never.self, "\(url)") { try SigningKeySource.checkURL(url) }
        }
        for url in [
            "", "example.com", "/v3", "ftp://example.com", "https://", "https://:443/", "https://a:b@example.com",
            "https://example.com?x", "https://example.com/#f", "https://example.com:65536", "https://example.com:x",
            "https://exa mple.com", "https://example.com/\u{e9}", "http://example.com", "http://127.0.0", "http://127.0.0.1.5",
            "http://0.0.0.0", "http://[::1", "https://[xyz]/",
        ] {
            #expect(throws: TenantRuleError.self, "\(url)") { try PlayStoreSettings.checkAPIBaseURL(url) }
        }
    }

    @Test func productMapping() throws {
        let mapped = ["premium": ["pro"], "family:yearly": ["pro"], "solo:": ["pro"], "lifetime": ["pro"]]
        for (id, type) in [("premium", PlayProductType.subscription), ("family", .subscription), ("lifetime", .nonConsumable), ("coins", .consumable)] {
            #expect(throws: Never.self, "\(id)") { try PlayStoreSettings.checkProduct(id, type: type, mappedProducts: mapped) }
        }
        for (id, type) in [("solo", PlayProductType.subscription), ("fam", .subscription), ("family", .nonConsumable), ("other", .subscription)] {
            let error = #expect(throws: TenantRuleError.self, "\(id)") {
                try PlayStoreSettings.checkProduct(id, type: type, mappedProducts: mapped)
            }
            #expect(error?.code == .unmappedProduct)
        }
    }

    @Test func productIDsMayHoldBasePlans() throws {
        #expect(throws: Never.self) { try Tenant.checkProductID("premium:monthly") }
        #expect(throws: Never.self) { try Tenant.checkProductID("premium:monthly-2024:promo") }
        let tenant = try Tenant(
            id: "a", publicKeyHashes: [Self.publicHash], products: ["premium": ["pro"], "premium:family": ["pro", "family"]])
        #expect(tenant.entitlements(forProduct: "premium", basePlan: "family") == ["pro", "family"])
        #expect(tenant.entitlements(forProduct: "premium", basePlan: "monthly") == ["pro"])
        #expect(tenant.entitlements(forProduct: "premium", basePlan: nil) == ["pro"])
    }

    @Test func notificationRules() {
        let both = #expect(throws: TenantRuleError.self) {
            try SigningKeySource.checkOneGiven(url: true, file: true)
        }
        #expect(both?.code == .conflictingFields)
        #expect(both?.path == ".jwks_file")
        for (url, file) in [(true, false), (false, true), (false, false)] {
            #expect(throws: Never.self) { try SigningKeySource.checkOneGiven(url: url, file: file) }
        }
        for account in ["rtdn@project.iam.gserviceaccount.com", "a@b.c"] {
            #expect(throws: Never.self) { try PlayNotificationSettings.checkPushServiceAccount(account) }
        }
        for account in ["", "rtdn", "@b.c", "a@", "a@b", "a@b.", "a@.b", "a b@c.d", "a@b@c.d", "a\u{0}@b.c"] {
            #expect(throws: TenantRuleError.self, "\(account)") { try PlayNotificationSettings.checkPushServiceAccount(account) }
        }
        #expect(throws: Never.self) { try PlayNotificationSettings.checkAudience(String(repeating: "x", count: 2048)) }
        for audience in ["", String(repeating: "x", count: 2049), " a", "a\n", "a\u{1}b"] {
            #expect(throws: TenantRuleError.self) { try PlayNotificationSettings.checkAudience(audience) }
        }
    }

    @Test func environmentAndTypeNames() {
        #expect(throws: Never.self) { try PlayEnvironmentName.named("production") }
        #expect(throws: Never.self) { try PlayProductType.named("non_consumable") }
        for text in ["Production", "TEST", "sandbox", ""] {
            #expect(throws: TenantRuleError.self) { try PlayEnvironmentName.named(text) }
        }
        for text in ["Subscription", "auto_renewable", "inapp", ""] {
            #expect(throws: TenantRuleError.self) { try PlayProductType.named(text) }
        }
    }
}
