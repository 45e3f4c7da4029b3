import CivilCalendar
/// Support actions with a store, audited on the customer they concern.
public final class SupportActions: Sendable {
    let core: EngineCore
    let repository: any PurchaseReads

    init(core: EngineCore, repository: any PurchaseReads) {
        self.core = core
        self.repository = repository
    }

    /// Apple allows two renewal-date extensions of a subscription in this long.
    public static let renewalExtensionPeriod = 365 * Milliseconds.perDay

    /// Records a support action about a purchase on its owner: one event (cause `.support`) with `reason` and the
    /// purchase as its reference; nothing else changes. Returns the owner's state.
    @discardableResult
    public func record(tenantID: String, customerID: Int64, reason: String, reference: String)
        async throws(DomainError) -> CustomerState
    {
        try await core.write(orderedBy: WriteOrder.customer(tenantID, id: customerID)) {
            transaction, now throws -> (CustomerState, [CommittedChange]) in
            let committed = try self.core.recordChange(
                transaction, tenantID: tenantID, customerID: customerID, cause: .support, reason: reason,
                reference: reference, at: now)
            return (committed.update.state, [committed])
        }
    }

    /// How many renewal-date extensions of the subscription were made in the last 365 days, the one
    /// `requestIdentifier` names (a retry of it) aside.
    public func renewalExtensionCount(tenantID: String, originalTransactionID: String, requestIdentifier: String)
        throws(DomainError) -> Int
    {
        let since = UnixTime(milliseconds: core.now().milliseconds - Self.renewalExtensionPeriod)
        return try DomainError.reading { () throws(StorageError) in
            try repository.renewalExtensionCount(
                tenantID: tenantID, originalTransactionID: originalTransactionID, since: since,
                excluding: requestIdentifier)
        }
    }

    /// A renewal-date extension Apple made: the subscription's current period now ends at `expiresAt` (never moved
    /// earlier), the extension is recorded for Apple's limit, and the owner gets one event; all in one transaction.
    /// Returns the owner's state; NOT_FOUND when the purchase or its owner is gone.
    public func applyRenewalExtension(
        tenantID: String, originalTransactionID: String, expiresAt: UnixTime, requestIdentifier: String, days: Int,
        reason: String
    ) async throws(DomainError) -> CustomerState {
        try await core.write(orderedBy: WriteOrder.purchase(tenantID, .appStore, originalTransactionID)) {
            transaction, now throws -> (CustomerState, [CommittedChange]) in
            guard
                var purchase = try transaction.purchase(
                    tenantID: tenantID, store: .appStore, originalTransactionID: originalTransactionID),
                let owner = purchase.customerID
            else {
                throw DomainError.notFound("No App Store purchase \(originalTransactionID) with an owner.")
            }
            if purchase.expiresAt.map({ $0 < expiresAt }) ?? false {
                purchase.expiresAt = expiresAt
                purchase.updatedAt = now
                try transaction.savePurchase(purchase)
            }
            try transaction.saveRenewalExtension(
                tenantID: tenantID, originalTransactionID: originalTransactionID, requestIdentifier: requestIdentifier,
                days: days, at: now)
            let committed = try self.core.recordChange(
                transaction, tenantID: tenantID, customerID: owner, cause: .support, reason: reason,
                reference: originalTransactionID, subject: EventSubject(purchase: purchase), at: now)
            return (committed.update.state, [committed])
        }
    }
}
