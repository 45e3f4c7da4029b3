/// Whether the store waits for the server to acknowledge a purchase (Google Play refunds purchases left
/// unacknowledged for three days), and where the server's attempts stand. Kept with the purchase, so an
/// acknowledgement owed survives a restart and is sent once it is stored.
public struct PurchaseAcknowledgement: Sendable, Hashable {
    public enum State: Sendable, Hashable, CaseIterable {
        /// The store needs none (every App Store purchase), or the store's data said it was acknowledged.
        case notRequired
        /// Owed: the server sends it at `dueAt`.
        case pending
        /// The server acknowledged it.
        case acknowledged
        /// Every attempt failed; nothing more is tried automatically (an admin refresh starts again).
        case failed
    }

    public var state: State
    /// Attempts made so far, each counted as it starts (``StoreAcknowledgements/begin(_:retryAt:)``).
    public var attempts: Int
    /// When the next attempt is due; set only while pending.
    public var dueAt: UnixTime?
    /// The last attempt's failure, empty when none.
    public var lastError: String

    public init(state: State, attempts: Int = 0, dueAt: UnixTime? = nil, lastError: String = "") {
        self.state = state
        self.attempts = attempts
        self.dueAt = dueAt
        self.lastError = lastError
    }

    public static let notRequired = PurchaseAcknowledgement(state: .notRequired)

    /// Owed from `now` on.
    public static func pending(at now: UnixTime) -> PurchaseAcknowledgement {
        PurchaseAcknowledgement(state: .pending, dueAt: now)
    }

    /// What is known after `incoming` data arrives for a purchase whose stored acknowledgement is `stored`. The
    /// store's data says `.pending` (owed), `.acknowledged` (someone acknowledged it) or `.notRequired` (nothing to
    /// do now: none needed, or a purchase not paid for yet); the server's own progress is never undone by it, and
    /// only the store saying it is acknowledged ends what is owed.
    public static func combine(stored: PurchaseAcknowledgement?, incoming: PurchaseAcknowledgement)
        -> PurchaseAcknowledgement
    {
        switch (stored?.state, incoming.state) {
        case (.acknowledged?, _):
            return stored!
        case (.pending?, .acknowledged), (.failed?, .acknowledged):
            // The app, or an attempt whose answer was lost, acknowledged it.
            return PurchaseAcknowledgement(state: .acknowledged, attempts: stored!.attempts)
        case (.pending?, _), (.failed?, _):
            return stored!
        case (_, .acknowledged):
            // Acknowledged before the server owed anything: nothing was ever the server's to do.
            return .notRequired
        default:
            return incoming
        }
    }
}
