import EntitlementDomain

extension StorageSQL {
    /// An entitlement row active at the instant bound in its place.
    static let activeRow = "(e.expires_at IS NULL OR e.expires_at > ?)"
    /// Leaves out husks emptied by a merge: their canonical ID now resolves to the survivor (primary key lookup).
    static let notMergedAway = """
        EXISTS (SELECT 1 FROM app_user_ids a
            WHERE a.tenant_id = c.tenant_id AND a.app_user_id = c.app_user_id AND a.customer_id = c.id)
        """

    static func source(_ number: Int64) throws(StorageError) -> EntitlementSource {
        guard let source = Int32(exactly: number).flatMap(EntitlementSource.init(storedStatusNumber:)) else {
            throw StorageError.corrupt("unknown value \(number) in column customer_entitlements.source")
        }
        return source
    }
}

/// Listings and counts over `customer_entitlements` (see ``SubscriberIndex``), one tenant at a time.
extension SQLExecutor {

    /// One page in customer ID order, after `query.afterCustomerID`. With entitlement conditions the page is read
    /// from the index that matches them, in customer order, so it stops after `limit` matches; otherwise from
    /// customers by ID.
    func customers(tenantID: String, matching query: CustomerListQuery) throws(StorageError) -> [ListedCustomerRecord] {
        guard query.limit > 0 else { return [] }
        let filter = query.filter
        var conditions = [filter.needsEntitlement ? "e.customer_id > ?" : "c.id > ?", StorageSQL.notMergedAway]
        var bindings: [SQLValue] = [.text(tenantID), .integer(query.afterCustomerID ?? Int64.min)]
        if let since = filter.changedSince {
            conditions.append("c.changed_at >= ?")
            bindings.append(.time(since))
        }
        if filter.state == .inactive {
            conditions.append(
                "NOT EXISTS (SELECT 1 FROM customer_entitlements e "
                    + "WHERE e.tenant_id = c.tenant_id AND e.customer_id = c.id AND \(StorageSQL.activeRow))")
            bindings.append(.time(query.now))
        }
        if filter.needsEntitlement {
            conditions.append(StorageSQL.activeRow)
            bindings.append(.time(query.now))
        }
        if let id = filter.entitlementID {
            conditions.append("e.entitlement_id = ?")
            bindings.append(.text(id))
        }
        if let source = filter.source {
            conditions.append("e.source = ?")
            bindings.append(.integer(Int64(source.storedStatusNumber)))
        }
        if let id = filter.productID {
            conditions.append("e.product_id = ?")
            bindings.append(.text(id))
        }
        if filter.state == .gracePeriod { conditions.append("e.in_grace_period = 1") }
        if filter.state == .billingRetry { conditions.append("e.in_billing_retry = 1") }
        bindings.append(.integer(Int64(query.limit)))
        let columns = "c.id, c.app_user_id, c.version, c.created_at, c.changed_at"
        let sql =
            filter.needsEntitlement
            ? """
            SELECT \(columns) FROM customer_entitlements e
            JOIN customers c ON c.tenant_id = e.tenant_id AND c.id = e.customer_id
            WHERE e.tenant_id = ? AND \(conditions.joined(separator: " AND "))
            GROUP BY \(dialect.customerGrouping) ORDER BY e.customer_id LIMIT ?
            """
            : """
            SELECT \(columns) FROM customers c WHERE c.tenant_id = ? AND \(conditions.joined(separator: " AND "))
            ORDER BY c.id LIMIT ?
            """
        let listed = try rows(sql, bindings) {
            (
                id: $0.int64(0), appUserID: $0.string(1), version: UInt64(bitPattern: $0.int64(2)),
                createdAt: $0.time(3), changedAt: $0.time(4)
            )
        }
        return try listed.map { (customer) throws(StorageError) in
            ListedCustomerRecord(
                customerID: customer.id, appUserID: customer.appUserID, version: customer.version,
                createdAt: customer.createdAt, changedAt: customer.changedAt,
                entitlements: try activeEntitlements(tenantID: tenantID, customerID: customer.id, at: query.now))
        }
    }

    /// One customer's entitlements active at `now`, sorted by ID (a primary key range: one statement per listed
    /// customer costs less than one range over a sparse page's whole span of IDs).
    private func activeEntitlements(tenantID: String, customerID: Int64, at now: UnixTime) throws(StorageError)
        -> [ActiveEntitlementValue]
    {
        try rows(
            """
            SELECT e.entitlement_id, e.source, e.product_id, e.expires_at, e.will_renew, e.in_grace_period,
                e.in_billing_retry, e.reference_id
            FROM customer_entitlements e
            WHERE e.tenant_id = ? AND e.customer_id = ? AND \(StorageSQL.activeRow)
            ORDER BY e.entitlement_id
            """,
            [.text(tenantID), .integer(customerID), .time(now)]
        ) { (row) throws(StorageError) in
            ActiveEntitlementValue(
                id: row.string(0), source: try StorageSQL.source(row.int64(1)), productID: row.string(2),
                expiresAt: row.optionalTime(3), willRenew: row.bool(4), inGracePeriod: row.bool(5),
                inBillingRetry: row.bool(6), referenceID: row.string(7))
        }
    }

    /// Four aggregate queries, each a scan of the primary key or one covering index over the tenant's active rows
    /// (never of customers), in one read transaction.
    func subscriberCounts(tenantID: String, at now: UnixTime) throws(StorageError) -> SubscriberCounts {
        let bindings: [SQLValue] = [.text(tenantID), .time(now)]
        func grouped<Key: Hashable>(by column: String, _ counted: String, key: (ResultRow) throws(StorageError) -> Key)
            throws(StorageError) -> [Key: Int64]
        {
            let groups = try rows(
                """
                SELECT e.\(column), \(counted) FROM customer_entitlements e
                WHERE e.tenant_id = ? AND \(StorageSQL.activeRow) GROUP BY e.\(column)
                """,
                bindings
            ) { (row) throws(StorageError) in (try key(row), row.int64(1)) }
            return Dictionary(uniqueKeysWithValues: groups)
        }
        let distinct = "COUNT(DISTINCT e.customer_id)"
        var perProduct = try grouped(by: "product_id", distinct) { $0.string(0) }
        perProduct[""] = nil
        return SubscriberCounts(
            // DISTINCT over the primary key, already in customer order: no temporary b-tree, unlike COUNT(DISTINCT).
            activeCustomers: try row(
                """
                SELECT COUNT(*) FROM (SELECT DISTINCT e.customer_id FROM customer_entitlements e
                    WHERE e.tenant_id = ? AND \(StorageSQL.activeRow)) AS active
                """, bindings
            ) { $0.int64(0) } ?? 0,
            perEntitlement: try grouped(by: "entitlement_id", "COUNT(*)") { $0.string(0) },
            perProduct: perProduct,
            perSource: try grouped(by: "source", distinct) { (row) throws(StorageError) in try StorageSQL.source(row.int64(0)) })
    }
}
