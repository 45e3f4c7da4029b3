import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// AdminService's methods on a customer's personal data as a whole: the export, and the audit log that records it.
extension AdminService {
    /// What one ExportCustomerChunk carries at most, well under every client's default message limit (4 MiB).
    static let exportChunkBytes = 1 << 20

    func registerPrivacyMethods(on router: inout RPCRouter) {
        router.registerServerStreaming(Self.method("ExportCustomer")) {
            (request: ExportCustomerRequest, writer: ResponseWriter<ExportCustomerChunk>, context) in
            try await exportCustomer(request, writer, context)
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
