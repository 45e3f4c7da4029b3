
extension EntitlementCandidate {
    /// What a store purchase gives: one candidate per entitlement its product mapped to when it was applied, over
    /// the span ``PurchaseAccess`` gives it. Consumables map to no entitlement, so they give nothing; nor does a
    /// purchase that grants nothing at any time (upgraded away, replaced, held by its store).
    public static func candidates(of purchase: StorePurchase) -> [EntitlementCandidate] {
        guard let span = PurchaseAccess(purchase).span else { return [] }
        let source = purchase.store.entitlementSource
        return purchase.entitlementIDs.map { entitlementID in
            EntitlementCandidate(
                entitlementID: entitlementID, source: source, productID: purchase.productID,
                startsAt: span.startsAt, expiresAt: span.endsAt, revokedAt: span.revokedAt,
                willRenew: purchase.renews, inGracePeriod: purchase.renewal.inGracePeriod,
                inBillingRetry: purchase.renewal.inBillingRetry, referenceID: purchase.originalTransactionID)
        }
    }
}

extension CustomerSnapshot {
    /// Every source of entitlements the customer has: admin grants and store purchases.
    public var candidates: [EntitlementCandidate] {
        grants.map(EntitlementCandidate.init(grant:)) + purchases.flatMap(EntitlementCandidate.candidates(of:))
    }
}

extension StorePurchase {
    /// It will renew: the store's auto-renew intent, which a revocation overrides.
    public var renews: Bool { willRenew && revokedAt == nil }
}
