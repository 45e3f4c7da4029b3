import Encodings
import EntitlementDomain

/// The shared queries (``SQLExecutor``) on one PostgreSQL connection, for one checkout of it.
///
/// Parameters are written `?` in the shared SQL and numbered `$1...$n` here; values travel as text. The last
/// PostgreSQL error is kept, so that a write that failed on a serialization failure, a deadlock or a unique key
/// raced by another instance can be told apart and run again.
final class PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    let dialect = SQLDialect.postgres
    let locksRows: Bool
    private(set) var lastFailure: PostgresError?
    /// For each statement ``send(_:_:unlessOneRow:)`` left in flight, the error it fails with unless it changed
    /// exactly one row.
    private var sentExpectations: [StorageError?] = []

    /// - Parameter locksRows: inside a write transaction: rows read stay locked until it ends.
    init(connection: PostgresConnection, locksRows: Bool) {
        self.connection = connection
        self.locksRows = locksRows
    }

    @discardableResult
    func run(_ sql: String, _ bindings: [SQLValue]) throws(StorageError) -> Int {
        try query(sql, bindings).affected
    }

    func rows<T>(_ sql: String, _ bindings: [SQLValue], _ map: (PostgresRow) throws(StorageError) -> T)
        throws(StorageError) -> [T]
    {
        let result = try query(sql, bindings)
        var mapped: [T] = []
        mapped.reserveCapacity(result.rows.count)
        for values in result.rows {
            mapped.append(try map(PostgresRow(values: values)))
        }
        return mapped
    }

    func row<T>(_ sql: String, _ bindings: [SQLValue], _ map: (PostgresRow) throws(StorageError) -> T)
        throws(StorageError) -> T?
    {
        try query(sql, bindings).rows.first.map { (values) throws(StorageError) in try map(PostgresRow(values: values)) }
    }

    /// Sent in pipeline mode: it travels with the next statement that needs an answer (a query, or `RELEASE` and
    /// `COMMIT` after ``flush()``), a round trip saved per statement.
    func send(_ sql: String, _ bindings: [SQLValue], unlessOneRow failure: StorageError?) throws(StorageError) {
        do throws(PostgresError) {
            try connection.send(sql, bindings.map(Self.text), preparing: Self.numberingParameters)
        } catch {
            throw failed(error)
        }
        sentExpectations.append(failure)
    }

    func flush() throws(StorageError) {
        _ = try answersToSent()
    }

    /// The answers of the statements sent since the last flush, each checked against its expectation.
    private func answersToSent() throws(StorageError) -> [PostgresRows] {
        let expectations = sentExpectations
        sentExpectations = []
        let answers: [PostgresRows]
        do throws(PostgresError) {
            answers = try connection.flush()
        } catch {
            throw failed(error)
        }
        for (answer, expectation) in zip(answers, expectations) {
            if let expectation, answer.affected != 1 { throw expectation }
        }
        return answers
    }

    /// Runs SQL text without parameters (`BEGIN`, `COMMIT`), after what was sent.
    func execute(_ sql: String) throws(StorageError) {
        try flush()
        do throws(PostgresError) {
            try connection.execute(sql)
        } catch {
            throw failed(error)
        }
    }

    private func query(_ sql: String, _ bindings: [SQLValue]) throws(StorageError) -> PostgresRows {
        guard sentExpectations.isEmpty else {
            // Joins the statements in flight: one round trip for all of them.
            try send(sql, bindings, unlessOneRow: nil)
            guard let answer = try answersToSent().last else { throw .corrupt("PostgreSQL: a pipeline lost an answer") }
            return answer
        }
        do throws(PostgresError) {
            return try connection.query(sql, bindings.map(Self.text), preparing: Self.numberingParameters)
        } catch {
            throw failed(error)
        }
    }

    /// Starts a new write of a group commit: a failure an earlier write caught is not this one's.
    func forgetFailure() {
        lastFailure = nil
    }

    private func failed(_ error: PostgresError) -> StorageError {
        lastFailure = error
        return error.storageError
    }

    /// `?` parameters as `$1...$n`, left alone inside quoted literals and identifiers.
    static func numberingParameters(_ sql: String) -> String {
        var numbered = ""
        numbered.reserveCapacity(sql.utf8.count + 16)
        var quote: Character?
        var count = 0
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                numbered.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                numbered.append(character)
            } else if character == "?" {
                count += 1
                numbered += "$\(count)"
            } else {
                numbered.append(character)
            }
        }
        return numbered
    }

    /// A parameter's text form: integers in decimal, `bytea` in hex (`\x...`), NULL as nil.
    static func text(_ value: SQLValue) -> String? {
        switch value {
        case .integer(let integer): String(integer)
        case .text(let text): text
        case .blob(let bytes): "\\x" + Hex.encode(bytes)
        case .null: nil
        }
    }
}

/// One row of text values from PostgreSQL.
struct PostgresRow: SQLRow {
    let values: [String?]

    func isNull(_ column: Int32) -> Bool { values[Int(column)] == nil }
    func int64(_ column: Int32) -> Int64 { values[Int(column)].flatMap { Int64($0) } ?? 0 }
    func string(_ column: Int32) -> String { values[Int(column)] ?? "" }
    /// `bytea` in PostgreSQL's hex output format (`\x` then two digits a byte), the server's default.
    func blob(_ column: Int32) -> [UInt8] {
        guard let text = values[Int(column)], text.hasPrefix("\\x") else { return [] }
        return Hex.decode(text.dropFirst(2)) ?? []
    }
}
