import EntitlementDomain
import Foundation
import TestSupport
import Testing

/// The domain's `stripe` rules applied to settings built in code (no file), and the rule functions the tenants file
/// reader shares.
@Suite struct StripeRulesTests {
    static let publicHash = APIKey.hashString("pk_test_public")!
    static let products = ["pro_web": ["pro"], "lifetime_web": ["premium"]]

    private func good(_ files: StripeTestFiles) -> StripeSettings {
        StripeSettings(
            webhookSecrets: [StripeTestFiles.webhookSecret, StripeTestFiles.otherWebhookSecret],
            signatureToleranceSeconds: 120, environments: [.live, .test], prices: ["price_lifetime": "lifetime_web"],
            products: ["prod_pro": "pro_web"], pastDueGraceDays: 5, redemptionCodeDays: 30,
            transferPolicy: .transferIfNoActive, apiKeyPath: files.keyFilePath, apiBaseURL: "http://localhost:12111")
    }

    private func refusal(
        _ settings: StripeSettings, products: [String: [String]] = Self.products,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> TenantRuleError? {
        do {
            _ = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: products, stripe: settings)
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.description == "<memory>: \(error.path): \(error.message)", sourceLocation: sourceLocation)
            for secret in [StripeTestFiles.webhookSecret, StripeTestFiles.otherWebhookSecret, StripeTestFiles.apiKey] {
                #expect(!error.description.contains(secret), "the error quotes a secret", sourceLocation: sourceLocation)
            }
            return error
        }
    }

    @Test func settingsBuiltInCodeAreValidatedTheSameWay() throws {
        let files = try StripeTestFiles()
        defer { files.remove() }
        let good = good(files)
        let tenant = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: Self.products, stripe: good)
        #expect(tenant.stripe == good)
        #expect(tenant.transferPolicy(for: .stripe) == .transferIfNoActive)
        #expect(tenant.transferPolicy(for: .playStore) == .transfer)
        #expect(try Tenant(id: "b", publicKeyHashes: [Self.publicHash]).stripe == nil)

        let cases: [(String, (inout StripeSettings) -> Void, TenantRuleError.Code, String)] = [
            ("no secrets", { $0.webhookSecrets = [] }, .invalidValue, "webhook_secrets"),
            ("six secrets", { $0.webhookSecrets = (0..<6).map { "whsec_\(String(repeating: "b", count: 20))\($0)" } }, .invalidValue, "webhook_secrets"),
            ("bad secret", { $0.webhookSecrets[1] = "whsec_short" }, .invalidValue, "webhook_secrets[1]"),
            ("twice", { $0.webhookSecrets[1] = $0.webhookSecrets[0] }, .duplicateEntry, "webhook_secrets[1]"),
            ("tolerance", { $0.signatureToleranceSeconds = 0 }, .invalidValue, "signature_tolerance_seconds"),
            ("environments", { $0.environments = [] }, .invalidValue, "environments"),
            ("price target", { $0.prices["price_x"] = "nothing" }, .unmappedProduct, "prices[\"price_x\"]"),
            ("price ID", { $0.prices[" price"] = "pro_web" }, .invalidValue, "prices[\" price\"]"),
            ("product target", { $0.products["prod_pro"] = "pro" }, .unmappedProduct, "products[\"prod_pro\"]"),
            ("nothing mapped", { $0.prices = [:]; $0.products = [:] }, .missingField, ""),
            ("grace", { $0.pastDueGraceDays = 61 }, .invalidValue, "past_due_grace_days"),
            ("code days", { $0.redemptionCodeDays = 0 }, .invalidValue, "redemption_code_days"),
            ("key file", { $0.apiKeyPath = files.directory + "/missing.txt" }, .unreadableKeyFile, "api_key_file"),
            ("remote http", { $0.apiBaseURL = "http://api.stripe.com" }, .invalidValue, "api_base_url"),
        ]
        for (name, change, code, path) in cases {
            var settings = good
            change(&settings)
            let error = try #require(refusal(settings), "\(name)")
            #expect(error.code == code, "\(name)")
            #expect(error.path == "tenant.stripe" + (path.isEmpty ? "" : "." + path), "\(name)")
        }
        #expect(refusal(good, products: ["pro_web": ["pro"]])?.path == "tenant.stripe.prices[\"price_lifetime\"]")

        var tolerance = good
        tolerance.signatureToleranceSeconds = 86_401
        #expect(refusal(tolerance)?.message == "expected a whole number of seconds from 1 to 86400, found 86401")
    }

    @Test func relativeKeyFilesFollowTheWorkingDirectory() throws {
        let files = try StripeTestFiles()
        defer { files.remove() }
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        var settings = good(files)
        settings.apiKeyPath = String(repeating: "../", count: depth) + files.keyFilePath.dropFirst()
        let loaded = try #require(
            try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: Self.products, stripe: settings).stripe)
        #expect(loaded.apiKeyPath == files.keyFilePath)
        #expect(loaded.webhookSecrets == settings.webhookSecrets)
    }

    @Test func descriptionsNeverShowSecrets() throws {
        let files = try StripeTestFiles()
        defer { files.remove() }
        let settings = good(files)
        let tenant = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], products: Self.products, stripe: settings)
        for text in ["\(settings)", String(reflecting: settings), "\(tenant)", String(reflecting: tenant), "\([settings])"] {
            #expect(!text.contains("whsec_"), "\(text)")
        }
        #expect("\(settings)".contains("webhookSecrets: 2 redacted"))
        #expect("\(settings)".contains("apiKeyPath: \"\(files.keyFilePath)\""))
    }

    @Test func webhookSecrets() throws {
        let body = String(repeating: "A", count: 16)
        for secret in ["whsec_" + body, "whsec_0123456789abcdefXYZ", "whsec_" + String(repeating: "z", count: 250), StripeTestFiles.webhookSecret] {
            #expect(throws: Never.self, "\(secret)") { try StripeSettings.checkWebhookSecret(secret, listedAfter: []) }
        }
        for secret in [
            "", "whsec_", "whsec_" + body.dropFirst(), "WHSEC_" + body, "whsec" + body, " whsec_" + body, "whsec_" + body + "\n",
            "whsec_" + body + "_", "whsec_" + body + "é", "whsec_" + String(repeating: "z", count: 251), "sk_test_" + body,
        ] {
            let error = #expect(throws: TenantRuleError.self, "\(secret)") { try StripeSettings.checkWebhookSecret(secret, listedAfter: []) }
            #expect(error?.code == .invalidValue)
            if secret.count > 8 { #expect(error?.message.contains(body.prefix(10)) == false, "\(error?.message ?? "")") }
        }
        let twice = #expect(throws: TenantRuleError.self) {
            try StripeSettings.checkWebhookSecret("whsec_" + body, listedAfter: ["whsec_other" + body, "whsec_" + body])
        }
        #expect(twice?.code == .duplicateEntry)
        #expect(twice?.message == "the same webhook secret is listed at [1] already")
        for count in [1, 5] { #expect(throws: Never.self) { try StripeSettings.checkWebhookSecretCount(count) } }
        for count in [0, 6] { #expect(throws: TenantRuleError.self) { try StripeSettings.checkWebhookSecretCount(count) } }
    }

    @Test func apiKeyContents() {
        let good = ["sk_live_", "sk_test_", "rk_live_", "rk_test_"].map { $0 + "51Abcdefghijklmnop" }
        for key in good + good.map({ "  \($0)\r\n" }) {
            #expect(StripeSettings.apiKeyProblem(Array(key.utf8)) == nil, "\(key)")
        }
        for key in ["", "\n", "pk_live_51Abcdefghijklmnop", "whsec_51Abcdefghijklmnop", "sk_51Abcdefghijklmnop", "sk_test_short",
            "sk_test_51Abcdefghijklmnop\nsk_test_51Abcdefghijklmnop", "sk_test_51Abcdefghijklmnop!", "sk_test_51Abcdéfghijklmnop"]
        {
            let problem = StripeSettings.apiKeyProblem(Array(key.utf8))
            #expect(problem != nil, "\(key)")
            #expect(problem?.contains("Abcdefghij") == false, "\(problem ?? "")")
        }
    }

    @Test func mappingRules() {
        #expect(throws: Never.self) { try StripeSettings.checkMapping(.price, "price_1", to: "pro_web", mappedProducts: Self.products) }
        #expect(throws: Never.self) { try StripeSettings.checkMapping(.product, "pro_web", to: "pro_web", mappedProducts: Self.products) }
        let unmapped = #expect(throws: TenantRuleError.self) {
            try StripeSettings.checkMapping(.product, "prod_1", to: "pro", mappedProducts: Self.products)
        }
        #expect(unmapped?.code == .unmappedProduct)
        #expect(unmapped?.path == "")
        for (id, target) in [("", "pro_web"), ("price\u{1}", "pro_web"), ("price_1", ""), ("price_1", " pro_web")] {
            let error = #expect(throws: TenantRuleError.self) {
                try StripeSettings.checkMapping(.price, id, to: target, mappedProducts: Self.products)
            }
            #expect(error?.code == .invalidValue)
        }
        let nothing = #expect(throws: TenantRuleError.self) { try StripeSettings.checkSomethingMapped(priceCount: 0, productCount: 0) }
        #expect(nothing?.code == .missingField)
        #expect(throws: Never.self) { try StripeSettings.checkSomethingMapped(priceCount: 0, productCount: 1) }
        #expect(throws: Never.self) { try StripeSettings.checkSomethingMapped(priceCount: 2, productCount: 0) }
    }

    @Test func tenantProductPrefersThePrice() {
        let settings = StripeSettings(
            webhookSecrets: [StripeTestFiles.webhookSecret], environments: [.test], prices: ["price_a": "lifetime_web"],
            products: ["prod_a": "pro_web"])
        #expect(settings.tenantProduct(forPrice: "price_a", product: "prod_a") == "lifetime_web")
        #expect(settings.tenantProduct(forPrice: "price_b", product: "prod_a") == "pro_web")
        #expect(settings.tenantProduct(forPrice: "price_b", product: nil) == nil)
        #expect(settings.tenantProduct(forPrice: "price_b", product: "prod_b") == nil)
    }

    @Test func environmentNames() {
        #expect(throws: Never.self) { try StripeEnvironmentName.named("live") }
        #expect(throws: Never.self) { try StripeEnvironmentName.named("test") }
        for text in ["Live", "TEST", "production", "sandbox", "livemode", ""] {
            #expect(throws: TenantRuleError.self) { try StripeEnvironmentName.named(text) }
        }
    }

    @Test func numberRanges() {
        #expect(StripeSettings.signatureToleranceSecondsRange == 1...86_400)
        #expect(StripeSettings.pastDueGraceDaysRange == 0...60)
        #expect(StripeSettings.redemptionCodeDaysRange == 1...90)
        #expect(StripeSettings.webhookSecretCountRange == 1...5)
        #expect(throws: TenantRuleError.self) { try StripeSettings.checkPastDueGraceDays(nil, written: "1e3") }
        #expect((try? StripeSettings.checkRedemptionCodeDays(90, written: "90")) == 90)
    }
}
