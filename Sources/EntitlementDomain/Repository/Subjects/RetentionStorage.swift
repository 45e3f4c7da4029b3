/// What retention removes, inside a write transaction, a batch at a time.
public protocol RetentionStorage {
    /// Scans up to `limit` of the tenant's events that occurred before `before`, oldest first from after `after`, and
    /// deletes the event each replaced (its customer's previous version): superseded before `before`, that one was no
    /// status at that time or since. A customer's newest event, and the one in force at `before`, stay. Returns how
    /// many went, and the last event scanned: nil when fewer than `limit` were left (the scan is done).
    func compactEvents(tenantID: String, before: UnixTime, after: EventPosition?, limit: Int) throws(StorageError)
        -> (removed: Int, scanned: EventPosition?)
    /// Deletes up to `limit` of the tenant's deliveries in `states` made before `before`, oldest first; returns how many.
    func pruneWebhookDeliveries(tenantID: String, states: [WebhookDelivery.State], before: UnixTime, limit: Int)
        throws(StorageError) -> Int
    /// Deletes up to `limit` of the tenant's redemption codes used, replaced or expired before `before`; returns how
    /// many.
    func forgetRedemptionCodes(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int
}

/// An event's place in the order event compaction scans a tenant's events: by time, then customer and version.
public struct EventPosition: Sendable, Hashable, Comparable {
    public var occurredAt: UnixTime
    public var customerID: Int64
    public var version: UInt64

    public init(occurredAt: UnixTime, customerID: Int64, version: UInt64) {
        self.occurredAt = occurredAt
        self.customerID = customerID
        self.version = version
    }

    /// After every event that occurred before `time`, before every other.
    public static func justBefore(_ time: UnixTime) -> EventPosition {
        EventPosition(occurredAt: UnixTime(milliseconds: max(time.milliseconds, .min + 1) - 1), customerID: .max, version: .max)
    }

    public static func < (lhs: EventPosition, rhs: EventPosition) -> Bool {
        (lhs.occurredAt.milliseconds, lhs.customerID, lhs.version) < (rhs.occurredAt.milliseconds, rhs.customerID, rhs.version)
    }
}
