import CivilCalendar
public import EntitlementDomain
import Foundation
public import StandardWebhooks

/// The body of a `SendTestWebhook` delivery, in the Standard Webhooks shape (`type`, `timestamp`, `data`): it names
/// the tenant and the endpoint, so a receiver set up for several can tell which one it is.
public enum WebhookTestMessage {
    public static let type = "webhook.test"

    public static func body(tenantID: String, endpointID: String, id: WebhookMessageID, at time: UnixTime) -> [UInt8] {
        let message: [String: Any] = [
            "type": type,
            "timestamp": CivilCalendar.iso8601(seconds: time.milliseconds / 1000),
            "data": [
                "webhook_id": id.text, "tenant": tenantID, "endpoint": endpointID,
                "message": "A test delivery from entitlementd: the endpoint is reachable and can check our signature.",
            ],
        ]
        // Sorted keys: the same message is the same bytes, which a receiver's logs can compare.
        return Array((try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])) ?? Data())
    }
}
