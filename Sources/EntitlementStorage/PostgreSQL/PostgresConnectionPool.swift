import Dispatch
import EntitlementDomain
import Metrics
import Synchronization

/// At most `maxConnections` connections to one database, each used by one caller at a time.
///
/// A caller waits up to `checkoutTimeout` for a free one, then fails as unavailable. Connections are opened on
/// demand. One the server ended while it sat idle (PostgreSQL restarted, the session terminated) is closed at
/// checkout and another taken or opened instead, so a restart costs callers nothing once PostgreSQL is back; one
/// that broke in use, or was given back inside a transaction, is closed instead of reused.
final class PostgresConnectionPool: Sendable {
    let conninfo: String
    let maxConnections: Int
    let checkoutTimeout: Duration
    /// One permit per connection that may exist, idle or in use.
    private let permits: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    /// Connections checked out now.
    private let inUse = Atomic<Int>(0)
    /// Checkouts that found no connection free: series 0 got one in time, series 1 gave up.
    private let waits = CounterFamily(
        "entitlementd_postgres_checkout_waits_total",
        help: "Connection checkouts that found none free, by whether one came within the timeout.",
        labels: ["outcome"], series: [["served"], ["timed_out"]])
    /// Pooled sessions found ended and replaced: series 0 at checkout, series 1 by the first statement.
    private let replaced = CounterFamily(
        "entitlementd_postgres_sessions_replaced_total",
        help: "Pooled PostgreSQL sessions the server had ended, replaced before a caller's statement failed on one.",
        labels: ["found"], series: [["at_checkout"], ["by_first_statement"]])

    /// Statements run once on every session the pool opens (``PostgresSessionTimeouts``).
    private let sessionSetup: String

    init(conninfo: String, maxConnections: Int, checkoutTimeout: Duration, sessionSetup: String = "") {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.conninfo = conninfo
        self.sessionSetup = sessionSetup
        self.maxConnections = maxConnections
        self.checkoutTimeout = checkoutTimeout
        permits = DispatchSemaphore(value: maxConnections)
    }

    /// Connections open and idle now.
    var idleCount: Int { idle.withLock { $0.count } }

    /// Runs `body` with a connection of its own; PostgreSQL's errors come out as the domain's storage errors.
    func withConnection<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(StorageError) -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        do throws(PostgresError) {
            return try body(connection)
        } catch {
            throw error.storageError
        }
    }

    /// A connection for the caller alone until it gives it back with ``checkIn(_:)``: an idle one, or a new one
    /// while fewer than `maxConnections` exist; waits up to `checkoutTimeout`.
    ///
    /// An idle one the server ended is replaced at no round trip's cost (``PostgresConnection/hasEndedWhileIdle``).
    /// One that ends between that look and the caller's first statement would fail a statement that, for all the
    /// caller knows, never ran: that first statement is sent once more on a fresh session. So a checkout begins
    /// with a statement harmless to run twice, `BEGIN` or a read (``PostgresDatabase`` does), never a write
    /// outside a transaction; any later statement fails as it fails (a `COMMIT` whose answer was lost may have
    /// committed).
    func checkOut() throws(StorageError) -> PostgresConnection {
        let (seconds, attoseconds) = checkoutTimeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        if permits.wait(timeout: .now()) != .success {
            guard permits.wait(timeout: deadline) == .success else {
                waits.increment(1)
                throw .unavailable("PostgreSQL: no connection of the \(maxConnections) was free within \(checkoutTimeout)")
            }
            waits.increment(0)
        }
        inUse.add(1, ordering: .relaxed)
        while let reused = idle.withLock({ $0.popLast() }) {
            guard reused.hasEndedWhileIdle else {
                reused.firstStatementResend = .armed
                return reused
            }
            replaced.increment(0)
        }
        do throws(PostgresError) {
            return try PostgresConnection(conninfo: conninfo, sessionSetup: sessionSetup)
        } catch {
            inUse.subtract(1, ordering: .relaxed)
            permits.signal()
            throw error.storageError
        }
    }

    /// Takes back a connection from ``checkOut()``: kept for the next caller if it still works and holds no open
    /// transaction, closed otherwise.
    func checkIn(_ connection: PostgresConnection) {
        if connection.firstStatementResend == .resent { replaced.increment(1) }
        connection.firstStatementResend = .off
        if connection.isUsable, connection.isIdle {
            idle.withLock { $0.append(connection) }
        }
        inUse.subtract(1, ordering: .relaxed)
        permits.signal()
    }

    /// The pool's state for `/metrics`.
    var metricsSources: [any MetricsSource] {
        [
            GaugeFamily("entitlementd_postgres_connections", help: "Pooled PostgreSQL connections, by state.", labels: ["state"]) {
                [(["in_use"], Double(self.inUse.load(ordering: .relaxed))), (["idle"], Double(self.idleCount)),
                 (["max"], Double(self.maxConnections))]
            },
            waits, replaced,
        ]
    }
}
