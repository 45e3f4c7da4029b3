import CivilCalendar

/// When a subscription was active, paid or in a free trial, as its revenue ledger rows say, or in a grace period or
/// billing retry, as its billing observations say: the state metrics (active subscriptions and trials, MRR, grace
/// and billing retry) count these intervals (README, "Metrics").
///
/// A subscription is a purchase: Apple's original transaction, Google's purchase token, Stripe's subscription. Each
/// payment row (a purchase, renewal, trial conversion or product change) covers its period, each trial start its
/// trial; a period ends early where the subscription's next period begins (an upgrade, a renewal applied early) and
/// where its transaction was refunded or charged back (unless the store took the refund back).
public struct CoverageInterval: Sendable, Hashable {
    public enum State: Sendable, Hashable, CaseIterable {
        case paid
        case trial
        /// A renewal failed and access goes on while the store retries (``BillingObservation``).
        case grace
        /// A renewal failed and the store retries without access.
        case billingRetry
    }

    public var state: State
    /// The row that paid for (or began) the interval: its dimensions, amount and period.
    public var entry: LedgerEntry
    public var start: UnixTime
    public var end: UnixTime

    /// The UTC days the interval counts on, `from..<until`: a day counts when the interval began on it or before and
    /// ends on a later day (RevenueCat's rule: active at the end of the day, one that ends at midnight not after).
    public var days: Range<Int64> {
        let from = start.utcDay
        return from..<max(from, end.utcDay)
    }

    /// The monthly value of a paid interval's payment (RevenueCat's normalisation by the period's length, in days:
    /// 1 day ×30, 3 ×10, 6–8 ×4, 12–16 ×2, 27–33 ×1, 58–62 ÷2, 88–95 ÷3, 179–185 ÷6, 363–375 ÷12, any other length
    /// ×28 ÷ days), in thousandths of its currency, rounded toward zero; 0 for a trial. In a grace period or billing
    /// retry: the monthly value of the payment the store is trying to repeat (what is at risk).
    public var monthlyMilliunits: Int64 {
        guard state != .trial, let periodEnd = entry.periodEnd else { return 0 }
        let (length, overflow) = periodEnd.milliseconds.subtractingReportingOverflow(entry.periodStart.milliseconds)
        guard !overflow, length > 0 else { return 0 }
        let (whole, part) = length.quotientAndRemainder(dividingBy: Milliseconds.perDay)
        let days = whole + (part >= Milliseconds.perDay / 2 ? 1 : 0)
        let amount = entry.amount.milliunits
        func times(_ factor: Int64) -> Int64 {
            let (value, overflow) = amount.multipliedReportingOverflow(by: factor)
            return overflow ? (amount < 0 ? .min : .max) : value
        }
        switch days {
        case ...1: return times(30)
        case 3: return times(10)
        case 6...8: return times(4)
        case 12...16: return times(2)
        case 27...33: return amount
        case 58...62: return amount / 2
        case 88...95: return amount / 3
        case 179...185: return amount / 6
        case 363...375: return amount / 12
        default: return times(28).proportion(1, of: days)
        }
    }
}

public enum SubscriptionCoverage {
    /// The rows of each subscription of one tenant's environment in a ledger.
    public static func subscriptions(in entries: [LedgerEntry], tenantID: String, environment: PurchaseEnvironment)
        -> [[LedgerEntry]]
    {
        Array(
            Dictionary(grouping: entries.filter { $0.tenantID == tenantID && $0.environment == environment }) {
                "\($0.store.ledgerName) \($0.originalTransactionID)"
            }.values)
    }

    /// The intervals one subscription's ledger rows (all of them, any order) cover, in the order of their starts.
    public static func intervals(of entries: [LedgerEntry]) -> [CoverageInterval] {
        let refundTimes = refundTimes(in: entries)
        let periods = entries.filter { state(of: $0.kind) != nil && $0.periodEnd != nil }
            .sorted { ($0.periodStart, $0.transactionID) < ($1.periodStart, $1.transactionID) }
        var intervals: [CoverageInterval] = []
        for (index, entry) in periods.enumerated() {
            guard let state = state(of: entry.kind), var end = entry.periodEnd else { continue }
            if index + 1 < periods.count { end = min(end, periods[index + 1].periodStart) }
            if let refund = refundTimes[entry.transactionID] { end = min(end, refund) }
            guard end > entry.periodStart else { continue }
            intervals.append(CoverageInterval(state: state, entry: entry, start: entry.periodStart, end: end))
        }
        return intervals
    }

    /// When each refunded transaction was first refunded or charged back, unless the store took the refund back.
    private static func refundTimes(in entries: [LedgerEntry]) -> [String: UnixTime] {
        // Most subscriptions were never refunded: their rows are written often, and this is their whole cost.
        guard entries.contains(where: { $0.kind.direction == .refund }) else { return [:] }
        let refunded = Set(entries.filter { $0.kind.direction == .refund }.map(\.transactionID))
            .subtracting(entries.filter { $0.kind == .refundReversal }.map(\.transactionID))
        return Dictionary(
            entries.filter { refunded.contains($0.transactionID) && $0.kind.direction == .refund }
                .map { ($0.transactionID, $0.occurredAt) }, uniquingKeysWith: min)
    }

    private static func state(of kind: MovementKind) -> CoverageInterval.State? {
        switch kind {
        case .purchase, .renewal, .trialConversion, .productChange: .paid
        case .trialStart: .trial
        case .oneTime, .refund, .chargeback, .refundReversal: nil
        }
    }

    /// What recording `recorded` (rows of one subscription, new) changes in the daily totals of active
    /// subscriptions, trials and MRR, given the subscription's rows before them.
    public static func changes(before: [LedgerEntry], recorded: [LedgerEntry]) -> [SubscriptionDay] {
        changes(from: SubscriptionRows(before), to: SubscriptionRows(before + recorded))
    }

    /// What a subscription's rows changing from `old` to `new` changes in the daily totals: each interval adds one
    /// (and its monthly value) from its first day and takes it away from the day after its last. Intervals in both
    /// change nothing and are left out first (a renewal adds one interval and leaves the others as they were).
    public static func changes(from old: SubscriptionRows, to new: SubscriptionRows) -> [SubscriptionDay] {
        changes(from: old.intervals, to: new.intervals)
    }

    /// What a subscription's intervals (of one kind: its ledger rows', or its billing observations') changing from
    /// `old` to `new` changes in the daily totals.
    public static func changes(from old: [CoverageInterval], to new: [CoverageInterval]) -> [SubscriptionDay] {
        var removed = old.filter { !$0.days.isEmpty }
        var added: [CoverageInterval] = []
        for interval in new where !interval.days.isEmpty {
            if let index = removed.firstIndex(of: interval) { removed.remove(at: index) } else { added.append(interval) }
        }
        // A few changes at most: merged in place, the day compared first, rather than hashed.
        var changes: [SubscriptionDay] = []
        func add(day: Int64, step: Int64, mrr: Int64, of interval: CoverageInterval) {
            let key = SubscriptionDay.Key(day: day, state: interval.state, entry: interval.entry)
            if let index = changes.firstIndex(where: { $0.key == key }) {
                changes[index].subscriptions += step
                changes[index].mrrMilliunits = changes[index].mrrMilliunits &+ mrr
            } else {
                changes.append(SubscriptionDay(key: key, subscriptions: step, mrrMilliunits: mrr))
            }
        }
        for interval in removed {
            let mrr = interval.monthlyMilliunits
            add(day: interval.days.lowerBound, step: -1, mrr: 0 &- mrr, of: interval)
            add(day: interval.days.upperBound, step: 1, mrr: mrr, of: interval)
        }
        for interval in added {
            let mrr = interval.monthlyMilliunits
            add(day: interval.days.lowerBound, step: 1, mrr: mrr, of: interval)
            add(day: interval.days.upperBound, step: -1, mrr: 0 &- mrr, of: interval)
        }
        return changes.filter { $0.subscriptions != 0 || $0.mrrMilliunits != 0 }
    }
}

/// One subscription's ledger rows and the intervals they cover, worked out once for both the daily totals and the
/// events that new rows change.
public struct SubscriptionRows: Sendable {
    public let entries: [LedgerEntry]
    public let intervals: [CoverageInterval]

    public init(_ entries: [LedgerEntry]) {
        self.entries = entries
        intervals = SubscriptionCoverage.intervals(of: entries)
    }
}

/// A change to one day's count of active subscriptions (or trials) and their MRR, in one group: the daily totals
/// keep these changes, and a day's figure is their sum up to it.
public struct SubscriptionDay: Sendable, Hashable {
    /// The day and state come first: keys are compared often, and most differ there.
    public struct Key: Sendable, Hashable {
        public var day: Int64
        public var state: CoverageInterval.State
        public var tenantID: String
        public var environment: PurchaseEnvironment
        public var store: Store
        public var productID: String
        public var entitlementIDs: [String]
        public var country: String
        public var currency: String
        public var offer: OfferKind

        init(day: Int64, state: CoverageInterval.State, entry: LedgerEntry) {
            tenantID = entry.tenantID
            environment = entry.environment
            self.day = day
            store = entry.store
            productID = entry.productID
            entitlementIDs = entry.entitlementIDs
            country = entry.country
            currency = entry.amount.currency
            offer = entry.offer
            self.state = state
        }
    }

    public var key: Key
    public var subscriptions: Int64
    public var mrrMilliunits: Int64
}

extension CoverageInterval.State {
    /// The word the daily totals keep.
    public var name: String {
        switch self {
        case .paid: "paid"
        case .trial: "trial"
        case .grace: "grace"
        case .billingRetry: "billing_retry"
        }
    }
}
