import EntitlementDomain
import Synchronization

/// A PostgreSQL database shared by every instance: a bounded pool of connections, each checked out for one read
/// or one write transaction.
///
/// Writers on different instances run at once. Their per-customer versions stay gap-free because a write
/// transaction locks every customer row it reads (``SQLExecutor/locksRows``) until it commits, and the
/// version is read and bumped under that lock. A transaction that loses a race PostgreSQL detects (a serialization
/// failure, a deadlock, or a unique key another instance inserted first) is rolled back and run again from the
/// start: it then sees what the other committed.
final class PostgresDatabase: SQLDatabase {
    /// Runs of a write transaction that loses races before its caller sees the failure.
    static let writeAttempts = 4

    let pool: PostgresConnectionPool
    /// Names this instance in the notifications it sends (``ChangeNotification/sender``).
    let instanceTag: String
    /// Starts a group commit's transaction: its writes wait only briefly for a lock held elsewhere
    /// (``PostgresSessionTimeouts/groupedLockMilliseconds``).
    private let beginGroup: String
    /// The session's own lock timeout, given back to a group before its commit: a notifying commit waits for the
    /// notification queue's lock, which only another commit holds, and giving up there would fail the whole group.
    private let lockTimeout: String
    /// This instance's background-work locks, on a session of their own.
    private let workLocks: PostgresWorkLocks

    init(pool: PostgresConnectionPool, instanceTag: String, timeouts: PostgresSessionTimeouts) {
        self.pool = pool
        self.instanceTag = instanceTag
        workLocks = PostgresWorkLocks(conninfo: pool.conninfo)
        beginGroup = "BEGIN; SET LOCAL lock_timeout = \(timeouts.groupedLockMilliseconds)"
        lockTimeout = String(timeouts.lockMilliseconds)
    }

    /// ``PostgresSnapshotQuery``.
    var snapshotIsOneStatement: Bool { true }

    func read<T>(consistent: Bool, _ body: (any SQLExecutor) throws(StorageError) -> T) throws(StorageError) -> T {
        let connection = try pool.checkOut()
        defer { pool.checkIn(connection) }
        let executor = PostgresExecutor(connection: connection, locksRows: false)
        guard consistent else { return try body(executor) }
        try executor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do throws(StorageError) {
            let result = try body(executor)
            try executor.execute("COMMIT")
            return result
        } catch {
            Self.rollBack(connection)
            throw error
        }
    }

    func writeGroup(_ bodies: [(any StorageTransaction) throws -> Void], alone: Bool) throws -> [(any Error)?] {
        var attempt = 1
        while true {
            let connection = try pool.checkOut()
            defer { pool.checkIn(connection) }
            let executor = PostgresExecutor(connection: connection, locksRows: true)
            do {
                return try transaction(on: executor, bodies, alone: alone, mayRunAgain: attempt < Self.writeAttempts)
            } catch is StorageError where attempt < Self.writeAttempts && executor.lostARace {
                attempt += 1
            }
        }
    }

    /// One run of the group. A body that lost a race throws out of it (the whole group runs again, after the
    /// other transaction) while `mayRunAgain`; after that, and for any other failure, it fails alone. In a group (not
    /// `alone`), a body that waited past the brief lock wait fails ``StorageError/contended(_:)``.
    private func transaction(
        on executor: PostgresExecutor, _ bodies: [(any StorageTransaction) throws -> Void], alone: Bool,
        mayRunAgain: Bool
    ) throws -> [(any Error)?] {
        // Each write's savepoint travels with the statement before it (BEGIN, or the last write's RELEASE): one
        // round trip a write saved.
        try executor.execute((alone ? "BEGIN" : beginGroup) + "; SAVEPOINT grouped_write")
        let transaction = SQLStorageTransaction(connection: executor)
        defer { transaction.close() }
        do {
            var failures = [(any Error)?](repeating: nil, count: bodies.count)
            for (index, body) in bodies.enumerated() {
                let appended = transaction.appendedVersions.count
                executor.forgetFailure()
                var end = "RELEASE SAVEPOINT grouped_write"
                do {
                    try body(transaction)
                    try executor.flush()  // what the body sent fails as the body's own
                    // A failed statement the body caught has aborted the savepoint: RELEASE would not undo it.
                    if executor.connection.isInFailedTransaction, let failure = executor.lastFailure {
                        throw failure.storageError
                    }
                    transaction.keepWrite()
                } catch {
                    transaction.dropWrite()
                    if error is StorageError, mayRunAgain, executor.lostARace { throw error }
                    failures[index] =
                        !alone && executor.lastFailure?.sqlState == PostgresError.lockNotAvailable
                        ? StorageError.contended("PostgreSQL: a row this write needs is locked by another transaction")
                        : error
                    transaction.appendedVersions.removeSubrange(appended...)
                    end = "ROLLBACK TO SAVEPOINT grouped_write; " + end
                    // What the body sent before it failed runs (or fails) before the rollback undoes it.
                    try? executor.flush()
                }
                try executor.execute(index + 1 < bodies.count ? end + "; SAVEPOINT grouped_write" : end)
            }
            let notifies = !transaction.appendedVersions.isEmpty
            if notifies || transaction.changesDailyTotals {
                // The daily totals' rows and the notification queue's lock are held only by other commits: waiting
                // for them briefly and giving up would fail the whole group.
                try executor.send("SELECT set_config('lock_timeout', ?, true)", [.text(lockTimeout)], unlessOneRow: nil)
                try transaction.addDailyTotals()
                // One notification per transaction, delivered to the listeners when (and only if) it commits.
                if notifies {
                    let notification = ChangeNotification(sender: instanceTag, versions: transaction.appendedVersions)
                    try executor.send(
                        "SELECT pg_notify(?, ?)", [.text(ChangeNotification.channel), .text(notification.payload)],
                        unlessOneRow: nil)
                }
                try executor.flush()
            }
            try executor.execute("COMMIT")
            return failures
        } catch {
            Self.rollBack(executor.connection)
            throw error
        }
    }

    /// Deleted rows are gone from every query at once; PostgreSQL's files keep them until VACUUM reclaims the space
    /// (README, "Erasing a customer").
    func clearDeletedBytes() throws(StorageError) {}

    /// A new connection's `SELECT`, so a server that went away is noticed even while pooled connections idle.
    func checkReachable() throws(StorageError) {
        do throws(PostgresError) {
            let connection = try PostgresConnection(conninfo: pool.conninfo, applicationName: "entitlementd-readyz")
            _ = try connection.query("SELECT max(version) FROM schema_migrations")
        } catch {
            throw error.storageError
        }
    }

    func holdsWorkLock(tenantID: String, name: String) throws(StorageError) -> Bool {
        do throws(PostgresError) {
            return try workLocks.holds(tenantID: tenantID, name: name)
        } catch {
            throw error.storageError
        }
    }

    /// Ends an open transaction; a connection that cannot is closed by the pool rather than reused.
    private static func rollBack(_ connection: PostgresConnection) {
        guard connection.isUsable, !connection.isIdle else { return }
        _ = try? connection.execute("ROLLBACK")
    }
}

extension PostgresExecutor {
    /// Whether the last failure was a race with another transaction that a fresh run can win.
    var lostARace: Bool {
        guard let failure = lastFailure, !failure.connectionLost else { return false }
        return failure.isRetryable || failure.sqlState == "23505"
    }
}
