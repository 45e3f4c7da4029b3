import EntitlementDomain
@testable import EntitlementStorage
import Foundation
import Synchronization
import Testing

@Suite(.enabled(if: PostgresTestDatabase.isAvailable, "ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL"))
struct PostgresMigratorTests {
    /// A database of its own, dropped at the end, so schema_migrations starts empty.
    static func withDatabase(_ body: (String) throws -> Void) throws {
        let base = try #require(PostgresTestDatabase.conninfo)
        let name = PostgresTestDatabase.uniqueTable("migrate")
        let admin = try PostgresConnection(conninfo: base)
        try admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
        try body(base + " dbname=\(name)")
    }

    static let migrations = [
        PostgresMigration(version: 1, sql: "CREATE TABLE a (id bigint PRIMARY KEY)"),
        PostgresMigration(version: 2, sql: "ALTER TABLE a ADD COLUMN name text NOT NULL DEFAULT ''"),
    ]

    @Test func missingVersionsAreAppliedOnceInOrder() throws {
        try Self.withDatabase { conninfo in
            let connection = try PostgresConnection(conninfo: conninfo)
            #expect(try PostgresMigrator.migrate(connection, to: [Self.migrations[0]]) == [1])
            #expect(try PostgresMigrator.migrate(connection, to: Self.migrations) == [2])
            #expect(try PostgresMigrator.migrate(connection, to: Self.migrations) == [])
            #expect(try connection.query("INSERT INTO a (id, name) VALUES (1, 'x')").affected == 1)
        }
    }

    @Test func aFailingMigrationLeavesTheLastWholeVersion() throws {
        try Self.withDatabase { conninfo in
            let connection = try PostgresConnection(conninfo: conninfo)
            let broken = Self.migrations + [
                PostgresMigration(version: 3, sql: "CREATE TABLE b (id bigint); ALTER TABLE nowhere ADD COLUMN x int"),
            ]
            let error = #expect(throws: StorageError.self) { try PostgresMigrator.migrate(connection, to: broken) }
            #expect(error?.message.contains("migration 3") == true)
            #expect(try connection.query("SELECT max(version) FROM schema_migrations").rows == [["2"]])
            // Table b came and went with the failed migration's transaction.
            #expect(try connection.query("SELECT to_regclass('b') IS NULL").rows == [["t"]])
            #expect(connection.isIdle)
        }
    }

    @Test func aDatabaseFromANewerBuildIsRefused() throws {
        try Self.withDatabase { conninfo in
            let connection = try PostgresConnection(conninfo: conninfo)
            try PostgresMigrator.migrate(connection, to: Self.migrations)
            let error = #expect(throws: StorageError.self) { try PostgresMigrator.migrate(connection, to: [Self.migrations[0]]) }
            #expect(error?.message.contains("schema version 2") == true)
        }
    }

    @Test func instancesStartingTogetherTakeTurns() throws {
        try Self.withDatabase { conninfo in
            // Four "instances" migrate at once: each version is applied exactly once.
            let results = AppliedVersions()
            let threads = (0..<4).map { _ in
                Thread {
                    guard let connection = try? PostgresConnection(conninfo: conninfo),
                        let applied = try? PostgresMigrator.migrate(connection, to: Self.migrations)
                    else { return results.record([-1]) }
                    results.record(applied)
                }
            }
            threads.forEach { $0.start() }
            while results.count < 4 { Thread.sleep(forTimeInterval: 0.01) }
            #expect(results.all.flatMap { $0 }.sorted() == [1, 2])
        }
    }
}

/// What each concurrent migrator applied.
final class AppliedVersions: Sendable {
    private let lists = Mutex<[[Int64]]>([])
    var all: [[Int64]] { lists.withLock { $0 } }
    var count: Int { lists.withLock { $0.count } }
    func record(_ versions: [Int64]) { lists.withLock { $0.append(versions) } }
}
