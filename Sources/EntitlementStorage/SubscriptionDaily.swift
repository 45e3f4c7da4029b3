import EntitlementDomain

/// `subscription_daily`: per UTC day, tenant, environment, dimension group and state (`paid` or `trial`), the change
/// in active subscriptions and their MRR that day (``SubscriptionDay``); a day's figure is the sum of the changes up
/// to it. Added to in the transaction that records each ledger row of a subscription.
enum SubscriptionDaily {
    static let key =
        "tenant_id, environment, day, store, product_id, entitlement_ids, country, currency, offer_kind, state"

    /// Version 19 on SQLite, 10 on PostgreSQL; the rows recorded before are added by ``backfill(_:)``.
    static func migrationSQL(integer: String) -> String {
        """
        CREATE TABLE subscription_daily (
            tenant_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            day \(integer) NOT NULL,
            store TEXT NOT NULL,
            product_id TEXT NOT NULL,
            entitlement_ids TEXT NOT NULL,
            country TEXT NOT NULL,
            currency TEXT NOT NULL,
            offer_kind TEXT NOT NULL,
            -- 'paid' or 'trial'.
            state TEXT NOT NULL,
            -- How many more (or fewer) are active from this day on, and their MRR (thousandths of the currency).
            subscriptions \(integer) NOT NULL,
            mrr_milliunits \(integer) NOT NULL,
            PRIMARY KEY (\(key))
        );
        -- A subscription's rows, read when one more is recorded.
        CREATE INDEX revenue_ledger_purchase ON revenue_ledger (tenant_id, store, original_transaction_id);
        """
    }

    static let table = DailyTotalsTable(
        name: "subscription_daily", key: key, sums: ["subscriptions", "mrr_milliunits"])

    /// A change of a day's active subscriptions or trials added to its group's total.
    static func add(_ change: SubscriptionDay, to changes: inout DailyTotalChanges) {
        let key = change.key
        changes.add(
            table,
            key: [
                .text(key.tenantID), .text(StorageColumns.environment(key.environment)), .integer(key.day),
                .text(key.store.ledgerName), .text(key.productID), .text(key.entitlementIDs.joined(separator: " ")),
                .text(key.country), .text(key.currency), .text(key.offer.name), .text(key.state.name),
            ],
            sums: [change.subscriptions, change.mrrMilliunits])
    }

    /// Adds the subscriptions of every ledger row already recorded, a purchase at a time.
    static func backfill(_ db: some SQLExecutor) throws(StorageError) {
        var changes = DailyTotalChanges()
        try db.forEachLedgerSubscription { (entries) throws(StorageError) in
            for change in SubscriptionCoverage.changes(before: [], recorded: entries) { add(change, to: &changes) }
            // Summed as it goes: what is kept is a row per day and group, not a change per subscription.
            changes.keepWrite()
        }
        try changes.write(to: db)
        try db.flush()
    }
}

extension SQLExecutor {
    /// The changes of days up to `query.days`' last, grouped as asked: those before its first summed into one total
    /// dated the day before it, then one per day. An entitlement filter is applied to the totals grouped by them.
    func subscriptionTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [SubscriptionTotal] {
        let entitlement = query.filter[.entitlements]
        let grouped = RevenueDimension.allCases.filter {
            query.groupBy.contains($0) || ($0 == .entitlements && entitlement != nil)
        }
        var conditions = ["tenant_id = ?", "environment = ?", "day <= ?"]
        var bindings: [SQLValue] = [
            .text(query.tenantID), .text(StorageColumns.environment(query.environment)),
            .integer(query.days.upperBound),
        ]
        for dimension in RevenueDimension.allCases where dimension != .entitlements {
            guard let value = query.filter[dimension] else { continue }
            conditions.append("\(RevenueDaily.column(dimension)) = ?")
            bindings.append(.text(value))
        }
        let first = query.days.lowerBound
        let dayColumn = "CASE WHEN day < \(first) THEN \(first - 1) ELSE day END"
        let groupColumns = ([dayColumn] + grouped.map(RevenueDaily.column) + ["currency", "state"]).joined(separator: ", ")
        let totals = try rows(
            """
            SELECT \(groupColumns), SUM(subscriptions), SUM(mrr_milliunits)
            FROM \(UngroupedDaily.table("subscription_daily", for: query)) WHERE \(conditions.joined(separator: " AND "))
            GROUP BY \(groupColumns)
            """,
            bindings
        ) { (row) throws(StorageError) in
            var group: [RevenueDimension: String] = [:]
            for (index, dimension) in grouped.enumerated() { group[dimension] = row.string(Int32(1 + index)) }
            let next = Int32(1 + grouped.count)
            return SubscriptionTotal(
                day: row.int64(0), group: group, currency: row.string(next),
                state: try StorageColumns.decode(row.string(next + 1), column: "subscription_daily.state", as: \CoverageInterval.State.name),
                subscriptions: row.int64(next + 2), mrrMilliunits: row.int64(next + 3))
        }
        guard let entitlement else { return totals }
        return try SubscriptionTotal.narrowed(
            totals, toEntitlement: entitlement, groupedByEntitlements: query.groupBy.contains(.entitlements))
    }
}
