@testable import EntitlementStorage
import Testing

/// The PostgreSQL schema is the SQLite one: the same tables with the same columns, and every table keyed by tenant.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, "ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL"))
struct PostgresSchemaTests {
    /// Table name → column names, from a fresh SQLite database migrated to the latest version.
    static func sqliteColumns() throws -> [String: Set<String>] {
        let database = try TemporaryDatabase()
        _ = try SQLiteRepository(path: database.path)
        let raw = try database.rawConnection()
        let tables = try raw.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'"
        ) { $0.string(0) }
        var columns: [String: Set<String>] = [:]
        for table in tables {
            columns[table] = Set(try raw.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]) { $0.string(0) })
        }
        return columns
    }

    @Test func everyTableAndColumnOfTheSQLiteSchemaIsThere() throws {
        try PostgresMigratorTests.withDatabase { conninfo in
            let connection = try PostgresConnection(conninfo: conninfo)
            #expect(try PostgresMigrator.migrate(connection, to: PostgresSchema.migrations) == PostgresSchema.migrations.map(\.version))
            let rows = try connection.query("""
                SELECT table_name, column_name, ordinal_position FROM information_schema.columns
                WHERE table_schema = 'public' AND table_name <> 'schema_migrations'
                """).rows
            var postgres: [String: Set<String>] = [:]
            var first: [String: String] = [:]
            for row in rows {
                guard let table = row[0], let column = row[1] else { continue }
                postgres[table, default: []].insert(column)
                if row[2] == "1" { first[table] = column }
            }
            // SQLite's implicit rowid is a column where the queries sort by it.
            let withRowID = ["app_user_ids", "grants", "transactions"]
            #expect(postgres.filter { $0.value.contains("rowid") }.keys.sorted() == withRowID)
            for table in withRowID { postgres[table]?.remove("rowid") }
            #expect(postgres == (try Self.sqliteColumns()))
            // Tenant keys on every table: the column is there (first, except where an ID leads).
            for (table, columns) in postgres { #expect(columns.contains("tenant_id"), "\(table)") }
            #expect(
                first.filter { $0.value != "tenant_id" }.keys.sorted()
                    == ["app_user_ids", "audit_log", "customers", "grants", "transactions", "webhook_deliveries"])
        }
    }
}
