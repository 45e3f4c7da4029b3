import EntitlementDomain
@testable import EntitlementStorage
import Testing

/// Statements sent without waiting (`PostgresExecutor.send`, libpq's pipeline mode): they run in order, their
/// failures reach whoever reads the answers, and the connection is an ordinary one again afterwards.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, "ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL"))
struct PostgresPipelineTests {
    /// A table `(id bigint PRIMARY KEY, name text)` on a connection of its own, dropped after `body`.
    static func withTable(_ body: (PostgresExecutor, String) throws -> Void) throws {
        let connection = try PostgresConnectionTests.connect()
        let table = PostgresTestDatabase.uniqueTable("pipelined")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY, name text NOT NULL)")
        defer { _ = try? connection.execute("DROP TABLE \(table)") }
        try body(PostgresExecutor(connection: connection, locksRows: true), table)
    }

    @Test func sentStatementsRunInOrderAndTheNextQueryReadsTheirEffects() throws {
        try Self.withTable { executor, table in
            try executor.execute("BEGIN")
            try executor.send("INSERT INTO \(table) (id, name) VALUES (?, ?)", [.integer(1), .text("one")])
            try executor.send("INSERT INTO \(table) (id, name) VALUES (?, ?)", [.integer(2), .text("two")])
            try executor.send(
                "UPDATE \(table) SET name = ? WHERE id = ?", [.text("uno"), .integer(1)],
                unlessOneRow: .conflict("no row 1"))
            // The query travels with them and sees what they did.
            let names = try executor.rows("SELECT name FROM \(table) ORDER BY id", []) { $0.string(0) }
            #expect(names == ["uno", "two"])
            try executor.send("DELETE FROM \(table) WHERE id = ?", [.integer(2)])
            try executor.execute("COMMIT")  // sends what is in flight first
            #expect(try executor.rows("SELECT id FROM \(table)", []) { $0.int64(0) } == [1])
            #expect(executor.connection.isIdle && executor.connection.isUsable)
        }
    }

    @Test func theFirstFailureIsThrownAndTheStatementsAfterItDoNotRun() throws {
        try Self.withTable { executor, table in
            try executor.execute("BEGIN")
            try executor.send("INSERT INTO \(table) (id, name) VALUES (?, ?)", [.integer(1), .text("one")])
            try executor.execute("SAVEPOINT attempt")
            try executor.send("INSERT INTO \(table) (id, name) VALUES (?, ?)", [.integer(1), .text("again")])
            // Never prepared before: its preparation is skipped too, and prepared again when next used.
            try executor.send("INSERT INTO \(table) (name, id) VALUES (?, ?)", [.text("three"), .integer(3)])
            let failure = try #require(throws: StorageError.self) { try executor.flush() }
            #expect(failure.code == .conflict && executor.lastFailure?.sqlState == "23505")
            #expect(executor.connection.isInFailedTransaction)
            try executor.execute("ROLLBACK TO SAVEPOINT attempt")
            try executor.send("INSERT INTO \(table) (name, id) VALUES (?, ?)", [.text("three"), .integer(3)])
            try executor.execute("COMMIT")
            #expect(try executor.rows("SELECT id, name FROM \(table) ORDER BY id", []) { "\($0.int64(0)) \($0.string(1))" }
                == ["1 one", "3 three"])
        }
    }

    @Test func aStatementThatMustChangeOneRowFailsWithItsOwnErrorWhenItChangesNone() throws {
        try Self.withTable { executor, table in
            try executor.execute("BEGIN")
            try executor.send(
                "UPDATE \(table) SET name = ? WHERE id = ?", [.text("none"), .integer(7)],
                unlessOneRow: .conflict("no row 7 to rename"))
            let failure = try #require(throws: StorageError.self) {
                try executor.row("SELECT count(*) FROM \(table)", []) { $0.int64(0) }
            }
            #expect(failure.code == .conflict && failure.message.contains("no row 7 to rename"))
            // Nothing failed in PostgreSQL itself: the transaction goes on.
            #expect(!executor.connection.isInFailedTransaction)
            try executor.execute("ROLLBACK")
            #expect(try executor.row("SELECT count(*) FROM \(table)", []) { $0.int64(0) } == 0)
        }
    }
}
