public import EntitlementDomain

/// ``CustomerRepository`` on PostgreSQL, shared by any number of entitlementd instances.
///
/// The same schema, queries and guarantees as ``SQLiteRepository``: a write is committed when `write(_:)` returns,
/// per-customer versions are gap-free across instances, every table is keyed by tenant. Connections come from a
/// bounded pool; after the database restarts, calls that held a connection fail as unavailable and the next ones
/// connect afresh.
public final class PostgresRepository: SQLRepository, @unchecked Sendable {
    public struct Options: Sendable {
        /// Connections this instance may hold open at once.
        public var maxConnections: Int
        /// How long a call waits for a free connection before failing as unavailable.
        public var checkoutTimeout: Duration

        public init(maxConnections: Int = 16, checkoutTimeout: Duration = .seconds(5)) {
            self.maxConnections = maxConnections
            self.checkoutTimeout = checkoutTimeout
        }
    }

    /// Connects with a libpq connection string (`host=... dbname=... user=... sslmode=verify-full sslrootcert=...`,
    /// or a `postgresql://` URL) and brings the schema up to date under the migration lock.
    public init(conninfo: String, options: Options = Options()) throws(StorageError) {
        let pool = PostgresConnectionPool(
            conninfo: conninfo, maxConnections: options.maxConnections, checkoutTimeout: options.checkoutTimeout)
        let connection = try pool.checkOut()
        defer { pool.checkIn(connection) }
        try PostgresMigrator.migrate(connection, to: PostgresSchema.migrations)
        super.init(database: PostgresDatabase(pool: pool))
    }
}
