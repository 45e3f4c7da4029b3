import EntitlementDomain

/// A value bound to a statement parameter.
enum SQLValue: Hashable {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null

    static func integer(_ value: Int64?) -> SQLValue { value.map(SQLValue.integer) ?? .null }
    static func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    static func time(_ value: UnixTime) -> SQLValue { .integer(value.milliseconds) }
    static func time(_ value: UnixTime?) -> SQLValue { .integer(value?.milliseconds) }
    static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
}

/// The SQL both databases speak differently, kept to a few spots in the shared queries.
enum SQLDialect: Sendable {
    case sqlite, postgres

    /// SQLite's `INDEXED BY` (its planner misjudges some partial indexes); PostgreSQL has no hints and needs none.
    func indexedBy(_ index: String) -> String {
        self == .sqlite ? "INDEXED BY \(index)" : ""
    }

    /// What a query grouping customer entitlements by customer groups by: PostgreSQL wants the customers table's
    /// primary key named to select its other columns; SQLite reads the index in `e.customer_id` order.
    var customerGrouping: String {
        self == .sqlite ? "e.customer_id" : "e.customer_id, c.id"
    }
}

/// What the shared queries (``StorageQueries``) need of a connection: statements with `?` parameters, run on
/// SQLite or PostgreSQL alike.
protocol SQLExecutor {
    associatedtype ResultRow: SQLRow

    var dialect: SQLDialect { get }
    /// Whether rows read are locked until the transaction ends: inside a PostgreSQL write transaction, so that
    /// writers on other instances take turns per customer. Never for SQLite, whose writers take turns on the whole
    /// database, nor outside write transactions.
    var locksRows: Bool { get }

    /// Runs a statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ bindings: [SQLValue]) throws(StorageError) -> Int
    /// Runs a statement that returns no rows and whose answer nothing waits for; given `unlessOneRow`, it fails with
    /// that error unless it changed exactly one row. A database across a socket may hold it back and send it with
    /// the next statement (PostgreSQL's pipeline mode): it then fails there, or at the latest at ``flush()``.
    func send(_ sql: String, _ bindings: [SQLValue], unlessOneRow failure: StorageError?) throws(StorageError)
    /// Returns once every statement ``send(_:_:unlessOneRow:)`` held back has run, or throws the first failure.
    func flush() throws(StorageError)
    /// Runs a query and maps every row.
    func rows<T>(_ sql: String, _ bindings: [SQLValue], _ map: (ResultRow) throws(StorageError) -> T)
        throws(StorageError) -> [T]
    /// Runs a query and maps its first row, if any.
    func row<T>(_ sql: String, _ bindings: [SQLValue], _ map: (ResultRow) throws(StorageError) -> T)
        throws(StorageError) -> T?

    /// The customer `appUserID` resolves to, or the one with `customerID`, with its aliases, grants and purchases
    /// (its row locked when ``locksRows``): four queries by default (``StorageQueries``), one round trip where a
    /// round trip is dear (PostgreSQL, ``PostgresSnapshotQuery``).
    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot?
    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot?
}

/// One result row, its columns numbered from 0. Its metatype is sendable (`SendableMetatype`): the shared queries
/// pass generic row decoders such as `StorageSQL.customer(from:)` as closures, which capture the row type.
protocol SQLRow: SendableMetatype {
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func string(_ column: Int32) -> String
    func blob(_ column: Int32) -> [UInt8]
}

extension SQLExecutor {
    /// Runs it at once, where a statement is a function call away (SQLite).
    func send(_ sql: String, _ bindings: [SQLValue], unlessOneRow failure: StorageError?) throws(StorageError) {
        let changed = try run(sql, bindings)
        if let failure, changed != 1 { throw failure }
    }

    func flush() throws(StorageError) {}

    func send(_ sql: String, _ bindings: [SQLValue]) throws(StorageError) {
        try send(sql, bindings, unlessOneRow: nil)
    }

    /// Takes, when ``locksRows``, a lock named `key` until the transaction ends (PostgreSQL's transaction-level
    /// advisory lock, one per schema), whether or not any row exists for it: writers deciding about a row that may not
    /// be stored yet (two users claiming one new purchase, on two lanes or two instances) take turns, and the second
    /// reads what the first committed. A row lock cannot cover a row not inserted yet.
    func lockUntilCommit(_ key: String) throws(StorageError) {
        guard locksRows else { return }
        _ = try row("SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '/' || ?, 0))", [.text(key)]) {
            _ in true
        }
    }

    /// What to append to a query whose rows of `alias` must stay locked (``locksRows``): `FOR UPDATE OF alias`;
    /// with `skippingLocked`, rows another transaction holds are passed over instead of waited for.
    func rowLock(of alias: String, skippingLocked: Bool = false) -> String {
        guard locksRows else { return "" }
        return " FOR UPDATE OF \(alias)" + (skippingLocked ? " SKIP LOCKED" : "")
    }
}

extension SQLRow {
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func bool(_ column: Int32) -> Bool { int64(column) != 0 }
    func time(_ column: Int32) -> UnixTime { UnixTime(milliseconds: int64(column)) }
    func optionalTime(_ column: Int32) -> UnixTime? { optionalInt64(column).map(UnixTime.init(milliseconds:)) }
    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
}
