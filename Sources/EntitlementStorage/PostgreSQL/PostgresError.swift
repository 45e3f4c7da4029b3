import EntitlementDomain

/// What PostgreSQL (or libpq) said when a call failed: the SQLSTATE when the server sent one, the message, and
/// whether the connection is gone (then the pool drops it and the caller's call fails as unavailable).
struct PostgresError: Error, Hashable, CustomStringConvertible {
    /// Five characters (`23505`, `40001`); empty when libpq failed before the server answered.
    let sqlState: String
    let message: String
    let connectionLost: Bool

    var description: String { sqlState.isEmpty ? message : "\(message) (SQLSTATE \(sqlState))" }

    /// `40001` serialization failure, `40P01` deadlock: the transaction may be run again.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// A lock not granted within `lock_timeout` (or at once, `NOWAIT`).
    static let lockNotAvailable = "55P03"

    /// `55P03` a lock not granted within `lock_timeout`, `57014` a statement cancelled by `statement_timeout`.
    var isTimeout: Bool { sqlState == Self.lockNotAvailable || sqlState == "57014" }

    /// The storage error the domain sees: a lost connection, a timeout or a retryable failure is unavailable (the
    /// caller's call fails with UNAVAILABLE and may be tried again), a unique or foreign-key violation a conflict.
    var storageError: StorageError {
        if connectionLost || isRetryable || isTimeout || sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") {
            return .unavailable("PostgreSQL: \(description)")
        }
        if sqlState.hasPrefix("23") { return .conflict("PostgreSQL: \(description)") }
        return .corrupt("PostgreSQL: \(description)")
    }
}
