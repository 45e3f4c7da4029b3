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
}
