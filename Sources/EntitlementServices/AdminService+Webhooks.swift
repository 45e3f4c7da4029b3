import BoundedText
import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore
import StandardWebhooks

/// AdminService's webhook methods: a test delivery, the delivery log, and redelivery.
extension AdminService {
    func registerWebhookMethods(on router: inout RPCRouter) {
        router.registerUnary(Self.method("SendTestWebhook")) { (request: SendTestWebhookRequest, context) in
            try await sendTestWebhook(request, context)
        }
        router.registerUnary(Self.method("ListWebhookDeliveries")) { (request: ListWebhookDeliveriesRequest, context) in
            try await listWebhookDeliveries(request, context)
        }
        router.registerUnary(Self.method("RedeliverWebhooks")) { (request: RedeliverWebhooksRequest, context) in
            try await redeliverWebhooks(request, context)
        }
    }

    /// One signed test delivery to an endpoint of the caller's tenant, now; the endpoint's answer either way.
    func sendTestWebhook(_ request: SendTestWebhookRequest, _ context: ServerContext) async throws
        -> SendTestWebhookResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, _ in
            guard let endpoint = tenant.webhooks.first(where: { $0.id == request.endpointID }) else {
                let known = tenant.webhooks.map(\.id)
                throw DomainError.notFound(
                    "Tenant '\(tenant.id)' has no webhook endpoint \(request.endpointID.quotedForMessage)"
                        + (known.isEmpty ? " (it configures none)." : "; its endpoints: \(known.joined(separator: ", ")).")
                )
            }
            guard let webhooks else {
                throw DomainError.serverMisconfigured("This server makes no outbound calls: its outbound HTTP client is not set up.")
            }
            let id = WebhookMessageID.make()
            let body = WebhookTestMessage.body(tenantID: tenant.id, endpointID: endpoint.id, id: id, at: engine.now())
            let attempt = await webhooks.attempt(body, id: id, to: endpoint)
            var response = SendTestWebhookResponse()
            response.webhookID = id.text
            response.delivered = attempt.delivered
            response.statusCode = Int32(attempt.status ?? 0)
            response.error = attempt.error
            response.duration = ProtoDuration(.milliseconds(attempt.milliseconds))
            return response
        }
    }

    private func listWebhookDeliveries(_ request: ListWebhookDeliveriesRequest, _ context: ServerContext) async throws
        -> ListWebhookDeliveriesResponse
    {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            var filter = WebhookDeliveryFilter(tenantID: tenant.id)
            filter.endpointID = try Self.endpointID(request.endpointID, of: tenant)
            filter.state = try Self.state(request.state)
            (filter.createdFrom, filter.createdBefore) = try Self.range(request.createdAfter, request.createdBefore)
            var appUserID: String?
            if !request.appUserID.isEmpty { appUserID = try AppUserID.validate(request.appUserID) }
            let page = try engine.outbox.deliveries(
                filter, appUserID: appUserID, pageSize: Int(request.pageSize), pageToken: request.pageToken)
            return ListWebhookDeliveriesResponse(
                deliveries: page.deliveries.map(EntitlementsProto.WebhookDelivery.init), nextPageToken: page.nextPageToken)
        }
    }

    private func redeliverWebhooks(_ request: RedeliverWebhooksRequest, _ context: ServerContext) async throws
        -> RedeliverWebhooksResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, _ in
            guard request.deliveryID >= 0 else { throw DomainError.invalidRequest("delivery_id must not be negative.") }
            var filter = WebhookDeliveryFilter(tenantID: tenant.id)
            filter.deliveryID = request.deliveryID == 0 ? nil : request.deliveryID
            filter.endpointID = try Self.endpointID(request.endpointID, of: tenant)
            (filter.createdFrom, filter.createdBefore) = try Self.range(request.createdAfter, request.createdBefore)
            let count = try await engine.outbox.redeliver(filter)
            return RedeliverWebhooksResponse(requeued: Int32(clamping: count))
        }
    }

    /// nil for empty; else an endpoint the tenant configures.
    private static func endpointID(_ id: String, of tenant: Tenant) throws(DomainError) -> String? {
        guard !id.isEmpty else { return nil }
        guard tenant.webhooks.contains(where: { $0.id == id }) else {
            throw DomainError.notFound("Tenant '\(tenant.id)' has no webhook endpoint \(id.quotedForMessage).")
        }
        return id
    }

    private static func state(_ state: WebhookDeliveryState) throws(DomainError) -> EntitlementDomain.WebhookDelivery.State? {
        switch state {
        case .unspecified: return nil
        case .pending: return .pending
        case .delivered: return .delivered
        case .failed: return .failed
        case .notice: return .notice
        default: throw DomainError.invalidRequest("state \(state.rawValue) is not a WebhookDeliveryState.")
        }
    }

    /// `[after, before)`, each optional, checked.
    private static func range(_ after: ProtoTimestamp?, _ before: ProtoTimestamp?) throws(DomainError)
        -> (UnixTime?, UnixTime?)
    {
        let from = try after?.requestTime(field: "created_after")
        let to = try before?.requestTime(field: "created_before")
        if let from, let to, from >= to {
            throw .invalidRequest("created_after must be before created_before.")
        }
        return (from, to)
    }
}

extension EntitlementsProto.WebhookDelivery {
    init(_ record: EntitlementDomain.WebhookDelivery) {
        self.init()
        deliveryID = record.id
        endpointID = record.endpointID
        webhookID = record.messageID
        type = record.type
        state =
            switch record.state {
            case .pending: .pending
            case .delivered: .delivered
            case .failed: .failed
            case .notice: .notice
            }
        appUserID = record.appUserID
        version = record.version
        createdAt = ProtoTimestamp(record.createdAt)
        attempts = Int32(clamping: record.attempts)
        lastAttemptAt = record.lastAttemptAt.map(ProtoTimestamp.init)
        lastStatusCode = Int32(clamping: record.lastStatus ?? 0)
        lastError = record.lastError
        nextAttemptAt = record.state == .pending ? record.nextAttemptAt.map(ProtoTimestamp.init) : nil
        deliveredAt = record.deliveredAt.map(ProtoTimestamp.init)
        body = String(decoding: record.body, as: UTF8.self)
    }
}
