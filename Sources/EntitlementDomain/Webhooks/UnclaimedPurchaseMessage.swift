import Crypto
import Encodings

/// The message for a purchase nobody owns yet (an anonymous web checkout), first seen: `purchase.unclaimed`, with a
/// redemption code issued for it in the same transaction, so the tenant's backend (which knows the buyer from its
/// own checkout) can hand the code over and the buyer can attach the purchase to their account
/// (`EntitlementService.Purchase` with `web_redemption`). Endpoints that want `purchase` events get it.
///
/// The code is in the outbox as part of the message, until the delivery log's retention removes it; the code table
/// keeps only its hash. `GetRedemptionCode` issues a new one later if needed (the one sent here then stops working).
enum UnclaimedPurchaseMessage {
    static let type = "purchase.unclaimed"

    /// `evt_` and 22 characters, stable for the purchase.
    static func eventID(_ purchase: StorePurchase) -> String {
        let seed = Array("unclaimed\u{0}\(purchase.tenantID)\u{0}\(purchase.store.webhookName)\u{0}\(purchase.originalTransactionID)".utf8)
        return CustomerEventMessage.eventID(seed: seed)
    }

    static func body(_ issued: IssuedRedemptionCode, referenceIDs: [String], eventID: String, at now: UnixTime) -> [UInt8] {
        let message: JSONValue = .object([
            ("type", .string(type)),
            ("timestamp", CustomerJSON.time(now)),
            (
                "data",
                .object([
                    ("event_id", .string(eventID)),
                    ("tenant", .string(issued.purchase.tenantID)),
                    ("purchase", CustomerJSON.purchase(issued.purchase)),
                    ("reference_ids", .array(referenceIDs.map(JSONValue.string))),
                    (
                        "redemption_code",
                        .object([("code", .string(issued.code)), ("expires_at", CustomerJSON.time(issued.expiresAt))])
                    ),
                ])
            ),
        ])
        return Array(message.text.utf8)
    }
}
