import Crypto
import EntitlementDomain
import Foundation
import TenantConfiguration
import TestSupport
import Testing

/// `app_store.server_api`: the tenant's In-App Purchase key and Apple's hosts.
@Suite struct TenantAppStoreServerAPIConfigTests {
    static let keyID = "\"2X9R4HXF34\""
    static let issuerID = "\"57246542-96fe-1a63-e053-0824d011072a\""

    /// A directory holding a fresh `.p8` key and a file that is not one, removed with the value.
    final class KeyFiles {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appstore-api-keys-\(UUID().uuidString)")
        var key: String { directory.appendingPathComponent("SubscriptionKey.p8").path }
        var notAKey: String { directory.appendingPathComponent("notes.txt").path }

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try P256.PrivateKey().pemRepresentation.write(toFile: key, atomically: true, encoding: .utf8)
            try "not a key".write(toFile: notAKey, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    func load(serverAPI fields: [String]) throws(TenantConfigError) -> AppStoreServerAPISettings? {
        let section = "\"server_api\": {" + fields.joined(separator: ", ") + "}"
        let text = SettingsDocument.text(
            section: "app_store",
            fields: ["\"bundle_id\": \"com.example.app\"", "\"environments\": [\"Sandbox\"]", section],
            publicHash: APIKey.hashString("pk_test_public")!, products: "{}")
        return try TenantConfigLoader.parse(
            Array(text.utf8), file: "tenants.json", directory: RepositoryFiles.path("Config")
        ).tenant(id: "demo")?.appStore?.serverAPI
    }

    func failure(_ fields: [String], sourceLocation: SourceLocation = #_sourceLocation) -> TenantConfigError? {
        do {
            _ = try load(serverAPI: fields)
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test func aKeyWithItsIDsAndApplesHostsByDefault() throws {
        let files = try KeyFiles()
        let settings = try #require(
            try load(serverAPI: ["\"key_file\": \"\(files.key)\"", "\"key_id\": \(Self.keyID)", "\"issuer_id\": \(Self.issuerID)"]))
        #expect(settings.keyFilePath == files.key)
        #expect(settings.keyID == "2X9R4HXF34" && settings.issuerID == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(settings.productionURL == "https://api.storekit.apple.com")
        #expect(settings.sandboxURL == "https://api.storekit-sandbox.apple.com")
        #expect(!settings.restoreConsultsHistory)
        let consulting = try #require(
            try load(serverAPI: [
                "\"key_file\": \"\(files.key)\"", "\"key_id\": \(Self.keyID)", "\"issuer_id\": \(Self.issuerID)",
                "\"restore_consults_history\": true",
            ]))
        #expect(consulting.restoreConsultsHistory)
    }

    @Test func hostsMayBeALocalFake() throws {
        let files = try KeyFiles()
        let settings = try #require(
            try load(serverAPI: [
                "\"key_file\": \"\(files.key)\"", "\"key_id\": \(Self.keyID)", "\"issuer_id\": \(Self.issuerID)",
                "\"production_url\": \"http://127.0.0.1:8123\"", "\"sandbox_url\": \"http://127.0.0.1:8124/\"",
            ]))
        #expect(settings.productionURL == "http://127.0.0.1:8123" && settings.sandboxURL == "http://127.0.0.1:8124/")
    }

    @Test func whatIsWrongIsSaidAtTheField() throws {
        let files = try KeyFiles()
        let key = "\"key_file\": \"\(files.key)\""
        let ids = ["\"key_id\": \(Self.keyID)", "\"issuer_id\": \(Self.issuerID)"]
        let cases: [([String], String, String)] = [
            (ids, ".server_api", "missing \"key_file\""),
            ([key, ids[1]], ".server_api", "missing \"key_id\""),
            ([key, ids[0]], ".server_api", "missing \"issuer_id\""),
            (["\"key_file\": \"\(files.notAKey)\""] + ids, ".server_api.key_file", "is not an In-App Purchase key"),
            (["\"key_file\": \"/nonexistent/key.p8\""] + ids, ".server_api.key_file", "cannot read"),
            ([key, "\"key_id\": \"2x9r4hxf34\"", ids[1]], ".server_api.key_id", "10 capital letters"),
            ([key, ids[0], "\"issuer_id\": \"57246542\""], ".server_api.issuer_id", "UUID"),
            ([key] + ids + ["\"production_url\": \"https://api.example.com/v1\""], ".server_api.production_url", "no path"),
            ([key] + ids + ["\"sandbox_url\": \"http://api.example.com\""], ".server_api.sandbox_url", "http"),
            ([key] + ids + ["\"key\": 1"], ".server_api.key", "key"),
            ([key] + ids + ["\"restore_consults_history\": \"yes\""], ".server_api.restore_consults_history", "true or false"),
        ]
        for (fields, path, needle) in cases {
            let error = try #require(failure(fields), "\(fields)")
            #expect(error.path?.hasSuffix(path) == true, "\(error)")
            #expect(error.description.contains(needle), "\(error)")
            // Never what a key file holds.
            #expect(!error.description.contains("not a key"))
        }
    }
}
