import EntitlementDomain

/// `billing_observations`: what applied versions of each subscription said about a failed renewal, when it was news
/// (``BillingObservation``), kept in the transaction that applies them; the days in a grace period and in billing
/// retry they give are added to `subscription_daily` (states `grace` and `billing_retry`). Its words are the ledger's.
enum BillingObservations {
    static let key = "tenant_id, store, original_transaction_id, observed_at, due_at, billing"
    /// The key's, then the rest, in the order ``observation(from:)`` reads them.
    static let columnNames = [
        "tenant_id", "store", "original_transaction_id", "observed_at", "due_at", "billing", "grace_until",
        "transaction_id", "customer_id", "environment", "product_id", "entitlement_ids", "country", "currency",
        "amount_milliunits", "offer_kind", "period_start",
    ]
    static let columns = columnNames.joined(separator: ", ")

    /// Version 22 on SQLite, 13 on PostgreSQL; the subscriptions retrying then are observed by ``backfill(_:)``.
    static func migrationSQL(integer: String) -> String {
        """
        CREATE TABLE billing_observations (
            tenant_id TEXT NOT NULL,
            store TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            -- When the store said so (its renewal state's date), and when the failed renewal was due (the end of the
            -- period paid for), in milliseconds since 1970.
            observed_at \(integer) NOT NULL,
            due_at \(integer) NOT NULL,
            -- 'grace' (retrying, access until grace_until), 'billing_retry' (retrying without access) or 'settled'
            -- (no longer retrying: paid again, or given up).
            billing TEXT NOT NULL,
            grace_until \(integer),
            -- The payment the store is trying to repeat, as the subscription stated it: its transaction, owner and
            -- dimensions, its price (0 and '' where the store gave none) and the start of its period.
            transaction_id TEXT NOT NULL,
            customer_id \(integer),
            environment TEXT NOT NULL,
            product_id TEXT NOT NULL,
            entitlement_ids TEXT NOT NULL,
            country TEXT NOT NULL,
            currency TEXT NOT NULL,
            amount_milliunits \(integer) NOT NULL,
            offer_kind TEXT NOT NULL,
            period_start \(integer) NOT NULL,
            PRIMARY KEY (\(key))
        );
        -- The subscriptions whose failed renewal was due around an instant (the rows behind a point).
        CREATE INDEX billing_observations_due ON billing_observations (tenant_id, environment, due_at);
        """
    }

    static let insertSQL = """
        INSERT INTO billing_observations (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO NOTHING
        """

    static func bindings(_ observation: BillingObservation) -> [SQLValue] {
        let payment = observation.payment
        let graceUntil: UnixTime? = if case .grace(let until) = observation.billing { until } else { nil }
        return [
            .text(payment.tenantID), .text(payment.store.ledgerName), .text(payment.originalTransactionID),
            .time(observation.observedAt), .time(observation.dueAt), .text(observation.billing.name),
            .time(graceUntil), .text(payment.transactionID), .integer(payment.customerID),
            .text(StorageColumns.environment(payment.environment)), .text(payment.productID),
            .text(payment.entitlementIDs.joined(separator: " ")), .text(payment.country), .text(payment.amount.currency),
            .integer(payment.amount.milliunits), .text(payment.offer.name), .time(payment.periodStart),
        ]
    }

    static func observation(from row: some SQLRow) throws(StorageError) -> BillingObservation {
        let store = try StorageColumns.decode(row.string(1), column: "billing_observations.store", as: \Store.ledgerName)
        let billing: BillingObservation.Billing
        switch row.string(5) {
        case "settled": billing = .settled
        case "billing_retry": billing = .retrying
        case "grace": billing = .grace(until: row.optionalTime(6) ?? row.time(4))
        case let other: throw StorageError.corrupt("unknown value \(other) in column billing_observations.billing")
        }
        let periodStart = row.time(16)
        return BillingObservation(
            payment: LedgerEntry(
                tenantID: row.string(0), store: store, transactionID: row.string(7), kind: .renewal,
                originalTransactionID: row.string(2), customerID: row.optionalInt64(8), productID: row.string(10),
                entitlementIDs: row.string(11).split(separator: " ").map(String.init),
                environment: try StorageColumns.decode(
                    row.string(9), column: "billing_observations.environment", as: StorageColumns.environment),
                country: row.string(12),
                offer: try StorageColumns.decode(row.string(15), column: "billing_observations.offer_kind", as: \OfferKind.name),
                periodStart: periodStart, periodEnd: row.time(4),
                amount: PurchasePrice(milliunits: row.int64(14), currency: row.string(13)), proceedsMilliunits: 0,
                occurredAt: periodStart),
            observedAt: row.time(3), billing: billing)
    }

    /// Observes each subscription retrying when the table is made (its stored state, at its renewal state's date),
    /// and adds its days so far to the daily totals.
    static func backfill(_ db: some SQLExecutor) throws(StorageError) {
        let retrying = try db.rows(
            """
            SELECT \(StorageSQL.purchaseColumnsUpToOfferIDs) FROM transactions
            WHERE (in_grace_period <> 0 OR in_billing_retry <> 0) AND expires_at IS NOT NULL
            """, [], StorageSQL.purchase(from:))
        var changes = DailyTotalChanges()
        for purchase in retrying {
            guard let observation = BillingObservation(stored: nil, incoming: purchase) else { continue }
            try db.run(insertSQL, bindings(observation))
            for change in SubscriptionCoverage.changes(from: [], to: BillingObservation.intervals(of: [observation])) {
                UngroupedDaily.addBoth(change, to: &changes)
            }
            changes.keepWrite()
        }
        try changes.write(to: db)
        try db.flush()
    }
}

extension SQLExecutor {
    /// ``RevenueReads/billingObservations(tenantID:environment:due:)``.
    func billingObservations(tenantID: String, environment: PurchaseEnvironment, due: ClosedRange<UnixTime>)
        throws(StorageError) -> [(observation: BillingObservation, appUserID: String)]
    {
        let columns = BillingObservations.columnNames.map { "o." + $0 }.joined(separator: ", ")
        return try rows(
            """
            SELECT \(columns), COALESCE(c.app_user_id, '')
            FROM billing_observations o LEFT JOIN customers c ON c.id = o.customer_id
            WHERE (o.tenant_id, o.store, o.original_transaction_id) IN (
                SELECT tenant_id, store, original_transaction_id FROM billing_observations
                WHERE tenant_id = ? AND environment = ? AND due_at >= ? AND due_at <= ?)
            """,
            [
                .text(tenantID), .text(StorageColumns.environment(environment)), .time(due.lowerBound),
                .time(due.upperBound),
            ]
        ) { (row) throws(StorageError) in
            (try BillingObservations.observation(from: row), row.string(Int32(BillingObservations.columnNames.count)))
        }
    }

    func billingObservations(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [BillingObservation]
    {
        try rows(
            """
            SELECT \(BillingObservations.columns) FROM billing_observations
            WHERE tenant_id = ? AND store = ? AND original_transaction_id = ?
            """,
            [.text(tenantID), .text(store.ledgerName), .text(originalTransactionID)], BillingObservations.observation(from:))
    }
}
