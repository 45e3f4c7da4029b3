import CivilCalendar

/// What the revenue ledger's daily totals group by besides the day, the currency and the kind of movement (which
/// every total keeps apart: amounts in two currencies never add up, nor does a refund to a payment).
public enum RevenueDimension: Sendable, Hashable, CaseIterable {
    case store
    case product
    /// A product's entitlements when the money moved, all of them: the ledger's `entitlement_ids`.
    case entitlements
    case country
    case offer
}

/// A read of the ledger's daily totals: one tenant, one environment (never mixed), a range of UTC days, grouped by
/// some dimensions and narrowed to one value of others.
public struct RevenueTotalsQuery: Sendable, Hashable {
    public var tenantID: String
    public var environment: PurchaseEnvironment
    /// UTC days since 1970 (``UnixTime/utcDay``), both ends included.
    public var days: ClosedRange<Int64>
    public var groupBy: Set<RevenueDimension>
    /// Only totals whose dimension has this value (the `entitlements` dimension: whose list includes it).
    public var filter: [RevenueDimension: String]

    public init(
        tenantID: String, environment: PurchaseEnvironment, days: ClosedRange<Int64>,
        groupBy: Set<RevenueDimension> = [], filter: [RevenueDimension: String] = [:]
    ) {
        self.tenantID = tenantID
        self.environment = environment
        self.days = days
        self.groupBy = groupBy
        self.filter = filter
    }
}

/// One UTC day's movements of one kind, in one currency, of one group: how many, and their amounts (thousandths of
/// the currency; refunds negative).
public struct RevenueTotal: Sendable, Hashable {
    public var day: Int64
    /// The value of each dimension grouped by.
    public var group: [RevenueDimension: String]
    public var currency: String
    public var kind: MovementKind
    public var movements: Int64
    public var amountMilliunits: Int64
    /// The tax the store reported within the amounts (movements without a reported tax add nothing).
    public var taxMilliunits: Int64
    public var proceedsMilliunits: Int64

    public init(
        day: Int64, group: [RevenueDimension: String], currency: String, kind: MovementKind, movements: Int64,
        amountMilliunits: Int64, taxMilliunits: Int64, proceedsMilliunits: Int64
    ) {
        self.day = day
        self.group = group
        self.currency = currency
        self.kind = kind
        self.movements = movements
        self.amountMilliunits = amountMilliunits
        self.taxMilliunits = taxMilliunits
        self.proceedsMilliunits = proceedsMilliunits
    }
}

extension UnixTime {
    /// The UTC day this instant falls in, as days since 1970-01-01 (rounded down, also before 1970).
    public var utcDay: Int64 {
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: Milliseconds.perDay)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

extension RevenueTotal {
    /// The totals `query` selects from ledger `entries` themselves: what the daily totals a database keeps must add
    /// up to (an in-memory repository reads them so).
    public static func totals(of entries: [LedgerEntry], matching query: RevenueTotalsQuery) throws(StorageError)
        -> [RevenueTotal]
    {
        let selected = entries.filter { entry in
            entry.tenantID == query.tenantID && entry.environment == query.environment
                && query.days.contains(entry.occurredAt.utcDay)
                && query.filter.allSatisfy { dimension, value in entry.matches(dimension, value) }
        }
        return try summed(
            selected.map { entry in
                RevenueTotal(
                    day: entry.occurredAt.utcDay,
                    group: Dictionary(uniqueKeysWithValues: query.groupBy.map { ($0, entry.value(of: $0)) }),
                    currency: entry.amount.currency, kind: entry.kind, movements: 1,
                    amountMilliunits: entry.amount.milliunits, taxMilliunits: entry.taxMilliunits ?? 0,
                    proceedsMilliunits: entry.proceedsMilliunits)
            })
    }
}

extension RevenueTotal: DailyTotal {
    public struct SumKey: Hashable, Sendable {
        var day: Int64
        var group: [RevenueDimension: String]
        var currency: String
        var kind: MovementKind
    }

    public var sumKey: SumKey { SumKey(day: day, group: group, currency: currency, kind: kind) }

    public func adding(_ other: RevenueTotal) -> RevenueTotal? {
        guard let movements = sum(movements, other.movements), let amount = sum(amountMilliunits, other.amountMilliunits),
            let tax = sum(taxMilliunits, other.taxMilliunits), let proceeds = sum(proceedsMilliunits, other.proceedsMilliunits)
        else { return nil }
        var total = self
        total.movements = movements
        total.amountMilliunits = amount
        total.taxMilliunits = tax
        total.proceedsMilliunits = proceeds
        return total
    }
}

extension LedgerEntry: RevenueDimensioned {}

