import EntitlementDomain

/// The webhook outbox's reads, as EntitlementStorage's outbox queries answer.
extension InMemoryTables {
    func nextWebhookAttemptAt(at time: UnixTime) -> UnixTime? {
        pendingDeliveries.filter { $0.leasedUntil.map { $0 <= time } ?? true }.compactMap(\.delivery.nextAttemptAt).min()
    }

    func webhookBacklog() -> (pending: Int64, oldestCreatedAt: UnixTime?) {
        let pending = pendingDeliveries
        return (Int64(pending.count), pending.map(\.delivery.createdAt).min())
    }

    func webhookDeliveries(_ filter: WebhookDeliveryFilter, limit: Int) -> [WebhookDelivery] {
        deliveries.values.map(\.delivery).filter { Self.delivery($0, matches: filter) }.sorted { $0.id > $1.id }
            .prefix(max(limit, 0)).map { $0 }
    }

    func disabledWebhookEndpoints() -> [DisabledWebhookEndpoint] {
        disabledEndpoints.values.sorted { ($0.tenantID, $0.endpointID) < ($1.tenantID, $1.endpointID) }
    }

    var pendingDeliveries: [Delivery] {
        deliveries.values.filter { $0.delivery.state == .pending }
    }

    static func delivery(_ delivery: WebhookDelivery, matches filter: WebhookDeliveryFilter) -> Bool {
        delivery.tenantID == filter.tenantID && (filter.endpointID.map { $0 == delivery.endpointID } ?? true)
            && (filter.customerID.map { $0 == delivery.customerID } ?? true)
            && (filter.state.map { $0 == delivery.state } ?? true)
            && (filter.createdFrom.map { delivery.createdAt >= $0 } ?? true)
            && (filter.createdBefore.map { delivery.createdAt < $0 } ?? true)
            && (filter.beforeID.map { delivery.id < $0 } ?? true) && (filter.deliveryID.map { $0 == delivery.id } ?? true)
    }
}
