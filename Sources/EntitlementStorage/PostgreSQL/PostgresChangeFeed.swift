import CivilCalendar
import EntitlementDomain
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// This instance's ear on the shared database: one `LISTEN` connection (never one per stream) that hands every
/// version another instance commits to `deliver`.
///
/// Notifications sent while the connection is down are lost, so after every reconnect the feed listens first and
/// then re-reads which customers changed since shortly before the connection was lost (``catchUpMargin`` covers
/// transactions still open then and clocks a little apart); duplicates are harmless, the receiver skips versions
/// it has. A silent connection is probed every ``probeInterval``, so a dead one is noticed and replaced.
public final class PostgresChangeFeed: Sendable {
    public static let catchUpMargin = Milliseconds.perMinute
    static let probeInterval: Int64 = 10_000
    static let catchUpLimit = 100_000

    private let conninfo: String
    private let instanceTag: String
    private let database: PostgresDatabase
    private let deliver: @Sendable ([CommittedVersion]) -> Void
    private let log: @Sendable (String) -> Void
    private let stopped = Atomic<Bool>(false)
    /// The listening session's backend process ID, 0 while disconnected (for tests and diagnostics).
    private let listenerPID = Atomic<Int32>(0)

    init(
        conninfo: String, instanceTag: String, database: PostgresDatabase,
        deliver: @escaping @Sendable ([CommittedVersion]) -> Void, log: @escaping @Sendable (String) -> Void
    ) {
        self.conninfo = conninfo
        self.instanceTag = instanceTag
        self.database = database
        self.deliver = deliver
        self.log = log
    }

    /// The backend process ID of the listening connection; 0 while it is reconnecting.
    public var backendPID: Int32 { listenerPID.load(ordering: .relaxed) }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "entitlementd-listen"
        thread.start()
    }

    /// Ends the loop within a second; the connection closes with it.
    public func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func run() {
        var lostAt: Int64?
        var retryDelay: Int64 = 100
        while !stopped.load(ordering: .relaxed) {
            do throws(PostgresError) {
                let connection = try PostgresConnection(conninfo: conninfo, applicationName: "entitlementd-listen")
                try connection.execute("LISTEN \(ChangeNotification.channel)")
                listenerPID.store(connection.backendPID, ordering: .relaxed)
                if let lost = lostAt {
                    try catchUp(since: lost - Self.catchUpMargin)
                    log("listening again for other instances' changes; caught up from before the connection was lost")
                    lostAt = nil
                }
                retryDelay = 100
                try listen(on: connection)
            } catch {
                listenerPID.store(0, ordering: .relaxed)
                if lostAt == nil || retryDelay == 100 {
                    log("the LISTEN connection failed (\(error)); reconnecting")
                }
                lostAt = lostAt.map { min($0, Self.now()) } ?? Self.now()
                usleep(UInt32(retryDelay) * 1000)
                retryDelay = min(retryDelay * 2, 5000)
            }
        }
    }

    /// Waits for notifications until stopped or the connection fails (thrown).
    private func listen(on connection: PostgresConnection) throws(PostgresError) {
        var lastTraffic = Self.now()
        while !stopped.load(ordering: .relaxed) {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1000)
            if ready > 0 {
                guard connection.consumeInput() else {
                    throw PostgresError(sqlState: "", message: "the connection was lost", connectionLost: true)
                }
                lastTraffic = Self.now()
            } else if Self.now() - lastTraffic >= Self.probeInterval {
                try connection.execute("SELECT 1")
                lastTraffic = Self.now()
            }
            receive(connection.takeNotifications())
        }
    }

    private func receive(_ notifications: [(senderPID: Int32, payload: String)]) {
        var versions: [CommittedVersion] = []
        for notification in notifications {
            guard let parsed = ChangeNotification(payload: notification.payload), parsed.sender != instanceTag else {
                continue
            }
            if parsed.catchUp {
                do throws(PostgresError) {
                    try catchUp(since: Self.now() - Self.catchUpMargin)
                } catch {
                    log("catching up after a long notification failed: \(error)")
                }
            } else {
                versions += parsed.versions
            }
        }
        if !versions.isEmpty { deliver(versions) }
    }

    /// Every customer whose last event is from `since` (milliseconds) on, at its current version.
    private func catchUp(since: Int64) throws(PostgresError) {
        let changed: [CommittedVersion]
        do throws(StorageError) {
            changed = try database.read(consistent: false) { (db) throws(StorageError) in
                try db.rows(
                    "SELECT tenant_id, id, version FROM customers WHERE changed_at >= ? ORDER BY changed_at LIMIT ?",
                    [.integer(since), .integer(Int64(Self.catchUpLimit))]
                ) {
                    CommittedVersion(
                        tenantID: $0.string(0), customerID: $0.int64(1), version: UInt64(bitPattern: $0.int64(2)))
                }
            }
        } catch {
            throw PostgresError(sqlState: "", message: "catch-up read: \(error)", connectionLost: true)
        }
        if !changed.isEmpty { deliver(changed) }
    }

    private static func now() -> Int64 { StorageSQL.now().milliseconds }
}
