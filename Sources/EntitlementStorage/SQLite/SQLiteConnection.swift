import EntitlementDomain
import CSQLite

/// One SQLite database handle with its cache of prepared statements.
///
/// Not thread-safe on its own (opened with `SQLITE_OPEN_NOMUTEX`): whoever holds it uses it from one thread at a
/// time. The repository guarantees that — the write connection lives behind the writer's `Mutex`, read connections
/// are taken from and returned to a `Mutex`-guarded free list — hence `@unchecked Sendable`.
final class SQLiteConnection: SQLExecutor, @unchecked Sendable {
    enum Mode: Sendable {
        case readWrite
        case readOnly
    }

    let path: String
    let mode: Mode
    let dialect = SQLDialect.sqlite
    /// SQLite's writers take turns on the whole database: nothing to lock row by row.
    let locksRows = false
    private let handle: OpaquePointer
    /// Prepared statements by SQL text; the read path is hot, so each statement is compiled once per connection.
    private var statements: [String: Statement] = [:]

    init(path: String, mode: Mode) throws(StorageError) {
        self.path = path
        self.mode = mode
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw StorageError.sqlite(rc, "cannot open \(path): \(message)")
        }
        handle = db
    }

    deinit {
        for statement in statements.values {
            statement.finalize()
        }
        sqlite3_close_v2(handle)
    }

    /// Copies the whole database into `destination` with SQLite's online backup API, in one step: one read
    /// transaction, so the copy is the database as of one commit while writers (in WAL mode) go on.
    func backUp(into destination: SQLiteConnection) throws(StorageError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw StorageError.sqlite(
                sqlite3_errcode(destination.handle), "cannot start the backup: \(String(cString: sqlite3_errmsg(destination.handle)))")
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            throw StorageError.sqlite(step == SQLITE_DONE ? finish : step, "the backup did not complete")
        }
    }

    /// Whether no transaction is open (SQLite's autocommit mode).
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The cached prepared statement for `sql`, compiling it on first use.
    func prepared(_ sql: String) throws(StorageError) -> Statement {
        if let statement = statements[sql] {
            return statement
        }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// A fresh, uncached statement; the caller finalizes it.
    func prepare(_ sql: String) throws(StorageError) -> Statement {
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else {
            sqlite3_finalize(raw)
            throw error(rc, "cannot prepare \(Self.abbreviated(sql))")
        }
        return Statement(handle: raw, sql: sql)
    }

    /// Runs `sql`, which may hold several statements and returns no rows (schema scripts, PRAGMAs, BEGIN/COMMIT).
    func execute(_ sql: String) throws(StorageError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            throw StorageError.sqlite(rc, "\(Self.abbreviated(sql)): \(text)")
        }
    }

    /// Runs a cached statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ bindings: [SQLValue] = []) throws(StorageError) -> Int {
        try withStatement(sql, bindings) { (statement) throws(StorageError) in
            while try statement.step() {}
        }
        return changes
    }

    /// Runs a cached query and maps every row.
    func rows<T>(
        _ sql: String, _ bindings: [SQLValue] = [], _ map: (Row) throws(StorageError) -> T
    ) throws(StorageError) -> [T] {
        try withStatement(sql, bindings) { (statement) throws(StorageError) in
            var result: [T] = []
            while try statement.step() {
                result.append(try map(Row(statement: statement)))
            }
            return result
        }
    }

    /// Runs a cached query and maps its first row, if any.
    func row<T>(
        _ sql: String, _ bindings: [SQLValue] = [], _ map: (Row) throws(StorageError) -> T
    ) throws(StorageError) -> T? {
        try withStatement(sql, bindings) { (statement) throws(StorageError) in
            try statement.step() ? try map(Row(statement: statement)) : nil
        }
    }

    /// Binds a cached statement, hands it to `body`, and resets it afterwards whatever happens, so that no statement
    /// keeps a read transaction open once its caller is done.
    private func withStatement<T>(
        _ sql: String, _ bindings: [SQLValue], _ body: (Statement) throws(StorageError) -> T
    ) throws(StorageError) -> T {
        let statement = try prepared(sql)
        precondition(!statement.isInUse, "statement re-entered while in use: \(sql)")
        statement.isInUse = true
        defer {
            statement.reset()
            statement.isInUse = false
        }
        try statement.bind(bindings)
        return try body(statement)
    }

    /// Ends any open transaction, ignoring failure (SQLite may already have rolled back on I/O errors).
    func rollbackIfNeeded() {
        if !isAutocommit {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }

    /// A `StorageError` for a failed call on this connection, carrying SQLite's own message.
    func error(_ rc: Int32, _ context: String) -> StorageError {
        StorageError.sqlite(rc, "\(context): \(String(cString: sqlite3_errmsg(handle)))")
    }

    static func abbreviated(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return flat.count > 80 ? String(flat.prefix(77)) + "..." : flat
    }
}

extension StorageError {
    /// Maps an SQLite result code: transient conditions (busy, locked, I/O, disk full) are `unavailable`, a violated
    /// constraint is a `conflict`, a damaged file is `corrupt`; anything else (misuse, a schema SQLite cannot read)
    /// is reported as `unavailable` with SQLite's code name in the message.
    static func sqlite(_ rc: Int32, _ message: String) -> StorageError {
        let name = String(cString: sqlite3_errstr(rc))
        let text = "\(message) [\(name), code \(rc)]"
        switch rc & 0xFF {
        case SQLITE_CONSTRAINT: return .conflict(text)
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(text)
        default: return .unavailable(text)
        }
    }
}
