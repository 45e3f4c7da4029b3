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

extension PostgresTestDatabase {
    /// The connection string that reaches the tests' cluster over TCP with TLS, verifying its certificate
    /// (`Scripts/postgres` writes it beside the cluster); nil without a cluster.
    static var tlsConninfo: String? {
        guard let conninfo, let host = conninfo.split(separator: " ").first(where: { $0.hasPrefix("host=") }) else {
            return nil
        }
        let path = host.dropFirst("host=".count) + "/tls-conninfo"
        return (try? String(contentsOfFile: String(path), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
