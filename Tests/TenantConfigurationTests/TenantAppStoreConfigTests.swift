import EntitlementDomain
import TenantConfiguration
import TestSupport
import Testing

/// The `app_store` object of a tenant configuration.
@Suite struct TenantAppStoreConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!

    /// The repository's Config/ directory, which holds AppleRootCA-G3.cer.
    static let configDirectory = RepositoryFiles.path("Config")

    /// A document whose line 4 is `"app_store": {`, followed by `fields` one per line (so the first is on line 5).
    private func document(_ fields: [String], products: String = Self.mappedProducts) -> String {
        SettingsDocument.text(section: "app_store", fields: fields, publicHash: Self.publicHash, products: products)
    }

    static let mappedProducts =
        "{\"com.example.pro.monthly\": [\"pro\"], \"com.example.lifetime\": [\"premium\"], \"com.example.pass\": [\"pro\"]}"

    /// The fields of a valid Sandbox-only `app_store`, with `overrides` replacing or adding fields by key.
    private func fields(_ overrides: [String: String?] = [:]) -> [String] {
        let base: [(String, String?)] = [
            ("bundle_id", "\"com.example.app\""),
            ("environments", "[\"Sandbox\"]"),
        ]
        return SettingsDocument.fields(base, overriddenBy: overrides)
    }

    private func load(_ text: String, directory: String = Self.configDirectory) throws(TenantConfigError) -> TenantDirectory {
        try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: directory)
    }

    private func settings(_ overrides: [String: String?] = [:], products: String = Self.mappedProducts) throws
        -> AppStoreSettings
    {
        try #require(try load(document(fields(overrides), products: products)).tenant(id: "demo")?.appStore)
    }

    private func failure(
        _ overrides: [String: String?], products: String = Self.mappedProducts, directory: String = Self.configDirectory,
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

    @Test func absentMeansNoAppStore() throws {
        let directory = try load("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}")
        #expect(directory.tenant(id: "a")?.appStore == nil)
    }

    @Test func fullSettings() throws {
        let settings = try settings([
            "app_apple_id": "1234567890",
            "environments": "[\"Production\", \"Sandbox\"]",
            "root_certificates": "[\"./../Config//AppleRootCA-G3.cer\"]",
            "grace_period_days": "16",
            "transfer_policy": "\"transfer_if_no_active\"",
            "_comment": "\"notes\"",
            "products": """
                {"com.example.pro.monthly": {"type": "auto_renewable"}, "com.example.lifetime": {"type": "non_consumable"},
                "com.example.coins": {"type": "consumable"}, "com.example.pass": {"type": "non_renewing", "duration_days": 30}}
                """,
        ])
        #expect(settings.bundleID == "com.example.app")
        #expect(settings.appAppleID == 1_234_567_890)
        #expect(settings.environments == [.production, .sandbox])
        #expect(settings.accepts(.production) && !settings.accepts(.xcode))
        let root = Self.configDirectory + "/AppleRootCA-G3.cer"
        #expect(settings.rootCertificatePaths == [root])
        #expect(settings.gracePeriodDays == 16)
        #expect(settings.transferPolicy == .transferIfNoActive)
        #expect(settings.products["com.example.pro.monthly"] == AppStoreProduct(type: .autoRenewable))
        #expect(settings.products["com.example.lifetime"] == AppStoreProduct(type: .nonConsumable))
        #expect(settings.products["com.example.coins"] == AppStoreProduct(type: .consumable))
        #expect(settings.products["com.example.pass"] == AppStoreProduct(type: .nonRenewing, durationDays: 30))
    }

    @Test func defaults() throws {
        let settings = try settings()
        #expect(settings.appAppleID == nil)
        #expect(settings.environments == [.sandbox])
        #expect(settings.rootCertificatePaths == [Self.configDirectory + "/AppleRootCA-G3.cer"])
        #expect(settings.gracePeriodDays == 0)
        #expect(settings.transferPolicy == .transfer)
        #expect(settings.products.isEmpty)
    }

    @Test func localEnvironmentsOnlyWhenListedAndWithoutProduction() throws {
        #expect(try settings(["environments": "[\"Sandbox\", \"Xcode\", \"LocalTesting\"]"]).environments == [.sandbox, .xcode, .localTesting])
        #expect(try settings(["environments": "[\"Xcode\"]"]).environments == [.xcode])
        #expect(!(try settings(["environments": "[\"Sandbox\"]"]).accepts(.xcode)))
        #expect(AppStoreEnvironmentName.allCases.map(\.rawValue) == ["Production", "Sandbox", "Xcode", "LocalTesting"])
        #expect(AppStoreEnvironmentName.xcode.isLocal && AppStoreEnvironmentName.localTesting.isLocal)
        #expect(!AppStoreEnvironmentName.production.isLocal && !AppStoreEnvironmentName.sandbox.isLocal)
    }

    @Test func relativeRootsFollowTheTenantsFileAndAbsoluteOnesStay() throws {
        let absolute = Self.configDirectory + "/AppleRootCA-G3.cer"
        #expect(try settings(["root_certificates": "[\"\(absolute)\"]"]).rootCertificatePaths == [absolute])
        // The directory of the file given to load(path:) is the base.
        let directory = try TenantConfigLoader.load(path: Self.configDirectory + "/../Config/tenants.example.json")
        #expect(directory.tenant(id: "notes_app")?.appStore?.rootCertificatePaths == [absolute])
    }

    // MARK: Errors

    @Test func unknownFields() throws {
        let typo = try #require(failure(["grace_period_day": "3"]))
        #expect(typo.code == .unknownField)
        #expect(typo.path == "tenants[0].app_store.grace_period_day")
        #expect(typo.line == 7)
        #expect(typo.message.contains("did you mean \"grace_period_days\"?"))

        let productField = try #require(failure(["products": "{\"com.example.pro.monthly\": {\"type\": \"auto_renewable\", \"days\": 3}}"]))
        #expect(productField.code == .unknownField)
        #expect(productField.path == "tenants[0].app_store.products[\"com.example.pro.monthly\"].days")
    }

    @Test func missingFields() throws {
        let noBundle = try #require(failure(["bundle_id": nil]))
        #expect(noBundle.code == .missingField)
        #expect(noBundle.path == "tenants[0].app_store")
        #expect(noBundle.line == 4)
        #expect(noBundle.message.contains("\"bundle_id\""))

        let noEnvironments = try #require(failure(["environments": nil]))
        #expect(noEnvironments.code == .missingField)
        #expect(noEnvironments.message.contains("\"environments\""))

        let noAppleID = try #require(failure(["environments": "[\"Production\"]"]))
        #expect(noAppleID.code == .missingField)
        #expect(noAppleID.path == "tenants[0].app_store")
        #expect(noAppleID.line == 4)
        #expect(noAppleID.message.contains("\"app_apple_id\": it is required when \"Production\" is accepted"))
        // Without Production it is optional, and allowed.
        #expect(try settings(["app_apple_id": "42"]).appAppleID == 42)
    }

    @Test func wrongTypes() throws {
        let cases: [([String: String?], String, String)] = [
            (["bundle_id": "7"], "tenants[0].app_store.bundle_id", "expected a string, found a number"),
            (["app_apple_id": "\"123\""], "tenants[0].app_store.app_apple_id", "expected a number, found a string"),
            (["environments": "\"Sandbox\""], "tenants[0].app_store.environments", "expected an array, found a string"),
            (["environments": "[1]"], "tenants[0].app_store.environments[0]", "expected a string, found a number"),
            (["root_certificates": "\"AppleRootCA-G3.cer\""], "tenants[0].app_store.root_certificates", "expected an array, found a string"),
            (["root_certificates": "[null]"], "tenants[0].app_store.root_certificates[0]", "expected a string, found null"),
            (["grace_period_days": "\"16\""], "tenants[0].app_store.grace_period_days", "expected a number, found a string"),
            (["transfer_policy": "true"], "tenants[0].app_store.transfer_policy", "expected a string, found a boolean"),
            (["products": "[]"], "tenants[0].app_store.products", "expected an object of product ID → {\"type\": ...}, found an array"),
            (["products": "{\"com.example.lifetime\": \"non_consumable\"}"], "tenants[0].app_store.products[\"com.example.lifetime\"]", "expected an object, found a string"),
            (["products": "{\"com.example.lifetime\": {\"type\": 1}}"], "tenants[0].app_store.products[\"com.example.lifetime\"].type", "expected a string, found a number"),
            (["_comment": "2"], "tenants[0].app_store._comment", "expected a string or an array of strings, found a number"),
        ]
        for (overrides, path, message) in cases {
            let error = try #require(failure(overrides))
            #expect(error.code == .typeMismatch)
            #expect(error.path == path)
            #expect(error.message == message)
        }
    }

    @Test func appStoreMustBeAnObject() throws {
        do {
            _ = try load("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"], \"app_store\": true}]}")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.path == "tenants[0].app_store")
        }
    }

    @Test func badValues() throws {
        let cases: [([String: String?], String, String)] = [
            (["bundle_id": "\"\""], "tenants[0].app_store.bundle_id", "empty"),
            (["bundle_id": "\"com.example app\""], "tenants[0].app_store.bundle_id", "whitespace"),
            (["app_apple_id": "0"], "tenants[0].app_store.app_apple_id", "positive whole number"),
            (["app_apple_id": "-5"], "tenants[0].app_store.app_apple_id", "positive whole number"),
            (["app_apple_id": "1.5"], "tenants[0].app_store.app_apple_id", "positive whole number"),
            (["app_apple_id": "99999999999999999999"], "tenants[0].app_store.app_apple_id", "positive whole number"),
            (["environments": "[]"], "tenants[0].app_store.environments", "no environments"),
            (["environments": "[\"Sandbox\", \"Staging\"]"], "tenants[0].app_store.environments[1]", "unknown App Store environment \"Staging\""),
            (["environments": "[\"sandbox\"]"], "tenants[0].app_store.environments[0]", "did you mean \"Sandbox\"?"),
            (["root_certificates": "[]"], "tenants[0].app_store.root_certificates", "no root certificates"),
            (["root_certificates": "[\"\"]"], "tenants[0].app_store.root_certificates[0]", "empty"),
            (["grace_period_days": "61"], "tenants[0].app_store.grace_period_days", "from 0 to 60, found 61"),
            (["grace_period_days": "-1"], "tenants[0].app_store.grace_period_days", "from 0 to 60"),
            (["grace_period_days": "1.5"], "tenants[0].app_store.grace_period_days", "whole number"),
            (["transfer_policy": "\"transfer_always\""], "tenants[0].app_store.transfer_policy", "unknown transfer policy \"transfer_always\"; expected one of \"transfer\", \"transfer_if_no_active\", \"keep_with_original\""),
            (["products": "{\"com.example.lifetime\": {\"type\": \"subscription\"}}"], "tenants[0].app_store.products[\"com.example.lifetime\"].type", "unknown product type \"subscription\""),
            (["products": "{\" com.example.lifetime\": {\"type\": \"consumable\"}}"], "tenants[0].app_store.products[\" com.example.lifetime\"]", "leading or trailing whitespace"),
        ]
        for (overrides, path, fragment) in cases {
            let error = try #require(failure(overrides))
            #expect(error.code == .invalidValue, "\(overrides)")
            #expect(error.path == path, "\(overrides)")
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
        }
        // Boundaries that are fine.
        #expect(try settings(["grace_period_days": "60"]).gracePeriodDays == 60)
        #expect(try settings(["grace_period_days": "0"]).gracePeriodDays == 0)
    }

    @Test func duplicates() throws {
        let environment = try #require(failure(["environments": "[\"Sandbox\", \"Xcode\", \"Sandbox\"]"]))
        #expect(environment.code == .duplicateEntry)
        #expect(environment.path == "tenants[0].app_store.environments[2]")
        #expect(environment.message == "\"Sandbox\" is listed twice")

        let root = try #require(failure(["root_certificates": "[\"AppleRootCA-G3.cer\", \"./AppleRootCA-G3.cer\"]"]))
        #expect(root.code == .duplicateEntry)
        #expect(root.path == "tenants[0].app_store.root_certificates[1]")

        let product = try #require(failure(["products": "{\"com.example.coins\": {\"type\": \"consumable\"}, \"com.example.coins\": {\"type\": \"consumable\"}}"]))
        #expect(product.code == .malformedJSON)
    }

    @Test func productionNeverTakesLocalData() throws {
        for local in ["Xcode", "LocalTesting"] {
            let error = try #require(failure(["app_apple_id": "1", "environments": "[\"Production\", \"Sandbox\", \"\(local)\"]"]))
            #expect(error.code == .conflictingEnvironments)
            #expect(error.path == "tenants[0].app_store.environments[2]")
            #expect(error.line == 6)
            #expect(error.message.contains("\"\(local)\" cannot be accepted together with \"Production\""))
            #expect(error.message.contains("not by the App Store"))
            #expect(error.message.contains("a production tenant must never accept local data"))
        }
        // Order does not matter, and the check comes before the app_apple_id one.
        let first = try #require(failure(["environments": "[\"Xcode\", \"Production\"]"]))
        #expect(first.code == .conflictingEnvironments)
        #expect(first.path == "tenants[0].app_store.environments[0]")
    }

    @Test func unreadableRoots() throws {
        let missing = try #require(failure(["root_certificates": "[\"AppleRootCA-G3.cer\", \"missing.pem\"]"]))
        #expect(missing.code == .unreadableCertificate)
        #expect(missing.path == "tenants[0].app_store.root_certificates[1]")
        #expect(missing.line == 7)
        #expect(missing.message == "cannot read root certificate \"\(Self.configDirectory)/missing.pem\": No such file or directory")

        let folder = try #require(failure(["root_certificates": "[\"/tmp\"]"]))
        #expect(folder.code == .unreadableCertificate)
        #expect(folder.message.contains("it is a directory"))

        let empty = try #require(failure(["root_certificates": "[\"/dev/null\"]"]))
        #expect(empty.code == .unreadableCertificate)
        #expect(empty.message.contains("the file is empty"))

        // The default root must exist next to the tenants file.
        let noDefault = try #require(failure([:], directory: "/nonexistent/config"))
        #expect(noDefault.code == .unreadableCertificate)
        #expect(noDefault.path == "tenants[0].app_store")
        #expect(noDefault.line == 4)
        #expect(noDefault.message.contains("\"/nonexistent/config/AppleRootCA-G3.cer\""))
        #expect(noDefault.message.contains("root_certificates"))
        // Listed roots do not need the default one.
        #expect(throws: Never.self) {
            try load(document(fields(["root_certificates": "[\"\(Self.configDirectory)/AppleRootCA-G3.cer\"]"])), directory: "/nonexistent/config")
        }
    }

    @Test func productsNeedTheirEntitlementMapping() throws {
        for type in ["auto_renewable", "non_consumable"] {
            let error = try #require(failure(["products": "{\"com.example.unmapped\": {\"type\": \"\(type)\"}}"]))
            #expect(error.code == .unmappedProduct)
            #expect(error.path == "tenants[0].app_store.products[\"com.example.unmapped\"]")
            #expect(error.message.contains("\(type) product \"com.example.unmapped\" is not in the tenant's \"products\""))
        }
        let pass = try #require(failure(["products": "{\"com.example.unmapped\": {\"type\": \"non_renewing\", \"duration_days\": 7}}"]))
        #expect(pass.code == .unmappedProduct)
        // Consumables grant nothing, so they need no mapping.
        #expect(try settings(["products": "{\"com.example.coins\": {\"type\": \"consumable\"}}"], products: "{}").products.count == 1)
    }

    @Test func durationDays() throws {
        let missing = try #require(failure(["products": "{\"com.example.pass\": {\"type\": \"non_renewing\"}}"]))
        #expect(missing.code == .missingField)
        #expect(missing.path == "tenants[0].app_store.products[\"com.example.pass\"]")
        #expect(missing.message.contains("\"duration_days\""))

        for days in ["0", "3661", "2.5", "-3"] {
            let error = try #require(failure(["products": "{\"com.example.pass\": {\"type\": \"non_renewing\", \"duration_days\": \(days)}}"]))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].app_store.products[\"com.example.pass\"].duration_days")
            #expect(error.message.contains("from 1 to 3660"))
        }
        for days in [1, 3660] {
            let settings = try settings(["products": "{\"com.example.pass\": {\"type\": \"non_renewing\", \"duration_days\": \(days)}}"])
            #expect(settings.products["com.example.pass"]?.durationDays == days)
        }
        for type in ["auto_renewable", "non_consumable", "consumable"] {
            let error = try #require(failure(["products": "{\"com.example.pro.monthly\": {\"type\": \"\(type)\", \"duration_days\": 30}}"]))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].app_store.products[\"com.example.pro.monthly\"].duration_days")
            #expect(error.message.contains("only non_renewing products"))
        }
        let noType = try #require(failure(["products": "{\"com.example.pass\": {\"duration_days\": 30}}"]))
        #expect(noType.code == .missingField)
        #expect(noType.message.contains("\"type\""))
    }

    // MARK: Code and files

    @Test func exampleFileLoadsWithItsAppStoreSettings() throws {
        let directory = try TenantConfigLoader.load(path: Self.configDirectory + "/tenants.example.json")
        let root = Self.configDirectory + "/AppleRootCA-G3.cer"
        let music = try #require(directory.tenant(id: "music-app")?.appStore)
        #expect(music.bundleID == "com.example.music")
        #expect(music.appAppleID == 1_234_567_890)
        #expect(music.environments == [.production, .sandbox])
        #expect(music.rootCertificatePaths == [root])
        #expect(music.gracePeriodDays == 16)
        #expect(music.transferPolicy == .transfer)
        #expect(music.products["com.example.music.pass.30days"] == AppStoreProduct(type: .nonRenewing, durationDays: 30))
        #expect(music.products["com.example.music.tip"]?.type == .consumable)
        #expect(music.products.count == 5)

        let notes = try #require(directory.tenant(id: "notes_app")?.appStore)
        #expect(notes.environments == [.sandbox, .xcode])
        #expect(notes.appAppleID == nil)
        #expect(notes.rootCertificatePaths == [root])
        #expect(notes.transferPolicy == .keepWithOriginal)
        #expect(notes.products == ["com.example.notes.lifetime": AppStoreProduct(type: .nonConsumable)])
    }

    @Test func demoFileTrustsTheLocalCAForSandboxOnly() throws {
        let directory = try TenantConfigLoader.load(path: Self.configDirectory + "/tenants.demo.json")
        let settings = try #require(directory.tenant(id: "demo")?.appStore)
        #expect(settings.environments == [.sandbox])
        #expect(settings.rootCertificatePaths == [Self.configDirectory + "/dev-ca/root.pem"])
        #expect(settings.products["com.example.pro.monthly"]?.type == .autoRenewable)
    }
}
