public import EntitlementDomain
import Foundation

/// `entitlementd migrate-store`: a SQLite database copied into an empty PostgreSQL one, row for row, then both read
/// again and compared per tenant and table (row counts and an order-independent checksum of every value), so a
/// user who outgrows SQLite keeps every customer, event, purchase and queued webhook.
///
/// The copy is one PostgreSQL transaction: it lands whole or not at all. The source must not be written meanwhile
/// (stop the server first); it is brought to the current schema before it is read.
public enum DatabaseCopy {
    /// What was copied and what the comparison found.
    public struct Report: Sendable {
        /// Rows copied, by table, in copy order.
        public var rows: [(table: String, count: Int)] = []
        /// Per tenant, per table: rows and checksum on each side.
        public var tenants: [String: [String: (source: Tally, target: Tally)]] = [:]

        public var mismatches: [String] {
            tenants.sorted { $0.key < $1.key }.flatMap { tenant, tables in
                tables.sorted { $0.key < $1.key }.compactMap { table, tallies in
                    tallies.source == tallies.target
                        ? nil
                        : "tenant \(tenant), \(table): \(tallies.source.rows) rows (checksum \(tallies.source.hex)) in "
                            + "SQLite, \(tallies.target.rows) (\(tallies.target.hex)) in PostgreSQL"
                }
            }
        }
    }

    /// Rows and the wrapping sum of each row's 64-bit FNV-1a hash.
    public struct Tally: Sendable, Equatable {
        public var rows = 0
        public var checksum: UInt64 = 0
        var hex: String { String(checksum, radix: 16) }
    }

    /// How many rows one read or one INSERT carries.
    static let pageSize = 500

    public static func copy(sqlitePath: String, postgresConninfo: String) throws(StorageError) -> Report {
        guard FileManager.default.fileExists(atPath: sqlitePath) else {
            throw .unavailable("no SQLite database at \(sqlitePath)")
        }
        _ = try SQLiteRepository(path: sqlitePath)  // brings the source to the current schema
        let source = try SQLiteConnection(path: sqlitePath, mode: .readOnly)
        _ = try PostgresRepository(conninfo: postgresConninfo)  // creates or migrates the target's schema
        let target: PostgresConnection
        do throws(PostgresError) {
            target = try PostgresConnection(conninfo: postgresConninfo, applicationName: "entitlementd-migrate-store")
        } catch {
            throw error.storageError
        }
        let targetDB = PostgresExecutor(connection: target, locksRows: false)
        let tables = try CopiedTable.all.map { (table) throws(StorageError) in
            (table, try columns(of: table, in: source))
        }
        try refuseUnlessEmpty(targetDB, tables.map(\.0))

        var report = Report()
        try targetDB.execute("BEGIN")
        do throws(StorageError) {
            for (table, columns) in tables {
                report.rows.append((table.name, try copyRows(of: table, columns: columns, from: source, to: targetDB)))
            }
            for (table, column) in CopiedTable.identities {
                _ = try targetDB.row(
                    "SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), "
                        + "COALESCE((SELECT max(\(column)) FROM \(table)), 0) + 1, false)", []) { $0.int64(0) }
            }
            try targetDB.execute("COMMIT")
        } catch {
            try? targetDB.execute("ROLLBACK")
            throw error
        }
        // Statistics for the copied tables now: an instance started next prepares its statements against them and
        // keeps their plans until a table's statistics change, which autovacuum would make take a minute or more.
        try targetDB.execute("ANALYZE " + tables.map(\.0.name).joined(separator: ", "))
        for (table, columns) in tables {
            let sourceTallies = try tallies(of: table, columns: columns, in: source)
            let targetTallies = try tallies(of: table, columns: columns, in: targetDB)
            for tenant in Set(sourceTallies.keys).union(targetTallies.keys) {
                report.tenants[tenant, default: [:]][table.name] = (
                    sourceTallies[tenant] ?? Tally(), targetTallies[tenant] ?? Tally()
                )
            }
        }
        return report
    }

    /// A column and how SQLite declares it, which says how to read PostgreSQL's text form of it back.
    struct Column {
        enum Kind { case integer, text, blob }
        let name: String
        let kind: Kind
    }

    private static func columns(of table: CopiedTable, in db: SQLiteConnection) throws(StorageError) -> [Column] {
        let declared = try db.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table.name)]) {
            (name: $0.string(0), type: $0.string(1).uppercased())
        }
        guard !declared.isEmpty else { throw .corrupt("the SQLite database has no table \(table.name)") }
        let columns = declared.map { column in
            Column(
                name: column.name,
                kind: column.type.contains("INT") ? .integer : column.type.contains("BLOB") ? .blob : .text)
        }
        return table.copiesRowID ? [Column(name: "rowid", kind: .integer)] + columns : columns
    }

    private static func refuseUnlessEmpty(_ db: PostgresExecutor, _ tables: [CopiedTable]) throws(StorageError) {
        for table in tables {
            let count = try db.row("SELECT count(*) FROM \(table.name)", []) { $0.int64(0) } ?? 0
            guard count == 0 else {
                throw .conflict("the PostgreSQL database is not empty: \(table.name) holds \(count) rows")
            }
        }
    }

    private static func copyRows(
        of table: CopiedTable, columns: [Column], from source: SQLiteConnection, to target: PostgresExecutor
    ) throws(StorageError) -> Int {
        let names = columns.map(\.name).joined(separator: ", ")
        var copied = 0
        try forEachPage(of: table, columns: columns, in: source, map: { $0.value }) { (page) throws(StorageError) in
            let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            try target.run(
                "INSERT INTO \(table.name) (\(names)) VALUES "
                    + Array(repeating: row, count: page.count).joined(separator: ", "),
                page.flatMap { $0 })
            copied += page.count
        }
        return copied
    }

    /// Reads the whole table a page at a time in key order (keyset paging: each page starts after the last key).
    private static func forEachPage<Database: SQLExecutor>(
        of table: CopiedTable, columns: [Column], in db: Database,
        map: (Database.ResultRow) -> (Int32) -> SQLValue, _ body: ([[SQLValue]]) throws(StorageError) -> Void
    ) throws(StorageError) {
        let names = columns.map(\.name).joined(separator: ", ")
        let key = table.key.joined(separator: ", ")
        let keyIndexes = table.key.map { name in Int32(columns.firstIndex { $0.name == name }!) }
        var after: [SQLValue]?
        while true {
            let condition = after == nil
                ? "" : "WHERE (\(key)) > (" + Array(repeating: "?", count: table.key.count).joined(separator: ", ") + ")"
            let page = try db.rows(
                "SELECT \(names) FROM \(table.name) \(condition) ORDER BY \(key) LIMIT \(pageSize)", after ?? []
            ) { row in
                let value = map(row)
                return (0..<Int32(columns.count)).map { value($0) }
            }
            guard !page.isEmpty else { return }
            try body(page)
            after = keyIndexes.map { page[page.count - 1][Int($0)] }
        }
    }

    /// Per tenant: the table's rows and their checksum, each value in one form whichever database it came from.
    private static func tallies<Database: SQLExecutor>(
        of table: CopiedTable, columns: [Column], in db: Database
    ) throws(StorageError) -> [String: Tally] {
        let tenantIndex = columns.firstIndex { $0.name == "tenant_id" }!
        var tallies: [String: Tally] = [:]
        try forEachPage(of: table, columns: columns, in: db, map: { row in { column in
            Self.canonical(row, column, columns[Int(column)].kind)
        } }) { (page) throws(StorageError) in
            for values in page {
                guard case .text(let tenant) = values[tenantIndex] else { continue }
                tallies[tenant, default: Tally()].rows += 1
                tallies[tenant, default: Tally()].checksum &+= fnv1a(values)
            }
        }
        return tallies
    }

    /// A value as its declared kind, from SQLite's typed value or PostgreSQL's text.
    private static func canonical(_ row: some SQLRow, _ column: Int32, _ kind: Column.Kind) -> SQLValue {
        if row.isNull(column) { return .null }
        switch kind {
        case .integer: return .integer(row.int64(column))
        case .text: return .text(row.string(column))
        case .blob: return .blob(row.blob(column))
        }
    }

    private static func fnv1a(_ values: [SQLValue]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        for value in values {
            switch value {
            case .null: add([0])
            case .integer(let integer): add([1] + Array(String(integer).utf8) + [0xFF])
            case .text(let text): add([2] + Array(String(text.utf8.count).utf8) + [0xFF] + Array(text.utf8))
            case .blob(let bytes): add([3] + Array(String(bytes.count).utf8) + [0xFF] + bytes)
            }
        }
        return hash
    }
}
