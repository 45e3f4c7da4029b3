/// Where customers, grants and events live. Narrow on purpose: SQLite for one instance, PostgreSQL for many.
///
/// Everything is keyed by tenant; no method ever returns another tenant's rows. Reads never wait on writes (SQLite:
/// WAL mode, separate read connections; PostgreSQL: MVCC). Writes run in ``write(_:)``'s transaction: all or
/// nothing, durable when it returns. The reads are grouped by subject (`Subjects/`), each a protocol of its own.
public protocol CustomerRepository:
    CustomerReads, GrantReads, PurchaseReads, AcknowledgementReads, SubscriberQueryReads, WebhookOutboxReads,
    RevenueReads, AttributeReads, CustomerRecordReads, AuditLogReads, ErasureReads, OfferSignatureReads
{
    /// Whether this process holds (now, or from an earlier call) the right to do background work `name` of
    /// `tenantID` (`""`: across tenants), so that instances sharing a database do it once. Always true for a database
    /// only this process uses (SQLite); on PostgreSQL a session lock that ends with the process or its connection,
    /// so a dead holder frees the work at once.
    /// Fails unless the database answers a query now on a connection made for the purpose (not one already open):
    /// readiness, for `/readyz`.
    func checkReachable() throws(StorageError)
    func holdsWorkLock(tenantID: String, name: String) throws(StorageError) -> Bool

    /// Runs `body` in one write transaction of its own; commits durably when it returns, rolls back when it throws.
    /// Writes to one customer are serialized: SQLite runs one transaction at a time; PostgreSQL locks each customer
    /// row the transaction reads until it ends (waiting for another transaction's lock up to the lock timeout), and
    /// may run `body` again after losing a race to another writer, so `body` must not act outside the transaction.
    func write<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result

    /// Group commit: runs `bodies` in order in one write transaction, each inside a savepoint of its own, and commits
    /// them together, durably, before it returns. A body that throws has its own writes undone and its error at its
    /// index of the answer (nil for the others, which commit); throws only when the commit itself fails, and then
    /// nothing was committed. Later bodies see what earlier ones wrote. Like ``write(_:)``'s, a body may run again.
    /// A group never waits long for a lock another transaction holds: a body that would fails with
    /// ``StorageError/contended(_:)``, for its caller to run it alone with ``write(_:)``.
    func writeGroup(_ bodies: [(any StorageTransaction) throws -> Void]) throws -> [(any Error)?]

    /// Makes sure the bytes of committed deletions are no longer in the database's files: SQLite overwrites deleted
    /// content as it deletes (`secure_delete`), and this empties its write-ahead log, whose older frames still hold
    /// them; nothing to do on PostgreSQL, whose rows are gone from queries at once (its own files keep dead rows until
    /// VACUUM, README "Erasing a customer"). Fails when readers hold the log past the busy timeout.
    func clearDeletedBytes() throws(StorageError)
}

/// The writes (and the reads a write needs) inside one transaction, grouped by subject (`Subjects/`).
public protocol StorageTransaction:
    CustomerStorage, GrantStorage, PurchaseStorage, RedemptionCodeStorage, WebhookOutboxStorage, AttributeStorage,
    AuditLogStorage, ErasureStorage, RetentionStorage, OfferSignatureStorage
{}

/// A storage failure. `conflict` is a broken invariant (a version race, a duplicate key); `unavailable` means the
/// database could not do its job (disk full, I/O error, locked past the timeout) and a retry may succeed;
/// `contended` means a write in a group commit found a row locked by another transaction and gave up at once, with
/// nothing applied, rather than hold up the rest of its group (``CustomerRepository/writeGroup(_:)``).
public struct StorageError: Error, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case conflict, unavailable, corrupt, contended
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func conflict(_ message: String) -> StorageError { StorageError(code: .conflict, message: message) }
    public static func unavailable(_ message: String) -> StorageError { StorageError(code: .unavailable, message: message) }
    public static func corrupt(_ message: String) -> StorageError { StorageError(code: .corrupt, message: message) }
    public static func contended(_ message: String) -> StorageError { StorageError(code: .contended, message: message) }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
