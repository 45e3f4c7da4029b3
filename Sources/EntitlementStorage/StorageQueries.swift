import EntitlementDomain

/// The column lists and statements the shared queries are made of, and the decoding of their rows.
enum StorageSQL {
    static let customerColumns =
        "c.id, c.tenant_id, c.app_user_id, c.is_anonymous, c.version, c.created_at, c.next_change_at"
    static let grantColumns =
        "grant_id, tenant_id, customer_id, entitlement_id, starts_at, expires_at, revoked_at, reason, "
        + "revocation_reason, idempotency_key"
    static let eventColumns =
        "tenant_id, customer_id, version, cause, change, reason, occurred_at, status, related_app_user_id, reference_id, "
        + "key_name"
    static let purchaseColumns = purchaseColumnsBeforeOfferIDs + ", sale_offer_id"
    /// ``purchaseColumns`` as a migration's backfill before `sale_offer_id` (version 27 on SQLite, 18 on PostgreSQL)
    /// reads them: the same positions, the offer's identifier empty.
    static let purchaseColumnsUpToOfferIDs = purchaseColumnsBeforeOfferIDs + ", '' AS sale_offer_id"
    private static let purchaseColumnsBeforeOfferIDs =
        "tenant_id, store, original_transaction_id, transaction_id, customer_id, product_id, product_type, "
        + "entitlement_ids, environment, purchased_at, original_purchase_at, expires_at, revoked_at, revocation_reason, "
        + "ownership, will_renew, in_grace_period, in_billing_retry, grace_period_expires_at, app_account_token, "
        + "offer_type, signed_at, updated_at, renewal_product_id, is_upgraded, renewal_state_as_of, paused_until, "
        + "superseded_by, origin, replaces, acknowledgement, acknowledgement_attempts, acknowledgement_due_at, "
        + "acknowledgement_error, suspended, price_milliunits, currency, access_from, sale_kind, offer_kind, country, "
        + "refunded_milliunits, sale_period_start, sale_tax_milliunits, sale_reported_proceeds_milliunits"

    /// Every ID resolving to the customer but the canonical one, oldest first (index app_user_ids_customer).
    static let aliasesSQL = """
        SELECT app_user_id FROM app_user_ids
        WHERE tenant_id = ? AND customer_id = ? AND app_user_id <> ?
        ORDER BY added_at, rowid
        """

    /// Oldest first: a grant keeps the rowid it was inserted with (a merge updates it, never re-inserts), and
    /// grants_customer is in (tenant_id, customer_id, rowid) order, so no sort is needed.
    static let customerGrantsSQL =
        "SELECT \(grantColumns) FROM grants WHERE tenant_id = ? AND customer_id = ? ORDER BY rowid"

    /// Oldest first, like grants: an upsert keeps the row (and rowid) it first inserted, and transactions_customer is in
    /// (tenant_id, customer_id, rowid) order.
    static let customerPurchasesSQL =
        "SELECT \(purchaseColumns) FROM transactions WHERE tenant_id = ? AND customer_id = ? ORDER BY rowid"

    /// Served by the partial index customers_next_change_at, already in (next_change_at, id) order.
    static let customersDueSQL = """
        SELECT tenant_id, id FROM customers
        WHERE next_change_at IS NOT NULL AND next_change_at <= ?
        ORDER BY next_change_at, id LIMIT ?
        """

    /// The first entry of customers_next_change_at.
    static let nextChangeAtSQL = "SELECT MIN(next_change_at) FROM customers WHERE next_change_at IS NOT NULL"
}

/// The reads every operation shares, run on a read connection (repository) or on the write connection
/// (transaction), on either database. Every query is keyed by tenant.
extension SQLExecutor {
    // MARK: Customers

    func customer(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerRecord? {
        try row(
            "SELECT \(StorageSQL.customerColumns) FROM customers c WHERE c.tenant_id = ? AND c.id = ?\(rowLock(of: "c"))",
            [.text(tenantID), .integer(customerID)], StorageSQL.customer(from:))
    }

    /// The customer `appUserID` resolves to through `app_user_ids` (canonical ID or alias).
    ///
    /// The join is by the customer's primary key alone: the ID's foreign key already holds the tenant. Naming the
    /// tenant again lets PostgreSQL's planner, judging by a young table's statistics, read the tenant's customers by
    /// `(tenant_id, changed_at)` and filter them, a plan a session keeps as the table grows.
    func customer(tenantID: String, appUserID: String) throws(StorageError) -> CustomerRecord? {
        try row(
            """
            SELECT \(StorageSQL.customerColumns) FROM app_user_ids a
            JOIN customers c ON c.id = a.customer_id
            WHERE a.tenant_id = ? AND a.app_user_id = ?\(rowLock(of: "c"))
            """,
            [.text(tenantID), .text(appUserID)], StorageSQL.customer(from:))
    }

    /// The customer ID `appUserID` resolves to, if any.
    func resolve(tenantID: String, appUserID: String) throws(StorageError) -> Int64? {
        try row(
            "SELECT customer_id FROM app_user_ids WHERE tenant_id = ? AND app_user_id = ?",
            [.text(tenantID), .text(appUserID)]
        ) { $0.int64(0) }
    }

    /// Served by the partial index app_user_ids_app_account_token.
    func customerID(tenantID: String, appAccountToken: String) throws(StorageError) -> Int64? {
        guard !appAccountToken.isEmpty else { return nil }
        return try row(
            """
            SELECT customer_id FROM app_user_ids
            WHERE tenant_id = ? AND app_account_token = ? AND app_account_token IS NOT NULL
            ORDER BY added_at, rowid LIMIT 1
            """,
            [.text(tenantID), .text(appAccountToken)]
        ) { $0.int64(0) }
    }



    func snapshot(of customer: CustomerRecord) throws(StorageError) -> CustomerSnapshot {
        let aliases = try rows(
            StorageSQL.aliasesSQL, [.text(customer.tenantID), .integer(customer.id), .text(customer.appUserID)]
        ) { $0.string(0) }
        let grants = try rows(
            StorageSQL.customerGrantsSQL, [.text(customer.tenantID), .integer(customer.id)], StorageSQL.grant(from:))
        let purchases = try rows(
            StorageSQL.customerPurchasesSQL, [.text(customer.tenantID), .integer(customer.id)], StorageSQL.purchase(from:))
        return CustomerSnapshot(customer: customer, aliases: aliases, grants: grants, purchases: purchases)
    }

    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        guard let customer = try customer(tenantID: tenantID, appUserID: appUserID) else { return nil }
        return try snapshot(of: customer)
    }

    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        guard let customer = try customer(tenantID: tenantID, customerID: customerID) else { return nil }
        return try snapshot(of: customer)
    }

    // MARK: Grants

    func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord? {
        try row(
            "SELECT \(StorageSQL.grantColumns) FROM grants WHERE tenant_id = ? AND grant_id = ?",
            [.text(tenantID), .text(grantID)], StorageSQL.grant(from:))
    }

    func grant(tenantID: String, idempotencyKey: String) throws(StorageError) -> GrantRecord? {
        try row(
            "SELECT \(StorageSQL.grantColumns) FROM grants WHERE tenant_id = ? AND idempotency_key = ?",
            [.text(tenantID), .text(idempotencyKey)], StorageSQL.grant(from:))
    }

    // MARK: Store purchases

    func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        try row(
            """
            SELECT \(StorageSQL.purchaseColumns) FROM transactions
            WHERE tenant_id = ? AND store = ? AND original_transaction_id = ?
            """,
            [.text(tenantID), .integer(StorageColumns.store(store)), .text(originalTransactionID)], StorageSQL.purchase(from:))
    }

    /// The `replaces <> ''` term lets SQLite use the partial index transactions_replaces.
    func purchase(tenantID: String, store: Store, replacing originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        guard !originalTransactionID.isEmpty else { return nil }
        return try row(
            """
            SELECT \(StorageSQL.purchaseColumns) FROM transactions
            WHERE tenant_id = ? AND store = ? AND replaces = ? AND replaces <> '' ORDER BY rowid DESC LIMIT 1
            """,
            [.text(tenantID), .integer(StorageColumns.store(store)), .text(originalTransactionID)], StorageSQL.purchase(from:))
    }

    /// The `acknowledgement = 'pending'` term lets SQLite use the partial index transactions_acknowledgement_due.
    func acknowledgementsDue(at time: UnixTime, limit: Int) throws(StorageError) -> [StorePurchase] {
        try rows(
            """
            SELECT \(StorageSQL.purchaseColumns) FROM transactions
            WHERE acknowledgement = 'pending' AND acknowledgement_due_at <= ? ORDER BY acknowledgement_due_at LIMIT ?
            """,
            [.time(time), .integer(Int64(limit))], StorageSQL.purchase(from:))
    }

    func nextAcknowledgementDue() throws(StorageError) -> UnixTime? {
        try row(
            "SELECT MIN(acknowledgement_due_at) FROM transactions WHERE acknowledgement = 'pending'", []
        ) { $0.optionalTime(0) } ?? nil
    }

    func pollCursor(tenantID: String, name: String) throws(StorageError) -> Int64? {
        try row(
            "SELECT position FROM poll_cursors WHERE tenant_id = ? AND name = ?", [.text(tenantID), .text(name)]
        ) { $0.int64(0) }
    }

    func renewalExtensionCount(
        tenantID: String, originalTransactionID: String, since: UnixTime, excluding requestIdentifier: String
    ) throws(StorageError) -> Int {
        Int(
            try row(
                """
                SELECT COUNT(*) FROM renewal_extensions
                WHERE tenant_id = ? AND original_transaction_id = ? AND extended_at >= ? AND request_identifier != ?
                """,
                [.text(tenantID), .text(originalTransactionID), .time(since), .text(requestIdentifier)]
            ) { $0.int64(0) } ?? 0)
    }

    func isNotificationProcessed(tenantID: String, notificationID: String) throws(StorageError) -> Bool {
        try row(
            "SELECT 1 FROM processed_notifications WHERE tenant_id = ? AND notification_id = ?",
            [.text(tenantID), .text(notificationID)]
        ) { $0.int64(0) } != nil
    }

    // MARK: Customer search

    /// Exact matches on the indexed IDs only: `store IN (...)` lets the primary keys that lead with the store
    /// answer by point lookups. Each purchase is listed once, by the strongest way it matched: a Stripe payment
    /// intent is a one-time purchase's original transaction ID and one of its references too.
    func customerMatches(tenantID: String, id: String, limit: Int) throws(StorageError) -> [CustomerMatch] {
        let stores = Store.allCases.map { SQLValue.integer(StorageColumns.store($0)) }
        let storeList = Array(repeating: "?", count: stores.count).joined(separator: ", ")
        var matches = try rows(
            """
            SELECT c.app_user_id FROM app_user_ids a JOIN customers c ON c.id = a.customer_id
            WHERE a.tenant_id = ? AND a.app_user_id = ?
            """,
            [.text(tenantID), .text(id)]
        ) { row in
            let canonical = row.string(0)
            return CustomerMatch(appUserID: canonical, matchedBy: canonical == id ? .appUserID : .alias)
        }
        // Only an address can be one; a customer its ID found already is listed once, by the ID.
        if id.contains("@") {
            let found = try rows(
                CustomerAttributes.emailMatchSQL, [.text(tenantID), .text(CustomerAttribute.fold(id)), .integer(Int64(limit))]
            ) { row in CustomerMatch(appUserID: row.string(0), matchedBy: .email) }
            matches += found.filter { match in !matches.contains { $0.appUserID == match.appUserID } }
        }
        // 1: by original transaction ID, 2: by latest transaction ID, 3: by store reference.
        let purchases = try rows(
            """
            SELECT 1, t.store, t.original_transaction_id, c.app_user_id FROM transactions t
            LEFT JOIN customers c ON c.tenant_id = t.tenant_id AND c.id = t.customer_id
            WHERE t.tenant_id = ? AND t.store IN (\(storeList)) AND t.original_transaction_id = ?
            UNION ALL
            SELECT 2, t.store, t.original_transaction_id, c.app_user_id FROM transactions t
            LEFT JOIN customers c ON c.tenant_id = t.tenant_id AND c.id = t.customer_id
            WHERE t.tenant_id = ? AND t.transaction_id = ? AND t.original_transaction_id <> ?
            UNION ALL
            SELECT 3, r.store, r.original_transaction_id, c.app_user_id FROM purchase_references r
            LEFT JOIN transactions t
                ON t.tenant_id = r.tenant_id AND t.store = r.store AND t.original_transaction_id = r.original_transaction_id
            LEFT JOIN customers c ON c.tenant_id = t.tenant_id AND c.id = t.customer_id
            WHERE r.tenant_id = ? AND r.store IN (\(storeList)) AND r.reference_id = ?
                AND NOT (t.original_transaction_id IS NOT NULL AND (t.original_transaction_id = ? OR t.transaction_id = ?))
            ORDER BY 1, 3 LIMIT ?
            """,
            [.text(tenantID)] + stores + [.text(id), .text(tenantID), .text(id), .text(id), .text(tenantID)] + stores
                + [.text(id), .text(id), .text(id), .integer(Int64(limit))]
        ) { (row) throws(StorageError) in
            let matchedBy: CustomerMatch.MatchedBy =
                switch row.int64(0) {
                case 1: .originalTransactionID
                case 2: .transactionID
                default: .storeReference
                }
            return CustomerMatch(
                appUserID: row.optionalString(3) ?? "", matchedBy: matchedBy,
                store: try StorageColumns.decode(row.int64(1), column: "transactions.store", as: StorageColumns.store),
                originalTransactionID: row.string(2))
        }
        matches += purchases
        return Array(matches.prefix(limit))
    }

    // MARK: Purchase references

    func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        try purchaseReferences(
            "original_transaction_id = ? ORDER BY created_at, reference_id", originalTransactionID, tenantID: tenantID,
            store: store)
    }

    func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        try purchaseReferences(
            "reference_id = ? ORDER BY created_at, original_transaction_id", referenceID, tenantID: tenantID, store: store)
    }

    /// The tenant's references of `store` matching `condition` (one `?`, bound to `value`) and ordered by it.
    private func purchaseReferences(_ condition: String, _ value: String, tenantID: String, store: Store)
        throws(StorageError) -> [PurchaseReference]
    {
        try rows(
            """
            SELECT reference_id, original_transaction_id, app_user_id FROM purchase_references
            WHERE tenant_id = ? AND store = ? AND \(condition)
            """,
            [.text(tenantID), .integer(StorageColumns.store(store)), .text(value)]
        ) { row in
            PurchaseReference(
                store: store, referenceID: row.string(0), originalTransactionID: row.string(1), appUserID: row.string(2))
        }
    }

    /// The `app_account_token <> ''` term lets SQLite use the partial index transactions_app_account_token.
    func unownedPurchases(tenantID: String, appAccountToken: String) throws(StorageError) -> [StorePurchase] {
        guard !appAccountToken.isEmpty else { return [] }
        return try rows(
            """
            SELECT \(StorageSQL.purchaseColumns) FROM transactions
            WHERE tenant_id = ? AND app_account_token = ? AND app_account_token <> '' AND customer_id IS NULL
            ORDER BY rowid
            """,
            [.text(tenantID), .text(appAccountToken)], StorageSQL.purchase(from:))
    }

    // MARK: Events

    func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        guard limit > 0 else { return [] }
        // Versions are stored as SQLite integers; a bound past Int64.max means "no bound".
        let bound = beforeVersion.map { Int64(clamping: $0) } ?? Int64.max
        return try rows(
            """
            SELECT \(StorageSQL.eventColumns) FROM events WHERE tenant_id = ? AND customer_id = ? AND version < ?
            ORDER BY version DESC LIMIT ?
            """,
            [.text(tenantID), .integer(customerID), .integer(bound), .integer(Int64(limit))], StorageSQL.event(from:))
    }

    func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        guard limit > 0, afterVersion < UInt64(Int64.max) else { return [] }
        return try rows(
            """
            SELECT \(StorageSQL.eventColumns) FROM events WHERE tenant_id = ? AND customer_id = ? AND version > ?
            ORDER BY version ASC LIMIT ?
            """,
            [.text(tenantID), .integer(customerID), .integer(Int64(afterVersion)), .integer(Int64(limit))],
            StorageSQL.event(from:))
    }

    // MARK: Scheduling


    func customersDue(at time: UnixTime, limit: Int) throws(StorageError) -> [(tenantID: String, customerID: Int64)] {
        guard limit > 0 else { return [] }
        return try rows(StorageSQL.customersDueSQL, [.time(time), .integer(Int64(limit))]
        ) { (tenantID: $0.string(0), customerID: $0.int64(1)) }
    }

    func nextChangeAt() throws(StorageError) -> UnixTime? {
        try row(StorageSQL.nextChangeAtSQL, []) {
            $0.optionalTime(0)
        } ?? nil
    }
}

/// Rows decoded into records; every enum column through ``StorageColumns``.
extension StorageSQL {

    static func customer(from row: some SQLRow) -> CustomerRecord {
        CustomerRecord(
            id: row.int64(0), tenantID: row.string(1), appUserID: row.string(2), isAnonymous: row.bool(3),
            version: UInt64(bitPattern: row.int64(4)), createdAt: row.time(5), nextChangeAt: row.optionalTime(6))
    }

    static func grant(from row: some SQLRow) -> GrantRecord {
        GrantRecord(
            grantID: row.string(0), tenantID: row.string(1), customerID: row.int64(2), entitlementID: row.string(3),
            startsAt: row.time(4), expiresAt: row.optionalTime(5), revokedAt: row.optionalTime(6),
            reason: row.string(7), revocationReason: row.string(8), idempotencyKey: row.optionalString(9))
    }

    static func purchase(from row: some SQLRow) throws(StorageError) -> StorePurchase {
        StorePurchase(
            tenantID: row.string(0),
            store: try StorageColumns.decode(row.int64(1), column: "transactions.store", as: StorageColumns.store),
            originalTransactionID: row.string(2), transactionID: row.string(3), customerID: row.optionalInt64(4),
            productID: row.string(5), productType: row.string(6),
            entitlementIDs: decodeEntitlementIDs(row.string(7)),
            environment: try StorageColumns.decode(
                row.string(8), column: "transactions.environment", as: StorageColumns.environment),
            purchasedAt: row.time(9), originalPurchaseAt: row.optionalTime(10), expiresAt: row.optionalTime(11),
            revokedAt: row.optionalTime(12), revocationReason: row.string(13),
            ownership: try StorageColumns.decode(
                row.string(14), column: "transactions.ownership", as: StorageColumns.ownership),
            willRenew: row.bool(15),
            renewal: StorageColumns.renewal(
                inGracePeriod: row.bool(16), inBillingRetry: row.bool(17), graceEnd: row.optionalTime(18),
                pausedUntil: row.optionalTime(26), suspended: row.bool(34), expiresAt: row.optionalTime(11)),
            appAccountToken: row.string(19), offerType: row.string(20),
            signedAt: row.time(21), updatedAt: row.time(22), renewalProductID: row.string(23), isUpgraded: row.bool(24),
            renewalStateAsOf: row.time(25), accessFrom: row.optionalTime(37), supersededBy: row.string(27),
            origin: try StorageColumns.decode(row.string(28), column: "transactions.origin", as: StorageColumns.origin),
            replaces: row.string(29),
            acknowledgement: PurchaseAcknowledgement(
                state: try StorageColumns.decode(
                    row.string(30), column: "transactions.acknowledgement", as: StorageColumns.acknowledgement),
                attempts: Int(row.int64(31)), dueAt: row.optionalTime(32), lastError: row.string(33)),
            price: row.optionalInt64(35).map { PurchasePrice(milliunits: $0, currency: row.string(36)) },
            sale: try sale(from: row))
    }

    /// The sale of a purchase row (columns 38 to 45); nil for one stored without.
    private static func sale(from row: some SQLRow) throws(StorageError) -> PurchaseSale? {
        guard let kind = row.optionalString(38) else { return nil }
        return PurchaseSale(
            kind: try StorageColumns.decode(kind, column: "transactions.sale_kind", as: \SaleKind.name),
            offer: try StorageColumns.decode(
                row.string(39), column: "transactions.offer_kind", as: \OfferKind.name),
            offerID: row.string(45), country: row.string(40), refundedMilliunits: row.optionalInt64(41), periodStart: row.optionalTime(42),
            taxMilliunits: row.optionalInt64(43), reportedProceedsMilliunits: row.optionalInt64(44))
    }

    /// Entitlement IDs as one TEXT column: each preceded by U+001F, so `[]` is `""` and `[""]` is `"\u{1F}"`
    /// (exact for any IDs without U+001F, which config IDs never contain).
    static let entitlementIDSeparator: Character = "\u{1F}"

    static func encodeEntitlementIDs(_ ids: [String]) -> String {
        ids.map { String(entitlementIDSeparator) + $0 }.joined()
    }

    static func decodeEntitlementIDs(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: entitlementIDSeparator, omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    static func event(from row: some SQLRow) throws(StorageError) -> EventRecord {
        EventRecord(
            tenantID: row.string(0), customerID: row.int64(1), version: UInt64(bitPattern: row.int64(2)),
            cause: try StorageColumns.decode(row.int64(3), column: "events.cause", as: StorageColumns.cause),
            change: try StorageColumns.decode(row.int64(4), column: "events.change", as: StorageColumns.change),
            reason: row.string(5), occurredAt: row.time(6), status: row.blob(7), relatedAppUserID: row.string(8),
            referenceID: row.string(9), keyName: row.string(10))
    }
}
