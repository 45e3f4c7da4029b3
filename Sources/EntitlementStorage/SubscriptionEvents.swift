import EntitlementDomain

/// `subscription_events`: each subscription's lapses, reactivations and trial conversions (``SubscriptionEvent``),
/// kept in the transaction that records each ledger row of it, so that churn, reactivations and trial conversion
/// read these rows instead of every subscription's ledger rows. Its words are the ledger's.
enum SubscriptionEvents {
    static let key = "tenant_id, store, original_transaction_id, event, day, gap_start_day, transaction_id"

    /// Version 20 on SQLite, 11 on PostgreSQL; the subscriptions recorded before are added by ``backfill(_:)``.
    static func migrationSQL(integer: String) -> String {
        """
        CREATE TABLE subscription_events (
            tenant_id TEXT NOT NULL,
            store TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            -- 'lapse', 'reactivation' or 'trial_conversion'.
            event TEXT NOT NULL,
            -- The UTC day: a lapse's first unpaid day, a reactivation's first paid day, a converted trial's start.
            day \(integer) NOT NULL,
            -- A lapse: its run's first paid day, and a gap in payments [gap_start_day, gap_end_day) that starts
            -- within 31 days of it (9223372036854775807: not paid for again); 0 for the other events.
            run_start_day \(integer) NOT NULL,
            gap_start_day \(integer) NOT NULL,
            gap_end_day \(integer) NOT NULL,
            -- The ledger row the event counts with: its key, and its dimensions.
            transaction_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            environment TEXT NOT NULL,
            product_id TEXT NOT NULL,
            entitlement_ids TEXT NOT NULL,
            country TEXT NOT NULL,
            currency TEXT NOT NULL,
            offer_kind TEXT NOT NULL,
            PRIMARY KEY (\(key))
        );
        -- Covers a count of churns (an ungrouped one reads the index alone).
        CREATE INDEX subscription_events_day
            ON subscription_events (tenant_id, environment, event, day, run_start_day, gap_start_day, gap_end_day);
        """
    }

    static let insertSQL = """
        INSERT INTO subscription_events (\(key), run_start_day, gap_end_day, kind, environment, product_id,
            entitlement_ids, country, currency, offer_kind)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static let deleteSQL = """
        DELETE FROM subscription_events WHERE tenant_id = ? AND store = ? AND original_transaction_id = ?
            AND event = ? AND day = ? AND gap_start_day = ? AND transaction_id = ?
        """

    static func keyBindings(_ event: SubscriptionEvent) -> [SQLValue] {
        let entry = event.entry
        return [
            .text(entry.tenantID), .text(entry.store.ledgerName), .text(entry.originalTransactionID),
            .text(event.kind.name), .integer(event.day), .integer(event.gapStart), .text(entry.transactionID),
        ]
    }

    static func insertBindings(_ event: SubscriptionEvent) -> [SQLValue] {
        let entry = event.entry
        return keyBindings(event) + [
            .integer(event.runStart), .integer(event.gapEnd), .text(entry.kind.name),
            .text(StorageColumns.environment(entry.environment)), .text(entry.productID),
            .text(entry.entitlementIDs.joined(separator: " ")), .text(entry.country), .text(entry.amount.currency),
            .text(entry.offer.name),
        ]
    }

    /// Adds the events of every subscription already recorded.
    static func backfill(_ db: some SQLExecutor) throws(StorageError) {
        try db.forEachLedgerSubscription { (entries) throws(StorageError) in
            for event in SubscriptionEvent.events(of: entries) { try db.run(insertSQL, insertBindings(event)) }
        }
    }
}

extension SQLExecutor {
    /// Calls `body` with every ledger row of each purchase in the ledger, a purchase at a time.
    func forEachLedgerSubscription(_ body: ([LedgerEntry]) throws(StorageError) -> Void) throws(StorageError) {
        let purchases = try rows(
            "SELECT DISTINCT tenant_id, store, original_transaction_id FROM revenue_ledger", []
        ) { (row) throws(StorageError) in
            (row.string(0), try StorageColumns.decode(row.string(1), column: "revenue_ledger.store", as: \Store.ledgerName),
                row.string(2))
        }
        for (tenantID, store, original) in purchases {
            try body(try ledgerEntries(tenantID: tenantID, store: store, originalTransactionID: original))
        }
    }

    /// How many events of `kind` each of `periods` counts, by group: the periods joined as a table of their first
    /// and last days, a lapse kept where it is a churn in its period (``SubscriptionEvent/isChurn(in:)``'s
    /// conditions), so that the database counts and a series reads one row per period and group. An entitlement
    /// filter is applied to the totals grouped by them.
    func subscriptionEventTotals(
        _ query: RevenueTotalsQuery, kind: SubscriptionEvent.Kind, periods: [ClosedRange<Int64>]
    ) throws(StorageError) -> [SubscriptionEventTotal] {
        guard !periods.isEmpty else { return [] }
        let entitlement = query.filter[.entitlements]
        let grouped = RevenueDimension.allCases.filter {
            query.groupBy.contains($0) || ($0 == .entitlements && entitlement != nil)
        }
        var bindings: [SQLValue] = periods.flatMap { [.integer($0.lowerBound), .integer($0.upperBound)] }
        var conditions = ["e.tenant_id = ?", "e.environment = ?", "e.event = ?"]
        bindings += [.text(query.tenantID), .text(StorageColumns.environment(query.environment)), .text(kind.name)]
        if kind == .lapse {
            conditions += ["e.run_start_day < p.first_day", "e.gap_start_day <= p.last_day", "e.gap_end_day > p.last_day"]
        }
        for dimension in RevenueDimension.allCases where dimension != .entitlements {
            guard let value = query.filter[dimension] else { continue }
            conditions.append("e.\(RevenueDaily.column(dimension)) = ?")
            bindings.append(.text(value))
        }
        let groupColumns = (["p.first_day"] + grouped.map { "e." + RevenueDaily.column($0) }).joined(separator: ", ")
        let values = periods.map { _ in "(CAST(? AS BIGINT), CAST(? AS BIGINT))" }.joined(separator: ", ")
        let totals = try rows(
            """
            WITH periods (first_day, last_day) AS (VALUES \(values))
            SELECT \(groupColumns), COUNT(*)
            FROM periods p JOIN subscription_events e ON e.day >= p.first_day AND e.day <= p.last_day
            WHERE \(conditions.joined(separator: " AND ")) GROUP BY \(groupColumns)
            """,
            bindings
        ) { (row) throws(StorageError) in
            var group: [RevenueDimension: String] = [:]
            for (index, dimension) in grouped.enumerated() { group[dimension] = row.string(Int32(1 + index)) }
            return SubscriptionEventTotal(
                kind: kind, day: row.int64(0), group: group, events: row.int64(Int32(1 + grouped.count)))
        }
        guard let entitlement else { return totals }
        return try SubscriptionEventTotal.narrowed(
            totals, toEntitlement: entitlement, groupedByEntitlements: query.groupBy.contains(.entitlements))
    }
}
