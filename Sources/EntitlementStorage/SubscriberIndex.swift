import EntitlementDomain

/// The queryable copy of every customer's entitlements (`customer_entitlements`), which events keep only as opaque
/// status bytes: rewritten with each event, read by listings and counts.
///
/// A row is active at an instant while its `expires_at` is NULL or later, so queries are exact at any instant even
/// when the expiry scheduler has not yet recorded an expiry. One row per (customer, entitlement), so counting rows
/// per entitlement counts customers.
enum SubscriberIndex {
    static let migrationSQL = """
        CREATE TABLE customer_entitlements (
            tenant_id TEXT NOT NULL,
            customer_id INTEGER NOT NULL,
            entitlement_id TEXT NOT NULL,
            -- EntitlementSource.storedStatusNumber (the numbers recorded statuses carry).
            source INTEGER NOT NULL,
            -- '' for grants.
            product_id TEXT NOT NULL,
            expires_at INTEGER,
            will_renew INTEGER NOT NULL,
            in_grace_period INTEGER NOT NULL,
            in_billing_retry INTEGER NOT NULL,
            reference_id TEXT NOT NULL,
            PRIMARY KEY (tenant_id, customer_id, entitlement_id),
            FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
        ) WITHOUT ROWID;
        -- Each serves a listing filter in customer order and a count per group without reading the table.
        CREATE INDEX customer_entitlements_entitlement
            ON customer_entitlements (tenant_id, entitlement_id, customer_id, expires_at);
        CREATE INDEX customer_entitlements_product
            ON customer_entitlements (tenant_id, product_id, customer_id, expires_at);
        CREATE INDEX customer_entitlements_source
            ON customer_entitlements (tenant_id, source, customer_id, expires_at);
        -- Grace period and billing retry are rare: partial indexes let those listings skip everyone else.
        CREATE INDEX customer_entitlements_grace_period
            ON customer_entitlements (tenant_id, customer_id, expires_at) WHERE in_grace_period = 1;
        CREATE INDEX customer_entitlements_billing_retry
            ON customer_entitlements (tenant_id, customer_id, expires_at) WHERE in_billing_retry = 1;
        -- When the customer's last event was recorded (its creation until then), for "changed since".
        ALTER TABLE customers ADD COLUMN changed_at INTEGER NOT NULL DEFAULT 0;
        UPDATE customers SET changed_at = COALESCE(
            (SELECT MAX(occurred_at) FROM events e WHERE e.tenant_id = customers.tenant_id AND e.customer_id = customers.id),
            created_at);
        CREATE INDEX customers_changed_at ON customers (tenant_id, changed_at);
        """

    /// Fills `customer_entitlements` from each customer's latest event. Statuses are bytes only the domain decodes, so
    /// this runs in Swift, inside the migration's transaction.
    static let backfill: @Sendable (SQLiteConnection) throws(StorageError) -> Void = { (db) throws(StorageError) in
        let latest = try db.rows(
            """
            SELECT c.tenant_id, c.id, e.status FROM customers c
            JOIN events e ON e.tenant_id = c.tenant_id AND e.customer_id = c.id AND e.version = c.version
            """, []
        ) { (tenantID: $0.string(0), customerID: $0.int64(1), status: $0.blob(2)) }
        for customer in latest {
            try db.replaceActiveEntitlements(
                tenantID: customer.tenantID, customerID: customer.customerID,
                with: ComputedStatus(storedBytes: customer.status).entitlements)
        }
    }
}

extension SQLExecutor {
    func replaceActiveEntitlements(tenantID: String, customerID: Int64, with entitlements: [ActiveEntitlementValue])
        throws(StorageError)
    {
        try send(
            "DELETE FROM customer_entitlements WHERE tenant_id = ? AND customer_id = ?",
            [.text(tenantID), .integer(customerID)])
        // Up to 32 rows a statement: a customer's few entitlements cost one round trip, not one each, and however many
        // a customer holds, the statements stay few in shape (each shape is prepared once per connection).
        let rowsPerStatement = 32
        for start in stride(from: 0, to: entitlements.count, by: rowsPerStatement) {
            let chunk = entitlements[start..<min(start + rowsPerStatement, entitlements.count)]
            try send(
                """
                INSERT INTO customer_entitlements (tenant_id, customer_id, entitlement_id, source, product_id, expires_at,
                    will_renew, in_grace_period, in_billing_retry, reference_id)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "))
                """,
                chunk.flatMap { entitlement -> [SQLValue] in
                    [
                        .text(tenantID), .integer(customerID), .text(entitlement.id),
                        .integer(Int64(entitlement.source.storedStatusNumber)), .text(entitlement.productID),
                        .time(entitlement.expiresAt), .bool(entitlement.willRenew), .bool(entitlement.inGracePeriod),
                        .bool(entitlement.inBillingRetry), .text(entitlement.referenceID),
                    ]
                })
        }
    }
}
