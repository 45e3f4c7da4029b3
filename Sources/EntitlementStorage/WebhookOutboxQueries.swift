import EntitlementDomain

/// The webhook outbox's queries, shared by the write transaction and the read connections, on either database.
///
/// Pending rows are `state = 1` written out in the SQL (not bound), so SQLite can use the partial indexes on it; the
/// due queries name their index (left to itself the planner prefers `webhook_deliveries_age` and sorts every pending
/// row for each claim).
extension SQLExecutor {
    func insertWebhookDelivery(_ delivery: WebhookDelivery) throws(StorageError) -> Int64 {
        try row(
            """
            INSERT INTO webhook_deliveries (tenant_id, endpoint_id, customer_id, version, message_id, type, body,
                created_at, state, attempts, next_attempt_at, last_attempt_at, last_status, last_error, delivered_at,
                app_user_id, request_id, related_app_user_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """,
            [
                .text(delivery.tenantID), .text(delivery.endpointID), .integer(delivery.customerID),
                .integer(Int64(delivery.version)), .text(delivery.messageID), .text(delivery.type), .blob(delivery.body),
                .time(delivery.createdAt), .integer(StorageColumns.webhookState(delivery.state)),
                .integer(Int64(delivery.attempts)), .time(delivery.nextAttemptAt), .time(delivery.lastAttemptAt),
                .integer(delivery.lastStatus.map(Int64.init)), .text(delivery.lastError), .time(delivery.deliveredAt),
                .text(delivery.appUserID), .text(delivery.requestID), .text(delivery.relatedAppUserID),
            ]
        ) { $0.int64(0) } ?? 0
    }

    func dueWebhookDeliveries(at time: UnixTime, limit: Int, excludedEndpoints: [WebhookEndpointKey])
        throws(StorageError) -> [WebhookDelivery]
    {
        let exclusions = String(repeating: " AND NOT (d.tenant_id = ? AND d.endpoint_id = ?)", count: excludedEndpoints.count)
        let columns = StorageSQL.webhookDeliveryColumns.split(separator: ", ").map { "d.\($0)" }.joined(separator: ", ")
        return try rows(
            """
            SELECT \(columns) FROM webhook_deliveries d \(dialect.indexedBy("webhook_deliveries_due"))
            WHERE d.state = 1 AND d.next_attempt_at <= ? AND (d.leased_until IS NULL OR d.leased_until <= ?)\(exclusions)
              AND NOT EXISTS (
                SELECT 1 FROM webhook_deliveries e
                WHERE e.state = 1 AND e.tenant_id = d.tenant_id AND e.endpoint_id = d.endpoint_id
                  AND e.customer_id = d.customer_id AND e.id < d.id)
            ORDER BY d.next_attempt_at, d.id LIMIT ?\(rowLock(of: "d", skippingLocked: true))
            """,
            [.time(time), .time(time)] + excludedEndpoints.flatMap { [SQLValue.text($0.tenantID), .text($0.endpointID)] }
                + [.integer(Int64(limit))],
            StorageSQL.webhookDelivery)
    }

    /// The soonest due time of a pending delivery not leased at `time` (one that waits behind an earlier one of its
    /// customer counts too: cheap through the partial index, and the caller treats "due but not claimed" as "wait").
    func nextWebhookAttemptAt(at time: UnixTime) throws(StorageError) -> UnixTime? {
        try row(
            """
            SELECT MIN(next_attempt_at) FROM webhook_deliveries \(dialect.indexedBy("webhook_deliveries_due"))
            WHERE state = 1 AND (leased_until IS NULL OR leased_until <= ?)
            """, [.time(time)]
        ) { $0.optionalTime(0) } ?? nil
    }

    func webhookBacklog() throws(StorageError) -> (pending: Int64, oldestCreatedAt: UnixTime?) {
        try row(
            "SELECT COUNT(*), MIN(created_at) FROM webhook_deliveries \(dialect.indexedBy("webhook_deliveries_age")) WHERE state = 1",
            []
        ) { ($0.int64(0), $0.optionalTime(1)) } ?? (0, nil)
    }

    func webhookDeliveries(_ filter: WebhookDeliveryFilter, limit: Int) throws(StorageError) -> [WebhookDelivery] {
        let (conditions, bindings) = StorageSQL.conditions(filter)
        return try rows(
            "SELECT \(StorageSQL.webhookDeliveryColumns) FROM webhook_deliveries WHERE \(conditions) ORDER BY id DESC LIMIT ?",
            bindings + [.integer(Int64(limit))], StorageSQL.webhookDelivery)
    }

    func disabledWebhookEndpoints() throws(StorageError) -> [DisabledWebhookEndpoint] {
        try rows(
            "SELECT tenant_id, endpoint_id, disabled_at, reason FROM disabled_webhook_endpoints ORDER BY tenant_id, endpoint_id",
            []
        ) { row in
            DisabledWebhookEndpoint(
                tenantID: row.string(0), endpointID: row.string(1), disabledAt: row.time(2), reason: row.string(3))
        }
    }

    func requeueWebhookDeliveries(_ filter: WebhookDeliveryFilter, at time: UnixTime) throws(StorageError)
        -> (count: Int, endpointIDs: Set<String>)
    {
        let (conditions, bindings) = StorageSQL.conditions(filter)
        let requeueable = "\(conditions) AND state <> \(StorageColumns.webhookState(.notice))"
        let endpoints = try rows(
            "SELECT DISTINCT endpoint_id FROM webhook_deliveries WHERE \(requeueable)", bindings) { $0.string(0) }
        let count = try run(
            """
            UPDATE webhook_deliveries SET state = 1, attempts = 0, next_attempt_at = ?, leased_until = NULL,
                delivered_at = NULL
            WHERE \(requeueable)
            """,
            [.time(time)] + bindings)
        return (count, Set(endpoints))
    }
}

extension StorageSQL {
    static let webhookDeliveryColumns =
        "id, tenant_id, endpoint_id, customer_id, version, message_id, type, body, created_at, state, attempts, "
        + "next_attempt_at, last_attempt_at, last_status, last_error, delivered_at, app_user_id, request_id, related_app_user_id"

    /// The WHERE clause of a filter (never empty: the tenant is always in it).
    static func conditions(_ filter: WebhookDeliveryFilter) -> (String, [SQLValue]) {
        var conditions = ["tenant_id = ?"]
        var bindings: [SQLValue] = [.text(filter.tenantID)]
        func add(_ condition: String, _ value: SQLValue) {
            conditions.append(condition)
            bindings.append(value)
        }
        if let endpointID = filter.endpointID { add("endpoint_id = ?", .text(endpointID)) }
        if let customerID = filter.customerID { add("customer_id = ?", .integer(customerID)) }
        if let state = filter.state { add("state = ?", .integer(StorageColumns.webhookState(state))) }
        if let from = filter.createdFrom { add("created_at >= ?", .time(from)) }
        if let before = filter.createdBefore { add("created_at < ?", .time(before)) }
        if let beforeID = filter.beforeID { add("id < ?", .integer(beforeID)) }
        if let deliveryID = filter.deliveryID { add("id = ?", .integer(deliveryID)) }
        return (conditions.joined(separator: " AND "), bindings)
    }

    static func webhookDelivery(_ row: some SQLRow) throws(StorageError) -> WebhookDelivery {
        WebhookDelivery(
            id: row.int64(0), tenantID: row.string(1), endpointID: row.string(2), customerID: row.optionalInt64(3),
            appUserID: row.string(16), relatedAppUserID: row.string(18), version: UInt64(bitPattern: row.int64(4)),
            messageID: row.string(5), type: row.string(6), body: row.blob(7),
            createdAt: row.time(8),
            state: try StorageColumns.decode(row.int64(9), column: "webhook_deliveries.state", as: StorageColumns.webhookState),
            attempts: Int(row.int64(10)), nextAttemptAt: row.optionalTime(11), lastAttemptAt: row.optionalTime(12),
            lastStatus: row.optionalInt64(13).map(Int.init), lastError: row.string(14), deliveredAt: row.optionalTime(15),
            requestID: row.string(17))
    }
}
