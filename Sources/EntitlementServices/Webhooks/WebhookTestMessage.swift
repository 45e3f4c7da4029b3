import CivilCalendar
import Encodings
public import EntitlementDomain
public import StandardWebhooks

/// The body of a `SendTestWebhook` delivery, in the Standard Webhooks shape (`type`, `timestamp`, `data`): it names
/// the tenant and the endpoint, so a receiver set up for several can tell which one it is.
public enum WebhookTestMessage {
    public static let type = "webhook.test"

    public static func body(tenantID: String, endpointID: String, id: WebhookMessageID, at time: UnixTime) -> [UInt8] {
        // Keys in name order: the same message is the same bytes, which a receiver's logs can compare.
        let message = JSONValue.object([
            (
                "data",
                .object([
                    ("endpoint", .string(endpointID)),
                    (
                        "message",
                        .string("A test delivery from entitlementd: the endpoint is reachable and can check our signature.")
                    ),
                    ("tenant", .string(tenantID)),
                    ("webhook_id", .string(id.text)),
                ])
            ),
            ("timestamp", .string(CivilCalendar.iso8601(seconds: time.milliseconds / 1000))),
            ("type", .string(type)),
        ])
        return Array(message.text.utf8)
    }
}
