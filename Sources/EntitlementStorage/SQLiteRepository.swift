public import EntitlementDomain
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ``CustomerRepository`` on one SQLite file in WAL mode.
///
/// One write connection behind a `Mutex` (one writer at a time, `BEGIN IMMEDIATE`) and a small pool of read-only
/// connections: WAL lets every reader see the last committed state without waiting for a write in progress. Safe to
/// use from any number of threads.
public final class SQLiteRepository: CustomerRepository {
    /// How hard a commit pushes data to stable storage.
    public enum Synchronous: String, Sendable {
        /// Every commit is durable when `write(_:)` returns, across power loss (the default).
        case full = "FULL"
        /// Commits survive a process crash but the last ones may be lost on power loss; for benchmarks and tests.
        case normal = "NORMAL"
    }

    /// How long a connection waits for a lock held by another connection (another process) before failing.
    static let busyTimeoutMilliseconds = 5000

    public let path: String
    private let writer: Mutex<SQLiteConnection>
    /// The thread inside `write(_:)`, 0 when none: catches `write` called from within `write`.
    private let writerThread = Atomic<UInt>(0)
    private let readers: ReadConnectionPool

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// - Parameter readConnections: read-only connections kept open; a read that finds none idle opens another.
    public init(path: String, synchronous: Synchronous = .full, readConnections: Int = 4) throws(StorageError) {
        self.path = path
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)")
        let journalMode = try connection.row("PRAGMA journal_mode = WAL") { $0.string(0) }
        guard journalMode?.lowercased() == "wal" else {
            throw StorageError.unavailable(
                "cannot use WAL journal mode for \(path) (SQLite kept \(journalMode ?? "nothing"))")
        }
        try connection.execute("PRAGMA synchronous = \(synchronous.rawValue)")
        try connection.execute("PRAGMA foreign_keys = ON")
        try Migrations.apply(on: connection, now: StorageSQL.now())
        writer = Mutex(connection)
        readers = try ReadConnectionPool(path: path, capacity: readConnections)
    }

    // MARK: Reads (read-only connections; never wait for the writer)

    public func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        try readTransaction { (db) throws(StorageError) in try db.snapshot(tenantID: tenantID, appUserID: appUserID) }
    }

    public func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        try readTransaction { (db) throws(StorageError) in try db.snapshot(tenantID: tenantID, customerID: customerID) }
    }

    public func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord? {
        try readers.withConnection { (db) throws(StorageError) in try db.grant(tenantID: tenantID, grantID: grantID) }
    }

    public func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        try readers.withConnection { (db) throws(StorageError) in
            try db.purchase(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
        }
    }

    public func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        try readers.withConnection { (db) throws(StorageError) in
            try db.events(tenantID: tenantID, customerID: customerID, beforeVersion: beforeVersion, limit: limit)
        }
    }

    public func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        try readers.withConnection { (db) throws(StorageError) in
            try db.events(tenantID: tenantID, customerID: customerID, afterVersion: afterVersion, limit: limit)
        }
    }

    public func customersDue(at time: UnixTime, limit: Int) throws(StorageError)
        -> [(tenantID: String, customerID: Int64)]
    {
        try readers.withConnection { (db) throws(StorageError) in try db.customersDue(at: time, limit: limit) }
    }

    public func nextChangeAt() throws(StorageError) -> UnixTime? {
        try readers.withConnection { (db) throws(StorageError) in try db.nextChangeAt() }
    }

    public func acknowledgementsDue(at time: UnixTime, limit: Int) throws(StorageError) -> [StorePurchase] {
        try readers.withConnection { (db) throws(StorageError) in try db.acknowledgementsDue(at: time, limit: limit) }
    }

    public func nextAcknowledgementDue() throws(StorageError) -> UnixTime? {
        try readers.withConnection { (db) throws(StorageError) in try db.nextAcknowledgementDue() }
    }

    public func renewalExtensionCount(
        tenantID: String, originalTransactionID: String, since: UnixTime, excluding requestIdentifier: String
    ) throws(StorageError) -> Int {
        try readers.withConnection { (db) throws(StorageError) in
            try db.renewalExtensionCount(
                tenantID: tenantID, originalTransactionID: originalTransactionID, since: since,
                excluding: requestIdentifier)
        }
    }

    public func pollCursor(tenantID: String, name: String) throws(StorageError) -> Int64? {
        try readers.withConnection { (db) throws(StorageError) in try db.pollCursor(tenantID: tenantID, name: name) }
    }

    public func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        try readers.withConnection { (db) throws(StorageError) in
            try db.purchaseReferences(tenantID: tenantID, store: store, referenceID: referenceID)
        }
    }

    public func isNotificationProcessed(tenantID: String, notificationID: String) throws(StorageError) -> Bool {
        try readers.withConnection { (db) throws(StorageError) in
            try db.isNotificationProcessed(tenantID: tenantID, notificationID: notificationID)
        }
    }

    public func nextWebhookAttemptAt(at time: UnixTime) throws(StorageError) -> UnixTime? {
        try readers.withConnection { (db) throws(StorageError) in try db.nextWebhookAttemptAt(at: time) }
    }

    public func webhookDeliveries(_ filter: WebhookDeliveryFilter, limit: Int) throws(StorageError) -> [WebhookDelivery] {
        try readers.withConnection { (db) throws(StorageError) in try db.webhookDeliveries(filter, limit: limit) }
    }

    public func disabledWebhookEndpoints() throws(StorageError) -> [DisabledWebhookEndpoint] {
        try readers.withConnection { (db) throws(StorageError) in try db.disabledWebhookEndpoints() }
    }

    public func customers(tenantID: String, matching query: CustomerListQuery) throws(StorageError)
        -> [ListedCustomerRecord]
    {
        try readTransaction { (db) throws(StorageError) in try db.customers(tenantID: tenantID, matching: query) }
    }

    public func subscriberCounts(tenantID: String, at time: UnixTime) throws(StorageError) -> SubscriberCounts {
        try readTransaction { (db) throws(StorageError) in try db.subscriberCounts(tenantID: tenantID, at: time) }
    }

    /// Runs several reads against one consistent snapshot of the database.
    private func readTransaction<T>(_ body: (SQLiteConnection) throws(StorageError) -> T) throws(StorageError) -> T {
        try readers.withConnection { (db) throws(StorageError) in
            try db.run("BEGIN")
            do throws(StorageError) {
                let result = try body(db)
                try db.run("COMMIT")
                return result
            } catch {
                db.rollbackIfNeeded()
                throw error
            }
        }
    }

    // MARK: Writes (one at a time)

    public func write<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result {
        let thread = Self.currentThread()
        precondition(
            writerThread.load(ordering: .relaxed) != thread,
            "SQLiteRepository.write(_:) called inside write(_:) on the same thread")
        var result: Result?
        try writer.withLock { (connection: inout SQLiteConnection) throws in
            writerThread.store(thread, ordering: .relaxed)
            defer { writerThread.store(0, ordering: .relaxed) }
            result = try Self.transaction(on: connection, body)
        }
        return result!
    }

    private static func transaction<Result>(
        on connection: SQLiteConnection, _ body: (any StorageTransaction) throws -> Result
    ) throws -> Result {
        try connection.run("BEGIN IMMEDIATE")
        let transaction = SQLStorageTransaction(connection: connection)
        defer { transaction.close() }
        do {
            let result = try body(transaction)
            try connection.run("COMMIT")
            return result
        } catch {
            connection.rollbackIfNeeded()
            throw error
        }
    }

    private static func currentThread() -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
