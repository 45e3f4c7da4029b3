import EntitlementDomain

/// Reads of `revenue_ledger`'s rows themselves: those behind a metric's point, and every row of one purchase.
enum LedgerReads {
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
}

extension SQLExecutor {
    /// The ledger rows `query` selects, by `(occurred_at, store, transaction_id, direction)` (descending when
    /// ``LedgerRowsQuery/newestFirst``) after `query.after`,
    /// from the ledger's time index, with the app user ID of each row's customer.
    func ledgerRows(_ query: LedgerRowsQuery) throws(StorageError) -> [LedgerRow] {
        guard !query.kinds.isEmpty, query.limit > 0 else { return [] }
        let kinds = MovementKind.allCases.filter(query.kinds.contains)
        var conditions = [
            "l.tenant_id = ?", "l.environment = ?", "l.kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))",
        ]
        var bindings: [SQLValue] = [.text(query.tenantID), .text(StorageColumns.environment(query.environment))]
            + kinds.map { .text($0.name) }
        var source = "revenue_ledger l"
        if let kind = query.eventKind {
            // From the events of the period to their rows (each a payment: a lapse's last, a reactivation's first, a
            // converted trial's start), by the ledger's key.
            source = """
                subscription_events e JOIN revenue_ledger l ON l.tenant_id = e.tenant_id AND l.store = e.store
                    AND l.transaction_id = e.transaction_id AND l.direction = 'payment' AND l.kind = e.kind
                """
            conditions += ["e.tenant_id = ?", "e.environment = ?", "e.event = ?", "e.day >= ?", "e.day <= ?"]
            bindings += [
                .text(query.tenantID), .text(StorageColumns.environment(query.environment)), .text(kind.name),
                .integer(query.days.lowerBound), .integer(query.days.upperBound),
            ]
            if kind == .lapse {
                // A churn in the period: its run held the day before it, its gap holds its last day.
                conditions += ["e.run_start_day < ?", "e.gap_start_day <= ?", "e.gap_end_day > ?"]
                bindings += [
                    .integer(query.days.lowerBound), .integer(query.days.upperBound), .integer(query.days.upperBound),
                ]
            }
        } else if let instant = query.coveringAt {
            conditions += ["l.period_start < ?", "l.period_end > ?"]
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
            conditions.append(
                "(l.occurred_at, l.store, l.transaction_id, l.direction) \(query.newestFirst ? "<" : ">") (?, ?, ?, ?)")
            bindings += [
                .time(after.occurredAt), .text(after.store.ledgerName), .text(after.transactionID),
                .text(after.direction.name),
            ]
        }
        bindings.append(.integer(Int64(query.limit)))
        return try rows(
            """
            SELECT \(LedgerReads.entryColumns), COALESCE(c.app_user_id, '')
            FROM \(source) LEFT JOIN customers c ON c.id = l.customer_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(["l.occurred_at", "l.store", "l.transaction_id", "l.direction"]
                .map { query.newestFirst ? $0 + " DESC" : $0 }.joined(separator: ", ")) LIMIT ?
            """,
            bindings
        ) { (row) throws(StorageError) in
            LedgerRow(entry: try LedgerReads.entry(row, tenantID: query.tenantID), appUserID: row.string(17))
        }
    }

    /// Every ledger row of one purchase (its original transaction), from the ledger's purchase index.
    func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError) -> [LedgerEntry] {
        try rows(
            """
            SELECT \(LedgerReads.entryColumns) FROM revenue_ledger l
            WHERE l.tenant_id = ? AND l.store = ? AND l.original_transaction_id = ?
            """,
            [.text(tenantID), .text(store.ledgerName), .text(originalTransactionID)]
        ) { (row) throws(StorageError) in try LedgerReads.entry(row, tenantID: tenantID) }
    }
}
