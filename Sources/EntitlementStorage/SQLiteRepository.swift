public import EntitlementDomain
public import Metrics
import Glibc

/// ``CustomerRepository`` on one SQLite file in WAL mode: the embedded default, for one instance.
///
/// One write connection (one writer at a time, `BEGIN IMMEDIATE`) and a small pool of read-only connections: WAL
/// lets every reader see the last committed state without waiting for a write in progress. Safe to use from any
/// number of threads.
public final class SQLiteRepository: SQLRepository, @unchecked Sendable {
    /// How hard a commit pushes data to stable storage.
    public enum Synchronous: String, Sendable {
        /// Every commit is durable when `write(_:)` returns, across power loss (the default).
        case full = "FULL"
        /// Commits survive a process crash but the last ones may be lost on power loss; for benchmarks and tests.
        case normal = "NORMAL"
    }

    public let path: String

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// - Parameter readConnections: read-only connections kept open; a read that finds none idle opens another.
    public init(path: String, synchronous: Synchronous = .full, readConnections: Int = 4) throws(StorageError) {
        self.path = path
        super.init(
            database: try SQLiteDatabase(path: path, synchronous: synchronous, readConnections: readConnections))
    }

    /// Adds the write-ahead log's size: a WAL that keeps growing means a checkpoint cannot finish (a reader holds an
    /// old snapshot).
    public override var metricsSources: [any MetricsSource] {
        let wal = path + "-wal"
        return super.metricsSources + [
            GaugeFamily("entitlementd_sqlite_wal_bytes", help: "Size of the SQLite write-ahead log file.") {
                var info = stat()
                return stat(wal, &info) == 0 ? Double(info.st_size) : 0
            }
        ]
    }
}
