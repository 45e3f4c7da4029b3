import EntitlementDomain

/// Retention's deletions (``RetentionStorage``), a bounded batch per statement.
extension SQLExecutor {
    func compactEvents(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int {
        try run(
            """
            DELETE FROM events WHERE tenant_id = ? AND (customer_id, version) IN (
                SELECT e.customer_id, e.version FROM events e JOIN customers c ON c.tenant_id = e.tenant_id AND c.id = e.customer_id
                WHERE e.tenant_id = ? AND e.occurred_at < ? AND e.version < c.version
                LIMIT ?)
            """,
            [.text(tenantID), .text(tenantID), .time(before), .integer(Int64(limit))])
    }

    func forgetRedemptionCodes(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int {
        try run(
            """
            DELETE FROM redemption_codes WHERE tenant_id = ? AND code_hash IN (
                SELECT code_hash FROM redemption_codes
                WHERE tenant_id = ? AND (used_at < ? OR replaced_at < ?) LIMIT ?)
            """,
            [.text(tenantID), .text(tenantID), .time(before), .time(before), .integer(Int64(limit))])
    }
}
