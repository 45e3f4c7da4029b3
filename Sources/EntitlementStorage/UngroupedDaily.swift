import EntitlementDomain

/// `revenue_daily_ungrouped` and `subscription_daily_ungrouped`: the daily totals of `revenue_daily` and
/// `subscription_daily` summed over every dimension but the currency, kept beside them in the same statements'
/// transaction. A series neither grouped nor filtered (a dashboard's first chart) reads a few rows a day from these
/// instead of one per day and group: the difference between milliseconds and a tenth of a second at a million
/// customers (BENCHMARKS.md, issue 40).
enum UngroupedDaily {
    static let revenueKey = "tenant_id, environment, day, currency, kind"
    static let subscriptionKey = "tenant_id, environment, day, currency, state"

    /// Version 21 on SQLite (`clustered`: `WITHOUT ROWID`, so a range of days is read in key order from the table
    /// itself), 12 on PostgreSQL; filled from the grouped tables.
    static func migrationSQL(integer: String, clustered: String) -> String {
        """
        CREATE TABLE revenue_daily_ungrouped (
            tenant_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            day \(integer) NOT NULL,
            currency TEXT NOT NULL,
            kind TEXT NOT NULL,
            movements \(integer) NOT NULL,
            amount_milliunits \(integer) NOT NULL,
            tax_milliunits \(integer) NOT NULL,
            proceeds_milliunits \(integer) NOT NULL,
            PRIMARY KEY (\(revenueKey))
        )\(clustered);
        INSERT INTO revenue_daily_ungrouped
        SELECT tenant_id, environment, day, currency, kind, SUM(movements), SUM(amount_milliunits), SUM(tax_milliunits),
            SUM(proceeds_milliunits)
        FROM revenue_daily GROUP BY \(revenueKey);
        CREATE TABLE subscription_daily_ungrouped (
            tenant_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            day \(integer) NOT NULL,
            currency TEXT NOT NULL,
            state TEXT NOT NULL,
            subscriptions \(integer) NOT NULL,
            mrr_milliunits \(integer) NOT NULL,
            PRIMARY KEY (\(subscriptionKey))
        )\(clustered);
        INSERT INTO subscription_daily_ungrouped
        SELECT tenant_id, environment, day, currency, state, SUM(subscriptions), SUM(mrr_milliunits)
        FROM subscription_daily GROUP BY \(subscriptionKey);
        """
    }

    static let revenue = DailyTotalsTable(
        name: "revenue_daily_ungrouped", key: revenueKey,
        sums: ["movements", "amount_milliunits", "tax_milliunits", "proceeds_milliunits"])
    static let subscriptions = DailyTotalsTable(
        name: "subscription_daily_ungrouped", key: subscriptionKey, sums: ["subscriptions", "mrr_milliunits"])

    /// One ledger row's movement added to its day's total over all groups.
    static func add(_ entry: LedgerEntry, to changes: inout DailyTotalChanges) {
        changes.add(
            revenue,
            key: [
                .text(entry.tenantID), .text(StorageColumns.environment(entry.environment)),
                .integer(entry.occurredAt.utcDay), .text(entry.amount.currency), .text(entry.kind.name),
            ],
            sums: RevenueDaily.sums(of: entry))
    }

    /// A change of a day's active subscriptions or trials added to its group's total and to the day's over all groups.
    static func addBoth(_ change: SubscriptionDay, to changes: inout DailyTotalChanges) {
        SubscriptionDaily.add(change, to: &changes)
        add(change, to: &changes)
    }

    /// A change of a day's active subscriptions or trials added to the day's total over all groups.
    static func add(_ change: SubscriptionDay, to changes: inout DailyTotalChanges) {
        let key = change.key
        changes.add(
            subscriptions,
            key: [
                .text(key.tenantID), .text(StorageColumns.environment(key.environment)), .integer(key.day),
                .text(key.currency), .text(key.state.name),
            ],
            sums: [change.subscriptions, change.mrrMilliunits])
    }

    /// The table a totals read takes its rows from: the ungrouped one when `query` neither groups nor filters.
    static func table(_ grouped: String, for query: RevenueTotalsQuery) -> String {
        query.groupBy.isEmpty && query.filter.isEmpty ? grouped + "_ungrouped" : grouped
    }
}
