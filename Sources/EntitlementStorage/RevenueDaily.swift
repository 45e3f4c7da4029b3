import EntitlementDomain

/// `revenue_daily`: the revenue ledger's totals per UTC day, tenant, environment and every dimension metrics group
/// by, added to in the transaction that records each ledger row, so that a series over any range reads one row per
/// day and group instead of scanning the ledger. Its words are the ledger's.
enum RevenueDaily {
    static let key =
        "tenant_id, environment, day, store, product_id, entitlement_ids, country, currency, offer_kind, kind"
    static let columns = key + ", movements, amount_milliunits, tax_milliunits, proceeds_milliunits"

    /// The UTC day (days since 1970, rounded down) of a milliseconds `column`, in SQL both databases run alike.
    static func dayOf(_ column: String) -> String {
        "CASE WHEN \(column) >= 0 THEN \(column) / 86400000 ELSE (\(column) + 1) / 86400000 - 1 END"
    }

    /// One ledger row's movement added to its day's total.
    static let addSQL = """
        INSERT INTO revenue_daily (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
        ON CONFLICT (\(key)) DO UPDATE SET
            movements = revenue_daily.movements + 1,
            amount_milliunits = revenue_daily.amount_milliunits + excluded.amount_milliunits,
            tax_milliunits = revenue_daily.tax_milliunits + excluded.tax_milliunits,
            proceeds_milliunits = revenue_daily.proceeds_milliunits + excluded.proceeds_milliunits
        """

    static func bindings(adding entry: LedgerEntry) -> [SQLValue] {
        [
            .text(entry.tenantID), .text(StorageColumns.environment(entry.environment)),
            .integer(entry.occurredAt.utcDay), .text(entry.store.ledgerName), .text(entry.productID),
            .text(entry.entitlementIDs.joined(separator: " ")), .text(entry.country), .text(entry.amount.currency),
            .text(entry.offer.name), .text(entry.kind.name), .integer(entry.amount.milliunits),
            .integer(entry.taxMilliunits ?? 0), .integer(entry.proceedsMilliunits),
        ]
    }

    /// A ledger row's columns as ``entry(_:tenantID:)`` reads them (the table named `l`).
    static let entryColumns = """
        l.kind, l.store, l.transaction_id, l.original_transaction_id, l.customer_id, l.product_id, l.entitlement_ids,
        l.environment, l.country, l.offer_kind, l.period_start, l.period_end, l.amount_milliunits, l.currency,
        l.tax_milliunits, l.proceeds_milliunits, l.occurred_at
        """

    static func entry(_ row: some SQLRow, tenantID: String) throws(StorageError) -> LedgerEntry {
        LedgerEntry(
            tenantID: tenantID,
            store: try StorageColumns.decode(row.string(1), column: "revenue_ledger.store", as: \Store.ledgerName),
            transactionID: row.string(2),
            kind: try StorageColumns.decode(row.string(0), column: "revenue_ledger.kind", as: \MovementKind.name),
            originalTransactionID: row.string(3), customerID: row.optionalInt64(4), productID: row.string(5),
            entitlementIDs: row.string(6).split(separator: " ").map(String.init),
            environment: try StorageColumns.decode(
                row.string(7), column: "revenue_ledger.environment", as: StorageColumns.environment),
            country: row.string(8),
            offer: try StorageColumns.decode(row.string(9), column: "revenue_ledger.offer_kind", as: \OfferKind.name),
            periodStart: row.time(10), periodEnd: row.optionalTime(11),
            amount: PurchasePrice(milliunits: row.int64(12), currency: row.string(13)),
            taxMilliunits: row.optionalInt64(14), proceedsMilliunits: row.optionalInt64(15) ?? 0,
            occurredAt: row.time(16))
    }

    static func column(_ dimension: RevenueDimension) -> String {
        switch dimension {
        case .store: "store"
        case .product: "product_id"
        case .entitlements: "entitlement_ids"
        case .country: "country"
        case .offer: "offer_kind"
        }
    }
}

extension SQLExecutor {
    /// The day, group, currency and kind sums `query` selects, from the primary key's range of the tenant's
    /// environment and days. An entitlement filter matches a whole word of `entitlement_ids`, so it is applied to
    /// the rows grouped by them, which are then summed into the groups asked for.
    func revenueTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [RevenueTotal] {
        let entitlement = query.filter[.entitlements]
        let grouped = RevenueDimension.allCases.filter {
            query.groupBy.contains($0) || ($0 == .entitlements && entitlement != nil)
        }
        var conditions = ["tenant_id = ?", "environment = ?", "day >= ?", "day <= ?"]
        var bindings: [SQLValue] = [
            .text(query.tenantID), .text(StorageColumns.environment(query.environment)),
            .integer(query.days.lowerBound), .integer(query.days.upperBound),
        ]
        for dimension in RevenueDimension.allCases where dimension != .entitlements {
            guard let value = query.filter[dimension] else { continue }
            conditions.append("\(RevenueDaily.column(dimension)) = ?")
            bindings.append(.text(value))
        }
        let groupColumns = (["day"] + grouped.map(RevenueDaily.column) + ["currency", "kind"]).joined(separator: ", ")
        let totals = try rows(
            """
            SELECT \(groupColumns), SUM(movements), SUM(amount_milliunits), SUM(tax_milliunits),
                SUM(proceeds_milliunits)
            FROM \(UngroupedDaily.table("revenue_daily", for: query)) WHERE \(conditions.joined(separator: " AND "))
            GROUP BY \(groupColumns)
            """,
            bindings
        ) { (row) throws(StorageError) in
            var group: [RevenueDimension: String] = [:]
            for (index, dimension) in grouped.enumerated() { group[dimension] = row.string(Int32(1 + index)) }
            let next = Int32(1 + grouped.count)
            return RevenueTotal(
                day: row.int64(0), group: group, currency: row.string(next),
                kind: try StorageColumns.decode(row.string(next + 1), column: "revenue_daily.kind", as: \MovementKind.name),
                movements: row.int64(next + 2), amountMilliunits: row.int64(next + 3),
                taxMilliunits: row.int64(next + 4), proceedsMilliunits: row.int64(next + 5))
        }
        guard let entitlement else { return totals }
        return try RevenueTotal.narrowed(
            totals, toEntitlement: entitlement, groupedByEntitlements: query.groupBy.contains(.entitlements))
    }
}

extension SQLExecutor {
    /// The ledger rows `query` selects, by `(occurred_at, store, transaction_id, direction)` after `query.after`,
    /// from the ledger's time index, with the app user ID of each row's customer.
    func ledgerRows(_ query: LedgerRowsQuery) throws(StorageError) -> [LedgerRow] {
        guard !query.kinds.isEmpty, query.limit > 0 else { return [] }
        let kinds = MovementKind.allCases.filter(query.kinds.contains)
        var conditions = [
            "l.tenant_id = ?", "l.environment = ?", "l.kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))",
        ]
        var bindings: [SQLValue] = [.text(query.tenantID), .text(StorageColumns.environment(query.environment))]
            + kinds.map { .text($0.name) }
        if let kind = query.eventKind {
            var event = [
                "e.tenant_id = l.tenant_id", "e.store = l.store", "e.transaction_id = l.transaction_id", "e.kind = l.kind",
                "e.event = ?", "e.day >= ?", "e.day <= ?",
            ]
            bindings += [.text(kind.name), .integer(query.days.lowerBound), .integer(query.days.upperBound)]
            if kind == .lapse {
                // A churn in the period: its run held the day before it, its gap holds its last day.
                event += ["e.run_start_day < ?", "e.gap_start_day <= ?", "e.gap_end_day > ?"]
                bindings += [
                    .integer(query.days.lowerBound), .integer(query.days.upperBound), .integer(query.days.upperBound),
                ]
            }
            conditions.append("EXISTS (SELECT 1 FROM subscription_events e WHERE \(event.joined(separator: " AND ")))")
        } else if let instant = query.coveringAt {
            conditions += ["l.period_start < ?", "(l.period_end IS NULL OR l.period_end > ?)"]
            bindings += [.time(instant), .time(instant)]
        } else {
            conditions += ["l.occurred_at >= ?", "l.occurred_at < ?"]
            bindings += [.integer(query.days.lowerBound * 86_400_000), .integer((query.days.upperBound + 1) * 86_400_000)]
        }
        if let currency = query.currency {
            conditions.append("l.currency = ?")
            bindings.append(.text(currency))
        }
        for dimension in RevenueDimension.allCases {
            guard let value = query.values[dimension] else { continue }
            if dimension == .entitlements {
                // A whole word of the list: replace() removes it from the padded list only if it is one (exact
                // case, as entitlement IDs compare), in SQL both databases run alike.
                conditions.append(
                    "length(' ' || l.entitlement_ids || ' ') > length(replace(' ' || l.entitlement_ids || ' ', ?, ''))")
                bindings.append(.text(" \(value) "))
            } else {
                conditions.append("l.\(RevenueDaily.column(dimension)) = ?")
                bindings.append(.text(value))
            }
        }
        if let after = query.after {
            conditions.append("(l.occurred_at, l.store, l.transaction_id, l.direction) > (?, ?, ?, ?)")
            bindings += [
                .time(after.occurredAt), .text(after.store.ledgerName), .text(after.transactionID),
                .text(after.direction.name),
            ]
        }
        bindings.append(.integer(Int64(query.limit)))
        return try rows(
            """
            SELECT \(RevenueDaily.entryColumns), COALESCE(c.app_user_id, '')
            FROM revenue_ledger l LEFT JOIN customers c ON c.id = l.customer_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY l.occurred_at, l.store, l.transaction_id, l.direction LIMIT ?
            """,
            bindings
        ) { (row) throws(StorageError) in
            LedgerRow(entry: try RevenueDaily.entry(row, tenantID: query.tenantID), appUserID: row.string(17))
        }
    }

    /// Every ledger row of one purchase (its original transaction), from the ledger's purchase index.
    func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError) -> [LedgerEntry] {
        try rows(
            """
            SELECT \(RevenueDaily.entryColumns) FROM revenue_ledger l
            WHERE l.tenant_id = ? AND l.store = ? AND l.original_transaction_id = ?
            """,
            [.text(tenantID), .text(store.ledgerName), .text(originalTransactionID)]
        ) { (row) throws(StorageError) in try RevenueDaily.entry(row, tenantID: tenantID) }
    }
}
