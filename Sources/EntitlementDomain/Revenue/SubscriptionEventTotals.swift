/// How many subscription events of one kind (``SubscriptionEvent``) fell on a UTC day in one group, with the same
/// run and gap (a lapse's; zero for the other kinds).
public struct SubscriptionEventTotal: Sendable, Hashable {
    public var kind: SubscriptionEvent.Kind
    public var day: Int64
    public var runStart: Int64
    public var gapStart: Int64
    public var gapEnd: Int64
    public var group: [RevenueDimension: String]
    public var events: Int64

    public init(
        kind: SubscriptionEvent.Kind, day: Int64, runStart: Int64, gapStart: Int64, gapEnd: Int64,
        group: [RevenueDimension: String], events: Int64
    ) {
        self.kind = kind
        self.day = day
        self.runStart = runStart
        self.gapStart = gapStart
        self.gapEnd = gapEnd
        self.group = group
        self.events = events
    }

    /// Whether these events are churns in the period `period` (``SubscriptionEvent/isChurn(in:)``).
    public func isChurn(in period: ClosedRange<Int64>) -> Bool {
        kind == .lapse
            && SubscriptionEvent.churns(day: day, runStart: runStart, gapStart: gapStart, gapEnd: gapEnd, in: period)
    }

    /// The totals of `kind` on `query.days` that the events of ledger `entries` themselves (every subscription's)
    /// make: what the events a database keeps must add up to.
    public static func totals(
        of entries: [LedgerEntry], kind: SubscriptionEvent.Kind, matching query: RevenueTotalsQuery
    ) throws(StorageError) -> [SubscriptionEventTotal] {
        try summed(
            SubscriptionCoverage.subscriptions(in: entries, tenantID: query.tenantID, environment: query.environment)
                .flatMap(SubscriptionEvent.events(of:)).compactMap { event in
                    let entry = event.entry
                    guard event.kind == kind, query.days.contains(event.day),
                        query.filter.allSatisfy({ entry.matches($0.key, $0.value) })
                    else { return nil }
                    return SubscriptionEventTotal(
                        kind: kind, day: event.day, runStart: event.runStart, gapStart: event.gapStart,
                        gapEnd: event.gapEnd,
                        group: Dictionary(uniqueKeysWithValues: query.groupBy.map { ($0, entry.value(of: $0)) }),
                        events: 1)
                })
    }
}

extension SubscriptionEventTotal: DailyTotal {
    public struct SumKey: Hashable, Sendable {
        var kind: SubscriptionEvent.Kind
        var day: Int64
        var runStart: Int64
        var gapStart: Int64
        var gapEnd: Int64
        var group: [RevenueDimension: String]
    }

    public var sumKey: SumKey {
        SumKey(kind: kind, day: day, runStart: runStart, gapStart: gapStart, gapEnd: gapEnd, group: group)
    }

    public func adding(_ other: SubscriptionEventTotal) -> SubscriptionEventTotal? {
        guard let count = sum(events, other.events) else { return nil }
        var total = self
        total.events = count
        return total
    }
}
