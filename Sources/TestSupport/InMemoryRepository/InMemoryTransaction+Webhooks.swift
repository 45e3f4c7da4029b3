import EntitlementDomain

/// The webhook outbox inside an in-memory write, as the SQL statements write it (one instance: SQLite's rules).
extension InMemoryTransaction {
    func insertWebhookDelivery(_ delivery: WebhookDelivery) throws(StorageError) -> Int64 {
        tables.lastDeliveryID += 1
        var stored = delivery
        stored.id = tables.lastDeliveryID
        tables.deliveries[stored.id] = InMemoryTables.Delivery(delivery: stored, leasedUntil: nil)
        return stored.id
    }

    func deleteFinishedWebhookDeliveries(tenantID: String, endpointID: String, type: String) throws(StorageError) {
        tables.deliveries = tables.deliveries.filter { _, row in
            let delivery = row.delivery
            return !(delivery.tenantID == tenantID && delivery.endpointID == endpointID && delivery.type == type
                && delivery.state != .pending)
        }
    }

    func deleteWebhookDelivery(tenantID: String, id: Int64) throws(StorageError) {
        if tables.deliveries[id]?.delivery.tenantID == tenantID { tables.deliveries[id] = nil }
    }

    /// Each the oldest pending delivery of its customer to its endpoint (a delivery without a customer waits for none).
    func dueWebhookDeliveries(at time: UnixTime, limit: Int, excludedEndpoints: [WebhookEndpointKey])
        throws(StorageError) -> [WebhookDelivery]
    {
        let pending = tables.pendingDeliveries.map(\.delivery)
        let excluded = Set(excludedEndpoints)
        let due = tables.pendingDeliveries.filter { row in
            let delivery = row.delivery
            guard let next = delivery.nextAttemptAt, next <= time, row.leasedUntil.map({ $0 <= time }) ?? true,
                !excluded.contains(WebhookEndpointKey(tenantID: delivery.tenantID, endpointID: delivery.endpointID))
            else { return false }
            return !pending.contains {
                $0.tenantID == delivery.tenantID && $0.endpointID == delivery.endpointID && $0.customerID != nil
                    && $0.customerID == delivery.customerID && $0.id < delivery.id
            }
        }
        return due.map(\.delivery).sorted { ($0.nextAttemptAt!, $0.id) < ($1.nextAttemptAt!, $1.id) }
            .prefix(max(limit, 0)).map { $0 }
    }

    func leaseWebhookDeliveries(ids: [Int64], until time: UnixTime) throws(StorageError) {
        for id in ids where tables.deliveries[id]?.delivery.state == .pending {
            tables.deliveries[id]?.leasedUntil = time
        }
    }

    func releaseWebhookLeases() throws(StorageError) {
        for (id, row) in tables.deliveries where row.delivery.state == .pending {
            tables.deliveries[id]?.leasedUntil = nil
        }
    }

    /// Only a pending delivery takes the result: one pruned, or failed by a 410 meanwhile, keeps what it has.
    func saveWebhookAttempt(_ attempt: WebhookAttemptRecord, countsAttempt: Bool) throws(StorageError) -> Bool {
        guard var row = tables.deliveries[attempt.deliveryID], row.delivery.tenantID == attempt.tenantID,
            row.delivery.messageID == attempt.messageID, row.delivery.state == .pending
        else { return false }
        row.delivery.state = attempt.state
        row.delivery.attempts += countsAttempt ? 1 : 0
        row.delivery.nextAttemptAt = attempt.nextAttemptAt
        row.leasedUntil = nil
        row.delivery.lastAttemptAt = attempt.attemptedAt
        row.delivery.lastStatus = attempt.status
        row.delivery.lastError = attempt.error
        row.delivery.deliveredAt = attempt.state == .delivered ? attempt.attemptedAt : nil
        tables.deliveries[attempt.deliveryID] = row
        return true
    }

    func failPendingWebhookDeliveries(tenantID: String, endpointID: String, error: String, at time: UnixTime)
        throws(StorageError) -> Int
    {
        let failing = tables.pendingDeliveries.map(\.delivery)
            .filter { $0.tenantID == tenantID && $0.endpointID == endpointID }.map(\.id)
        for id in failing {
            tables.deliveries[id]?.delivery.state = .failed
            tables.deliveries[id]?.delivery.nextAttemptAt = nil
            tables.deliveries[id]?.leasedUntil = nil
            tables.deliveries[id]?.delivery.lastError = error
        }
        return failing.count
    }

    func requeueWebhookDeliveries(_ filter: WebhookDeliveryFilter, at time: UnixTime) throws(StorageError)
        -> (count: Int, endpointIDs: Set<String>)
    {
        let requeued = tables.deliveries.values.map(\.delivery).filter {
            $0.state != .notice && InMemoryTables.delivery($0, matches: filter)
        }
        for delivery in requeued {
            tables.deliveries[delivery.id]?.delivery.state = .pending
            tables.deliveries[delivery.id]?.delivery.attempts = 0
            tables.deliveries[delivery.id]?.delivery.nextAttemptAt = time
            tables.deliveries[delivery.id]?.leasedUntil = nil
            tables.deliveries[delivery.id]?.delivery.deliveredAt = nil
        }
        return (requeued.count, Set(requeued.map(\.endpointID)))
    }

    func disableWebhookEndpoint(_ endpoint: DisabledWebhookEndpoint) throws(StorageError) -> Bool {
        let key = InMemoryTables.NameKey(tenantID: endpoint.tenantID, name: endpoint.endpointID)
        guard tables.disabledEndpoints[key] == nil else { return false }
        tables.disabledEndpoints[key] = endpoint
        return true
    }

    func enableWebhookEndpoint(tenantID: String, endpointID: String) throws(StorageError) {
        tables.disabledEndpoints[InMemoryTables.NameKey(tenantID: tenantID, name: endpointID)] = nil
    }
}
