/// A read of the revenue ledger's rows themselves: those behind one point of a metric (one tenant, one environment,
/// a range of UTC days, some kinds, a group's and a filter's values, a currency), in a stable order, a page at a time.
public struct LedgerRowsQuery: Sendable, Hashable {
    public var tenantID: String
    public var environment: PurchaseEnvironment
    public var days: ClosedRange<Int64>
    public var kinds: Set<MovementKind>
    /// Each dimension's value (``RevenueDimension/entitlements``: rows whose list includes it).
    public var values: [RevenueDimension: String]
    /// Nil: every currency.
    public var currency: String?
    /// Rows whose period holds this instant (it began before it and ends after it), instead of rows that occurred
    /// on `days`.
    public var coveringAt: UnixTime?
    /// Rows after this one in the order (``LedgerRowKey``).
    public var after: LedgerRowKey?
    public var limit: Int

    public init(
        tenantID: String, environment: PurchaseEnvironment, days: ClosedRange<Int64>, kinds: Set<MovementKind>,
        values: [RevenueDimension: String], currency: String?, after: LedgerRowKey?, limit: Int
    ) {
        self.tenantID = tenantID
        self.environment = environment
        self.days = days
        self.kinds = kinds
        self.values = values
        self.currency = currency
        self.coveringAt = nil
        self.after = after
        self.limit = limit
    }
}

/// Where a row stands in the order rows are listed in: by time, then the row's key.
public struct LedgerRowKey: Sendable, Hashable, Comparable {
    public var occurredAt: UnixTime
    public var store: Store
    public var transactionID: String
    public var direction: MovementDirection

    public init(occurredAt: UnixTime, store: Store, transactionID: String, direction: MovementDirection) {
        self.occurredAt = occurredAt
        self.store = store
        self.transactionID = transactionID
        self.direction = direction
    }

    public init(_ entry: LedgerEntry) {
        self.init(
            occurredAt: entry.occurredAt, store: entry.store, transactionID: entry.transactionID,
            direction: entry.kind.direction)
    }

    public static func < (lhs: LedgerRowKey, rhs: LedgerRowKey) -> Bool {
        (lhs.occurredAt.milliseconds, lhs.store.ledgerName, lhs.transactionID, lhs.direction.name)
            < (rhs.occurredAt.milliseconds, rhs.store.ledgerName, rhs.transactionID, rhs.direction.name)
    }
}

/// A ledger row as listed: the entry, and the app user ID of the customer who owned the purchase when the money
/// moved (empty when nobody did).
public struct LedgerRow: Sendable, Hashable {
    public var entry: LedgerEntry
    public var appUserID: String

    public init(entry: LedgerEntry, appUserID: String) {
        self.entry = entry
        self.appUserID = appUserID
    }
}

extension LedgerEntry {
    /// Whether `query` selects this entry (its tenant, environment, days, kinds, values and currency; not its place).
    public func isSelected(by query: LedgerRowsQuery) -> Bool {
        let placed =
            query.coveringAt.map { instant in periodStart < instant && periodEnd.map { $0 > instant } ?? true }
            ?? query.days.contains(occurredAt.utcDay)
        return tenantID == query.tenantID && environment == query.environment && placed && query.kinds.contains(kind) && (query.currency.map { $0 == amount.currency } ?? true)
            && query.values.allSatisfy { dimension, value in matches(dimension, value) }
    }
}
