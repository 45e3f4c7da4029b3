import EntitlementDomain
import EntitlementStorage

/// Fills a database with customers through the real engine, as the server would have written them.
enum Seeder {
    /// `database`: a SQLite path, or `postgres:CONNINFO`.
    static func seed(databasePath: String, tenantID: String, customers: Int) async throws {
        let repository: SQLRepository =
            databasePath.hasPrefix("postgres:")
            ? try PostgresRepository(conninfo: String(databasePath.dropFirst("postgres:".count)))
            : try SQLiteRepository(path: databasePath, synchronous: .normal)
        let engine = CustomerEngine(repository: repository)
        for index in 0..<customers {
            _ = try await engine.customers.identify(tenantID: tenantID, appUserID: "bench-user-\(index)", anonymousID: nil)
        }
        let tenant = try Tenant(
            id: tenantID, publicKeyHashes: [], secretKeyHashes: [APIKey.hashString(APIKey.generate(.secretKey))!],
            entitlements: ["pro", "premium"], allowUndeclaredEntitlements: false, products: [:])
        for entitlement in ["pro", "premium"] {
            _ = try await engine.grants.grant(
                tenant: tenant,
                GrantRequest(
                    appUserID: "bench-user-0", entitlementID: entitlement, expiresAt: nil, durationMilliseconds: nil,
                    reason: "benchmark", idempotencyKey: nil))
        }
        print("seeded \(customers) customers into \(databasePath.hasPrefix("postgres:") ? "PostgreSQL" : databasePath)")
    }
}
