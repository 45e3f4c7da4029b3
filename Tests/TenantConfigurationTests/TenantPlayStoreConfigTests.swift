import EntitlementDomain
import Foundation
import TenantConfiguration
import TestSupport
import Testing

/// The `play_store` object of a tenant configuration.
@Suite struct TenantPlayStoreConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!
    static let configDirectory = RepositoryFiles.path("Config")

    /// The tenant's `products`: `premium` directly, `family` through one base plan, `lifetime` directly.
    static let mappedProducts =
        "{\"premium\": [\"pro\"], \"family:yearly\": [\"pro\", \"family\"], \"lifetime\": [\"premium\"]}"

    /// A temporary directory with a service-account key and a JWKS file, the tenants file's directory.
    let files: PlayStoreTestFiles

    init() throws {
        files = try PlayStoreTestFiles()
    }

    /// A document whose line 4 is `"play_store": {`, followed by `fields` one per line (so the first is on line 5).
    private func document(_ fields: [String], products: String = Self.mappedProducts) -> String {
        SettingsDocument.text(section: "play_store", fields: fields, publicHash: Self.publicHash, products: products)
    }

    /// The fields of a valid test-only `play_store`, with `overrides` replacing or adding fields by key.
    private func fields(_ overrides: [String: String?] = [:]) -> [String] {
        let base: [(String, String?)] = [
            ("package_name", "\"com.example.app\""),
            ("service_account_key_file", "\"\(PlayStoreTestFiles.keyFileName)\""),
            ("environments", "[\"test\"]"),
        ]
        return SettingsDocument.fields(base, overriddenBy: overrides)
    }

    /// `notifications` with `members` one per line (the first on the line after the one `notifications` is on).
    private func notifications(_ overrides: [String: String?] = [:]) -> String {
        var base: [(String, String?)] = [
            ("audience", "\"https://entitlements.example.com/v1/google/notifications/demo\""),
            ("push_service_account", "\"rtdn-push@test-project.iam.gserviceaccount.com\""),
        ]
        for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
            if let index = base.firstIndex(where: { $0.0 == key }) { base[index].1 = value } else { base.append((key, value)) }
        }
        return "{\n" + base.compactMap { key, value in value.map { "\"\(key)\": \($0)" } }.joined(separator: ",\n") + "\n}"
    }

    private func load(_ text: String, directory: String? = nil) throws(TenantConfigError) -> TenantDirectory {
        try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: directory ?? files.directory)
    }

    private func settings(_ overrides: [String: String?] = [:], products: String = Self.mappedProducts) throws
        -> PlayStoreSettings
    {
        try #require(try load(document(fields(overrides), products: products)).tenant(id: "demo")?.playStore)
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
            return error
        }
    }

    // MARK: Valid

    @Test func absentMeansNoPlayStore() throws {
        defer { files.remove() }
        let directory = try load("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}")
        #expect(directory.tenant(id: "a")?.playStore == nil)
    }

    @Test func fullSettings() throws {
        defer { files.remove() }
        let settings = try settings([
            "package_name": "\"com.example.app_2.Pro\"",
            "environments": "[\"production\", \"test\"]",
            "transfer_policy": "\"keep_with_original\"",
            "products": """
                {"premium": {"type": "subscription"}, "family": {"type": "subscription"},
                "lifetime": {"type": "non_consumable"}, "coins": {"type": "consumable"}}
                """,
            "api_base_url": "\"https://play.example.com:8443/androidpublisher/v3/applications/\"",
            "voided_purchases_poll_minutes": "15",
            "notifications": notifications([
                "jwks_url": "\"https://keys.example.com/certs\"", "verify_push_tokens": "false",
                "_comment": "[\"a push subscription\", \"for demo\"]",
            ]),
            "_comment": "\"notes\"",
        ])
        #expect(settings.packageName == "com.example.app_2.Pro")
        #expect(settings.serviceAccountKeyPath == files.keyFilePath)
        #expect(settings.environments == [.production, .test])
        #expect(settings.transferPolicy == .keepWithOriginal)
        #expect(
            settings.products == ["premium": .subscription, "family": .subscription, "lifetime": .nonConsumable, "coins": .consumable])
        #expect(settings.apiBaseURL == "https://play.example.com:8443/androidpublisher/v3/applications/")
        #expect(settings.voidedPurchasesPollMinutes == 15)
        let notifications = try #require(settings.notifications)
        #expect(notifications.audience == "https://entitlements.example.com/v1/google/notifications/demo")
        #expect(notifications.pushServiceAccount == "rtdn-push@test-project.iam.gserviceaccount.com")
        #expect(notifications.signingKeys == .url("https://keys.example.com/certs"))
        #expect(!notifications.verifiesPushTokens)
    }

    @Test func defaults() throws {
        defer { files.remove() }
        let settings = try settings()
        #expect(settings.environments == [.test])
        #expect(settings.transferPolicy == .transfer)
        #expect(settings.products.isEmpty)
        #expect(settings.apiBaseURL == PlayStoreSettings.defaultAPIBaseURL)
        #expect(settings.apiBaseURL == "https://androidpublisher.googleapis.com/androidpublisher/v3/applications")
        #expect(settings.voidedPurchasesPollMinutes == 60)
        #expect(settings.notifications == nil)

        let notifications = try #require(try self.settings(["notifications": self.notifications()]).notifications)
        #expect(notifications.signingKeys == .url(PlayNotificationSettings.defaultJWKSURL))
        #expect(notifications.signingKeys == .url("https://www.googleapis.com/oauth2/v3/certs"))
        #expect(notifications.verifiesPushTokens)
        #expect(try self.settings(["notifications": self.notifications(["verify_push_tokens": "true"])]).notifications?.verifiesPushTokens == true)
        #expect(PlayEnvironmentName.allCases.map(\.rawValue) == ["production", "test"])
        #expect(PlayProductType.allCases.map(\.rawValue) == ["subscription", "non_consumable", "consumable"])
    }

    @Test func relativeFilesFollowTheTenantsFileAndAbsoluteOnesStay() throws {
        defer { files.remove() }
        // Against the directory given to parse (here the files' own).
        let jwks = notifications(["jwks_file": "\"./\(PlayStoreTestFiles.jwksFileName)\""])
        let relative = try settings(["notifications": jwks])
        #expect(relative.serviceAccountKeyPath == files.keyFilePath)
        #expect(relative.notifications?.signingKeys == .file(files.jwksFilePath))
        // Absolute paths stay as they are, whatever the directory.
        let absolute = try #require(
            try load(
                document(fields([
                    "service_account_key_file": "\"\(files.keyFilePath)\"",
                    "notifications": notifications(["jwks_file": "\"\(files.jwksFilePath)\""]),
                ])), directory: "/nonexistent"
            ).tenant(id: "demo")?.playStore)
        #expect(absolute.serviceAccountKeyPath == files.keyFilePath)
        #expect(absolute.notifications?.signingKeys == .file(files.jwksFilePath))
        // The directory of the file given to load(path:) is the base, not the working directory.
        let name = files.directory.split(separator: "/").last!
        let tenantsPath = try files.write(
            "tenants.json",
            document(fields([
                "service_account_key_file": "\"../\(name)/\(PlayStoreTestFiles.keyFileName)\"", "notifications": jwks,
            ])))
        let loaded = try #require(try TenantConfigLoader.load(path: tenantsPath).tenant(id: "demo")?.playStore)
        #expect(loaded.serviceAccountKeyPath == files.keyFilePath)
        #expect(loaded.notifications?.signingKeys == .file(files.jwksFilePath))
        // The same relative path against another directory is another file.
        let elsewhere = try #require(failure([:], directory: Self.configDirectory))
        #expect(elsewhere.code == .unreadableKeyFile)
        #expect(elsewhere.message.contains("\"\(Self.configDirectory)/\(PlayStoreTestFiles.keyFileName)\""))
    }

    @Test func plainHTTPOnlyToThisMachine() throws {
        defer { files.remove() }
        for url in ["http://127.0.0.1:8080/v3/applications", "http://127.1.2.3", "http://localhost:9000", "http://LOCALHOST/x", "http://[::1]:8081/"] {
            #expect(try settings(["api_base_url": "\"\(url)\""]).apiBaseURL == url)
            let notifications = try #require(try settings(["notifications": notifications(["jwks_url": "\"\(url)\""])]).notifications)
            #expect(notifications.signingKeys == .url(url))
        }
        for url in ["http://example.com/v3", "http://127.example.com", "http://10.0.0.1:8080", "http://[::2]/", "http://127.0.0.256/"] {
            let error = try #require(failure(["api_base_url": "\"\(url)\""]))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].play_store.api_base_url")
            #expect(error.line == 8)
            #expect(error.message.contains("use https://, or http:// only for a loopback host"), "\(url): \(error.message)")
        }
        let jwks = try #require(failure(["notifications": notifications(["jwks_url": "\"http://keys.example.com/certs\""])]))
        #expect(jwks.code == .invalidValue)
        #expect(jwks.path == "tenants[0].play_store.notifications.jwks_url")
        #expect(jwks.line == 11)
    }

    // MARK: Errors

    @Test func unknownFields() throws {
        defer { files.remove() }
        let typo = try #require(failure(["package_nam": "\"com.example.app\""]))
        #expect(typo.code == .unknownField)
        #expect(typo.path == "tenants[0].play_store.package_nam")
        #expect(typo.line == 8)
        #expect(typo.message.contains("did you mean \"package_name\"?"))

        let product = try #require(failure(["products": "{\"premium\": {\"type\": \"subscription\", \"base_plans\": []}}"]))
        #expect(product.code == .unknownField)
        #expect(product.path == "tenants[0].play_store.products[\"premium\"].base_plans")

        let notification = try #require(failure(["notifications": notifications(["jwks_uri": "\"https://keys.example.com\""])]))
        #expect(notification.code == .unknownField)
        #expect(notification.path == "tenants[0].play_store.notifications.jwks_uri")
        #expect(notification.line == 11)
        #expect(notification.message.contains("did you mean \"jwks_url\"?"))

        // A tenant field of another store is not a play_store one.
        let other = try #require(failure(["bundle_id": "\"com.example.app\""]))
        #expect(other.code == .unknownField)
        #expect(other.message.contains("in \"play_store\""))
    }

    @Test func missingFields() throws {
        defer { files.remove() }
        let cases: [([String: String?], String, Int, String)] = [
            (["package_name": nil], "tenants[0].play_store", 4, "missing \"package_name\""),
            (["service_account_key_file": nil], "tenants[0].play_store", 4, "missing \"service_account_key_file\""),
            (["environments": nil], "tenants[0].play_store", 4, "missing \"environments\""),
            (["products": "{\"premium\": {}}"], "tenants[0].play_store.products[\"premium\"]", 8, "missing \"type\": one of \"subscription\", \"non_consumable\", \"consumable\""),
            (["notifications": notifications(["audience": nil])], "tenants[0].play_store.notifications", 8, "missing \"audience\""),
            (["notifications": notifications(["push_service_account": nil])], "tenants[0].play_store.notifications", 8, "missing \"push_service_account\""),
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
            (["package_name": "7"], "tenants[0].play_store.package_name", "expected a string, found a number"),
            (["service_account_key_file": "[\"a.json\"]"], "tenants[0].play_store.service_account_key_file", "expected a string, found an array"),
            (["environments": "\"test\""], "tenants[0].play_store.environments", "expected an array, found a string"),
            (["environments": "[true]"], "tenants[0].play_store.environments[0]", "expected a string, found a boolean"),
            (["transfer_policy": "1"], "tenants[0].play_store.transfer_policy", "expected a string, found a number"),
            (["products": "[]"], "tenants[0].play_store.products", "expected an object of product ID → {\"type\": ...}, found an array"),
            (["products": "{\"premium\": \"subscription\"}"], "tenants[0].play_store.products[\"premium\"]", "expected an object, found a string"),
            (["products": "{\"premium\": {\"type\": null}}"], "tenants[0].play_store.products[\"premium\"].type", "expected a string, found null"),
            (["api_base_url": "{}"], "tenants[0].play_store.api_base_url", "expected a string, found an object"),
            (["voided_purchases_poll_minutes": "\"60\""], "tenants[0].play_store.voided_purchases_poll_minutes", "expected a number, found a string"),
            (["notifications": "true"], "tenants[0].play_store.notifications", "expected an object, found a boolean"),
            (["notifications": notifications(["audience": "1"])], "tenants[0].play_store.notifications.audience", "expected a string, found a number"),
            (["notifications": notifications(["push_service_account": "[]"])], "tenants[0].play_store.notifications.push_service_account", "expected a string, found an array"),
            (["notifications": notifications(["jwks_url": "null"])], "tenants[0].play_store.notifications.jwks_url", "expected a string, found null"),
            (["notifications": notifications(["jwks_file": "2"])], "tenants[0].play_store.notifications.jwks_file", "expected a string, found a number"),
            (["notifications": notifications(["verify_push_tokens": "\"false\""])], "tenants[0].play_store.notifications.verify_push_tokens", "expected true or false, found a string"),
            (["notifications": notifications(["verify_push_tokens": "0"])], "tenants[0].play_store.notifications.verify_push_tokens", "expected true or false, found a number"),
            (["_comment": "{}"], "tenants[0].play_store._comment", "expected a string or an array of strings, found an object"),
        ]
        for (overrides, path, message) in cases {
            let error = try #require(failure(overrides))
            #expect(error.code == .typeMismatch, "\(overrides)")
            #expect(error.path == path, "\(overrides)")
            #expect(error.message == message, "\(overrides)")
        }
    }

    @Test func playStoreMustBeAnObject() throws {
        defer { files.remove() }
        do {
            _ = try load("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"], \"play_store\": []}]}")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.path == "tenants[0].play_store")
        }
    }

    @Test func badValues() throws {
        defer { files.remove() }
        let long = String(repeating: "a", count: 253) + ".bc"
        let cases: [([String: String?], String, Int, String)] = [
            (["package_name": "\"\""], "package_name", 5, "the package name is empty"),
            (["package_name": "\"example\""], "package_name", 5, "package name \"example\" has a single segment"),
            (["package_name": "\"com..example\""], "package_name", 5, "has an empty segment"),
            (["package_name": "\"com.example.\""], "package_name", 5, "has an empty segment"),
            (["package_name": "\".com.example\""], "package_name", 5, "has an empty segment"),
            (["package_name": "\"com.1example\""], "package_name", 5, "segment \"1example\" of package name \"com.1example\" does not start with a letter"),
            (["package_name": "\"com._example\""], "package_name", 5, "does not start with a letter"),
            (["package_name": "\"com.example-app\""], "package_name", 5, "the package name contains U+002D; Android package names are two or more segments"),
            (["package_name": "\"com.example app\""], "package_name", 5, "contains U+0020"),
            (["package_name": "\"com.exämple\""], "package_name", 5, "contains U+00E4"),
            (["package_name": "\"\(long)\""], "package_name", 5, "the package name is 256 bytes long; the limit is 255"),
            (["service_account_key_file": "\"\""], "service_account_key_file", 6, "the service-account key file path is empty"),
            (["environments": "[]"], "environments", 7, "no environments are listed"),
            (["environments": "[\"test\", \"staging\"]"], "environments[1]", 7, "unknown Google Play environment \"staging\"; expected one of \"production\", \"test\""),
            (["environments": "[\"Production\"]"], "environments[0]", 7, "(spelt exactly; did you mean \"production\"?)"),
            (["environments": "[\"Sandbox\"]"], "environments[0]", 7, "license testers' purchases are \"test\" on Google Play"),
            (["transfer_policy": "\"move\""], "transfer_policy", 8, "unknown transfer policy \"move\""),
            (["products": "{\"premium\": {\"type\": \"auto_renewable\"}}"], "products[\"premium\"].type", 8, "unknown Google Play product type \"auto_renewable\"; expected one of \"subscription\", \"non_consumable\", \"consumable\" (auto-renewable products are \"subscription\" on Google Play)"),
            (["products": "{\"premium\": {\"type\": \"Subscription\"}}"], "products[\"premium\"].type", 8, "did you mean \"subscription\"?"),
            (["products": "{\"premium \": {\"type\": \"consumable\"}}"], "products[\"premium \"]", 8, "leading or trailing whitespace"),
            (["products": "{\"\": {\"type\": \"consumable\"}}"], "products[\"\"]", 8, "a product ID is empty"),
            (["api_base_url": "\"\""], "api_base_url", 8, "the URL is empty"),
            (["api_base_url": "\"androidpublisher.googleapis.com/v3\""], "api_base_url", 8, "is not an absolute https:// URL"),
            (["api_base_url": "\"ftp://example.com\""], "api_base_url", 8, "is not an absolute https:// URL"),
            (["api_base_url": "\"https://example.com/v3?key=1\""], "api_base_url", 8, "has a query or a fragment"),
            (["api_base_url": "\"https://example.com/v3#top\""], "api_base_url", 8, "has a query or a fragment"),
            (["api_base_url": "\"https://user:pw@example.com/v3\""], "api_base_url", 8, "has user info"),
            (["api_base_url": "\"https://example.com:0/v3\""], "api_base_url", 8, "has no valid host and port"),
            (["api_base_url": "\"https://example.com:99999\""], "api_base_url", 8, "has no valid host and port"),
            (["api_base_url": "\"https:///v3\""], "api_base_url", 8, "has no valid host and port"),
            (["api_base_url": "\"https://exa mple.com\""], "api_base_url", 8, "the URL contains U+0020"),
            (["voided_purchases_poll_minutes": "-1"], "voided_purchases_poll_minutes", 8, "expected a whole number of minutes from 0 to 1440, found -1"),
            (["voided_purchases_poll_minutes": "1441"], "voided_purchases_poll_minutes", 8, "from 0 to 1440, found 1441"),
            (["voided_purchases_poll_minutes": "1.5"], "voided_purchases_poll_minutes", 8, "whole number"),
            (["notifications": notifications(["audience": "\"\""])], "notifications.audience", 9, "the audience is empty"),
            (["notifications": notifications(["audience": "\"\(String(repeating: "a", count: 2049))\""])], "notifications.audience", 9, "the audience is 2049 bytes long; the limit is 2048"),
            (["notifications": notifications(["audience": "\"https://example.com \""])], "notifications.audience", 9, "leading or trailing whitespace"),
            (["notifications": notifications(["audience": "\"a\\u0007b\""])], "notifications.audience", 9, "control character U+0007"),
            (["notifications": notifications(["push_service_account": "\"rtdn-push\""])], "notifications.push_service_account", 10, "\"rtdn-push\" does not look like an email address"),
            (["notifications": notifications(["push_service_account": "\"a@b@example.com\""])], "notifications.push_service_account", 10, "does not look like an email address"),
            (["notifications": notifications(["push_service_account": "\"push@localhost\""])], "notifications.push_service_account", 10, "does not look like an email address"),
            (["notifications": notifications(["push_service_account": "\"pu sh@example.com\""])], "notifications.push_service_account", 10, "does not look like an email address"),
            (["notifications": notifications(["jwks_url": "\"\""])], "notifications.jwks_url", 11, "the URL is empty"),
            (["notifications": notifications(["jwks_file": "\"\""])], "notifications.jwks_file", 11, "the JWKS file path is empty"),
        ]
        for (overrides, path, line, fragment) in cases {
            let error = try #require(failure(overrides))
            #expect(error.code == .invalidValue, "\(overrides)")
            #expect(error.path == "tenants[0].play_store." + path, "\(overrides)")
            #expect(error.line == line, "\(overrides)")
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
        }
        // Boundaries that are fine.
        #expect(try settings(["package_name": "\"\(long.dropFirst())\""]).packageName.utf8.count == 255)
        #expect(try settings(["package_name": "\"a.b\""]).packageName == "a.b")
        #expect(try settings(["voided_purchases_poll_minutes": "0"]).voidedPurchasesPollMinutes == 0)
        #expect(try settings(["voided_purchases_poll_minutes": "1440"]).voidedPurchasesPollMinutes == 1440)
        let audience = String(repeating: "a", count: 2048)
        #expect(try settings(["notifications": notifications(["audience": "\"\(audience)\""])]).notifications?.audience == audience)
    }

    @Test func duplicates() throws {
        defer { files.remove() }
        let environment = try #require(failure(["environments": "[\"test\", \"production\", \"test\"]"]))
        #expect(environment.code == .duplicateEntry)
        #expect(environment.path == "tenants[0].play_store.environments[2]")
        #expect(environment.message == "\"test\" is listed twice")

        let product = try #require(failure(["products": "{\"coins\": {\"type\": \"consumable\"}, \"coins\": {\"type\": \"consumable\"}}"]))
        #expect(product.code == .malformedJSON)
    }

    @Test func serviceAccountKeyFiles() throws {
        defer { files.remove() }
        let pem = files.privateKeyPEM
        let body = pem.split(separator: "\n")[1]  // A line of the key itself.
        func keyFailure(_ name: String, _ contents: String?, sourceLocation: SourceLocation = #_sourceLocation) throws
            -> TenantConfigError
        {
            if let contents { try files.write(name, contents) }
            let error = try #require(failure(["service_account_key_file": "\"\(name)\""]), sourceLocation: sourceLocation)
            #expect(error.code == .unreadableKeyFile, sourceLocation: sourceLocation)
            #expect(error.path == "tenants[0].play_store.service_account_key_file", sourceLocation: sourceLocation)
            #expect(error.line == 6, sourceLocation: sourceLocation)
            #expect(!error.description.contains(body), "the error quotes the private key", sourceLocation: sourceLocation)
            #expect(!error.description.contains("BEGIN PRIVATE KEY-----\n"), sourceLocation: sourceLocation)
            return error
        }
        let path = files.directory

        let missing = try keyFailure("missing.json", nil)
        #expect(missing.message == "cannot read service-account key file \"\(path)/missing.json\": No such file or directory")
        try FileManager.default.createDirectory(atPath: path + "/folder.json", withIntermediateDirectories: false)
        #expect(try keyFailure("folder.json", nil).message.contains("it is a directory"))
        #expect(try keyFailure("/dev/zero", nil).message == "cannot read service-account key file \"/dev/zero\": it is not a regular file")
        #expect(try keyFailure("empty.json", "").message.contains("the file is empty"))
        #expect(try keyFailure("big.json", String(repeating: " ", count: 64 * 1024 + 1)).message.contains("more than a key file can be"))

        let notJSON = try keyFailure("pem.json", pem)
        #expect(notJSON.message == "service-account key file \"\(path)/pem.json\" is not JSON")
        let shapes: [(String, String)] = [
            ("[1, 2]", "it is not a JSON object"),
            (files.serviceAccountJSON(["type": nil]), "it has no \"type\""),
            (files.serviceAccountJSON(["type": "authorized_user"]), "its \"type\" is \"authorized_user\", not \"service_account\""),
            (files.serviceAccountJSON(["type": "Service Account!"]), "its \"type\" is not \"service_account\""),
            (files.serviceAccountJSON(["type": 3]), "its \"type\" is not \"service_account\""),
            (files.serviceAccountJSON(["client_email": nil]), "it has no \"client_email\""),
            (files.serviceAccountJSON(["client_email": ""]), "its \"client_email\" is not a non-empty string"),
            (files.serviceAccountJSON(["client_email": "play-api"]), "its \"client_email\" does not look like an email address"),
            (files.serviceAccountJSON(["private_key_id": nil]), "it has no \"private_key_id\""),
            (files.serviceAccountJSON(["private_key_id": 12]), "its \"private_key_id\" is not a non-empty string"),
            (files.serviceAccountJSON(["private_key": nil]), "it has no \"private_key\""),
            (files.serviceAccountJSON(["private_key": ""]), "its \"private_key\" is not a non-empty string"),
            (files.serviceAccountJSON(["private_key": String(body)]), "its \"private_key\" is not a PEM private key"),
            (files.serviceAccountJSON(["private_key": pem.replacingOccurrences(of: "-----END PRIVATE KEY-----", with: "")]), "is not a PEM private key"),
            (files.serviceAccountJSON(["private_key": pem.replacingOccurrences(of: "PRIVATE KEY", with: "CERTIFICATE")]), "is not a PEM private key"),
            (files.serviceAccountJSON(["private_key": pem.replacingOccurrences(of: String(body), with: String(body) + "!")]), "is not a PEM private key"),
            (files.serviceAccountJSON(["token_uri": nil]), "it has no \"token_uri\""),
            (files.serviceAccountJSON(["token_uri": "http://oauth2.example.com/token"]), "its \"token_uri\" is not usable: \"http://oauth2.example.com/token\" is plain http://"),
        ]
        for (index, (contents, fragment)) in shapes.enumerated() {
            let error = try keyFailure("shape-\(index).json", contents)
            #expect(error.message.hasPrefix("\"\(path)/shape-\(index).json\" is not a service-account key file: "), "\(error.message)")
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
            #expect(error.message.contains("IAM & Admin → Service accounts → Keys"))
        }

        // Other members are Google's business; an RSA key PEM (PKCS#1) and a loopback token endpoint are fine.
        try files.write("extra.json", files.serviceAccountJSON(["universe_domain": "googleapis.com", "token_uri": "http://127.0.0.1:9000/token"]))
        #expect(try settings(["service_account_key_file": "\"extra.json\""]).serviceAccountKeyPath == path + "/extra.json")
        let pkcs1 = "-----BEGIN RSA PRIVATE KEY-----\r\nMIIB\r\nAAAA==\r\n-----END RSA PRIVATE KEY-----\r\n"
        try files.write("pkcs1.json", files.serviceAccountJSON(["private_key": pkcs1]))
        #expect(throws: Never.self) { try settings(["service_account_key_file": "\"pkcs1.json\""]) }

        // Unreadable for its permissions (root reads anything, so only checked when the mode is honoured).
        let locked = try files.write("locked.json", files.serviceAccountJSON())
        #expect(chmod(locked, 0) == 0)
        if !FileManager.default.isReadableFile(atPath: locked) {
            #expect(try keyFailure("locked.json", nil).message.contains("Permission denied"))
        }
    }

    @Test func jwksFiles() throws {
        defer { files.remove() }
        let path = files.directory
        let both = try #require(
            failure(["notifications": notifications(["jwks_url": "\"https://keys.example.com\"", "jwks_file": "\"jwks.json\""])]))
        #expect(both.code == .conflictingFields)
        #expect(both.path == "tenants[0].play_store.notifications.jwks_file")
        #expect(both.line == 11)
        #expect(both.message.contains("\"jwks_url\" and \"jwks_file\" are both given; give at most one"))

        let cases: [(String, String?, String)] = [
            ("missing.json", nil, "cannot read JWKS file \"\(path)/missing.json\": No such file or directory"),
            ("empty.json", "", "cannot read JWKS file \"\(path)/empty.json\": the file is empty"),
            ("text.json", "keys", "JWKS file \"\(path)/text.json\" is not JSON"),
            ("array.json", "[{\"kty\": \"RSA\"}]", "\"\(path)/array.json\" is not a JWKS file (a JSON object with a \"keys\" array): it is not a JSON object"),
            ("nokeys.json", "{\"key\": []}", "it has no \"keys\" array"),
            ("keyobject.json", "{\"keys\": {}}", "it has no \"keys\" array"),
            ("nothing.json", "{\"keys\": []}", "its \"keys\" is empty"),
            ("strings.json", "{\"keys\": [\"a\"]}", "its \"keys\" holds something other than objects"),
        ]
        for (name, contents, fragment) in cases {
            if let contents { try files.write(name, contents) }
            let error = try #require(failure(["notifications": notifications(["jwks_file": "\"\(name)\""])]))
            #expect(error.code == .unreadableKeyFile, "\(name)")
            #expect(error.path == "tenants[0].play_store.notifications.jwks_file", "\(name)")
            #expect(error.line == 11, "\(name)")
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
        }
    }

    @Test func productsNeedTheirEntitlementMapping() throws {
        defer { files.remove() }
        for type in ["subscription", "non_consumable"] {
            let error = try #require(failure(["products": "{\"unmapped\": {\"type\": \"\(type)\"}}"]))
            #expect(error.code == .unmappedProduct)
            #expect(error.path == "tenants[0].play_store.products[\"unmapped\"]")
            #expect(error.line == 8)
            #expect(error.message.contains("\(type) product \"unmapped\" is not in the tenant's \"products\""))
        }
        // A subscription is mapped by its own entry or by one of a base plan's; "family:yearly" maps "family" only.
        #expect(try settings(["products": "{\"family\": {\"type\": \"subscription\"}}"]).products == ["family": .subscription])
        let subscription = try #require(failure(["products": "{\"fam\": {\"type\": \"subscription\"}}"]))
        #expect(subscription.code == .unmappedProduct)
        #expect(subscription.message.contains("as \"fam\" or per base plan as \"fam:<basePlanId>\""))
        // A one-time product has no base plans: only its own entry maps it.
        let oneTime = try #require(failure(["products": "{\"family\": {\"type\": \"non_consumable\"}}"]))
        #expect(oneTime.code == .unmappedProduct)
        // An empty base plan maps nothing.
        let empty = try #require(
            failure(["products": "{\"solo\": {\"type\": \"subscription\"}}"], products: "{\"solo:\": [\"pro\"]}"))
        #expect(empty.code == .unmappedProduct)
        // Consumables grant nothing, so they need no mapping.
        #expect(try settings(["products": "{\"coins\": {\"type\": \"consumable\"}}"], products: "{}").products == ["coins": .consumable])
    }

    @Test func baseplanKeysAreProductIDs() throws {
        defer { files.remove() }
        let tenant = try #require(try load(document(fields())).tenant(id: "demo"))
        #expect(tenant.entitlements(forProduct: "family", basePlan: "yearly") == ["pro", "family"])
        #expect(tenant.entitlements(forProduct: "premium", basePlan: "monthly") == ["pro"])
    }

    // MARK: Files

    @Test func exampleFileLoadsWithItsPlayStoreSettings() throws {
        defer { files.remove() }
        let directory = try TenantConfigLoader.load(path: Self.configDirectory + "/tenants.example.json")
        let music = try #require(directory.tenant(id: "music-app"))
        let play = try #require(music.playStore)
        #expect(play.packageName == "com.example.music")
        #expect(play.serviceAccountKeyPath == Self.configDirectory + "/play-service-account.example.json")
        #expect(play.environments == [.production, .test])
        #expect(play.transferPolicy == .transfer)
        #expect(play.products == ["music_pro": .subscription, "music_family": .subscription, "music_tip": .consumable])
        #expect(play.apiBaseURL == PlayStoreSettings.defaultAPIBaseURL)
        #expect(play.voidedPurchasesPollMinutes == 60)
        let notifications = try #require(play.notifications)
        #expect(notifications.audience == "https://entitlements.example.com/v1/google/notifications/music-app")
        #expect(notifications.pushServiceAccount == "rtdn-push@example-project.iam.gserviceaccount.com")
        #expect(notifications.signingKeys == .url(PlayNotificationSettings.defaultJWKSURL))
        #expect(notifications.verifiesPushTokens)
        #expect(music.entitlements(forProduct: "music_family", basePlan: "family-yearly") == ["pro", "family"])
        #expect(music.entitlements(forProduct: "music_pro", basePlan: "monthly") == ["pro"])
        #expect(directory.tenant(id: "notes_app")?.playStore == nil)
    }
}
