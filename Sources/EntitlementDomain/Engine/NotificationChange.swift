/// What one store notification means, as its store's interpretation reads it: the purchase data it carries or the store
/// gave when asked (if any), who may own it, the other IDs that name it, and revocations waiting for their purchase.
/// Every store's endpoint commits it the same way
/// (``StorePurchases/applyStoreNotification(tenantID:notificationID:reason:cause:change:)``).
public struct NotificationChange: Sendable {
    public var purchase: StorePurchase?
    public var ownerHints: [OwnerHint]
    public var references: [PurchaseReference]
    public var pendingRevocations: [PendingRevocation]
    /// A payment of the purchase older than its current transaction (a Stripe invoice delivered after a later one):
    /// the revenue ledger records its money; nothing else of it is applied.
    public var earlierPayment: StorePurchase?
    /// How long a redemption code lasts for a purchase first seen without an owner (Stripe's), in milliseconds; nil
    /// issues none.
    public var unclaimedCodeValidity: Int64?
    /// What the reply says when nothing is applied to a customer (no purchase, or one nobody owns).
    public var note: String?

    public init(
        purchase: StorePurchase? = nil, ownerHints: [OwnerHint] = [], references: [PurchaseReference] = [],
        pendingRevocations: [PendingRevocation] = [], earlierPayment: StorePurchase? = nil,
        unclaimedCodeValidity: Int64? = nil, note: String? = nil
    ) {
        self.purchase = purchase
        self.earlierPayment = earlierPayment
        self.ownerHints = ownerHints
        self.references = references
        self.pendingRevocations = pendingRevocations
        self.unclaimedCodeValidity = unclaimedCodeValidity
        self.note = note
    }
}

extension StorePurchases {
    /// Commits `change` once per `notificationID`, as
    /// ``applyStoreNotification(tenantID:notificationID:purchase:reason:cause:ownerHints:references:pendingRevocations:unclaimedCodeValidity:)``
    /// does.
    public func applyStoreNotification(
        tenantID: String, notificationID: String, reason: String, cause: EventCause, change: NotificationChange
    ) async throws(DomainError) -> StoreNotificationOutcome {
        try await applyStoreNotification(
            tenantID: tenantID, notificationID: notificationID, purchase: change.purchase, reason: reason, cause: cause,
            ownerHints: change.ownerHints, references: change.references, pendingRevocations: change.pendingRevocations,
            earlierPayment: change.earlierPayment, unclaimedCodeValidity: change.unclaimedCodeValidity)
    }
}
