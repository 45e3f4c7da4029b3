/// Status and identity: customers, their app user IDs, events and the time their status next changes by itself.
public protocol CustomerReads: Sendable {
    /// The customer an app user ID (canonical or alias) resolves to, with its aliases and grants; nil when unknown.
    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot?
    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot?
    /// Events newest first, below `beforeVersion` when given.
    func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) throws(StorageError) -> [EventRecord]
    /// Events oldest first, above `afterVersion`, for resuming a stream.
    func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) throws(StorageError) -> [EventRecord]
    /// Customers whose status changes by time at or before `time`, soonest first.
    func customersDue(at time: UnixTime, limit: Int) throws(StorageError) -> [(tenantID: String, customerID: Int64)]
    /// The soonest `nextChangeAt` of any customer, for the expiry scheduler's timer.
    func nextChangeAt() throws(StorageError) -> UnixTime?
}

/// Status and identity inside a write transaction.
public protocol CustomerStorage {
    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot?
    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot?
    /// Creates a customer at version 0 with `appUserID` as its canonical ID.
    func createCustomer(tenantID: String, appUserID: String, isAnonymous: Bool, at: UnixTime) throws(StorageError)
        -> CustomerRecord
    /// Moves every app user ID, grant and store purchase of customer `from` to customer `to`; `from` stays as an
    /// empty husk with its own events, so its history remains readable.
    func merge(tenantID: String, from: Int64, into: Int64) throws(StorageError)
    /// Makes `appUserID` the canonical ID of the customer (adding it if it does not resolve yet; the old canonical
    /// ID stays as an alias) and sets `isAnonymous`. Fails with `.conflict` if `appUserID` resolves to another
    /// customer. Identify uses it when an anonymous customer logs in with a brand-new identified ID.
    func setCanonicalID(tenantID: String, customerID: Int64, appUserID: String, isAnonymous: Bool)
        throws(StorageError)
    /// Appends an event and sets the customer's version to `event.version` and its `nextChangeAt`.
    /// Fails with `.conflict` unless `event.version` is the customer's version + 1.
    func appendEvent(_ event: EventRecord, nextChangeAt: UnixTime?) throws(StorageError)
    /// Replaces the queryable copy of the customer's entitlements (what listings and counts read) with the status
    /// just recorded in its event.
    func replaceActiveEntitlements(tenantID: String, customerID: Int64, with entitlements: [ActiveEntitlementValue])
        throws(StorageError)
    /// The customer's newest event (its current version's), nil when it has none.
    func latestEvent(tenantID: String, customerID: Int64) throws(StorageError) -> EventRecord?
    /// Moves the customer's `nextChangeAt` without an event (time passed but the status did not change).
    /// Fails with `.conflict` when the customer is not in the tenant.
    func setNextChangeAt(tenantID: String, customerID: Int64, at: UnixTime?) throws(StorageError)
    /// Records `token` as the app account token of `appUserID` (which must resolve in the tenant) unless it already
    /// has one; returns whether it wrote. Identify calls it with the token it hands out.
    @discardableResult
    func recordAppAccountToken(tenantID: String, appUserID: String, token: String) throws(StorageError) -> Bool
    /// The customer the app user ID that was given `token` resolves to now (following aliases and merges); nil when
    /// no ID of the tenant has that token.
    func customerID(tenantID: String, appAccountToken: String) throws(StorageError) -> Int64?
}
