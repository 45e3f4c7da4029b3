import EntitlementsProto
import ProtobufWire

/// Export, erasure and audit log messages, built exactly as `Resources/roundtrip.py` builds them.
extension Fixtures {
    static let privacy: [Fixture] = [
        Fixture("ExportCustomerRequest") { unk(ExportCustomerRequest(appUserID: "user-1"), $0) },
        Fixture("ExportCustomerChunk") { unk(ExportCustomerChunk(data: Array(#"{"format_version":1}"#.utf8) + [0, 0xFF]), $0) },
        Fixture("DeleteCustomerRequest") { unk(DeleteCustomerRequest(appUserID: "user-1", confirmAppUserID: "user-1"), $0) },
        Fixture("DeleteCustomerResponse") { u in
            unk(
                DeleteCustomerResponse(
                    subject: "erased_abc", alreadyDeleted: true, eventsDeleted: 4_000_000_000, purchasesKept: 2,
                    purchasesDeleted: 1, webhookDeliveriesDeleted: 7),
                u)
        },
        Fixture("ListAuditEventsRequest") { unk(ListAuditEventsRequest(pageSize: 50, pageToken: "41"), $0) },
        Fixture("ListAuditEventsRequest#negativePageSize") { unk(ListAuditEventsRequest(pageSize: -1), $0) },
        Fixture("ListAuditEventsResponse") { u in
            unk(ListAuditEventsResponse(events: [auditEvent(u, 0), auditEvent(u, 1)], nextPageToken: "40"), u)
        },
        Fixture("AuditEvent") { auditEvent($0, 0) },
        Fixture("AuditEvent#unknownAction") { auditEvent($0, 1) },
        .empty(ExportCustomerRequest.self), .empty(ExportCustomerChunk.self), .empty(DeleteCustomerRequest.self),
        .empty(DeleteCustomerResponse.self), .empty(ListAuditEventsRequest.self), .empty(ListAuditEventsResponse.self),
        .empty(AuditEvent.self),
    ]

    static func auditEvent(_ u: Bool, _ i: Int) -> AuditEvent {
        unk(
            AuditEvent(
                id: UInt64(i == 0 ? 41 : UInt64.max), occurredAt: ts(1_700_000_000, 5, u),
                action: i == 0 ? .customerDeleted : .init(rawValue: 99), keyName: "support-ana", requestID: "req-\(i)",
                subject: "erased_abc"),
            u)
    }
}
