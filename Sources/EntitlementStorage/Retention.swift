import EntitlementDomain

/// Retention's deletions (``RetentionStorage``), a bounded batch per statement, each along an index.
enum Retention {
    /// Version 26 on SQLite, 17 on PostgreSQL. The deliveries' age index leads with the state still, for the backlog
    /// (which counts every pending row anyway).
    static let migrationSQL = """
        -- A tenant's events by age, in the order compaction scans them.
        CREATE INDEX events_age ON events (tenant_id, occurred_at, customer_id, version);
        -- A tenant's deliveries in a state by age, for their retention.
        DROP INDEX webhook_deliveries_age;
        CREATE INDEX webhook_deliveries_age ON webhook_deliveries (state, tenant_id, created_at);
        -- The other customer a delivery's body names (a transfer's, a merge's), for an erasure of that person once
        -- the event itself is gone; filled in from the events for the deliveries made before.
        ALTER TABLE webhook_deliveries ADD COLUMN related_app_user_id TEXT NOT NULL DEFAULT '';
        UPDATE webhook_deliveries SET related_app_user_id = COALESCE((
            SELECT e.related_app_user_id FROM events e
            WHERE e.tenant_id = webhook_deliveries.tenant_id AND e.customer_id = webhook_deliveries.customer_id
                AND e.version = webhook_deliveries.version), '')
        WHERE customer_id IS NOT NULL AND state <> 4;
        CREATE INDEX webhook_deliveries_related ON webhook_deliveries (tenant_id, related_app_user_id)
            WHERE related_app_user_id <> '';
        """

    static func bindings(_ position: EventPosition) -> [SQLValue] {
        [.time(position.occurredAt), .integer(position.customerID), .integer(Int64(clamping: position.version))]
    }

    /// Before every event.
    static let start: [SQLValue] = [.integer(Int64.min), .integer(Int64.min), .integer(Int64.min)]
}

extension SQLExecutor {
    func compactEvents(tenantID: String, before: UnixTime, after: EventPosition?, limit: Int) throws(StorageError)
        -> (removed: Int, scanned: EventPosition?)
    {
        guard limit > 0 else { return (0, after) }
        let tenant = SQLValue.text(tenantID)
        let from = after.map(Retention.bindings) ?? Retention.start
        // The window's last event: the batch is every event after `from` up to it (or to `before` when fewer are left).
        let last = try row(
            """
            SELECT occurred_at, customer_id, version FROM events
            WHERE tenant_id = ? AND occurred_at < ? AND (occurred_at, customer_id, version) > (?, ?, ?)
            ORDER BY occurred_at, customer_id, version LIMIT 1 OFFSET ?
            """,
            [tenant, .time(before)] + from + [.integer(Int64(limit - 1))]
        ) { EventPosition(occurredAt: $0.time(0), customerID: $0.int64(1), version: UInt64(clamping: $0.int64(2))) }
        // Bounded on both sides by row values, so that the scan reads the window only.
        let removed = try run(
            """
            DELETE FROM events WHERE tenant_id = ? AND (customer_id, version) IN (
                SELECT customer_id, version - 1 FROM events
                WHERE tenant_id = ? AND (occurred_at, customer_id, version) > (?, ?, ?)
                    AND (occurred_at, customer_id, version) <= (?, ?, ?) AND version > 1)
            """,
            [tenant, tenant] + from + Retention.bindings(last ?? .justBefore(before)))
        return (removed, last)
    }

    func pruneWebhookDeliveries(tenantID: String, states: [WebhookDelivery.State], before time: UnixTime, limit: Int)
        throws(StorageError) -> Int
    {
        var removed = 0
        for state in states where removed < limit {
            removed += try run(
                """
                DELETE FROM webhook_deliveries WHERE id IN (
                    SELECT id FROM webhook_deliveries WHERE state = ? AND tenant_id = ? AND created_at < ?
                    ORDER BY created_at LIMIT ?)
                """,
                [.integer(StorageColumns.webhookState(state)), .text(tenantID), .time(time), .integer(Int64(limit - removed))])
        }
        return removed
    }

    func forgetRedemptionCodes(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int {
        try run(
            """
            DELETE FROM redemption_codes WHERE tenant_id = ? AND code_hash IN (
                SELECT code_hash FROM redemption_codes
                WHERE tenant_id = ? AND (used_at < ? OR replaced_at < ? OR expires_at < ?) LIMIT ?)
            """,
            [.text(tenantID), .text(tenantID), .time(before), .time(before), .time(before), .integer(Int64(limit))])
    }
}
