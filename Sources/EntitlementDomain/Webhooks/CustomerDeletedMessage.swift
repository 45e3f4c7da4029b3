import Crypto
import Encodings
import StandardWebhooks

/// The message for an erased customer: `customer.deleted`, so the tenant's backend can erase the person downstream.
/// It names the person by the app user ID the app knew them by (the tenant's own ID for them) and nothing else of
/// what was erased. Endpoints that want `deleted` events get it.
///
/// Its delivery row keeps that ID until the message is delivered or given up, and is then deleted at once rather
/// than kept for the delivery log's retention (README, "Erasing a customer"); `DeleteCustomer` waits a little for
/// that first attempt, so that usually no copy is left when it returns.
enum CustomerDeletedMessage {
    static let type = "customer.deleted"

    /// `evt_` and 22 characters, stable for the erasure.
    static func eventID(tenantID: String, tombstone: String) -> String {
        CustomerEventMessage.eventID(seed: Array("deleted\u{0}\(tenantID)\u{0}\(tombstone)".utf8))
    }

    static func body(tenantID: String, appUserID: String, tombstone: String, eventID: String, at now: UnixTime) -> [UInt8] {
        let message: JSONValue = .object([
            ("type", .string(type)),
            ("timestamp", CustomerJSON.time(now)),
            (
                "data",
                .object([
                    ("event_id", .string(eventID)),
                    ("tenant", .string(tenantID)),
                    ("app_user_id", .string(appUserID)),
                    ("erased_at", CustomerJSON.time(now)),
                    ("subject", .string(tombstone)),
                ])
            ),
        ])
        return Array(message.text.utf8)
    }
}

extension EngineCore {
    /// Queues ``CustomerDeletedMessage`` to each endpoint of the tenant that wants `deleted` events, in the erasure's
    /// transaction; returns the deliveries' IDs.
    func enqueueCustomerDeleted(
        tenantID: String, appUserID: String, tombstone: String, in transaction: any StorageTransaction, at now: UnixTime
    ) throws(StorageError) -> [Int64] {
        let wanting = webhookEndpoints(tenantID).filter { $0.events.contains(.deleted) }
        guard !wanting.isEmpty else { return [] }
        let eventID = CustomerDeletedMessage.eventID(tenantID: tenantID, tombstone: tombstone)
        let body = CustomerDeletedMessage.body(
            tenantID: tenantID, appUserID: appUserID, tombstone: tombstone, eventID: eventID, at: now)
        return try wanting.map { (endpoint) throws(StorageError) in
            try transaction.insertWebhookDelivery(
                WebhookDelivery(
                    tenantID: tenantID, endpointID: endpoint.id, customerID: nil, appUserID: "", version: 0,
                    messageID: CustomerEventMessage.messageID(eventID: eventID, endpointID: endpoint.id).text,
                    type: CustomerDeletedMessage.type, body: body, createdAt: now, nextAttemptAt: now))
        }
    }
}
