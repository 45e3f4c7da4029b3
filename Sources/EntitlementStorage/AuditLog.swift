import EntitlementDomain

/// `audit_log`: each tenant's record of exports and erasures of customers (``AuditEvent``).
enum AuditLog {
    /// Version 24 on SQLite, 15 on PostgreSQL; `identity` is the auto-numbered key's column definition.
    static func migrationSQL(integer: String, identity: String) -> String {
        """
        CREATE TABLE audit_log (
            id \(identity),
            tenant_id TEXT NOT NULL,
            occurred_at \(integer) NOT NULL,
            -- 'customer.exported' or 'customer.deleted'
            action TEXT NOT NULL,
            key_name TEXT NOT NULL,
            request_id TEXT NOT NULL,
            -- The exported customer's app user ID; an erased customer's keyed hash, never the ID.
            subject TEXT NOT NULL
        );
        CREATE INDEX audit_log_tenant ON audit_log (tenant_id, id);
        """
    }
}

extension SQLExecutor {
    func appendAuditEvent(_ event: AuditEvent) throws(StorageError) -> Int64 {
        try row(
            """
            INSERT INTO audit_log (tenant_id, occurred_at, action, key_name, request_id, subject)
            VALUES (?, ?, ?, ?, ?, ?) RETURNING id
            """,
            [
                .text(event.tenantID), .time(event.occurredAt), .text(event.action.rawValue), .text(event.keyName),
                .text(event.requestID), .text(event.subject),
            ]
        ) { $0.int64(0) } ?? 0
    }

    func auditEvents(tenantID: String, beforeID: Int64?, limit: Int) throws(StorageError) -> [AuditEvent] {
        try rows(
            """
            SELECT id, occurred_at, action, key_name, request_id, subject FROM audit_log
            WHERE tenant_id = ? AND id < ? ORDER BY id DESC LIMIT ?
            """,
            [.text(tenantID), .integer(beforeID ?? Int64.max), .integer(Int64(limit))]
        ) { (row) throws(StorageError) in
            guard let action = AuditEvent.Action(rawValue: row.string(2)) else {
                throw StorageError.corrupt("audit_log.action \(row.string(2)) is not one this build knows")
            }
            return AuditEvent(
                id: row.int64(0), tenantID: tenantID, occurredAt: row.time(1), action: action, keyName: row.string(3),
                requestID: row.string(4), subject: row.string(5))
        }
    }
}
