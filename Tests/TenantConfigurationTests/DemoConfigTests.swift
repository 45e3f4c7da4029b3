import EntitlementDomain
import TenantConfiguration
import TestSupport
import Testing

@Suite struct DemoConfigTests {
    private static func configPath(_ name: String) -> String { RepositoryFiles.path("Config/" + name) }

    @Test func demoFileLoadsAndItsDemoKeysAuthenticate() throws {
        let directory = try TenantConfigLoader.load(path: Self.configPath("tenants.demo.json"))
        #expect(directory.tenants.map(\.id) == ["demo"])
        let demo = try #require(directory.tenant(id: "demo"))
        #expect(demo.declaredEntitlements == ["pro", "premium"])
        #expect(!demo.allowUndeclaredEntitlements)
        #expect(demo.entitlements(forProduct: "com.example.pro.monthly") == ["pro"])
        #expect(demo.entitlements(forProduct: "com.example.pro.yearly") == ["pro"])
        #expect(demo.entitlements(forProduct: "com.example.premium.lifetime") == ["premium", "pro"])

        let sdk = try #require(directory.authenticate(bearer: "pk_demo_public_key_for_local_testing_only"))
        #expect(sdk.tenant.id == "demo")
        #expect(sdk.key.kind == .publicKey)
        let admin = try #require(directory.authenticate(bearer: "sk_demo_secret_key_for_local_testing_only"))
        #expect(admin.tenant.id == "demo")
        #expect(admin.key.kind == .secretKey)
        #expect(directory.authenticate(bearer: "pk_demo_secret_key_for_local_testing_only") == nil)
    }

    @Test func exampleFileLoads() throws {
        let directory = try TenantConfigLoader.load(path: Self.configPath("tenants.example.json"))
        #expect(directory.tenants.map(\.id) == ["music-app", "notes_app"])
        #expect(directory.tenant(id: "notes_app")?.allowUndeclaredEntitlements == true)
        #expect(directory.tenant(id: "music-app")?.publicKeys.count == 2)
        #expect(directory.tenant(id: "music-app")?.declaredEntitlements == ["pro", "family", "beta_access"])
    }
}
