/// What retention removes, inside a write transaction, a batch at a time.
public protocol RetentionStorage {
    /// Deletes up to `limit` of the tenant's events that occurred before `before`, never a customer's newest (the
    /// one of its current version, which carries its whole status); returns how many.
    func compactEvents(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int
    /// Deletes up to `limit` of the tenant's redemption codes used or replaced before `before`; returns how many.
    func forgetRedemptionCodes(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int
}
