import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// AdminService's methods on a customer's personal data as a whole: the export, the erasure, and the audit log that
/// records both.
extension AdminService {
    /// What one ExportCustomerChunk carries at most, well under every client's default message limit (4 MiB).
    static let exportChunkBytes = 1 << 20

    func registerPrivacyMethods(on router: inout RPCRouter) {
        router.registerServerStreaming(Self.method("ExportCustomer")) {
            (request: ExportCustomerRequest, writer: ResponseWriter<ExportCustomerChunk>, context) in
            try await exportCustomer(request, writer, context)
        }
        router.registerUnary(Self.method("DeleteCustomer")) { (request: DeleteCustomerRequest, context) in
            try await deleteCustomer(request, context)
        }
        router.registerUnary(Self.method("ListAuditEvents")) { (request: ListAuditEventsRequest, context) in
            try await listAuditEvents(request, context)
        }
    }

    func exportCustomer(
        _ request: ExportCustomerRequest, _ writer: ResponseWriter<ExportCustomerChunk>, _ context: ServerContext
    ) async throws {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, fields in
            var export = try await engine.privacy.export(tenantID: tenant.id, appUserID: request.appUserID)
            fields.appUserID = request.appUserID
            while let part = try export.next() {
                var start = 0
                while start < part.count {
                    let end = min(start + Self.exportChunkBytes, part.count)
                    try await writer.write(ExportCustomerChunk(data: Array(part[start..<end])))
                    start = end
                }
            }
        }
    }

    func deleteCustomer(_ request: DeleteCustomerRequest, _ context: ServerContext) async throws -> DeleteCustomerResponse {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, fields in
            let outcome = try await engine.privacy.delete(
                tenant: tenant, appUserID: request.appUserID, confirmation: request.confirmAppUserID)
            // The log line names the erasure by its hash, never the ID it erased.
            fields.appUserID = outcome.tombstone
            let counts = outcome.counts
            return DeleteCustomerResponse(
                subject: outcome.tombstone, alreadyDeleted: counts == nil,
                eventsDeleted: UInt32(clamping: counts?.events ?? 0), purchasesKept: UInt32(clamping: counts?.purchasesKept ?? 0),
                purchasesDeleted: UInt32(clamping: counts?.purchasesDeleted ?? 0),
                webhookDeliveriesDeleted: UInt32(clamping: counts?.webhookDeliveries ?? 0))
        }
    }

    func listAuditEvents(_ request: ListAuditEventsRequest, _ context: ServerContext) async throws
        -> ListAuditEventsResponse
    {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            let page = try engine.privacy.auditLog(
                tenantID: tenant.id, pageSize: Int(request.pageSize), pageToken: request.pageToken)
            return ListAuditEventsResponse(events: page.events.map(EntitlementsProto.AuditEvent.init), nextPageToken: page.nextPageToken)
        }
    }
}

extension EntitlementsProto.AuditEvent {
    init(_ event: EntitlementDomain.AuditEvent) {
        self.init(
            id: UInt64(clamping: event.id), occurredAt: ProtoTimestamp(event.occurredAt), action: Action(event.action),
            keyName: event.keyName, requestID: event.requestID, subject: event.subject)
    }
}

extension EntitlementsProto.AuditEvent.Action {
    init(_ action: EntitlementDomain.AuditEvent.Action) {
        self =
            switch action {
            case .customerExported: .customerExported
            case .customerDeleted: .customerDeleted
            }
    }
}
