
/// Which version of one store purchase (tenant, store, original transaction) is current, whatever order devices and
/// notifications deliver them in.
///
/// A subscription's periods share one original transaction, and each copy of a period is signed when it is handed
/// out: a restore may present an old period signed after the current one. So the two halves of a record have their
/// own clocks:
/// - transaction data: a later period (later purchase date) replaces an earlier one, whenever each was signed;
///   within one transaction the later signature wins; a transaction the user upgraded away from never replaces
///   one that is not.
/// - renewal state (auto-renew, pending product, grace period, billing retry): the newest word wins, Apple's renewal
///   info as of its signature, a period seen without renewal info as of its purchase (a renewal means auto-renew
///   was on and billing worked).
public enum PurchaseVersions {
    /// The record to store when `incoming` arrives and `stored` is held. The owner is `incoming`'s.
    public static func merge(stored held: StorePurchase?, incoming: StorePurchase) -> StorePurchase {
        let stored = held ?? incoming
        var merged = supersedes(incoming, stored) ? incoming : stored
        merged.customerID = incoming.customerID
        let renewal = incoming.renewalStateAsOf >= stored.renewalStateAsOf ? incoming : stored
        merged.willRenew = renewal.willRenew
        merged.renewalProductID = renewal.renewalProductID == merged.productID ? "" : renewal.renewalProductID
        merged.inGracePeriod = renewal.inGracePeriod
        merged.inBillingRetry = renewal.inBillingRetry
        merged.gracePeriodExpiresAt = renewal.gracePeriodExpiresAt
        merged.renewalStateAsOf = renewal.renewalStateAsOf
        // Being replaced is final: the store's data about the old purchase never says so itself.
        if merged.supersededBy.isEmpty { merged.supersededBy = stored.supersededBy }
        // Google Play's and Stripe's purchase data never shows a revocation (only notifications, the voided list, a
        // refunded or disputed charge do): once known for an order (a Stripe invoice or checkout), it stays. (Apple's
        // signed data carries its own, reversible.) Each fetch of a canceled one-time Play purchase dates its
        // cancellation at the fetch: the first date stands.
        if merged.store != .appStore, let earlier = stored.revokedAt, merged.transactionID == stored.transactionID,
            merged.revokedAt.map({ $0 > earlier }) ?? true
        {
            merged.revokedAt = earlier
            merged.revocationReason = stored.revocationReason
        }
        // Not every message of a store carries the amount (a Stripe subscription update does not): what was paid stays.
        if merged.price == nil, merged.transactionID == stored.transactionID { merged.price = stored.price }
        merged.acknowledgement = PurchaseAcknowledgement.combine(
            stored: held?.acknowledgement, incoming: incoming.acknowledgement)
        return merged
    }

    /// A refund or revocation the store reports has happened: access ends when it is applied, even when the store
    /// dates it ahead of our clock. Such a date becomes `now`, or the date already stored for the same revoked
    /// transaction, so that the same refund presented again is no change.
    public static func revocationTakingEffect(
        _ incoming: StorePurchase, stored: StorePurchase?, at now: UnixTime
    ) -> StorePurchase {
        guard let revokedAt = incoming.revokedAt, revokedAt > now else { return incoming }
        var effective = incoming
        effective.revokedAt =
            if let stored, stored.transactionID == incoming.transactionID, let earlier = stored.revokedAt,
                earlier <= now
            {
                earlier
            } else {
                now
            }
        return effective
    }

    /// `incoming`'s transaction data replaces `stored`'s.
    public static func supersedes(_ incoming: StorePurchase, _ stored: StorePurchase) -> Bool {
        if incoming.transactionID == stored.transactionID { return incoming.signedAt >= stored.signedAt }
        if incoming.isUpgraded, !stored.isUpgraded { return false }
        if incoming.purchasedAt != stored.purchasedAt { return incoming.purchasedAt > stored.purchasedAt }
        return incoming.signedAt >= stored.signedAt
    }

    /// The same purchase data: the owner and bookkeeping aside (a re-signed copy of unchanged data, or renewal info
    /// that repeats what was known, is not a change).
    public static func sameData(_ lhs: StorePurchase, _ rhs: StorePurchase) -> Bool {
        var left = lhs
        left.updatedAt = rhs.updatedAt
        left.customerID = rhs.customerID
        left.signedAt = rhs.signedAt
        left.renewalStateAsOf = rhs.renewalStateAsOf
        left.origin = rhs.origin
        left.acknowledgement = rhs.acknowledgement
        return left == rhs
    }

    /// The same transaction data, whatever either says about renewal.
    public static func sameTransaction(_ lhs: StorePurchase, _ rhs: StorePurchase) -> Bool {
        var left = lhs
        left.willRenew = rhs.willRenew
        left.renewalProductID = rhs.renewalProductID
        left.inGracePeriod = rhs.inGracePeriod
        left.inBillingRetry = rhs.inBillingRetry
        left.gracePeriodExpiresAt = rhs.gracePeriodExpiresAt
        return sameData(left, rhs)
    }
}
