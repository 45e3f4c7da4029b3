import EntitlementDomain
import EntitlementServices
import Testing

@testable import EntitlementServer

/// `[grpc_web]` and the CORS policy built from the tenants.
struct GRPCWebConfigTests {
    @Test func defaultsAndKeys() throws {
        let (defaults, directory) = try loadConfig(configText())
        defer { directory.remove() }
        #expect(defaults.grpcWebHeartbeat == .seconds(25))
        #expect(defaults.grpcWebCORSMaxAgeSeconds == 600)

        let (config, other) = try loadConfig(configText("[grpc_web]\nheartbeat_seconds = 2\ncors_max_age_seconds = 0\n"))
        defer { other.remove() }
        #expect(config.grpcWebHeartbeat == .seconds(2))
        #expect(config.grpcWebCORSMaxAgeSeconds == 0)
    }

    @Test func outOfRange() {
        let heartbeat = configError(configText("[grpc_web]\nheartbeat_seconds = 0\n"))
        #expect(heartbeat?.description.contains("an integer between 1 and 3600") == true, "\(String(describing: heartbeat))")
        let maxAge = configError(configText("[grpc_web]\ncors_max_age_seconds = 86401\n"))
        #expect(maxAge?.description.contains("an integer between 0 and 86400") == true, "\(String(describing: maxAge))")
    }

    /// A preflight has no key: any tenant's origin is allowed, and a reload applies at once.
    @Test func originsAreTheUnionOfTheTenantsInForce() throws {
        func tenant(_ id: String, _ origins: [String]?) throws -> Tenant {
            let key = "pk_" + String(repeating: id == "a" ? "a" : "b", count: 64)
            return try Tenant(
                id: id, publicKeyHashes: [APIKey.hashString(key)!], browser: origins.map(BrowserSettings.init(allowedOrigins:)))
        }
        let registry = TenantRegistry(
            try TenantDirectory(tenants: [try tenant("a", ["https://a.example"]), try tenant("b", nil)]))
        let policy = TenantBrowserOrigins(tenants: registry, maxAgeSeconds: 600)
        #expect(policy.allowsOrigin("https://a.example"))
        #expect(!policy.allowsOrigin("https://b.example"))
        #expect(policy.maxAgeSeconds == 600)
        registry.replace(with: try TenantDirectory(tenants: [try tenant("a", nil), try tenant("b", ["https://b.example"])]))
        #expect(!policy.allowsOrigin("https://a.example"))
        #expect(policy.allowsOrigin("https://b.example"))
    }
}
