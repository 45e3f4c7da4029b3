
extension EntitlementCandidate {
    /// What a store transaction gives: one candidate per entitlement its product mapped to when it was applied.
    ///
    /// It lasts until its expiry, or until the end of its grace period while it is in one; a transaction without an
    /// expiry (a non-consumable) is for life. Consumables map to no entitlement, so they give nothing; nor does a
    /// transaction the user upgraded away from (the upgrade's own transaction gives the higher product).
    public static func candidates(of transaction: StorePurchase) -> [EntitlementCandidate] {
        // Upgraded away, replaced by a newer purchase, or suspended by the store: the purchase grants nothing.
        guard !transaction.isUpgraded, transaction.supersededBy.isEmpty, !transaction.isSuspended else { return [] }
        let source = transaction.store.entitlementSource
        // Paused: nothing until it resumes, then its period as the store gives it.
        let startsAt = transaction.pausedUntil.map { max($0, transaction.purchasedAt) } ?? transaction.purchasedAt
        var expiresAt = transaction.expiresAt
        if transaction.inGracePeriod, let graceEnd = transaction.gracePeriodExpiresAt,
            expiresAt.map({ graceEnd > $0 }) ?? false
        {
            expiresAt = graceEnd
        }
        return transaction.entitlementIDs.map { entitlementID in
            EntitlementCandidate(
                entitlementID: entitlementID, source: source, productID: transaction.productID,
                startsAt: startsAt, expiresAt: expiresAt, revokedAt: transaction.revokedAt,
                willRenew: transaction.renews, inGracePeriod: transaction.inGracePeriod,
                inBillingRetry: transaction.inBillingRetry, referenceID: transaction.originalTransactionID)
        }
    }
}

extension CustomerSnapshot {
    /// Every source of entitlements the customer has: admin grants and store transactions.
    public var candidates: [EntitlementCandidate] {
        grants.map(EntitlementCandidate.init(grant:)) + transactions.flatMap(EntitlementCandidate.candidates(of:))
    }
}

extension StorePurchase {
    /// It will renew: the store's auto-renew intent, which a revocation overrides.
    public var renews: Bool { willRenew && revokedAt == nil }
}
