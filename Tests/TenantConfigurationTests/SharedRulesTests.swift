import EntitlementDomain
import TenantConfiguration
import TestSupport
import Testing

/// The file reader and the code-built initializer apply the same domain rules: the same fault, the same code and
/// message; only the location differs (file, line and `tenants[0]` against `<memory>` and `tenant`).
@Suite struct SharedRulesTests {
    static let publicHash = APIKey.hashString("pk_test_public")!
    static let secretHash = APIKey.hashString("sk_test_secret")!
    static let root = RepositoryFiles.path("Config/AppleRootCA-G3.cer")

    private func fileError(_ fields: String) throws -> TenantConfigError {
        let text = "{\"tenants\": [{\"id\": \"demo\", " + fields + "}]}"
        do {
            _ = try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json")
        } catch {
            return error
        }
        throw TenantRuleError(.invalidValue, "expected \(fields) to be refused")
    }

    private func codeError(_ build: () throws(TenantRuleError) -> Tenant) throws -> TenantRuleError {
        do {
            _ = try build()
        } catch {
            return error
        }
        throw TenantRuleError(.invalidValue, "expected the tenant to be refused")
    }

    @Test func theSameFaultGivesTheSameCodeAndMessage() throws {
        let appStore = "\"bundle_id\": \"com.example.app\", \"root_certificates\": [\"\(Self.root)\"]"
        let cases: [(fields: String, path: String, build: () throws(TenantRuleError) -> Tenant)] = [
            (
                "\"public_keys\": [\"\(Self.publicHash)\"], \"entitlements\": [\"pro\", \"pro\"]", "entitlements[1]",
                { () throws(TenantRuleError) in try Tenant(id: "demo", publicKeyHashes: [Self.publicHash], entitlements: ["pro", "pro"]) }
            ),
            (
                "\"secret_keys\": [\"\(Self.publicHash)\"]", "secret_keys[0]",
                { () throws(TenantRuleError) in try Tenant(id: "demo", secretKeyHashes: [Self.publicHash]) }
            ),
            (
                "\"public_keys\": [], \"secret_keys\": []", "",
                { () throws(TenantRuleError) in try Tenant(id: "demo") }
            ),
            (
                "\"public_keys\": [\"\(Self.publicHash)\"], \"products\": {\"p\": []}", "products[\"p\"]",
                { () throws(TenantRuleError) in try Tenant(id: "demo", publicKeyHashes: [Self.publicHash], products: ["p": []]) }
            ),
            (
                "\"public_keys\": [\"\(Self.publicHash)\"], \"app_store\": {\(appStore), \"environments\": [\"Production\", \"Xcode\"], \"app_apple_id\": 7}",
                "app_store.environments[1]",
                { () throws(TenantRuleError) in
                    try Tenant(
                        id: "demo", publicKeyHashes: [Self.publicHash],
                        appStore: AppStoreSettings(
                            bundleID: "com.example.app", appAppleID: 7, environments: [.production, .xcode],
                            rootCertificatePaths: [Self.root]))
                }
            ),
            (
                "\"public_keys\": [\"\(Self.publicHash)\"], \"app_store\": {\(appStore), \"environments\": [\"Sandbox\"], \"products\": {\"p\": {\"type\": \"non_renewing\"}}}",
                "app_store.products[\"p\"]",
                { () throws(TenantRuleError) in
                    try Tenant(
                        id: "demo", publicKeyHashes: [Self.publicHash],
                        appStore: AppStoreSettings(
                            bundleID: "com.example.app", environments: [.sandbox], rootCertificatePaths: [Self.root],
                            products: ["p": AppStoreProduct(type: .nonRenewing)]))
                }
            ),
        ]
        for (fields, path, build) in cases {
            let inFile = try fileError(fields)
            let inCode = try codeError(build)
            #expect(inFile.code == TenantConfigError.Code(inCode.code), "\(fields)")
            #expect(inFile.message == inCode.message, "\(fields)")
            #expect(inFile.path == (path.isEmpty ? "tenants[0]" : "tenants[0]." + path), "\(fields)")
            #expect(inCode.path == (path.isEmpty ? "tenant" : "tenant." + path), "\(fields)")
            #expect(inFile.description == "tenants.json:1: \(inFile.path!): \(inFile.message)")
        }
    }

    @Test func playStoreFaultsGiveTheSameCodeAndMessage() throws {
        let files = try PlayStoreTestFiles()
        defer { files.remove() }
        let key = files.keyFilePath
        let missing = files.directory + "/missing.json"
        let hashes = "\"public_keys\": [\"\(Self.publicHash)\"]"
        func playStore(_ fields: String) -> String {
            "\(hashes), \"play_store\": {\"package_name\": \"com.example.app\", " + fields + "}"
        }
        func tenant(_ settings: PlayStoreSettings, products: [String: [String]] = [:]) -> () throws(TenantRuleError) -> Tenant {
            { () throws(TenantRuleError) in
                try Tenant(id: "demo", publicKeyHashes: [Self.publicHash], products: products, playStore: settings)
            }
        }
        let good = PlayStoreSettings(packageName: "com.example.app", serviceAccountKeyPath: key, environments: [.test])
        var badPackage = good
        badPackage.packageName = "com.1example"
        var noKey = good
        noKey.serviceAccountKeyPath = missing
        var noEnvironments = good
        noEnvironments.environments = []
        var unmapped = good
        unmapped.products = ["premium": .subscription]
        var plainHTTP = good
        plainHTTP.apiBaseURL = "http://play.example.com/v3"
        var poll = good
        poll.voidedPurchasesPollMinutes = 1441
        var audience = good
        audience.notifications = PlayNotificationSettings(audience: " aud", pushServiceAccount: "push@example.com")
        var account = good
        account.notifications = PlayNotificationSettings(audience: "aud", pushServiceAccount: "push")
        var jwks = good
        jwks.notifications = PlayNotificationSettings(
            audience: "aud", pushServiceAccount: "push@example.com", signingKeys: .file(missing))
        let notifications = "\"notifications\": {\"audience\": \"aud\", \"push_service_account\": \"push@example.com\""
        let cases: [(fields: String, path: String, build: () throws(TenantRuleError) -> Tenant)] = [
            (
                "\(hashes), \"play_store\": {\"package_name\": \"com.1example\", \"service_account_key_file\": \"\(key)\", \"environments\": [\"test\"]}",
                "play_store.package_name", tenant(badPackage)
            ),
            (playStore("\"service_account_key_file\": \"\(missing)\", \"environments\": [\"test\"]"), "play_store.service_account_key_file", tenant(noKey)),
            (playStore("\"service_account_key_file\": \"\(key)\", \"environments\": []"), "play_store.environments", tenant(noEnvironments)),
            (
                playStore("\"service_account_key_file\": \"\(key)\", \"environments\": [\"test\"], \"products\": {\"premium\": {\"type\": \"subscription\"}}"),
                "play_store.products[\"premium\"]", tenant(unmapped)
            ),
            (
                playStore("\"service_account_key_file\": \"\(key)\", \"environments\": [\"test\"], \"api_base_url\": \"http://play.example.com/v3\""),
                "play_store.api_base_url", tenant(plainHTTP)
            ),
            (
                playStore("\"service_account_key_file\": \"\(key)\", \"environments\": [\"test\"], \"voided_purchases_poll_minutes\": 1441"),
                "play_store.voided_purchases_poll_minutes", tenant(poll)
            ),
            (
                playStore("\"service_account_key_file\": \"\(key)\", \"environments\": [\"test\"], \"notifications\": {\"audience\": \" aud\", \"push_service_account\": \"push@example.com\"}"),
                "play_store.notifications.audience", tenant(audience)
            ),
            (
                playStore("\"service_account_key_file\": \"\(key)\", \"environments\": [\"test\"], \"notifications\": {\"audience\": \"aud\", \"push_service_account\": \"push\"}"),
                "play_store.notifications.push_service_account", tenant(account)
            ),
            (
                playStore("\"service_account_key_file\": \"\(key)\", \"environments\": [\"test\"], \(notifications), \"jwks_file\": \"\(missing)\"}"),
                "play_store.notifications.jwks_file", tenant(jwks)
            ),
        ]
        for (fields, path, build) in cases {
            let inFile = try fileError(fields)
            let inCode = try codeError(build)
            #expect(inFile.code == TenantConfigError.Code(inCode.code), "\(fields)")
            #expect(inFile.message == inCode.message, "\(fields)")
            #expect(inFile.path == "tenants[0]." + path, "\(fields)")
            #expect(inCode.path == "tenant." + path, "\(fields)")
            #expect(inFile.description == "tenants.json:1: \(inFile.path!): \(inFile.message)")
        }
        // Mapped through a base plan, in code as in the file.
        #expect(throws: Never.self) { try tenant(unmapped, products: ["premium:monthly": ["pro"]])() }
    }

    @Test func stripeFaultsGiveTheSameCodeAndMessage() throws {
        let files = try StripeTestFiles()
        defer { files.remove() }
        let secret = StripeTestFiles.webhookSecret
        let missing = files.directory + "/missing.txt"
        let tooLarge = try files.write("large.txt", String(repeating: "x", count: 2000))
        let notKey = try files.write("not-a-key.txt", "pk_test_51EntitlementdPublishable00")
        let hashes = "\"public_keys\": [\"\(Self.publicHash)\"], \"products\": {\"pro_web\": [\"pro\"]}"
        func stripe(_ fields: String, secrets: String = "[\"\(secret)\"]", mapping: String = "\"prices\": {\"price_pro\": \"pro_web\"}") -> String {
            "\(hashes), \"stripe\": {\"webhook_secrets\": \(secrets), \"environments\": [\"test\"], \(mapping)"
                + (fields.isEmpty ? "" : ", " + fields) + "}"
        }
        func tenant(_ settings: StripeSettings) -> () throws(TenantRuleError) -> Tenant {
            { () throws(TenantRuleError) in
                try Tenant(id: "demo", publicKeyHashes: [Self.publicHash], products: ["pro_web": ["pro"]], stripe: settings)
            }
        }
        let good = StripeSettings(webhookSecrets: [secret], environments: [.test], prices: ["price_pro": "pro_web"])
        func changed(_ change: (inout StripeSettings) -> Void) -> StripeSettings {
            var settings = good
            change(&settings)
            return settings
        }
        let cases: [(fields: String, path: String, build: () throws(TenantRuleError) -> Tenant)] = [
            (stripe("", secrets: "[]"), "stripe.webhook_secrets", tenant(changed { $0.webhookSecrets = [] })),
            (stripe("", secrets: "[\"whsec_short\"]"), "stripe.webhook_secrets[0]", tenant(changed { $0.webhookSecrets = ["whsec_short"] })),
            (stripe("", secrets: "[\"\(secret)\", \"\(secret)\"]"), "stripe.webhook_secrets[1]", tenant(changed { $0.webhookSecrets = [secret, secret] })),
            (stripe("\"signature_tolerance_seconds\": 0"), "stripe.signature_tolerance_seconds", tenant(changed { $0.signatureToleranceSeconds = 0 })),
            (
                "\(hashes), \"stripe\": {\"webhook_secrets\": [\"\(secret)\"], \"environments\": [], \"prices\": {\"price_pro\": \"pro_web\"}}",
                "stripe.environments", tenant(changed { $0.environments = [] })
            ),
            (stripe("", mapping: "\"prices\": {\"price_pro\": \"pro\"}"), "stripe.prices[\"price_pro\"]", tenant(changed { $0.prices = ["price_pro": "pro"] })),
            (
                stripe("", mapping: "\"products\": {\"prod_pro\": \"pro\"}"), "stripe.products[\"prod_pro\"]",
                tenant(changed { $0.prices = [:]; $0.products = ["prod_pro": "pro"] })
            ),
            (stripe("", mapping: "\"prices\": {}"), "stripe", tenant(changed { $0.prices = [:] })),
            (stripe("\"past_due_grace_days\": 61"), "stripe.past_due_grace_days", tenant(changed { $0.pastDueGraceDays = 61 })),
            (stripe("\"redemption_code_days\": 91"), "stripe.redemption_code_days", tenant(changed { $0.redemptionCodeDays = 91 })),
            (stripe("\"api_key_file\": \"\(missing)\""), "stripe.api_key_file", tenant(changed { $0.apiKeyPath = missing })),
            (stripe("\"api_key_file\": \"\(tooLarge)\""), "stripe.api_key_file", tenant(changed { $0.apiKeyPath = tooLarge })),
            (stripe("\"api_key_file\": \"\(notKey)\""), "stripe.api_key_file", tenant(changed { $0.apiKeyPath = notKey })),
            (stripe("\"api_base_url\": \"http://api.stripe.com\""), "stripe.api_base_url", tenant(changed { $0.apiBaseURL = "http://api.stripe.com" })),
        ]
        for (fields, path, build) in cases {
            let inFile = try fileError(fields)
            let inCode = try codeError(build)
            #expect(inFile.code == TenantConfigError.Code(inCode.code), "\(fields)")
            #expect(inFile.message == inCode.message, "\(fields)")
            #expect(inFile.path == "tenants[0]." + path, "\(fields)")
            #expect(inCode.path == "tenant." + path, "\(fields)")
            #expect(inFile.description == "tenants.json:1: \(inFile.path!): \(inFile.message)")
            #expect(!inFile.description.contains(secret))
        }
    }

    @Test func everyRuleCodeIsAFileCode() {
        for code in TenantRuleError.Code.allCases {
            #expect(TenantConfigError.Code(code).rawValue == code.rawValue)
        }
    }
}
