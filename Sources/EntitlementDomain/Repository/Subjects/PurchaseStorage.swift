/// Store purchases, the store notifications and polls that bring them, and the references that tie them together.
public protocol PurchaseReads: Sendable {
    /// The store purchase with this original transaction ID in the tenant, owned or not; nil when unknown.
    func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    /// Where a periodic store poll (`name`) of a tenant last stopped; nil before the first.
    func pollCursor(tenantID: String, name: String) throws(StorageError) -> Int64?
    /// The App Store renewal-date extensions of a subscription made at or after `since`, other than the one
    /// `requestIdentifier` names.
    func renewalExtensionCount(
        tenantID: String, originalTransactionID: String, since: UnixTime, excluding requestIdentifier: String
    ) throws(StorageError) -> Int
    /// The references with this reference ID (``PurchaseReference``), oldest first.
    func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    /// Whether a store notification was recorded as processed (``PurchaseStorage/markNotificationProcessed``).
    func isNotificationProcessed(tenantID: String, notificationID: String) throws(StorageError) -> Bool
}

/// Store purchases inside a write transaction.
public protocol PurchaseStorage {
    func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    /// Inserts `record`, or replaces the stored record with the same (tenant, store, original transaction ID), every
    /// field, `customerID` included. (Whether it is newer is the caller's decision.) Fails with `.conflict` when
    /// `customerID` is not in the tenant.
    func savePurchase(_ record: StorePurchase) throws(StorageError)
    /// Records revenue ledger entries at `time`; one whose key (tenant, store, transaction ID, direction) is recorded
    /// already keeps its row. Returns the entries recorded now.
    func recordLedgerEntries(_ entries: [LedgerEntry], at time: UnixTime) throws(StorageError) -> [LedgerEntry]
    /// Every ledger row of one purchase (its original transaction), in no order.
    func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [LedgerEntry]
    /// Adds changes to the daily totals of active subscriptions and trials (``SubscriptionCoverage``).
    func addSubscriptionDays(_ changes: [SubscriptionDay]) throws(StorageError)
    /// Forgets `removed` and keeps `added`, events of one subscription (``SubscriptionEvent/changes(before:recorded:)``).
    func changeSubscriptionEvents(removing removed: [SubscriptionEvent], adding added: [SubscriptionEvent])
        throws(StorageError)
    /// Keeps `observation` of a subscription's billing (``BillingObservation``); false, and nothing kept, when it was
    /// kept already.
    func recordBillingObservation(_ observation: BillingObservation) throws(StorageError) -> Bool
    /// Every billing observation of one purchase (its original transaction), in no order.
    func billingObservations(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [BillingObservation]
    /// Sets (or, with nil, clears) the owner of a stored purchase, whatever its `signedAt`. Fails with `.conflict`
    /// when the purchase is unknown or the customer is not in the tenant.
    func setPurchaseOwner(tenantID: String, store: Store, originalTransactionID: String, customerID: Int64?)
        throws(StorageError)
    /// Transactions nobody owns yet that carry `appAccountToken`, oldest first; empty for an empty token.
    func unownedPurchases(tenantID: String, appAccountToken: String) throws(StorageError) -> [StorePurchase]
    /// Records a store notification as processed; false (and nothing written) when it already was.
    func markNotificationProcessed(tenantID: String, notificationID: String, at: UnixTime) throws(StorageError) -> Bool
    /// The stored purchase that names `originalTransactionID` as the one it replaces (``StorePurchase/replaces``);
    /// nil when none does.
    func purchase(tenantID: String, store: Store, replacing originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    /// Moves a poll's cursor forward to `position`; never back, so a round that ended before the one recorded (an
    /// instance frozen mid-round that resumed after another took the work over) changes nothing.
    func setPollCursor(tenantID: String, name: String, position: Int64) throws(StorageError)
    /// Records an App Store renewal-date extension (once per request identifier).
    func saveRenewalExtension(
        tenantID: String, originalTransactionID: String, requestIdentifier: String, days: Int, at: UnixTime
    ) throws(StorageError)
    /// Keeps `reference` (once per tenant, store, reference ID and purchase); a buyer it names is added to a row kept
    /// without one, never replaces one.
    func savePurchaseReference(_ reference: PurchaseReference, tenantID: String, at: UnixTime) throws(StorageError)
    /// The references naming the purchase, oldest first.
    func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
    /// The references with this reference ID, oldest first.
    func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    /// Keeps a revocation waiting for its purchase; an earlier one for the same reference stands.
    func savePendingRevocation(_ revocation: PendingRevocation, tenantID: String) throws(StorageError)
    /// Removes and returns the revocations waiting for any of `referenceIDs`.
    func takePendingRevocations(tenantID: String, store: Store, referenceIDs: [String]) throws(StorageError)
        -> [PendingRevocation]
}
