public import EntitlementDomain
public import Metrics

/// ``CustomerRepository`` on PostgreSQL, shared by any number of entitlementd instances.
///
/// The same schema, queries and guarantees as ``SQLiteRepository``: a write is committed when `write(_:)` returns,
/// per-customer versions are gap-free across instances, every table is keyed by tenant. Connections come from a
/// bounded pool; after the database restarts, calls that held a connection fail as unavailable and the next ones
/// connect afresh.
public final class PostgresRepository: SQLRepository, @unchecked Sendable {
    /// Names this process in the change notifications it sends, so its own feed skips them.
    public let instanceTag = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    private let conninfo: String
    private let postgres: PostgresDatabase

    public struct Options: Sendable {
        /// Connections this instance may hold open at once.
        public var maxConnections: Int
        /// How long a call waits for a free connection before failing as unavailable.
        public var checkoutTimeout: Duration
        /// PostgreSQL's own bounds on every session this instance opens for its calls.
        public var sessionTimeouts: PostgresSessionTimeouts

        public init(
            maxConnections: Int = 16, checkoutTimeout: Duration = .seconds(5),
            sessionTimeouts: PostgresSessionTimeouts = PostgresSessionTimeouts()
        ) {
            self.maxConnections = maxConnections
            self.checkoutTimeout = checkoutTimeout
            self.sessionTimeouts = sessionTimeouts
        }
    }

    /// Connects with a libpq connection string (`host=... dbname=... user=... sslmode=verify-full sslrootcert=...`,
    /// or a `postgresql://` URL) and brings the schema up to date under the migration lock.
    public init(conninfo: String, options: Options = Options()) throws(StorageError) {
        let pool = PostgresConnectionPool(
            conninfo: conninfo, maxConnections: options.maxConnections, checkoutTimeout: options.checkoutTimeout,
            sessionSetup: options.sessionTimeouts.setStatements)
        // A session of its own, without the pool's timeouts: waiting for another instance's migration and a long
        // backfill are the expected course here.
        let connection: PostgresConnection
        do throws(PostgresError) {
            connection = try PostgresConnection(conninfo: conninfo)
        } catch {
            throw error.storageError
        }
        try PostgresMigrator.migrate(connection, to: PostgresSchema.migrations)
        self.conninfo = conninfo
        postgres = PostgresDatabase(pool: pool, instanceTag: instanceTag, timeouts: options.sessionTimeouts)
        super.init(database: postgres)
    }

    /// Adds the connection pool's state.
    public override var metricsSources: [any MetricsSource] { super.metricsSources + postgres.pool.metricsSources }

    /// The feed of versions other instances commit, delivered in batches on the feed's own thread; start it once.
    public func changeFeed(
        deliver: @escaping @Sendable ([CommittedVersion]) -> Void, log: @escaping @Sendable (String) -> Void
    ) -> PostgresChangeFeed {
        PostgresChangeFeed(conninfo: conninfo, instanceTag: instanceTag, database: postgres, deliver: deliver, log: log)
    }
}
