import EntitlementDomain
@testable import EntitlementStorage
import Foundation
import Metrics
import Testing

@Suite(.enabled(if: PostgresTestDatabase.isAvailable, "ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL"))
struct PostgresConnectionTests {
    static func connect() throws -> PostgresConnection {
        try PostgresConnection(conninfo: try #require(PostgresTestDatabase.conninfo))
    }

    @Test func parametersAndResultsTravelAsTextWithNULLAsNil() throws {
        let connection = try Self.connect()
        let table = PostgresTestDatabase.uniqueTable("kinds")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY, name text, at timestamptz)")
        defer { _ = try? connection.execute("DROP TABLE \(table)") }
        let insert = "INSERT INTO \(table) (id, name, at) VALUES ($1, $2, $3)"
        #expect(try connection.query(insert, ["9007199254740993", "O'Brien; DROP TABLE x --", nil]).affected == 1)
        #expect(try connection.query(insert, ["2", "😀 ünïcode", "2030-01-31T12:00:00Z"]).affected == 1)
        let rows = try connection.query(
            "SELECT id, name, extract(epoch FROM at)::bigint FROM \(table) ORDER BY id").rows
        #expect(rows == [["2", "😀 ünïcode", "1896091200"], ["9007199254740993", "O'Brien; DROP TABLE x --", nil]])
        // The same SQL again runs the statement prepared the first time.
        #expect(try connection.query("SELECT count(*) FROM \(table) WHERE id > $1", ["1"]).rows == [["2"]])
        #expect(try connection.query("SELECT count(*) FROM \(table) WHERE id > $1", ["2"]).rows == [["1"]])
    }

    @Test func serverErrorsCarryTheirSQLStateAndMapToStorageErrors() throws {
        let connection = try Self.connect()
        let table = PostgresTestDatabase.uniqueTable("unique")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY)")
        defer { _ = try? connection.execute("DROP TABLE \(table)") }
        try connection.query("INSERT INTO \(table) VALUES ($1)", ["1"])
        let duplicate = try #require(throws: PostgresError.self) {
            try connection.query("INSERT INTO \(table) VALUES ($1)", ["1"])
        }
        #expect(duplicate.sqlState == "23505" && !duplicate.connectionLost && duplicate.storageError.code == .conflict)
        let syntax = try #require(throws: PostgresError.self) { try connection.execute("SELEC 1") }
        #expect(syntax.sqlState == "42601" && syntax.storageError.code == .corrupt)
        // The connection is still good after errors.
        #expect(try connection.query("SELECT 1").rows == [["1"]] && connection.isUsable && connection.isIdle)
    }

    /// Ends a session as a restart does and waits until its backend has exited: the FATAL message it sends
    /// before exiting is then on the session's socket.
    static func terminate(_ pid: Int32) throws {
        let killer = try connect()
        #expect(try killer.query("SELECT pg_terminate_backend($1)", ["\(pid)"]).rows == [["t"]])
        for _ in 0..<2_000 {
            if try killer.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", ["\(pid)"]).rows == [["0"]] {
                return
            }
            usleep(5_000)
        }
        Issue.record("backend \(pid) did not exit")
    }

    /// The pool's `/metrics` lines for sessions it replaced.
    static func replacedSessions(_ pool: PostgresConnectionPool) -> [String] {
        var text = PrometheusText()
        for source in pool.metricsSources { source.collect(into: &text) }
        return String(decoding: text.bytes, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix("entitlementd_postgres_sessions_replaced_total{") }.map(String.init)
    }

    @Test func aSessionTheServerEndedWhileIdleIsReplacedAtCheckoutBeforeAnyStatement() throws {
        let pool = PostgresConnectionPool(
            conninfo: try #require(PostgresTestDatabase.conninfo), maxConnections: 1, checkoutTimeout: .seconds(5))
        let first = try pool.withConnection { connection throws(PostgresError) in connection.backendPID }
        let kept = try pool.withConnection { connection throws(PostgresError) in connection.backendPID }
        #expect(kept == first)  // a live idle session is reused
        try Self.terminate(first)
        #expect(pool.idleCount == 1)
        // No statement runs in the body: the session it gets was opened by the checkout, which found the other ended.
        let second = try pool.withConnection { connection throws(PostgresError) in connection.backendPID }
        #expect(second != first)
        #expect(Self.replacedSessions(pool) == [
            #"entitlementd_postgres_sessions_replaced_total{found="at_checkout"} 1"#,
            #"entitlementd_postgres_sessions_replaced_total{found="by_first_statement"} 0"#,
        ])
        #expect(try pool.withConnection { connection throws(PostgresError) in try connection.query("SELECT 1").rows } == [["1"]])
    }

    @Test func aFirstStatementThatFindsItsSessionEndedIsSentOnceMoreOnAFreshSessionWithTheSameSetup() throws {
        let pool = PostgresConnectionPool(
            conninfo: try #require(PostgresTestDatabase.conninfo), maxConnections: 1, checkoutTimeout: .seconds(5),
            sessionSetup: "SET lock_timeout = 1234")
        let sql = "SELECT current_setting('lock_timeout'), pg_backend_pid()"
        let first = try pool.withConnection { connection throws(PostgresError) in try connection.query(sql).rows }
        #expect(first.first?[0] == "1234ms")
        let connection = try pool.checkOut()
        let firstPID = connection.backendPID
        // The session ends after the checkout looked at it, before the caller's first statement.
        try Self.terminate(firstPID)
        // The statement prepared on the old session is prepared again on the new one.
        let resent = try connection.query(sql).rows
        #expect(resent.first?[0] == "1234ms" && resent.first?[1] != "\(firstPID)" && connection.backendPID != firstPID)
        pool.checkIn(connection)
        #expect(Self.replacedSessions(pool) == [
            #"entitlementd_postgres_sessions_replaced_total{found="at_checkout"} 0"#,
            #"entitlementd_postgres_sessions_replaced_total{found="by_first_statement"} 1"#,
        ])
        #expect(pool.idleCount == 1)
    }

    @Test func aLaterStatementOnAnEndedSessionFailsAsUnavailableAndIsNotSentAgain() throws {
        let pool = PostgresConnectionPool(
            conninfo: try #require(PostgresTestDatabase.conninfo), maxConnections: 1, checkoutTimeout: .seconds(5))
        let table = PostgresTestDatabase.uniqueTable("sent_once")
        let setup = try Self.connect()
        try setup.execute("CREATE TABLE \(table) (id bigint)")
        defer { _ = try? setup.execute("DROP TABLE \(table)") }
        // Once a transaction has begun, a lost session may have run what was sent (a COMMIT whose answer was lost
        // may have committed): the call fails, and nothing is sent again.
        let connection = try pool.checkOut()
        try connection.execute("BEGIN")
        try connection.query("INSERT INTO \(table) VALUES (1)")
        try Self.terminate(connection.backendPID)
        let lost = try #require(throws: PostgresError.self) { try connection.execute("COMMIT") }
        #expect(lost.connectionLost && lost.storageError.code == .unavailable)
        pool.checkIn(connection)
        #expect(pool.idleCount == 0)  // the broken connection was closed, not put back
        #expect(try setup.query("SELECT count(*) FROM \(table)").rows == [["0"]])
        #expect(Self.replacedSessions(pool).allSatisfy { $0.hasSuffix(" 0") })
    }

    @Test func aFullPoolMakesCallersWaitThenFailAsUnavailable() async throws {
        let pool = PostgresConnectionPool(
            conninfo: try #require(PostgresTestDatabase.conninfo), maxConnections: 1, checkoutTimeout: .milliseconds(300))
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? pool.withConnection { _ throws(PostgresError) in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        let started = Date()
        let refused = try #require(throws: StorageError.self) {
            try pool.withConnection { connection throws(PostgresError) in try connection.query("SELECT 1") }
        }
        #expect(refused.code == .unavailable && refused.message.contains("free within"))
        #expect(Date().timeIntervalSince(started) >= 0.25)
        release.signal()
        // Once given back, the connection serves the next caller.
        try await Task.sleep(for: .milliseconds(50))
        #expect(try pool.withConnection { connection throws(PostgresError) in try connection.query("SELECT 2").rows } == [["2"]])
    }

    @Test func aConnectionGivenBackInsideATransactionIsNotReused() throws {
        let pool = PostgresConnectionPool(
            conninfo: try #require(PostgresTestDatabase.conninfo), maxConnections: 2, checkoutTimeout: .seconds(5))
        _ = try pool.withConnection { connection throws(PostgresError) in try connection.execute("BEGIN") }
        #expect(pool.idleCount == 0)
    }

    @Test func aWrongServerIsUnavailableWithLibpqsReason() {
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection(conninfo: "host=/nonexistent-entitlementd port=1 connect_timeout=2")
        }
        #expect(error?.connectionLost == true && error?.storageError.code == .unavailable)
        #expect(error?.message.contains("cannot connect") == true)
    }
}
