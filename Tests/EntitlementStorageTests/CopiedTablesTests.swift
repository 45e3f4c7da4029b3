import Testing
import TestSupport

@testable import EntitlementStorage

/// `migrate-store` copies every table the schema has: one a migration adds and the copy forgets would be left behind
/// (with the totals that count its rows copied all the same).
@Suite struct CopiedTablesTests {
    @Test(.enabled(if: !TestDatabase.isPostgres, "the schema read is SQLite's; PostgreSQL's has the same tables"))
    func everyTableOfTheSchemaIsCopied() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        let tables = try database.rawConnection().rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", []
        ) { $0.string(0) }
        #expect(Set(CopiedTable.all.map(\.name)) == Set(tables).subtracting(["schema_migrations"]))
    }
}
