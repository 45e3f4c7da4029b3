/// How many subscription events of one kind (``SubscriptionEvent``) one period of a series counts in one group: a
/// lapse only where it is a churn in that period (``SubscriptionEvent/isChurn(in:)``).
public struct SubscriptionEventTotal: Sendable, Hashable {
    public var kind: SubscriptionEvent.Kind
    /// The period's first UTC day.
    public var day: Int64
    public var group: [RevenueDimension: String]
    public var events: Int64

    public init(kind: SubscriptionEvent.Kind, day: Int64, group: [RevenueDimension: String], events: Int64) {
        self.kind = kind
        self.day = day
        self.group = group
        self.events = events
    }

    /// The totals of `kind` in each of `periods` that the events of ledger `entries` themselves (every
    /// subscription's) make: what the events a database keeps must add up to.
    public static func totals(
        of entries: [LedgerEntry], kind: SubscriptionEvent.Kind, matching query: RevenueTotalsQuery,
        periods: [ClosedRange<Int64>]
    ) throws(StorageError) -> [SubscriptionEventTotal] {
        let events = SubscriptionCoverage.subscriptions(in: entries, tenantID: query.tenantID, environment: query.environment)
            .flatMap(SubscriptionEvent.events(of:))
            .filter { event in event.kind == kind && query.filter.allSatisfy { event.entry.matches($0.key, $0.value) } }
        return try summed(
            periods.flatMap { period in
                events.filter { $0.counts(in: period) }.map { event in
                    SubscriptionEventTotal(
                        kind: kind, day: period.lowerBound,
                        group: Dictionary(uniqueKeysWithValues: query.groupBy.map { ($0, event.entry.value(of: $0)) }),
                        events: 1)
                }
            })
    }
}

extension SubscriptionEventTotal: DailyTotal {
    public struct SumKey: Hashable, Sendable {
        var kind: SubscriptionEvent.Kind
        var day: Int64
        var group: [RevenueDimension: String]
    }

    public var sumKey: SumKey { SumKey(kind: kind, day: day, group: group) }

    public func adding(_ other: SubscriptionEventTotal) -> SubscriptionEventTotal? {
        guard let count = sum(events, other.events) else { return nil }
        var total = self
        total.events = count
        return total
    }
}
