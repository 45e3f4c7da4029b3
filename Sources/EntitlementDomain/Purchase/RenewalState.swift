/// Where a purchase's billing stands, as its store last said: the half of a purchase that has its own clock
/// (``StorePurchase/renewalStateAsOf``), with the auto-renew intent beside it. Every store's interpretation states
/// its purchases in these terms; ``PurchaseAccess`` reads them, and nothing else decides what they grant.
public enum RenewalState: Hashable, Sendable {
    /// Paid for: the purchase grants through its period.
    case paid
    /// A renewal failed and the store is still trying to charge: the purchase grants through the period that was
    /// paid for, not past it.
    case billingRetry
    /// A renewal failed, the store is still trying, and access goes on past the paid period until this instant
    /// (Apple's grace period, Google Play's, a Stripe past-due window).
    case grace(until: UnixTime)
    /// Paused by the buyer (Google Play): nothing until the subscription resumes at this instant, then its period.
    case paused(resumesAt: UnixTime)
    /// The store says the purchase gives nothing now, whatever its period: a payment still pending, an account on
    /// hold, a pause with no resume date, a subscription that ended before its period did. Newer data from the store
    /// lifts it. `billingRetry`: the store is still trying to charge (an account hold, a Stripe `unpaid`).
    case held(billingRetry: Bool)

    /// The store is trying to charge for a renewal that failed.
    public var inBillingRetry: Bool {
        switch self {
        case .billingRetry, .grace: true
        case .held(let billingRetry): billingRetry
        case .paid, .paused: false
        }
    }

    /// The store says the purchase gives nothing now.
    public var isHeld: Bool {
        if case .held = self { true } else { false }
    }

    /// Access goes on past the paid period while the store retries.
    public var inGracePeriod: Bool {
        if case .grace = self { true } else { false }
    }
}
