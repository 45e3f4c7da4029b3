import CLibPQ
import Glibc

/// One libpq connection and the statements prepared on it.
///
/// libpq allows one thread at a time per connection; whoever holds it (the pool hands it to one caller at a time)
/// uses it from one thread, hence `@unchecked Sendable`. Parameters and results travel as text, which PostgreSQL
/// converts to and from the column types; NULL is nil.
final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Statement names by SQL text: prepared statements live per connection (and die with it).
    private var prepared: [String: String] = [:]

    /// Connects with a libpq connection string (`host=/run/postgresql dbname=entitlements user=...`, or a
    /// `postgresql://` URL); `connect_timeout` there bounds the wait. `applicationName` names the session in
    /// `pg_stat_activity` unless the string sets its own.
    init(conninfo: String, applicationName: String = "entitlementd") throws(PostgresError) {
        // expand_dbname: the "dbname" value is the whole connection string or URL, read as libpq reads one.
        let keywords: [String?] = ["fallback_application_name", "dbname"]
        let values: [String?] = [applicationName, conninfo]
        let connected = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers + [nil], valuePointers + [nil], 1)
            }
        }
        guard let connection = connected else {
            throw PostgresError(sqlState: "", message: "libpq could not allocate a connection", connectionLost: true)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(connection)
            PQfinish(connection)
            throw PostgresError(sqlState: "", message: "cannot connect: \(message)", connectionLost: true)
        }
        // Notices below WARNING (CREATE ... IF NOT EXISTS finding the object: "already exists, skipping") are the
        // expected course of our statements, not news, and libpq would print each raw on standard error. A failure
        // here shows in the first statement.
        PQclear(PQexec(connection, "SET client_min_messages = warning"))
        handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// False once the server or the network dropped the connection; it is then thrown away, never reused.
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether no transaction is open (a connection given back inside one is not reused).
    var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Whether a statement failed inside the open transaction: PostgreSQL then refuses every statement until it
    /// ends, and answers COMMIT by rolling back.
    var isInFailedTransaction: Bool { PQtransactionStatus(handle) == PQTRANS_INERROR }

    /// The socket to wait on for notifications (`poll` for input, then ``consumeInput()``).
    var socket: Int32 { PQsocket(handle) }

    /// Reads what arrived on the socket without blocking; false when the connection is broken.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 }

    /// The notifications received so far (after ``consumeInput()`` or a query), oldest first: the sending
    /// backend's process ID and the payload.
    func takeNotifications() -> [(senderPID: Int32, payload: String)] {
        var received: [(senderPID: Int32, payload: String)] = []
        while let notification = PQnotifies(handle) {
            received.append((notification.pointee.be_pid, String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return received
    }

    /// The server's process ID for this session (to tell our own notifications, or to terminate it in tests).
    var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs one statement with `$1...$n` parameters through a statement prepared once on this connection.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        let name = try statementName(for: sql, parameterCount: parameters.count)
        return try withCStrings(parameters) { (values: [UnsafePointer<CChar>?]) throws(PostgresError) in
            try Self.rows(PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0), on: handle)
        }
    }

    /// Runs SQL text as it is, several statements allowed, no parameters (migrations, `BEGIN`, `COMMIT`).
    @discardableResult
    func execute(_ sql: String) throws(PostgresError) -> PostgresRows {
        try Self.rows(PQexec(handle, sql), on: handle)
    }

    private func statementName(for sql: String, parameterCount: Int) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count + 1)"
        try Self.rows(PQprepare(handle, name, sql, Int32(parameterCount), nil), on: handle)
        prepared[sql] = name
        return name
    }

    /// Reads a result into rows of text and frees it; a failed one becomes the error it says.
    @discardableResult
    private static func rows(_ result: OpaquePointer?, on connection: OpaquePointer) throws(PostgresError) -> PostgresRows {
        guard let result else {
            throw PostgresError(
                sqlState: "", message: message(connection), connectionLost: PQstatus(connection) != CONNECTION_OK)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            let count = Int(PQntuples(result))
            let columns = Int(PQnfields(result))
            var rows: [[String?]] = []
            rows.reserveCapacity(count)
            for row in 0..<Int32(count) {
                rows.append((0..<Int32(columns)).map { column in
                    PQgetisnull(result, row, column) != 0 ? nil : String(cString: PQgetvalue(result, row, column))
                })
            }
            let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
            return PostgresRows(rows: rows, affected: affected)
        default:
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let text = PQresultErrorMessage(result).map { String(cString: $0) } ?? "unknown error"
            throw PostgresError(
                sqlState: sqlState, message: trimmed(text), connectionLost: PQstatus(connection) != CONNECTION_OK)
        }
    }

    private static func message(_ connection: OpaquePointer) -> String {
        trimmed(PQerrorMessage(connection).map { String(cString: $0) } ?? "unknown error")
    }

    private static func trimmed(_ text: String) -> String {
        String(text.split(whereSeparator: \.isNewline).first ?? "")
    }
}

/// The rows a statement returned, each column as PostgreSQL's text form (nil for NULL), and how many rows an
/// INSERT, UPDATE or DELETE changed.
struct PostgresRows: Sendable {
    let rows: [[String?]]
    let affected: Int
}

/// Calls `body` with `strings` as C strings that live for the call (nil stays a NULL pointer: SQL NULL).
private func withCStrings<Result, Failure: Error>(
    _ strings: [String?], _ body: ([UnsafePointer<CChar>?]) throws(Failure) -> Result
) throws(Failure) -> Result {
    let buffers: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { for buffer in buffers { free(buffer) } }
    return try body(buffers.map { UnsafePointer($0) })
}
