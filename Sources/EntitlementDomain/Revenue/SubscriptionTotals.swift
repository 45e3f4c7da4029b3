/// The change in active subscriptions (or trials) and their MRR on one UTC day, in one group and currency; a day's
/// figure is the sum of the changes up to it. A read dates the sum of every change before its range the day before
/// the range's first.
public struct SubscriptionTotal: Sendable, Hashable {
    public var day: Int64
    public var group: [RevenueDimension: String]
    public var currency: String
    public var state: CoverageInterval.State
    public var subscriptions: Int64
    public var mrrMilliunits: Int64

    public init(
        day: Int64, group: [RevenueDimension: String], currency: String, state: CoverageInterval.State,
        subscriptions: Int64, mrrMilliunits: Int64
    ) {
        self.day = day
        self.group = group
        self.currency = currency
        self.state = state
        self.subscriptions = subscriptions
        self.mrrMilliunits = mrrMilliunits
    }

    /// The totals `query` selects from ledger `entries` and billing `observations` themselves (every subscription's
    /// intervals): what the daily changes a database keeps must add up to.
    public static func totals(
        of entries: [LedgerEntry], observations: [BillingObservation] = [], matching query: RevenueTotalsQuery
    ) throws(StorageError) -> [SubscriptionTotal] {
        let retries = Dictionary(
            grouping: observations.filter {
                $0.payment.tenantID == query.tenantID && $0.payment.environment == query.environment
            }
        ) { "\($0.payment.store.ledgerName) \($0.payment.originalTransactionID)" }.values
        let changes =
            SubscriptionCoverage.subscriptions(in: entries, tenantID: query.tenantID, environment: query.environment)
            .flatMap { SubscriptionCoverage.changes(before: [], recorded: $0) }
            + retries.flatMap { SubscriptionCoverage.changes(from: [], to: BillingObservation.intervals(of: $0)) }
        return try summed(
            changes.compactMap { change in
                let key = change.key
                guard key.day <= query.days.upperBound,
                    query.filter.allSatisfy({ key.matches($0.key, $0.value) })
                else { return nil }
                return SubscriptionTotal(
                    day: max(key.day, query.days.lowerBound - 1),
                    group: Dictionary(uniqueKeysWithValues: query.groupBy.map { ($0, key.value(of: $0)) }),
                    currency: key.currency, state: key.state, subscriptions: change.subscriptions,
                    mrrMilliunits: change.mrrMilliunits)
            })
    }
}

extension SubscriptionTotal: DailyTotal {
    public struct SumKey: Hashable, Sendable {
        var day: Int64
        var group: [RevenueDimension: String]
        var currency: String
        var state: CoverageInterval.State
    }

    public var sumKey: SumKey { SumKey(day: day, group: group, currency: currency, state: state) }

    public func adding(_ other: SubscriptionTotal) -> SubscriptionTotal? {
        guard let count = sum(subscriptions, other.subscriptions), let mrr = sum(mrrMilliunits, other.mrrMilliunits)
        else { return nil }
        var total = self
        total.subscriptions = count
        total.mrrMilliunits = mrr
        return total
    }
}

extension SubscriptionDay.Key: RevenueDimensioned {}
