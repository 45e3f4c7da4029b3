import CivilCalendar

/// What an applied version of a subscription said about a failed renewal, kept when it is news: the store retrying
/// to charge for the renewal due at the end of ``payment``'s period, with access (a grace period) or without, or no
/// longer retrying. A subscription's observations give the days it spent in a grace period or billing retry
/// (``intervals(of:)``), which those figures count (README, "Metrics"); the ledger records money, and a failed
/// renewal moves none.
public struct BillingObservation: Sendable, Hashable {
    public enum Billing: Sendable, Hashable {
        /// Not retrying: paid again, or the store gave up.
        case settled
        /// Retrying, with access until this instant (Apple's billing grace period, Google Play's, a Stripe past-due
        /// window).
        case grace(until: UnixTime)
        /// Retrying without access (Apple's billing retry, Google Play's account hold, Stripe's unpaid).
        case retrying
    }

    /// The payment the store is trying to repeat, as the version states it: the subscription's key and dimensions,
    /// its price (what is at risk) and its period, whose end is when the failed renewal was due. Not a ledger row:
    /// a version says this whether or not its store reported a price (then an amount of 0, no currency).
    public var payment: LedgerEntry
    /// When the store said so: the version's renewal state's date.
    public var observedAt: UnixTime
    public var billing: Billing

    public init(payment: LedgerEntry, observedAt: UnixTime, billing: Billing) {
        self.payment = payment
        self.observedAt = observedAt
        self.billing = billing
    }

    /// When the failed renewal was due.
    public var dueAt: UnixTime { payment.periodEnd ?? payment.periodStart }

    /// What `incoming`, applied over `stored`, says about billing that `stored` did not: nil when neither retries,
    /// when both retry the same renewal alike, or when `incoming`'s renewal state is older than `stored`'s (it
    /// changed nothing).
    public init?(stored: StorePurchase?, incoming: StorePurchase) {
        guard let expiresAt = incoming.expiresAt,
            incoming.renewalStateAsOf >= stored?.renewalStateAsOf ?? UnixTime(milliseconds: .min)
        else { return nil }
        let billing = Self.billing(of: incoming)
        let before = stored.map(Self.billing(of:)) ?? .settled
        if billing == .settled, before == .settled { return nil }
        if billing == before, stored?.expiresAt == expiresAt { return nil }
        // The payment being retried is the last one paid: the version's own, unless the store said nothing of its
        // money or it describes the period not paid for (Stripe's past-due subscription names the invoice that failed
        // and the period it was to pay); then the stored one.
        let unpaid =
            incoming.price == nil || incoming.sale == nil
            || (incoming.sale?.periodStart ?? incoming.purchasedAt) >= expiresAt
        let paid = unpaid ? stored ?? incoming : incoming
        let start = paid.sale?.periodStart ?? paid.purchasedAt
        // Google extends a subscription's expiry through its grace period: the renewal was due where the period the
        // stored version paid for ended, when that is the period this one's payment began; without that version
        // (first seen in its grace period), when the grace period was first seen.
        var due = expiresAt
        if before == .settled, let paidEnd = stored?.expiresAt, paidEnd > start { due = min(due, paidEnd) }
        if case .grace(let until) = billing, until <= due { due = min(due, incoming.renewalStateAsOf) }
        self.init(
            payment: LedgerEntry(
                tenantID: incoming.tenantID, store: incoming.store, transactionID: paid.transactionID,
                kind: .renewal, originalTransactionID: incoming.originalTransactionID, customerID: incoming.customerID,
                productID: incoming.productID, entitlementIDs: incoming.entitlementIDs,
                environment: incoming.environment, country: paid.sale?.country ?? "",
                offer: paid.sale?.offer ?? .none, periodStart: start, periodEnd: due,
                amount: paid.price ?? PurchasePrice(milliunits: 0, currency: ""), proceedsMilliunits: 0,
                occurredAt: start),
            observedAt: incoming.renewalStateAsOf, billing: billing)
    }

    /// A subscription the buyer paid for (a family member's share is the organizer's), not revoked, whose store
    /// is retrying a renewal.
    private static func billing(of purchase: StorePurchase) -> Billing {
        guard purchase.ownership == .purchased, purchase.revokedAt == nil, purchase.expiresAt != nil else {
            return .settled
        }
        switch purchase.renewal {
        case .grace(let until): return .grace(until: until)
        case .billingRetry, .held(billingRetry: true): return .retrying
        case .paid, .paused, .held(billingRetry: false): return .settled
        }
    }
}

extension BillingObservation {
    /// How long an episode no later observation ends is taken to last from the renewal it failed: Apple's billing
    /// retry period, and Google Play's longest grace period and account hold together.
    public static let longestRetryDays: Int64 = 60

    /// The days one subscription spent in a grace period and in billing retry, as its observations (any order)
    /// say. An episode begins when the failed renewal its first observation is about was due and ends at the first
    /// settled observation after it (where that observation's payment is for a period that began after the episode
    /// did, when that period began: those days were paid for after all), or ``longestRetryDays`` after it began; its
    /// grace period runs from its start to the grace's end last said (cut short by an observation of retrying
    /// without access), and billing retry from there to the episode's end.
    public static func intervals(of observations: [BillingObservation]) -> [CoverageInterval] {
        var intervals: [CoverageInterval] = []
        var episode: (payment: LedgerEntry, start: UnixTime, graceUntil: UnixTime?)?
        func end(at time: UnixTime) {
            guard let open = episode else { return }
            episode = nil
            let (limit, overflow) = open.start.milliseconds.addingReportingOverflow(longestRetryDays * Milliseconds.perDay)
            let end = overflow ? time : min(time, UnixTime(milliseconds: limit))
            let graceEnd = min(open.graceUntil ?? open.start, end)
            if graceEnd > open.start {
                intervals.append(CoverageInterval(state: .grace, entry: open.payment, start: open.start, end: graceEnd))
            }
            let retryStart = max(open.start, graceEnd)
            if end > retryStart {
                intervals.append(CoverageInterval(state: .billingRetry, entry: open.payment, start: retryStart, end: end))
            }
        }
        let ordered = observations.sorted { a, b in
            (a.observedAt, a.dueAt, a.billing.rank) < (b.observedAt, b.dueAt, b.billing.rank)
        }
        for observation in ordered {
            if observation.billing == .settled {
                let paidFrom = observation.payment.periodStart
                let recovered = episode.map { paidFrom >= $0.start } ?? false
                end(at: recovered ? min(observation.observedAt, paidFrom) : observation.observedAt)
                continue
            }
            if episode == nil { episode = (observation.payment, observation.dueAt, nil) }
            switch observation.billing {
            case .grace(let until): episode?.graceUntil = until
            case .retrying:
                // Without access from now on: a grace period still running ended here.
                if let grace = episode?.graceUntil { episode?.graceUntil = min(grace, observation.observedAt) }
            case .settled: break
            }
        }
        end(at: UnixTime(milliseconds: .max))
        return intervals
    }
}

extension BillingObservation.Billing {
    /// The word the database keeps.
    public var name: String {
        switch self {
        case .settled: "settled"
        case .grace: "grace"
        case .retrying: "billing_retry"
        }
    }

    /// An order for observations made at the same instant.
    fileprivate var rank: Int {
        switch self {
        case .settled: 0
        case .grace: 1
        case .retrying: 2
        }
    }
}
