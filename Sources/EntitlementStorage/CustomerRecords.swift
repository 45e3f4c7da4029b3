import EntitlementDomain

/// The reads behind a customer's export: every ID and record that names the person (``CustomerRecordReads``).
extension SQLExecutor {
    func appUserIDs(tenantID: String, customerID: Int64) throws(StorageError) -> [AppUserIDRecord] {
        try rows(
            """
            SELECT app_user_id, added_at, app_account_token FROM app_user_ids
            WHERE tenant_id = ? AND customer_id = ? ORDER BY added_at, rowid
            """,
            [.text(tenantID), .integer(customerID)]
        ) { row in
            AppUserIDRecord(appUserID: row.string(0), addedAt: row.time(1), appAccountToken: row.optionalString(2))
        }
    }

    /// A merged-away customer keeps its canonical ID in `customers`, while the ID itself resolves to the survivor.
    func mergedCustomers(tenantID: String, into customerID: Int64) throws(StorageError) -> [CustomerRecord] {
        try rows(
            """
            SELECT \(StorageSQL.customerColumns) FROM customers c
            JOIN app_user_ids a ON a.tenant_id = c.tenant_id AND a.app_user_id = c.app_user_id
            WHERE a.tenant_id = ? AND a.customer_id = ? AND c.id <> ?
            ORDER BY c.id
            """,
            [.text(tenantID), .integer(customerID), .integer(customerID)], StorageSQL.customer(from:))
    }

    func redemptionCodes(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [RedemptionCodeRecord]
    {
        try redemptionCodes(
            tenantID: tenantID, "store = ? AND original_transaction_id = ?",
            [.integer(StorageColumns.store(store)), .text(originalTransactionID)])
    }

    func redemptionCodes(tenantID: String, usedBy appUserIDs: [String]) throws(StorageError) -> [RedemptionCodeRecord] {
        guard !appUserIDs.isEmpty else { return [] }
        let list = Array(repeating: "?", count: appUserIDs.count).joined(separator: ", ")
        return try redemptionCodes(tenantID: tenantID, "used_by IN (\(list))", appUserIDs.map(SQLValue.text))
    }

    private func redemptionCodes(tenantID: String, _ condition: String, _ values: [SQLValue]) throws(StorageError)
        -> [RedemptionCodeRecord]
    {
        try rows(
            """
            SELECT code_hash, store, original_transaction_id, created_at, expires_at, used_at, used_by, replaced_at
            FROM redemption_codes WHERE tenant_id = ? AND \(condition) ORDER BY created_at, code_hash
            """,
            [.text(tenantID)] + values
        ) { (row) throws(StorageError) in
            RedemptionCodeRecord(
                tenantID: tenantID, codeHash: row.string(0),
                store: try StorageColumns.decode(row.int64(1), column: "redemption_codes.store", as: StorageColumns.store),
                originalTransactionID: row.string(2), createdAt: row.time(3), expiresAt: row.time(4),
                usedAt: row.optionalTime(5), usedBy: row.string(6), replacedAt: row.optionalTime(7))
        }
    }
}
