/// Which ledger entries a verified version of a purchase makes: its transaction's payment (or free trial), the refund
/// once the store gives money back, and the refund's reversal should the store take that back. Entries come from
/// every verified version, whether or not it is newer than the stored one (a renewal delivered late still
/// happened); the ledger's key keeps each once.
public enum RevenueLedger {
    /// The entries `incoming` makes; `stored` is the purchase as stored before it, which says whether this payment
    /// ends a free trial or changes the product within a paid period, and what was refunded. None for a purchase
    /// whose store reported no sale or price, or one shared by a family member (the organizer's own transaction is
    /// the payment). Proceeds are estimated with `commission`, the tenant's rates for the purchase's store.
    public static func entries(for incoming: StorePurchase, stored: StorePurchase?, commission: StoreCommission)
        -> [LedgerEntry]
    {
        guard let sale = incoming.sale, let price = incoming.price, incoming.ownership == .purchased else { return [] }
        let start = periodStart(of: incoming)
        let rate = commission.rate(
            productID: incoming.productID, periodStart: start,
            subscribedAt: sale.kind == .oneTime ? nil : incoming.originalPurchaseAt ?? stored?.originalPurchaseAt)
        let payment = LedgerEntry(
            tenantID: incoming.tenantID, store: incoming.store, transactionID: incoming.transactionID,
            kind: kind(of: incoming, sale: sale, stored: stored), originalTransactionID: incoming.originalTransactionID,
            customerID: incoming.customerID, productID: incoming.productID, entitlementIDs: incoming.entitlementIDs,
            environment: incoming.environment, country: sale.country, offer: sale.offer,
            periodStart: start, periodEnd: incoming.expiresAt, amount: price, taxMilliunits: sale.taxMilliunits,
            proceedsMilliunits: sale.reportedProceedsMilliunits ?? estimatedProceeds(price, tax: sale.taxMilliunits, rate),
            occurredAt: start)
        if let refunded = sale.refundedMilliunits, refunded > 0, let revokedAt = incoming.revokedAt {
            let kind: MovementKind = chargebackReasons.contains(incoming.revocationReason) ? .chargeback : .refund
            return [payment, payment.moving(kind, -refunded, at: revokedAt)]
        }
        // Only Apple's signed data says a transaction is no longer revoked: the other stores' purchase data never
        // shows a revocation at all (``PurchaseVersions/merge(stored:incoming:)``).
        if incoming.store == .appStore, incoming.revokedAt == nil, let stored,
            stored.transactionID == incoming.transactionID, let refunded = stored.sale?.refundedMilliunits, refunded > 0
        {
            return [payment, payment.moving(.refundReversal, refunded, at: max(incoming.signedAt, stored.signedAt))]
        }
        return [payment]
    }

    /// When the period a purchase's newest payment bought began: its sale's, else its purchase date (Google's and
    /// Stripe's purchase dates are the subscription's first).
    private static func periodStart(of purchase: StorePurchase) -> UnixTime {
        purchase.sale?.periodStart ?? purchase.purchasedAt
    }

    /// Revocation reasons that say the buyer's bank took the money back (Stripe's dispute, Google's voided reason 7)
    /// rather than the store refunding it.
    static let chargebackReasons: Set<String> = ["DISPUTED", "VOIDED_CHARGEBACK"]

    /// The price less its tax (where known) and the store's commission on the rest.
    private static func estimatedProceeds(_ price: PurchasePrice, tax: Int64?, _ rate: CommissionRate) -> Int64 {
        let net = price.milliunits - max(0, min(tax ?? 0, price.milliunits))
        return net - rate.of(net)
    }

    private static func kind(of incoming: StorePurchase, sale: PurchaseSale, stored: StorePurchase?) -> MovementKind {
        if sale.kind == .oneTime { return .oneTime }
        if sale.offer == .freeTrial { return .trialStart }
        // The stored record is an earlier transaction of the same subscription (a later one is never replaced by
        // an older, so what it says of the one before is then unknown: a plain renewal or purchase).
        let start = periodStart(of: incoming)
        let earlier = stored.flatMap { stored in
            stored.transactionID != incoming.transactionID && periodStart(of: stored) < start ? stored : nil
        }
        if earlier?.sale?.offer == .freeTrial { return .trialConversion }
        if sale.kind == .subscriptionRenewal { return .renewal }
        // A Play purchase naming the one it replaces: an upgrade, downgrade or re-signup (a new purchase token).
        if !incoming.replaces.isEmpty { return .productChange }
        if let earlier, let end = earlier.expiresAt, start < end, earlier.revokedAt == nil {
            return .productChange
        }
        return .purchase
    }
}

extension LedgerEntry {
    /// The entry of `kind` for `milliunits` of this payment's currency at `time`, about the same transaction: its
    /// tax and proceeds this payment's in proportion (a store gives its share back with a refund).
    fileprivate func moving(_ kind: MovementKind, _ milliunits: Int64, at time: UnixTime) -> LedgerEntry {
        var entry = self
        entry.kind = kind
        entry.amount = PurchasePrice(milliunits: milliunits, currency: amount.currency)
        entry.taxMilliunits = taxMilliunits.map { $0.proportion(milliunits, of: amount.milliunits) }
        entry.proceedsMilliunits = proceedsMilliunits.proportion(milliunits, of: amount.milliunits)
        entry.occurredAt = time
        return entry
    }
}
