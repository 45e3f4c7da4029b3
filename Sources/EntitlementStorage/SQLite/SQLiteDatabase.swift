import EntitlementDomain
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections of one SQLite file: the write connection behind a `Mutex` and a pool of read-only ones.
final class SQLiteDatabase: SQLDatabase {
    /// How long a connection waits for a lock held by another connection (another process) before failing.
    static let busyTimeoutMilliseconds = 5000

    private let writer: Mutex<SQLiteConnection>
    /// The thread inside `write(_:)`, 0 when none: catches `write` called from within `write`.
    private let writerThread = Atomic<UInt>(0)
    private let readers: ReadConnectionPool
    private let path: String

    init(path: String, synchronous: SQLiteRepository.Synchronous, readConnections: Int) throws(StorageError) {
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
        // Deleted content is overwritten with zeros as it is deleted (an erasure's bytes must leave the file), not
        // left in free space until reused.
        try connection.execute("PRAGMA secure_delete = ON")
        // A group commit runs each write in a savepoint; past 64 KiB SQLite spills a savepoint's journal to a temporary
        // file, created and unlinked once per group. In memory it stays bounded by the group's pages.
        try connection.execute("PRAGMA temp_store = MEMORY")
        try Migrations.apply(on: connection, now: StorageSQL.now())
        writer = Mutex(connection)
        readers = try ReadConnectionPool(path: path, capacity: readConnections)
    }

    /// Four statements (``StorageQueries``), read in one transaction.
    var snapshotIsOneStatement: Bool { false }

    /// Reads never wait for the writer: each read-only connection sees the last commit.
    func read<T>(consistent: Bool, _ body: (any SQLExecutor) throws(StorageError) -> T) throws(StorageError) -> T {
        try readers.withConnection { (db) throws(StorageError) in
            guard consistent else { return try body(db) }
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

    /// One transaction at a time, so no lock is ever held by another: `alone` changes nothing.
    func writeGroup(_ bodies: [(any StorageTransaction) throws -> Void], alone: Bool) throws -> [(any Error)?] {
        let thread = Self.currentThread()
        precondition(
            writerThread.load(ordering: .relaxed) != thread,
            "SQLiteRepository.write(_:) called inside write(_:) on the same thread")
        return try writer.withLock { (connection: inout SQLiteConnection) throws -> [(any Error)?] in
            writerThread.store(thread, ordering: .relaxed)
            defer { writerThread.store(0, ordering: .relaxed) }
            var failures = [(any Error)?](repeating: nil, count: bodies.count)
            // A failure SQLite answers by rolling back the whole transaction (a full disk, an I/O error) takes the
            // group's earlier writes with it: they run again in a new transaction, without the one that failed.
            while try !Self.transaction(on: connection, bodies, failures: &failures) {}
            return failures
        }
    }

    /// One run of the group: false when a body's failure ended the transaction and the others must run again.
    private static func transaction(
        on connection: SQLiteConnection, _ bodies: [(any StorageTransaction) throws -> Void],
        failures: inout [(any Error)?]
    ) throws -> Bool {
        try connection.run("BEGIN IMMEDIATE")
        let transaction = SQLStorageTransaction(connection: connection)
        defer { transaction.close() }
        do {
            for (index, body) in bodies.enumerated() where failures[index] == nil {
                try connection.run("SAVEPOINT grouped_write")
                do {
                    try body(transaction)
                    transaction.keepWrite()
                } catch {
                    failures[index] = error
                    if connection.isAutocommit { return false }
                    transaction.dropWrite()
                    try connection.run("ROLLBACK TO grouped_write")
                }
                try connection.run("RELEASE grouped_write")
            }
            try transaction.addDailyTotals()
            try connection.run("COMMIT")
            return true
        } catch {
            connection.rollbackIfNeeded()
            throw error
        }
    }

    /// Checkpoints the write-ahead log into the database and truncates it to nothing: its older frames hold pages as
    /// they were before a deletion. Waits for readers up to the busy timeout.
    func clearDeletedBytes() throws(StorageError) {
        let busy = try writer.withLock { (connection: inout SQLiteConnection) throws(StorageError) -> Int64? in
            try connection.row("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int64(0) }
        }
        guard busy == 0 else {
            throw StorageError.unavailable(
                "the write-ahead log of \(path) could not be emptied: readers held it past the busy timeout")
        }
    }

    /// One process uses a SQLite file: all background work is this process's.
    func holdsWorkLock(tenantID: String, name: String) throws(StorageError) -> Bool { true }

    /// Opens the file afresh, read-only, and reads the schema version: connections already open would keep working
    /// on a file that was deleted, moved or made unreadable.
    func checkReachable() throws(StorageError) {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        try connection.execute("PRAGMA busy_timeout = 1000")
        _ = try connection.row("SELECT MAX(version) FROM schema_migrations") { $0.int64(0) }
    }

    private static func currentThread() -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
