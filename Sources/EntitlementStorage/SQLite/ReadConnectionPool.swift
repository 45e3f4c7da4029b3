import EntitlementDomain
import Synchronization

/// Read-only connections, each used by one thread at a time.
///
/// A reader takes an idle connection from the free list; when the list is empty it opens a temporary one rather
/// than wait, so a read never blocks on other readers (and never deadlocks). At most `capacity` connections are
/// kept idle; extra ones are closed when returned.
final class ReadConnectionPool: Sendable {
    let path: String
    let capacity: Int
    private let idle: Mutex<[SQLiteConnection]>

    init(path: String, capacity: Int) throws(StorageError) {
        precondition(capacity >= 0, "readConnections must not be negative")
        self.path = path
        self.capacity = capacity
        var connections: [SQLiteConnection] = []
        for _ in 0..<capacity {
            connections.append(try Self.open(path: path))
        }
        idle = Mutex(connections)
    }

    /// Runs `body` with a read connection of its own.
    func withConnection<T>(_ body: (SQLiteConnection) throws(StorageError) -> T) throws(StorageError) -> T {
        let connection = try take()
        defer { give(back: connection) }
        return try body(connection)
    }

    private func take() throws(StorageError) -> SQLiteConnection {
        if let connection = idle.withLock({ $0.popLast() }) {
            return connection
        }
        return try Self.open(path: path)
    }

    private func give(back connection: SQLiteConnection) {
        // A connection left inside a transaction (a failed read) must not carry its snapshot to the next reader.
        connection.rollbackIfNeeded()
        guard connection.isAutocommit else { return }  // still stuck: drop it, it closes on release
        let surplus: SQLiteConnection? = idle.withLock { connections in
            guard connections.count < capacity else { return connection }
            connections.append(connection)
            return nil
        }
        _ = surplus  // closed here, outside the lock
    }

    private static func open(path: String) throws(StorageError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        try connection.execute("PRAGMA busy_timeout = \(SQLiteDatabase.busyTimeoutMilliseconds)")
        return connection
    }
}
