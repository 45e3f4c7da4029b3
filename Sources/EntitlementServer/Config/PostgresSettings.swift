public import EntitlementStorage

/// Where the shared PostgreSQL database is and how many connections one instance may hold.
public struct PostgresSettings: Sendable, Equatable {
    /// A libpq connection string or `postgresql://` URL; TLS through its `sslmode`/`sslrootcert`, a password
    /// through `passfile` or `PGPASSWORD` rather than in the file.
    public var conninfo: String
    public var maxConnections: Int = 16
    /// `postgres_lock_timeout_seconds` (2), `postgres_statement_timeout_seconds` (30) and
    /// `postgres_idle_in_transaction_timeout_seconds` (10).
    public var sessionTimeouts = PostgresSessionTimeouts()

    /// Write groups this instance commits at once (``WriteQueue``'s lanes), each on a connection of its own: a quarter
    /// of the pool, leaving the rest for reads and for writes that wait for a lock alone.
    public var writeLanes: Int { max(1, maxConnections / 4) }

    public init(conninfo: String, maxConnections: Int = 16) {
        self.conninfo = conninfo
        self.maxConnections = maxConnections
    }

    /// The connection string fit for a log line: a password (`password=` keyword or URL parameter, or the URL's
    /// `user:password@`) replaced by `***`.
    public var redacted: String {
        var text = conninfo
        if let scheme = text.firstRange(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        var redacted = ""
        var rest = Substring(text)
        while let found = rest.firstRange(of: "password=") {
            redacted += rest[..<found.upperBound] + "***"
            rest = rest[found.upperBound...].drop { $0 != " " && $0 != "&" }
        }
        return redacted + rest
    }
}
