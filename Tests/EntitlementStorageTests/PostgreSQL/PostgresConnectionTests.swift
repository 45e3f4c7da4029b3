import EntitlementDomain
@testable import EntitlementStorage
import Foundation
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

    @Test func aTerminatedSessionFailsAsUnavailableAndThePoolOpensAFreshOne() throws {
        let pool = PostgresConnectionPool(
            conninfo: try #require(PostgresTestDatabase.conninfo), maxConnections: 1, checkoutTimeout: .seconds(5))
        let first = try pool.withConnection { connection throws(PostgresError) in connection.backendPID }
        #expect(pool.idleCount == 1)
        // Another session ends ours, as a database restart or failover would.
        let killer = try Self.connect()
        #expect(try killer.query("SELECT pg_terminate_backend($1)", ["\(first)"]).rows == [["t"]])
        let lost = try #require(throws: StorageError.self) {
            try pool.withConnection { connection throws(PostgresError) in try connection.query("SELECT 1") }
        }
        #expect(lost.code == .unavailable)
        #expect(pool.idleCount == 0)  // the broken connection was closed, not put back
        let second = try pool.withConnection { connection throws(PostgresError) in
            _ = try connection.query("SELECT 1")
            return connection.backendPID
        }
        #expect(second != first)
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
