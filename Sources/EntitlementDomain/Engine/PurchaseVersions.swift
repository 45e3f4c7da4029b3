
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
        merged.renewal = renewal.renewal
        merged.renewalStateAsOf = renewal.renewalStateAsOf
        merged.accessFrom = accessFrom(of: merged, continuing: stored)
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
        if merged.transactionID == stored.transactionID {
            if merged.store != .appStore {
                (merged.sale, merged.price) = keptSale(stored: stored, incoming: incoming)
            }
            if merged.price == nil { merged.price = stored.price }
            if merged.sale == nil { merged.sale = stored.sale }
        }
        merged.acknowledgement = PurchaseAcknowledgement.combine(
            stored: held?.acknowledgement, incoming: incoming.acknowledgement)
        return merged
    }

    /// The sale and price of one Google Play or Stripe order: their data never revises what an order charged, but a
    /// fetch may say less than an earlier one (Google's order is fetched only while its amounts are unknown). So the
    /// stored sale stands unless the incoming one has the store's own record of it and the stored one had not, and a
    /// refund once known stays (as the revocation does).
    private static func keptSale(stored: StorePurchase, incoming: StorePurchase) -> (PurchaseSale?, PurchasePrice?) {
        guard let kept = stored.sale else { return (incoming.sale, incoming.price) }
        var (sale, price) = (kept, stored.price ?? incoming.price)
        if let fresh = incoming.sale, fresh.reportedProceedsMilliunits != nil, kept.reportedProceedsMilliunits == nil {
            (sale, price) = (fresh, incoming.price)
        }
        sale.refundedMilliunits = sale.refundedMilliunits ?? kept.refundedMilliunits ?? incoming.sale?.refundedMilliunits
        return (sale, price)
    }

    /// When `merged`'s access begins: a period that `stored` granted without a break up to its start continues
    /// (a renewal applied before its period begins, or dated a little ahead of our clock, takes nothing away
    /// meanwhile); otherwise `merged`'s own start. nil: its purchase date.
    private static func accessFrom(of merged: StorePurchase, continuing stored: StorePurchase) -> UnixTime? {
        let start = merged.accessFrom ?? merged.purchasedAt
        guard let before = PurchaseAccess(stored).span, case let earlier = before.startsAt, earlier < start,
            before.contains(earlier), before.revokedAt.map({ $0 > start }) ?? true, before.endsAt.map({ $0 >= start }) ?? true
        else { return merged.accessFrom }
        return earlier
    }

    /// What the store reports as of a time ahead of our clock, as it takes effect when applied:
    /// - a refund or revocation has happened: access ends when it is applied. Such a date becomes `now`, or the date
    ///   already stored for the same revoked transaction, so that the same refund presented again is no change;
    /// - a purchase dated less than ``PurchaseAccess/clockSkewAllowanceMilliseconds`` ahead (the clocks differ)
    ///   grants from `now`.
    public static func takingEffect(_ incoming: StorePurchase, stored: StorePurchase?, at now: UnixTime) -> StorePurchase {
        var effective = incoming
        if let revokedAt = incoming.revokedAt, revokedAt > now {
            effective.revokedAt =
                if let stored, stored.transactionID == incoming.transactionID, let earlier = stored.revokedAt,
                    earlier <= now
                {
                    earlier
                } else {
                    now
                }
        }
        let start = incoming.accessFrom ?? incoming.purchasedAt
        if start > now, start.milliseconds - now.milliseconds <= PurchaseAccess.clockSkewAllowanceMilliseconds {
            effective.accessFrom = now
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
        // Stored before the revenue ledger, a purchase has no sale: the same data, seen again with one.
        if left.sale == nil { left.sale = rhs.sale }
        // Stored before offer identifiers were kept (schema 27), the same: its offer's identifier, seen again.
        if left.sale?.offerID.isEmpty == true, let offerID = rhs.sale?.offerID { left.sale?.offerID = offerID }
        return left == rhs
    }

    /// The same transaction data, whatever either says about renewal.
    public static func sameTransaction(_ lhs: StorePurchase, _ rhs: StorePurchase) -> Bool {
        var left = lhs
        left.willRenew = rhs.willRenew
        left.renewalProductID = rhs.renewalProductID
        left.renewal = rhs.renewal
        return sameData(left, rhs)
    }
}
