import EntitlementDomain
import CSQLite

/// SQLite's SQLITE_TRANSIENT: SQLite copies bound text and blobs before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One prepared statement, owned by the connection that compiled it (and used only by that connection's holder).
final class Statement {
    let handle: OpaquePointer
    let sql: String
    /// Guards against using a cached statement again while an outer use is still stepping it.
    var isInUse = false

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    func bind(_ values: [SQLValue]) throws(StorageError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(_ value: SQLValue, at index: Int32) throws(StorageError) {
        let rc: Int32
        switch value {
        case .integer(let integer):
            rc = sqlite3_bind_int64(handle, index, integer)
        case .null:
            rc = sqlite3_bind_null(handle, index)
        case .text(var text):
            rc = text.withUTF8 { bytes in
                // An empty buffer may have no base address, which SQLite would bind as NULL.
                bytes.isEmpty
                    ? sqlite3_bind_text(handle, index, "", 0, transient)
                    : sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { raw in
                raw.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), transient)
            }
        }
        guard rc == SQLITE_OK else {
            throw failure(rc, "cannot bind parameter \(index)")
        }
    }

    /// Advances: true when a row is ready, false when done.
    func step() throws(StorageError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw failure(rc, "cannot run")
        }
    }

    /// Makes the statement ready to run again and releases what it holds (including its read snapshot).
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func finalize() {
        sqlite3_finalize(handle)
    }

    private func failure(_ rc: Int32, _ context: String) -> StorageError {
        let message = sqlite3_db_handle(handle).map { String(cString: sqlite3_errmsg($0)) } ?? ""
        return StorageError.sqlite(rc, "\(context) \(SQLiteConnection.abbreviated(sql)): \(message)")
    }
}

/// The current row of a stepping statement; valid only inside the mapping closure.
struct Row: SQLRow {
    fileprivate let statement: Statement

    init(statement: Statement) {
        self.statement = statement
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement.handle, column) == SQLITE_NULL
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement.handle, column)
    }

    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(statement.handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's value as SQLite stored it (SQLite is typed per value, not per column).
    func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement.handle, column) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(column))
        case SQLITE_BLOB: .blob(blob(column))
        default: .text(string(column))
        }
    }

    func blob(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(statement.handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement.handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
