/// PostgreSQL's bounds on one session, set when the pool opens it, so that no instance can hold up another for long:
/// a write waiting for a row lock another session holds (an instance frozen mid-transaction, a long manual
/// `SELECT … FOR UPDATE`) gives up after `lock`, and is answered UNAVAILABLE with nothing applied; a statement runs at
/// most `statement`; and PostgreSQL ends a session left idle inside a transaction after `idleInTransaction`, which
/// frees its locks (a frozen instance's included). Whole milliseconds; 0 turns a bound off.
public struct PostgresSessionTimeouts: Sendable, Equatable {
    public var lockMilliseconds: Int
    public var statementMilliseconds: Int
    public var idleInTransactionMilliseconds: Int

    public init(lockMilliseconds: Int = 2_000, statementMilliseconds: Int = 30_000, idleInTransactionMilliseconds: Int = 10_000) {
        self.lockMilliseconds = lockMilliseconds
        self.statementMilliseconds = statementMilliseconds
        self.idleInTransactionMilliseconds = idleInTransactionMilliseconds
    }

    /// How long a write inside a group commit waits for a lock before it leaves the group (``StorageError/contended(_:)``)
    /// to run alone, where it waits up to `lock`: long enough for another instance's short transaction on the same
    /// customer to end, short enough that the group's other writes are not held up.
    var groupedLockMilliseconds: Int { lockMilliseconds == 0 ? 20 : min(lockMilliseconds, 20) }

    /// The `SET` statements for a new session (integers only: nothing here comes from outside unchecked).
    var setStatements: String {
        "SET lock_timeout = \(lockMilliseconds); SET statement_timeout = \(statementMilliseconds); "
            + "SET idle_in_transaction_session_timeout = \(idleInTransactionMilliseconds)"
    }
}
