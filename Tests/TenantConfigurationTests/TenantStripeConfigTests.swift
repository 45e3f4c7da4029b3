import EntitlementDomain
import Foundation
import TenantConfiguration
import TestSupport
import Testing

/// The `stripe` object of a tenant configuration.
@Suite struct TenantStripeConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!
    static let configDirectory = RepositoryFiles.path("Config")
    static let secret = StripeTestFiles.webhookSecret
    static let otherSecret = StripeTestFiles.otherWebhookSecret

    /// The tenant's `products`.
    static let mappedProducts = "{\"pro_monthly_web\": [\"pro\"], \"lifetime_web\": [\"premium\"]}"

    /// A temporary directory with an API key file, the tenants file's directory.
    let files: StripeTestFiles

    init() throws {
        files = try StripeTestFiles()
    }

    /// A document whose line 4 is `"stripe": {`, followed by `fields` one per line (so the first is on line 5).
    private func document(_ fields: [String], products: String = Self.mappedProducts) -> String {
        SettingsDocument.text(section: "stripe", fields: fields, publicHash: Self.publicHash, products: products)
    }

    /// The fields of a valid test-only `stripe` (webhook_secrets on line 5, environments on 6, prices on 7), with
    /// `overrides` replacing or adding fields (from line 8, in key order) by key.
    private func fields(_ overrides: [String: String?] = [:]) -> [String] {
        let base: [(String, String?)] = [
            ("webhook_secrets", "[\"\(Self.secret)\"]"),
            ("environments", "[\"test\"]"),
            ("prices", "{\"price_pro_monthly\": \"pro_monthly_web\"}"),
        ]
        return SettingsDocument.fields(base, overriddenBy: overrides)
    }

    private func load(_ text: String, directory: String? = nil) throws(TenantConfigError) -> TenantDirectory {
        try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: directory ?? files.directory)
    }

    private func settings(_ overrides: [String: String?] = [:], products: String = Self.mappedProducts) throws
        -> StripeSettings
    {
        try #require(try load(document(fields(overrides), products: products)).tenant(id: "demo")?.stripe)
    }

    private func failure(
        _ overrides: [String: String?], products: String = Self.mappedProducts, directory: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> TenantConfigError? {
        do {
            _ = try load(document(fields(overrides), products: products), directory: directory)
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.file == "tenants.json", sourceLocation: sourceLocation)
            #expect(error.line != nil, sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix("tenants.json:\(error.line ?? 0): \(error.path ?? "")"), sourceLocation: sourceLocation)
            for secret in [Self.secret, Self.otherSecret, StripeTestFiles.apiKey] {
                #expect(!error.description.contains(secret), "the error quotes a secret", sourceLocation: sourceLocation)
            }
            return error
        }
    }

    // MARK: Valid

    @Test func absentMeansNoStripe() throws {
        defer { files.remove() }
        let directory = try load("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}")
        let tenant = try #require(directory.tenant(id: "a"))
        #expect(tenant.stripe == nil)
        #expect(tenant.transferPolicy(for: .stripe) == .transfer)
    }

    @Test func fullSettings() throws {
        defer { files.remove() }
        let directory = try load(
            document(fields([
                "webhook_secrets": "[\"\(Self.secret)\", \"\(Self.otherSecret)\"]",
                "signature_tolerance_seconds": "600",
                "environments": "[\"live\", \"test\"]",
                "prices": "{\"price_pro_monthly\": \"pro_monthly_web\", \"price_lifetime\": \"lifetime_web\"}",
                "products": "{\"prod_pro\": \"pro_monthly_web\"}",
                "past_due_grace_days": "3",
                "redemption_code_days": "14",
                "transfer_policy": "\"keep_with_original\"",
                "api_key_file": "\"\(StripeTestFiles.keyFileName)\"",
                "api_base_url": "\"http://127.0.0.1:12111\"",
                "_comment": "[\"web checkout\", \"for demo\"]",
            ])))
        let tenant = try #require(directory.tenant(id: "demo"))
        let settings = try #require(tenant.stripe)
        #expect(settings.webhookSecrets == [Self.secret, Self.otherSecret])
        #expect(settings.signatureToleranceSeconds == 600)
        #expect(settings.environments == [.live, .test])
        #expect(settings.prices == ["price_pro_monthly": "pro_monthly_web", "price_lifetime": "lifetime_web"])
        #expect(settings.products == ["prod_pro": "pro_monthly_web"])
        #expect(settings.pastDueGraceDays == 3)
        #expect(settings.redemptionCodeDays == 14)
        #expect(settings.transferPolicy == .keepWithOriginal)
        #expect(settings.apiKeyPath == files.keyFilePath)
        #expect(settings.apiBaseURL == "http://127.0.0.1:12111")
        #expect(tenant.transferPolicy(for: .stripe) == .keepWithOriginal)
        #expect(tenant.transferPolicy(for: .appStore) == .transfer)
        // Secrets are kept whole for the verifier, but never shown.
        for text in ["\(settings)", String(reflecting: settings), "\(tenant)", String(reflecting: tenant)] {
            #expect(!text.contains(Self.secret))
            #expect(!text.contains(Self.otherSecret))
            #expect(!text.contains("whsec_"))
        }
        #expect("\(settings)".contains("webhookSecrets: 2 redacted"))
    }

    @Test func defaults() throws {
        defer { files.remove() }
        let settings = try settings()
        #expect(settings.webhookSecrets == [Self.secret])
        #expect(settings.signatureToleranceSeconds == 300)
        #expect(settings.signatureToleranceSeconds == StripeSettings.defaultSignatureToleranceSeconds)
        #expect(settings.environments == [.test])
        #expect(settings.prices == ["price_pro_monthly": "pro_monthly_web"])
        #expect(settings.products.isEmpty)
        #expect(settings.pastDueGraceDays == 0)
        #expect(settings.redemptionCodeDays == 7)
        #expect(settings.transferPolicy == .transfer)
        #expect(settings.apiKeyPath == nil)
        #expect(settings.apiBaseURL == "https://api.stripe.com")
        #expect(settings.apiBaseURL == StripeSettings.defaultAPIBaseURL)
        #expect(StripeEnvironmentName.allCases.map(\.rawValue) == ["live", "test"])
        #expect(StripeEnvironmentName(livemode: true) == .live)
        #expect(StripeEnvironmentName(livemode: false) == .test)
        // Products alone are enough.
        let byProduct = try self.settings(["prices": nil, "products": "{\"prod_pro\": \"pro_monthly_web\"}"])
        #expect(byProduct.prices.isEmpty)
        #expect(byProduct.products == ["prod_pro": "pro_monthly_web"])
    }

    @Test func pricesWinOverProducts() throws {
        defer { files.remove() }
        let settings = try settings([
            "prices": "{\"price_lifetime\": \"lifetime_web\"}", "products": "{\"prod_pro\": \"pro_monthly_web\"}",
        ])
        #expect(settings.tenantProduct(forPrice: "price_lifetime", product: "prod_pro") == "lifetime_web")
        #expect(settings.tenantProduct(forPrice: "price_other", product: "prod_pro") == "pro_monthly_web")
        #expect(settings.tenantProduct(forPrice: "price_other", product: nil) == nil)
        #expect(settings.tenantProduct(forPrice: "price_other", product: "prod_other") == nil)
        #expect(settings.tenantProduct(forPrice: "price_lifetime", product: nil) == "lifetime_web")
    }

    @Test func boundaries() throws {
        defer { files.remove() }
        let five = (0..<5).map { "\"whsec_\(String(repeating: "a", count: 16))\($0)\"" }.joined(separator: ", ")
        #expect(try settings(["webhook_secrets": "[\(five)]"]).webhookSecrets.count == 5)
        let shortest = "whsec_" + String(repeating: "Z", count: 16)
        #expect(try settings(["webhook_secrets": "[\"\(shortest)\"]"]).webhookSecrets == [shortest])
        let longest = "whsec_" + String(repeating: "9", count: 250)
        #expect(try settings(["webhook_secrets": "[\"\(longest)\"]"]).webhookSecrets == [longest])
        #expect(try settings(["signature_tolerance_seconds": "1"]).signatureToleranceSeconds == 1)
        #expect(try settings(["signature_tolerance_seconds": "86400"]).signatureToleranceSeconds == 86400)
        #expect(try settings(["past_due_grace_days": "0"]).pastDueGraceDays == 0)
        #expect(try settings(["past_due_grace_days": "60"]).pastDueGraceDays == 60)
        #expect(try settings(["redemption_code_days": "1"]).redemptionCodeDays == 1)
        #expect(try settings(["redemption_code_days": "90"]).redemptionCodeDays == 90)
    }

    @Test func plainHTTPOnlyToThisMachine() throws {
        defer { files.remove() }
        for url in ["http://127.0.0.1:12111", "http://localhost:9000/", "http://[::1]:8081", "https://api.stripe.com/"] {
            #expect(try settings(["api_base_url": "\"\(url)\""]).apiBaseURL == url)
        }
        for url in ["http://api.stripe.com", "http://10.0.0.1:8080", "http://127.example.com"] {
            let error = try #require(failure(["api_base_url": "\"\(url)\""]))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].stripe.api_base_url")
            #expect(error.line == 8)
            #expect(error.message.contains("use https://, or http:// only for a loopback host"), "\(url): \(error.message)")
        }
    }

    // MARK: Errors

    @Test func unknownFields() throws {
        defer { files.remove() }
        let typo = try #require(failure(["webhook_secret": "\"x\""]))
        #expect(typo.code == .unknownField)
        #expect(typo.path == "tenants[0].stripe.webhook_secret")
        #expect(typo.line == 8)
        #expect(typo.message.contains("did you mean \"webhook_secrets\"?"))

        let other = try #require(failure(["package_name": "\"com.example.app\""]))
        #expect(other.code == .unknownField)
        #expect(other.message.contains("in \"stripe\""))

        let key = try #require(failure(["api_key": "\"\(StripeTestFiles.apiKey)\""]))
        #expect(key.code == .unknownField)
        #expect(key.path == "tenants[0].stripe.api_key")
    }

    @Test func stripeMustBeAnObject() throws {
        defer { files.remove() }
        do {
            _ = try load("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"], \"stripe\": []}]}")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.path == "tenants[0].stripe")
        }
    }

    @Test func missingFields() throws {
        defer { files.remove() }
        let cases: [([String: String?], String, Int, String)] = [
            (["webhook_secrets": nil], "tenants[0].stripe", 4, "missing \"webhook_secrets\""),
            (["environments": nil], "tenants[0].stripe", 4, "missing \"environments\""),
            (["prices": nil], "tenants[0].stripe", 4, "neither \"prices\" nor \"products\" maps anything"),
            (["prices": "{}"], "tenants[0].stripe", 4, "neither \"prices\" nor \"products\" maps anything"),
            (["prices": "{}", "products": "{}"], "tenants[0].stripe", 4, "neither \"prices\" nor \"products\" maps anything"),
        ]
        for (overrides, path, line, fragment) in cases {
            let error = try #require(failure(overrides))
            #expect(error.code == .missingField, "\(overrides)")
            #expect(error.path == path, "\(overrides)")
            #expect(error.line == line, "\(overrides)")
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
        }
    }

    @Test func wrongTypes() throws {
        defer { files.remove() }
        let cases: [([String: String?], String, String)] = [
            (["webhook_secrets": "\"\(Self.secret)\""], "webhook_secrets", "expected an array, found a string"),
            (["webhook_secrets": "[7]"], "webhook_secrets[0]", "expected a string, found a number"),
            (["signature_tolerance_seconds": "\"300\""], "signature_tolerance_seconds", "expected a number, found a string"),
            (["environments": "\"test\""], "environments", "expected an array, found a string"),
            (["environments": "[false]"], "environments[0]", "expected a string, found a boolean"),
            (["prices": "[]"], "prices", "expected an object of Stripe price ID → tenant product ID, found an array"),
            (["prices": "{\"price_pro\": [\"pro_monthly_web\"]}"], "prices[\"price_pro\"]", "expected a string, found an array"),
            (["products": "\"prod_pro\""], "products", "expected an object of Stripe product ID → tenant product ID, found a string"),
            (["products": "{\"prod_pro\": null}"], "products[\"prod_pro\"]", "expected a string, found null"),
            (["past_due_grace_days": "true"], "past_due_grace_days", "expected a number, found a boolean"),
            (["redemption_code_days": "\"7\""], "redemption_code_days", "expected a number, found a string"),
            (["transfer_policy": "1"], "transfer_policy", "expected a string, found a number"),
            (["api_key_file": "[]"], "api_key_file", "expected a string, found an array"),
            (["api_base_url": "{}"], "api_base_url", "expected a string, found an object"),
            (["_comment": "1"], "_comment", "expected a string or an array of strings, found a number"),
        ]
        for (overrides, path, message) in cases {
            let error = try #require(failure(overrides))
            #expect(error.code == .typeMismatch, "\(overrides)")
            #expect(error.path == "tenants[0].stripe." + path, "\(overrides)")
            #expect(error.message == message, "\(overrides)")
        }
    }

    @Test func badValues() throws {
        defer { files.remove() }
        let body16 = String(repeating: "a", count: 16)
        let six = (0..<6).map { "\"whsec_\(body16)\($0)\"" }.joined(separator: ", ")
        let cases: [([String: String?], String, Int, String)] = [
            (["webhook_secrets": "[]"], "webhook_secrets", 5, "no webhook secrets are listed"),
            (["webhook_secrets": "[\(six)]"], "webhook_secrets", 5, "6 webhook secrets are listed; the limit is 5"),
            (["webhook_secrets": "[\"\"]"], "webhook_secrets[0]", 5, "the webhook secret is empty"),
            (["webhook_secrets": "[\"\(Self.secret)\", \"wh_\(body16)\"]"], "webhook_secrets[1]", 5, "does not start with \"whsec_\""),
            (["webhook_secrets": "[\"\(StripeTestFiles.apiKey)\"]"], "webhook_secrets[0]", 5, "this looks like an API key"),
            (["webhook_secrets": "[\"whsec_\(String(body16.dropFirst()))\"]"], "webhook_secrets[0]", 5, "has 15 characters after \"whsec_\""),
            (["webhook_secrets": "[\"whsec_\"]"], "webhook_secrets[0]", 5, "has 0 characters after \"whsec_\""),
            (["webhook_secrets": "[\"whsec_\(body16)-x\"]"], "webhook_secrets[0]", 5, "a character other than A-Z, a-z and 0-9 at position 23"),
            (["webhook_secrets": "[\"whsec_\(body16) \"]"], "webhook_secrets[0]", 5, "whitespace at position 23"),
            (["webhook_secrets": "[\"whsec_\(body16)\\u00e9\"]"], "webhook_secrets[0]", 5, "a character other than A-Z, a-z and 0-9"),
            (["webhook_secrets": "[\"whsec_\(String(repeating: "a", count: 251))\"]"], "webhook_secrets[0]", 5, "the webhook secret is 257 bytes long; the limit is 256"),
            (["signature_tolerance_seconds": "0"], "signature_tolerance_seconds", 8, "expected a whole number of seconds from 1 to 86400, found 0"),
            (["signature_tolerance_seconds": "86401"], "signature_tolerance_seconds", 8, "from 1 to 86400, found 86401"),
            (["signature_tolerance_seconds": "1.5"], "signature_tolerance_seconds", 8, "found 1.5"),
            (["environments": "[]"], "environments", 6, "no environments are listed"),
            (["environments": "[\"test\", \"production\"]"], "environments[1]", 6, "unknown Stripe environment \"production\"; expected one of \"live\", \"test\" (events with livemode true are \"live\")"),
            (["environments": "[\"Live\"]"], "environments[0]", 6, "(spelt exactly; did you mean \"live\"?)"),
            (["environments": "[\"sandbox\"]"], "environments[0]", 6, "are \"test\")"),
            (["prices": "{\"\": \"pro_monthly_web\"}"], "prices[\"\"]", 7, "the Stripe price ID: a product ID is empty"),
            (["prices": "{\"price_pro \": \"pro_monthly_web\"}"], "prices[\"price_pro \"]", 7, "leading or trailing whitespace"),
            (["prices": "{\"price_pro\": \"\"}"], "prices[\"price_pro\"]", 7, "the tenant product it maps to: a product ID is empty"),
            (["products": "{\"prod\\u0007\": \"pro_monthly_web\"}"], "products[\"prod\u{7}\"]", 8, "the Stripe product ID: product ID contains the control character U+0007"),
            (["past_due_grace_days": "-1"], "past_due_grace_days", 8, "expected a whole number of days from 0 to 60, found -1"),
            (["past_due_grace_days": "61"], "past_due_grace_days", 8, "from 0 to 60, found 61"),
            (["redemption_code_days": "0"], "redemption_code_days", 8, "expected a whole number of days from 1 to 90, found 0"),
            (["redemption_code_days": "91"], "redemption_code_days", 8, "from 1 to 90, found 91"),
            (["transfer_policy": "\"move\""], "transfer_policy", 8, "unknown transfer policy \"move\""),
            (["api_key_file": "\"\""], "api_key_file", 8, "the API key file path is empty"),
            (["api_base_url": "\"\""], "api_base_url", 8, "the URL is empty"),
            (["api_base_url": "\"api.stripe.com\""], "api_base_url", 8, "is not an absolute https:// URL"),
            (["api_base_url": "\"https://api.stripe.com/v1?x=1\""], "api_base_url", 8, "has a query or a fragment"),
            (["api_base_url": "\"https://sk_test_x@api.stripe.com\""], "api_base_url", 8, "has user info"),
        ]
        for (overrides, path, line, fragment) in cases {
            let error = try #require(failure(overrides))
            #expect(error.code == .invalidValue, "\(overrides)")
            #expect(error.path == "tenants[0].stripe." + path, "\(overrides)")
            #expect(error.line == line, "\(overrides)")
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
        }
    }

    @Test func secretsAreNeverQuoted() throws {
        defer { files.remove() }
        // Each malformed secret differs from a good one by little, so a message quoting it would show most of it.
        let near = [
            "whsec_" + String(Self.secret.dropFirst(6).dropLast()) + "!", "Whsec_" + Self.secret.dropFirst(6),
            String(Self.secret.dropLast(Self.secret.count - 20)), Self.secret + " ",
        ]
        for secret in near {
            let error = try #require(failure(["webhook_secrets": "[\"\(Self.otherSecret)\", \"\(secret)\"]"]))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].stripe.webhook_secrets[1]")
            #expect(!error.description.contains(secret.dropFirst(6).prefix(12)), "\(error.description)")
        }
        let twice = try #require(failure(["webhook_secrets": "[\"\(Self.secret)\", \"\(Self.otherSecret)\", \"\(Self.secret)\"]"]))
        #expect(twice.code == .duplicateEntry)
        #expect(twice.path == "tenants[0].stripe.webhook_secrets[2]")
        #expect(twice.message == "the same webhook secret is listed at [0] already")
    }

    @Test func duplicates() throws {
        defer { files.remove() }
        let environment = try #require(failure(["environments": "[\"test\", \"live\", \"test\"]"]))
        #expect(environment.code == .duplicateEntry)
        #expect(environment.path == "tenants[0].stripe.environments[2]")
        #expect(environment.message == "\"test\" is listed twice")

        let price = try #require(failure(["prices": "{\"price_a\": \"pro_monthly_web\", \"price_a\": \"lifetime_web\"}"]))
        #expect(price.code == .malformedJSON)
    }

    @Test func mappingTargetsMustBeTenantProducts() throws {
        defer { files.remove() }
        let price = try #require(failure(["prices": "{\"price_pro_monthly\": \"pro_monthly\"}"]))
        #expect(price.code == .unmappedProduct)
        #expect(price.path == "tenants[0].stripe.prices[\"price_pro_monthly\"]")
        #expect(price.line == 7)
        #expect(
            price.message
                == "Stripe price \"price_pro_monthly\" maps to \"pro_monthly\", which is not in the tenant's "
                + "\"products\", so a purchase of it would grant nothing; add \"pro_monthly\" there with its entitlements")

        let product = try #require(failure(["products": "{\"prod_pro\": \"prod_pro\"}"]))
        #expect(product.code == .unmappedProduct)
        #expect(product.path == "tenants[0].stripe.products[\"prod_pro\"]")
        #expect(product.line == 8)
        #expect(product.message.hasPrefix("Stripe product \"prod_pro\" maps to \"prod_pro\""))

        // Without any tenant products nothing can be mapped.
        let none = try #require(failure([:], products: "{}"))
        #expect(none.code == .unmappedProduct)
        // The Stripe ID may itself be a tenant product ID.
        #expect(try settings(["products": "{\"pro_monthly_web\": \"pro_monthly_web\"}"]).products.count == 1)
    }

    @Test func apiKeyFiles() throws {
        defer { files.remove() }
        func keyFailure(_ name: String, _ contents: String?, sourceLocation: SourceLocation = #_sourceLocation) throws
            -> TenantConfigError
        {
            if let contents { try files.write(name, contents) }
            let error = try #require(failure(["api_key_file": "\"\(name)\""], sourceLocation: sourceLocation), sourceLocation: sourceLocation)
            #expect(error.code == .unreadableKeyFile, sourceLocation: sourceLocation)
            #expect(error.path == "tenants[0].stripe.api_key_file", sourceLocation: sourceLocation)
            #expect(error.line == 8, sourceLocation: sourceLocation)
            if let contents {
                let key = contents.trimmingCharacters(in: .whitespacesAndNewlines)
                if key.count > 8 {
                    #expect(!error.description.contains(key.dropFirst(8).prefix(10)), "the error quotes the key", sourceLocation: sourceLocation)
                }
            }
            return error
        }
        let missing = try keyFailure("missing.txt", nil)
        #expect(missing.message.hasPrefix("cannot read API key file \"\(files.directory)/missing.txt\""))

        let large = try keyFailure("large.txt", StripeTestFiles.apiKey + String(repeating: " ", count: 1024))
        #expect(large.message.contains("is \(StripeTestFiles.apiKey.utf8.count + 1024) bytes long, more than a key file can be (1 KiB)"))

        let notKeys: [(String, String)] = [
            ("", "the file is empty"),
            (" \n\t\n", "the file holds only whitespace"),
            ("pk_test_51EntitlementdPublishableKey0000", "it holds a publishable key, which cannot read objects"),
            (Self.secret, "it holds a webhook signing secret, which belongs in \"webhook_secrets\""),
            ("sk_prod_51EntitlementdFakeKeyForTests0123", "it does not start with \"sk_live_\", \"sk_test_\", \"rk_live_\" or \"rk_test_\""),
            ("STRIPE_KEY=sk_test_51EntitlementdFakeKeyForTests", "it does not start with"),
            ("sk_test_51EntitlementdFakeKey sk_test_51EntitlementdOtherKey", "it holds more than one word"),
            ("sk_test_51Entitlementd\nsk_live_51EntitlementdOtherKey00", "it holds more than one word"),
            ("sk_test_51EntitlementdFake-KeyForTests", "it has a character other than A-Z, a-z and 0-9 after \"sk_test_\""),
            ("rk_live_short", "it has 5 characters after \"rk_live_\"; a key has at least 16"),
        ]
        for (index, (contents, problem)) in notKeys.enumerated() {
            let error = try keyFailure("bad\(index).txt", contents)
            #expect(error.message.contains("does not hold a Stripe API key: \(problem)"), "\(error.message)")
        }

        let directory = try keyFailure(".", nil)
        #expect(directory.message.contains("cannot read API key file"))
        let device = try #require(failure(["api_key_file": "\"/dev/zero\""]))
        #expect(device.code == .unreadableKeyFile)
        #expect(device.message == "cannot read API key file \"/dev/zero\": it is not a regular file")

        // Every kind of key, trimmed; relative to the tenants file's directory, absolute paths kept.
        for (index, key) in ["sk_live_", "sk_test_", "rk_live_", "rk_test_"].enumerated() {
            let path = try files.write("good\(index).txt", "\n  \(key)51EntitlementdFakeKeyForTests  \r\n")
            #expect(try settings(["api_key_file": "\"good\(index).txt\""]).apiKeyPath == path)
            #expect(try settings(["api_key_file": "\"\(path)\""]).apiKeyPath == path)
        }
        let elsewhere = try #require(failure(["api_key_file": "\"\(StripeTestFiles.keyFileName)\""], directory: Self.configDirectory))
        #expect(elsewhere.code == .unreadableKeyFile)
        #expect(elsewhere.message.contains("\"\(Self.configDirectory)/\(StripeTestFiles.keyFileName)\""))
    }

    // MARK: Files

    @Test func exampleFileLoadsWithItsStripeSettings() throws {
        defer { files.remove() }
        let directory = try TenantConfigLoader.load(path: Self.configDirectory + "/tenants.example.json")
        let music = try #require(directory.tenant(id: "music-app"))
        let stripe = try #require(music.stripe)
        #expect(stripe.webhookSecrets.count == 1)
        #expect(stripe.environments == [.live, .test])
        #expect(stripe.prices == ["price_MusicProMonthlyExample": "music_pro"])
        #expect(stripe.products == ["prod_MusicFamilyExample": "com.example.music.family.yearly"])
        #expect(stripe.pastDueGraceDays == 3)
        #expect(stripe.redemptionCodeDays == 7)
        #expect(stripe.apiKeyPath == nil)
        #expect(stripe.apiBaseURL == StripeSettings.defaultAPIBaseURL)
        let product = try #require(stripe.tenantProduct(forPrice: "price_other", product: "prod_MusicFamilyExample"))
        #expect(music.entitlements(forProduct: product) == ["pro", "family"])
        #expect(directory.tenant(id: "notes_app")?.stripe == nil)
    }
}
