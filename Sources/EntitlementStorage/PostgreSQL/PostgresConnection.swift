import CLibPQ
import Glibc

/// One libpq connection and the statements prepared on it.
///
/// libpq allows one thread at a time per connection; whoever holds it (the pool hands it to one caller at a time)
/// uses it from one thread, hence `@unchecked Sendable`. Parameters and results travel as text, which PostgreSQL
/// converts to and from the column types; NULL is nil.
final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Statements run once on every session this connection opens (the pool's ``PostgresSessionTimeouts``).
    private let sessionSetup: String
    /// Statement names by SQL text: prepared statements live per session (and die with it).
    private var prepared: [String: String] = [:]
    /// What ``send(_:_:preparing:)`` sent in libpq's pipeline mode whose results are not read yet, oldest first.
    private var inFlight: [InFlight] = []
    /// Whether the next statement, when it finds the session lost, is sent once more on a fresh one; the pool
    /// arms it (``PostgresConnectionPool/checkOut()``), the first statement disarms it.
    var firstStatementResend = FirstStatementResend.off

    /// Connects with a libpq connection string (`host=/run/postgresql dbname=entitlements user=...`, or a
    /// `postgresql://` URL); `connect_timeout` there bounds the wait. `applicationName` names the session in
    /// `pg_stat_activity` unless the string sets its own.
    init(conninfo: String, applicationName: String = "entitlementd", sessionSetup: String = "") throws(PostgresError) {
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
        do throws(PostgresError) {
            try Self.setUp(connection, sessionSetup)
        } catch {
            PQfinish(connection)
            throw error
        }
        handle = connection
        self.sessionSetup = sessionSetup
    }

    private static func setUp(_ connection: OpaquePointer, _ sessionSetup: String) throws(PostgresError) {
        // Notices below WARNING (CREATE ... IF NOT EXISTS finding the object: "already exists, skipping") are the
        // expected course of our statements, not news, and libpq would print each raw on standard error. A failure
        // here shows in the next statement.
        PQclear(PQexec(connection, "SET client_min_messages = warning"))
        if !sessionSetup.isEmpty { try rows(PQexec(connection, sessionSetup), on: connection) }
    }

    deinit {
        PQfinish(handle)
    }

    /// False once the server or the network dropped the connection; it is then thrown away, never reused.
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether the server ended this idle session (a restart, `pg_terminate_backend`, a reset network), told
    /// without a round trip: nothing is sent unasked to a session that runs no statement and does not LISTEN, so
    /// any input on its socket is the FATAL message a terminated backend sends before it closes, or end of file.
    var hasEndedWhileIdle: Bool {
        guard isUsable else { return true }
        var socket = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        // Readable, hung up, in error, or poll itself failing: this session is not worth a caller's statement.
        return poll(&socket, 1, 0) != 0
    }

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

    /// Runs one statement with `$1...$n` parameters through a statement prepared once on this connection: `sql` as
    /// given, or as `prepare` rewrites it (the executor's `?` placeholders), which is then paid once per connection
    /// rather than per call.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = [], preparing prepare: (String) -> String = { $0 })
        throws(PostgresError) -> PostgresRows
    {
        try resendingFirstStatement { () throws(PostgresError) in
            let name = try statementName(for: sql, parameterCount: parameters.count, prepare)
            return try withCStrings(parameters) { (values: [UnsafePointer<CChar>?]) throws(PostgresError) in
                try Self.rows(PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0), on: handle)
            }
        }
    }

    /// Sends a statement as ``query(_:_:preparing:)`` runs it, without waiting for its answer: it travels with the
    /// statements sent after it, and ``flush()`` reads the answers of all of them in one round trip.
    func send(_ sql: String, _ parameters: [String?], preparing prepare: (String) -> String) throws(PostgresError) {
        if inFlight.isEmpty, PQenterPipelineMode(handle) != 1 { throw failure() }
        let name: String
        if let existing = prepared[sql] {
            name = existing
        } else {
            name = "s\(prepared.count + 1)"
            guard PQsendPrepare(handle, name, prepare(sql), Int32(parameters.count), nil) == 1 else { throw failure() }
            prepared[sql] = name
            inFlight.append(.preparation(sql))
        }
        let sent = withCStrings(parameters) { values in
            PQsendQueryPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
        }
        guard sent == 1 else { throw failure() }
        inFlight.append(.statement)
    }

    /// Reads the answers to every statement ``send(_:_:preparing:)`` sent: their rows, oldest first, or the first
    /// failure (PostgreSQL skips the statements after it, and the transaction is then failed).
    func flush() throws(PostgresError) -> [PostgresRows] {
        guard !inFlight.isEmpty else { return [] }
        let sent = inFlight
        inFlight = []
        guard PQpipelineSync(handle) == 1 else { throw failure() }
        var answers: [PostgresRows] = []
        var firstFailure: PostgresError?
        for item in sent {
            // Nothing where an answer is due: the connection is gone, and the rest of the pipeline with it.
            guard let result = PQgetResult(handle) else { throw failure() }
            do throws(PostgresError) {
                let rows = try Self.rows(result, on: handle)
                if case .statement = item { answers.append(rows) }
            } catch {
                if case .preparation(let sql) = item { prepared[sql] = nil }
                firstFailure = firstFailure ?? error
            }
            PQclear(PQgetResult(handle))  // the NULL that ends each statement's answer
        }
        PQclear(PQgetResult(handle))  // the sync's own answer, after which the pipeline may end
        guard PQexitPipelineMode(handle) == 1 else { throw failure() }
        if let firstFailure { throw firstFailure }
        return answers
    }

    /// Runs SQL text as it is, several statements allowed, no parameters (migrations, `BEGIN`, `COMMIT`).
    @discardableResult
    func execute(_ sql: String) throws(PostgresError) -> PostgresRows {
        try resendingFirstStatement { () throws(PostgresError) in try Self.rows(PQexec(handle, sql), on: handle) }
    }

    /// Sends a statement; while ``firstStatementResend`` is armed and the session turns out lost, opens a fresh
    /// session with the same parameters and setup and sends it there once more.
    private func resendingFirstStatement(
        _ send: () throws(PostgresError) -> PostgresRows
    ) throws(PostgresError) -> PostgresRows {
        guard firstStatementResend == .armed else { return try send() }
        firstStatementResend = .off
        do throws(PostgresError) {
            return try send()
        } catch let error where error.connectionLost {
            PQreset(handle)
            prepared = [:]
            guard isUsable else {
                throw PostgresError(sqlState: "", message: "cannot connect: \(Self.message(handle))", connectionLost: true)
            }
            try Self.setUp(handle, sessionSetup)
            firstStatementResend = .resent
            return try send()
        }
    }

    private func statementName(for sql: String, parameterCount: Int, _ prepare: (String) -> String)
        throws(PostgresError) -> String
    {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count + 1)"
        try Self.rows(PQprepare(handle, name, prepare(sql), Int32(parameterCount), nil), on: handle)
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

    /// The connection's last error, as libpq reports one that is not a statement's.
    private func failure() -> PostgresError {
        PostgresError(sqlState: "", message: Self.message(handle), connectionLost: !isUsable)
    }

    private static func message(_ connection: OpaquePointer) -> String {
        trimmed(PQerrorMessage(connection).map { String(cString: $0) } ?? "unknown error")
    }

    private static func trimmed(_ text: String) -> String {
        String(text.split(whereSeparator: \.isNewline).first ?? "")
    }
}

/// A command in flight in pipeline mode: its answer comes back in the order sent.
private enum InFlight {
    /// Preparing the statement with this SQL (forgotten again should it fail).
    case preparation(String)
    case statement
}

/// The pool's bargain for the first statement a caller sends on a connection that sat idle
/// (``PostgresConnectionPool/checkOut()``).
enum FirstStatementResend: Equatable {
    /// Every statement fails as it fails.
    case off
    /// The next statement is sent once more on a fresh session if this one turns out lost.
    case armed
    /// The first statement found the session lost and went to a fresh one.
    case resent
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
