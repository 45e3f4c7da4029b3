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
    /// on `days`; listed newest first (``newestFirst``).
    public var coveringAt: UnixTime?
    /// Rows behind the subscription events of this kind on `days` (lapses: those that are churns in the period
    /// `days`), instead of rows that occurred on them: the event's row (``SubscriptionEvent/entry``).
    public var eventKind: SubscriptionEvent.Kind?
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
        self.eventKind = nil
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

extension LedgerRowsQuery {
    /// Whether the rows are listed newest first: those holding an instant are, since the latest payments are the
    /// likeliest to hold it and a page is found without reading the years before.
    public var newestFirst: Bool { coveringAt != nil }

    /// Whether `key` comes before `other` in the query's order.
    public func orders(_ key: LedgerRowKey, before other: LedgerRowKey) -> Bool {
        newestFirst ? other < key : key < other
    }

    /// Whether the query places `event`'s row among its rows.
    public func counts(_ event: SubscriptionEvent) -> Bool {
        event.kind == eventKind && event.counts(in: days)
    }

    /// The rows of `ledger` (every row of a tenant, or more) behind the events the query places; nil when it places
    /// rows by their day or an instant instead.
    public func eventRows(in ledger: [LedgerEntry]) -> Set<LedgerRowKey>? {
        guard eventKind != nil else { return nil }
        return Set(
            SubscriptionCoverage.subscriptions(in: ledger, tenantID: tenantID, environment: environment)
                .flatMap(SubscriptionEvent.events(of:)).filter(counts).map { LedgerRowKey($0.entry) })
    }
}

extension LedgerEntry {
    /// Whether `query` selects this entry (its tenant, environment, days, kinds, values and currency; not its place),
    /// given the rows behind the events it places (``LedgerRowsQuery/eventRows(in:)``).
    public func isSelected(by query: LedgerRowsQuery, eventRows: Set<LedgerRowKey>?) -> Bool {
        let placed =
            eventRows.map { $0.contains(LedgerRowKey(self)) }
            ?? query.coveringAt.map { instant in periodStart < instant && periodEnd.map { $0 > instant } ?? false }
            ?? query.days.contains(occurredAt.utcDay)
        return tenantID == query.tenantID && environment == query.environment && placed && query.kinds.contains(kind)
            && (query.currency.map { $0 == amount.currency } ?? true)
            && query.values.allSatisfy { dimension, value in matches(dimension, value) }
    }
}
