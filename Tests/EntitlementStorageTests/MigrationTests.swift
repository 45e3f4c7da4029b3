import Foundation
import Testing

@testable import EntitlementStorage

@Suite("Schema migrations")
struct MigrationTests {
    private func tables(_ connection: SQLiteConnection) throws -> [String] {
        try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
    }

    private func appliedVersions(_ connection: SQLiteConnection) throws -> [Int64] {
        try connection.rows("SELECT version FROM schema_migrations ORDER BY version") { $0.int64(0) }
    }

    @Test func migratesAnEmptyDatabase() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        let raw = try database.rawConnection()
        #expect(try tables(raw) == ["app_user_ids", "customers", "events", "grants", "schema_migrations"])
        #expect(try appliedVersions(raw) == Migrations.all.map(\.version))
        #expect(try raw.row("PRAGMA journal_mode") { $0.string(0) } == "wal")
        let appliedAt = try raw.row("SELECT applied_at FROM schema_migrations") { $0.int64(0) }
        #expect((appliedAt ?? 0) > 1_600_000_000_000)  // wall-clock milliseconds
    }

    @Test func reopeningAppliesNothingTwiceAndKeepsData() throws {
        let database = try TemporaryDatabase()
        do {
            let store = try database.open()
            _ = try store.write { try $0.customer("t", "alice") }
        }
        for _ in 0..<3 {
            let store = try database.open()
            #expect(try store.snapshot(tenantID: "t", appUserID: "alice")?.customer.appUserID == "alice")
        }
        #expect(try appliedVersions(database.rawConnection()) == Migrations.all.map(\.version))
    }

    @Test func refusesASchemaFromANewerBuild() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        try database.rawConnection().execute("INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)")
        let error = expectStoreError(.corrupt) { try database.open() }
        #expect(error?.message.contains("999") == true)
        #expect(error?.message.contains("version \(Migrations.latestVersion)") == true)
    }

    @Test func pendingMigrationsApplyInOneTransaction() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        let raw = try database.rawConnection()
        let broken = Migrations.all + [
            Migrations.Migration(version: 2, sql: "CREATE TABLE half_done (x INTEGER)"),
            Migrations.Migration(version: 3, sql: "CREATE TABLE broken ("),
        ]
        expectStoreError(.unavailable) { try Migrations.apply(broken, on: raw, now: time(0)) }
        #expect(try !tables(raw).contains("half_done"))
        #expect(try appliedVersions(raw) == [1])
        #expect(raw.isAutocommit)

        // The same list without the broken step applies, and only the new version is added.
        try Migrations.apply(Array(broken.dropLast()), on: raw, now: time(0))
        #expect(try tables(raw).contains("half_done"))
        #expect(try appliedVersions(raw) == [1, 2])
    }

    @Test func refusesAFileThatIsNotADatabase() throws {
        let database = try TemporaryDatabase()
        let garbage = [UInt8](repeating: 0x5A, count: 4096)
        #expect(FileManager.default.createFile(atPath: database.path, contents: Data(garbage)))
        expectStoreError(.corrupt) { try database.open() }
    }
}

