import EntitlementDomain

/// A numbered schema change for PostgreSQL; append new ones, never edit or renumber one that shipped.
struct PostgresMigration: Sendable {
    let version: Int64
    let sql: String
    /// Fills what SQL alone cannot, after `sql`, in the same transaction.
    var backfill: (@Sendable (PostgresExecutor) throws(StorageError) -> Void)? = nil
}

/// Brings a PostgreSQL database to the schema this build knows, at startup.
///
/// Instances starting together take turns under a session-level advisory lock (one per schema, so repositories kept in
/// different schemas of one database do not wait for each other); each missing migration is applied
/// in a transaction of its own with its `schema_migrations` row (PostgreSQL's DDL is transactional), so a failure
/// leaves the database at the last whole version. A database that records a version this build does not know (a
/// newer build migrated it) is refused rather than used.
enum PostgresMigrator {
    /// The seed of the advisory lock key: "entitlm" in ASCII, so other applications' keys do not collide by
    /// accident; the key is the current schema's name hashed with it.
    static let lockKey: Int64 = 0x656e_7469_746c_6d
    static let lockKeySQL = "hashtextextended(current_schema(), $1)"

    /// Applies what is missing; returns the versions applied (empty when the database was current).
    @discardableResult
    static func migrate(_ connection: PostgresConnection, to migrations: [PostgresMigration]) throws(StorageError)
        -> [Int64]
    {
        do throws(PostgresError) {
            try connection.query("SELECT pg_advisory_lock(\(lockKeySQL))", ["\(lockKey)"])
            defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(lockKeySQL))", ["\(lockKey)"]) }
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, applied_at timestamptz NOT NULL)")
            let applied = Set(try connection.query("SELECT version FROM schema_migrations").rows.compactMap { $0[0].flatMap(Int64.init) })
            let known = Set(migrations.map(\.version))
            if let unknown = applied.subtracting(known).max() {
                throw PostgresError(
                    sqlState: "", message: "the database has schema version \(unknown), which this build does not know",
                    connectionLost: false)
            }
            var done: [Int64] = []
            for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
                // A migration lost to a crash right after its commit is applied again at the next start (its
                // version row goes with it), so its commit need not wait for the WAL flush.
                try connection.execute("BEGIN; SET LOCAL synchronous_commit = off")
                do throws(PostgresError) {
                    try connection.execute(migration.sql)
                    if let backfill = migration.backfill {
                        do throws(StorageError) {
                            try backfill(PostgresExecutor(connection: connection, locksRows: false))
                        } catch {
                            throw PostgresError(sqlState: "", message: error.message, connectionLost: false)
                        }
                    }
                    try connection.query(
                        "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())", ["\(migration.version)"])
                    try connection.execute("COMMIT")
                } catch {
                    _ = try? connection.execute("ROLLBACK")
                    throw PostgresError(
                        sqlState: error.sqlState, message: "migration \(migration.version): \(error.message)",
                        connectionLost: error.connectionLost)
                }
                done.append(migration.version)
            }
            return done
        } catch {
            throw error.storageError
        }
    }
}
