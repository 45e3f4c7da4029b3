import Foundation

/// The PostgreSQL the tests use: `ENTITLEMENTD_TEST_POSTGRES`, a libpq connection string, which `Scripts/test` sets
/// to the private cluster it starts (`Scripts/postgres start`). Without it the PostgreSQL suites are skipped.
enum PostgresTestDatabase {
    static let conninfo: String? = ProcessInfo.processInfo.environment["ENTITLEMENTD_TEST_POSTGRES"]
    static var isAvailable: Bool { conninfo != nil }

    /// A table name no other test uses.
    static func uniqueTable(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }
}
