import Crypto
import Encodings
public import EntitlementStorage
import EntitlementDomain
import Foundation

/// Which database the tests that touch storage run on: SQLite by default, PostgreSQL when
/// `ENTITLEMENTD_TEST_STORE=postgres` (then `ENTITLEMENTD_TEST_POSTGRES` names the server, a libpq connection
/// string, as `Scripts/test` sets both for its second run of the suite).
public enum TestDatabase {
    public static let isPostgres = ProcessInfo.processInfo.environment["ENTITLEMENTD_TEST_STORE"] == "postgres"
    public static let postgresConninfo = ProcessInfo.processInfo.environment["ENTITLEMENTD_TEST_POSTGRES"]

    /// The repository for the database at `sqlitePath`: that SQLite file, or on PostgreSQL a schema of its own
    /// named after the path, so opening the same path again (a restart in a test) reopens the same data.
    public static func repository(sqlitePath: String, synchronous: SQLiteRepository.Synchronous = .normal)
        throws -> SQLRepository
    {
        guard isPostgres else { return try SQLiteRepository(path: sqlitePath, synchronous: synchronous) }
        return try PostgresRepository(conninfo: try postgresDatabase(for: sqlitePath))
    }

    /// The connection string of the PostgreSQL schema standing for `sqlitePath`, created if need be (a schema
    /// costs far less than a database, which copies a template). The cluster is the tests' own and is destroyed
    /// after the run, so schemas are not dropped one by one.
    public static func postgresDatabase(for sqlitePath: String) throws -> String {
        guard let base = postgresConninfo else {
            throw StorageError.unavailable("ENTITLEMENTD_TEST_STORE=postgres needs ENTITLEMENTD_TEST_POSTGRES")
        }
        let name = "t_" + Hex.encode(SHA256.hash(sqlitePath).prefix(12))
        try PostgresAdministration.createSchema(name, conninfo: base)
        return base + " options=-csearch_path=\(name)"
    }
}
