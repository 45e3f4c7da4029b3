import Foundation
import Synchronization

/// This instance's background-work locks among the instances sharing PostgreSQL: session-level advisory locks, taken
/// on a session of their own.
///
/// PostgreSQL frees a session's advisory locks when the session ends. A killed instance's ends at once (its socket
/// closes); a frozen one (SIGSTOP, a paused VM) or one cut off by the network keeps its socket, so the session has
/// `idle_session_timeout` (``sessionTimeoutMilliseconds``, 10 s by default): PostgreSQL ends it once nothing has come
/// over it for that long. While locks are held, a keeper thread sends a cheap query five times as often, so only a
/// holder that stopped running, or cannot reach the server, loses them. A holder that resumes finds its session gone
/// at its next check, and holds the work again only if no other instance took it meanwhile.
final class PostgresWorkLocks: Sendable {
    /// How long a holder may go silent before its locks pass on.
    let sessionTimeoutMilliseconds: Int

    private struct State {
        /// The locking session (used by one thread at a time: under this state's lock).
        var session: PostgresConnection?
        /// The locks taken on that session.
        var held: Set<String> = []
        var keeperRunning = false
    }

    private let conninfo: String
    private let state = Mutex(State())

    init(conninfo: String, sessionTimeoutMilliseconds: Int = 10_000) {
        self.conninfo = conninfo
        self.sessionTimeoutMilliseconds = sessionTimeoutMilliseconds
    }

    /// Whether this instance holds work `name` of `tenantID`: a round trip to the server either way, so a session that
    /// was ended (a holder frozen past the timeout) is noticed here, before the work goes on.
    func holds(tenantID: String, name: String) throws(PostgresError) -> Bool {
        let key = tenantID + "/" + name
        let (holds, startKeeper) = try state.withLock { (state) throws(PostgresError) -> (Bool, Bool) in
            if let open = state.session {
                do throws(PostgresError) {
                    return try Self.take(key, on: open, &state)
                } catch where error.connectionLost {
                    // Ended by the server (silent past the timeout) or the network: its locks are gone; ask afresh.
                    state.session = nil
                    state.held = []
                }
            }
            do throws(PostgresError) {
                let session = try PostgresConnection(conninfo: conninfo, applicationName: "entitlementd-work")
                try session.execute("SET idle_session_timeout = \(sessionTimeoutMilliseconds)")
                state.session = session
                return try Self.take(key, on: session, &state)
            } catch {
                state.session = nil
                state.held = []
                throw error
            }
        }
        if startKeeper {
            // Well inside the timeout, so a busy machine delaying the keeper does not lose the locks.
            let interval = UInt32(clamping: sessionTimeoutMilliseconds / 5 * 1000)
            // Weak: a released database closes its session, and its locks pass on.
            let thread = Thread { [weak self] in
                while true {
                    usleep(interval)
                    guard let self, self.keepSession() else { return }
                }
            }
            thread.name = "entitlementd-work-locks"
            thread.start()
        }
        return holds
    }

    /// Confirms or takes the lock `key` on `session`; whether it is held, and whether the keeper must be started.
    private static func take(_ key: String, on session: PostgresConnection, _ state: inout State) throws(PostgresError)
        -> (Bool, Bool)
    {
        if state.held.contains(key) {
            try session.query("SELECT 1")
            return (true, false)
        }
        let taken = try session.query(
            "SELECT pg_try_advisory_lock(hashtextextended(current_schema() || ' ' || $1, $2))",
            [key, String(PostgresMigrator.lockKey)])
        guard taken.rows.first?.first == "t" else { return (false, false) }
        state.held.insert(key)
        let startKeeper = !state.keeperRunning
        state.keeperRunning = true
        return (true, startKeeper)
    }

    /// The keeper's round: pings the locking session while it holds locks; false (the keeper ends) once it holds none
    /// or the session is lost.
    private func keepSession() -> Bool {
        state.withLock { state -> Bool in
            guard let session = state.session, !state.held.isEmpty else {
                state.keeperRunning = false
                return false
            }
            do throws(PostgresError) {
                try session.query("SELECT 1")
                return true
            } catch {
                state = State()
                return false
            }
        }
    }
}
