/// What a customer's export reads beyond their snapshot and events: every ID and record that names the person.
public protocol CustomerRecordReads: Sendable {
    /// Every app user ID resolving to the customer, the canonical one too, oldest first.
    func appUserIDs(tenantID: String, customerID: Int64) throws(StorageError) -> [AppUserIDRecord]
    /// The customers `Identify` merged into this one (their husks keep their own events), oldest first.
    func mergedCustomers(tenantID: String, into customerID: Int64) throws(StorageError) -> [CustomerRecord]
    /// The redemption codes issued for the purchase, oldest first.
    func redemptionCodes(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [RedemptionCodeRecord]
    /// The redemption codes one of `appUserIDs` redeemed, oldest first.
    func redemptionCodes(tenantID: String, usedBy appUserIDs: [String]) throws(StorageError) -> [RedemptionCodeRecord]
    /// The other store IDs the purchase is known by (Stripe's checkout sessions, customers, invoices, payments).
    func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
}

/// One app user ID of a customer as stored.
public struct AppUserIDRecord: Hashable, Sendable {
    public var appUserID: String
    public var addedAt: UnixTime
    /// The app account token Identify handed out for this ID; nil when it never did.
    public var appAccountToken: String?

    public init(appUserID: String, addedAt: UnixTime, appAccountToken: String?) {
        self.appUserID = appUserID
        self.addedAt = addedAt
        self.appAccountToken = appAccountToken
    }
}

/// Erasures, outside a write: whether an app user ID was erased.
public protocol ErasureReads: Sendable {
    /// The tenant's key for ``ErasureSubject``; nil before its first erasure.
    func existingErasureKey(tenantID: String) throws(StorageError) -> [UInt8]?
    /// The tombstone of the erasure of the app user ID or app account token with this keyed hash; nil when none.
    func erasure(tenantID: String, subject: String) throws(StorageError) -> String?
}

/// The tenant's audit log.
public protocol AuditLogReads: Sendable {
    /// Newest first, below `beforeID` when given.
    func auditEvents(tenantID: String, beforeID: Int64?, limit: Int) throws(StorageError) -> [AuditEvent]
}

/// The audit log inside a write transaction.
public protocol AuditLogStorage {
    /// Returns the event's ID.
    @discardableResult
    func appendAuditEvent(_ event: AuditEvent) throws(StorageError) -> Int64
}

/// Erasing a person inside a write transaction (``CustomerErasure``).
public protocol ErasureStorage {
    /// The tenant's key for ``ErasureSubject``, made (``ErasureSubject/keyBytes`` random bytes) and kept the first time.
    func erasureKey(tenantID: String) throws(StorageError) -> [UInt8]
    /// The tenant's key when it has erased anyone; nil before its first erasure.
    func existingErasureKey(tenantID: String) throws(StorageError) -> [UInt8]?
    /// The tombstone of the erasure that erased the app user ID or app account token with this keyed hash; nil when
    /// none did.
    func erasure(tenantID: String, subject: String) throws(StorageError) -> String?
    func appUserIDs(tenantID: String, customerID: Int64) throws(StorageError) -> [AppUserIDRecord]
    func mergedCustomers(tenantID: String, into customerID: Int64) throws(StorageError) -> [CustomerRecord]
    /// Removes everything that names the person, keeps (or deletes) the accounting records, scrubs the person's IDs
    /// from other customers' history, and records the subjects; the writes of one transaction.
    func erase(_ erasure: CustomerErasure) throws(StorageError) -> ErasureCounts
    /// The tombstone of a purchase an erasure left with no owner; nil when it has an owner or never had an erased one.
    /// A purchase's tombstone lasts until someone owns it again.
    func erasedOwner(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError) -> String?
}
