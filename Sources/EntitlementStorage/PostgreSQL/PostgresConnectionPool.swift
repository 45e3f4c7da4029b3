import Dispatch
import EntitlementDomain
import Synchronization

/// At most `maxConnections` connections to one database, each used by one caller at a time.
///
/// A caller waits up to `checkoutTimeout` for a free one, then fails as unavailable. Connections are opened on
/// demand, so after the database restarts the first callers fail (their connections are gone) and the next ones
/// open fresh ones: a connection that broke, or was given back inside a transaction, is closed instead of reused.
final class PostgresConnectionPool: Sendable {
    let conninfo: String
    let maxConnections: Int
    let checkoutTimeout: Duration
    /// One permit per connection that may exist, idle or in use.
    private let permits: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])

    init(conninfo: String, maxConnections: Int, checkoutTimeout: Duration) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.conninfo = conninfo
        self.maxConnections = maxConnections
        self.checkoutTimeout = checkoutTimeout
        permits = DispatchSemaphore(value: maxConnections)
    }

    /// Connections open and idle now.
    var idleCount: Int { idle.withLock { $0.count } }

    /// Runs `body` with a connection of its own; PostgreSQL's errors come out as the domain's storage errors.
    func withConnection<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(StorageError) -> T {
        let (seconds, attoseconds) = checkoutTimeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        guard permits.wait(timeout: deadline) == .success else {
            throw .unavailable("PostgreSQL: no connection of the \(maxConnections) was free within \(checkoutTimeout)")
        }
        defer { permits.signal() }
        let connection: PostgresConnection
        if let reused = idle.withLock({ $0.popLast() }) {
            connection = reused
        } else {
            do throws(PostgresError) {
                connection = try PostgresConnection(conninfo: conninfo)
            } catch {
                throw error.storageError
            }
        }
        defer { giveBack(connection) }
        do throws(PostgresError) {
            return try body(connection)
        } catch {
            throw error.storageError
        }
    }

    private func giveBack(_ connection: PostgresConnection) {
        guard connection.isUsable, connection.isIdle else { return }  // closed on release
        idle.withLock { $0.append(connection) }
    }
}
