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

    static let table = DailyTotalsTable(
        name: "revenue_daily", key: key,
        sums: ["movements", "amount_milliunits", "tax_milliunits", "proceeds_milliunits"])

    /// One ledger row's movement added to its day's total.
    static func add(_ entry: LedgerEntry, to changes: inout DailyTotalChanges) {
        changes.add(
            table,
            key: [
                .text(entry.tenantID), .text(StorageColumns.environment(entry.environment)),
                .integer(entry.occurredAt.utcDay), .text(entry.store.ledgerName), .text(entry.productID),
                .text(entry.entitlementIDs.joined(separator: " ")), .text(entry.country), .text(entry.amount.currency),
                .text(entry.offer.name), .text(entry.kind.name),
            ],
            sums: sums(of: entry))
    }

    /// What a ledger row adds to each summed column.
    static func sums(of entry: LedgerEntry) -> [Int64] {
        [1, entry.amount.milliunits, entry.taxMilliunits ?? 0, entry.proceedsMilliunits]
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
