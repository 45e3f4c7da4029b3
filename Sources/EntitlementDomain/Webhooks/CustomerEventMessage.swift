import Crypto
import Encodings
import StandardWebhooks

/// The message a customer event becomes for a webhook endpoint, in the Standard Webhooks shape
/// `{"type", "timestamp", "data"}`, built once in the event's transaction and kept in the outbox as the exact bytes
/// signed on every attempt.
///
/// `type` is `customer.` and the event's most specific kind (`customer.purchase`, `customer.renewal`,
/// `customer.refund`, `customer.transfer`, `customer.merge`, `customer.grant`, `customer.attributes_changed`, else
/// `customer.status_changed` or `customer.customer_info_changed`); `data` says everything a backend needs to act
/// without calling back: the event, the customer (canonical ID, aliases, version), the full status after it, the
/// purchase, transfer, merge, grant or attributes behind it, and the money it moved (`revenue`: the revenue ledger's rows it recorded). A receiver keeps the
/// highest `version` per customer and drops anything not above it.
enum CustomerEventMessage {
    struct Event {
        var record: EventRecord
        var status: ComputedStatus
        /// The customer as the transaction sees it (canonical ID and aliases at the time of the event).
        var customer: CustomerSnapshot
        var subject: EventSubject
    }

    static func type(_ kind: WebhookEventKind) -> String { "customer.\(kind.rawValue)" }

    /// `evt_` and 22 characters: stable for the event, unique across tenants, revealing nothing.
    static func eventID(tenantID: String, customerID: Int64, version: UInt64) -> String {
        let seed = Array("event\u{0}\(tenantID)\u{0}\(customerID)\u{0}\(version)".utf8)
        return eventID(seed: seed)
    }

    /// `evt_` and 22 characters of `seed`'s SHA-256: the event ID of every message a tenant's endpoints get.
    static func eventID(seed: [UInt8]) -> String {
        "evt_" + Base64.encode(SHA256.hash(seed).prefix(16), alphabet: .url, padded: false)
    }

    /// The `webhook-id`: one per event and endpoint, the same however often it is sent.
    static func messageID(eventID: String, endpointID: String) -> WebhookMessageID {
        WebhookMessageID.derived(from: Array("\(eventID)\u{0}\(endpointID)".utf8))
    }

    static func body(_ event: Event, tenantID: String, eventID: String) -> [UInt8] {
        let record = event.record
        let kinds = WebhookEventKind.kinds(cause: record.cause, change: record.change, subject: event.subject)
        let primary = WebhookEventKind.primary(cause: record.cause, change: record.change, subject: event.subject)
        var data: [(String, JSONValue)] = [
            ("event_id", .string(eventID)),
            ("kind", .string(record.change == .statusChanged ? "status_changed" : "customer_info_changed")),
            ("event_kinds", .array(WebhookEventKind.allCases.filter(kinds.contains).map { .string($0.rawValue) })),
            ("cause", .string(record.cause.webhookName)),
            ("reason", .string(record.reason)),
            ("tenant", .string(tenantID)),
            ("app_user_id", .string(event.customer.customer.appUserID)),
            ("aliases", .array(event.customer.aliases.map(JSONValue.string))),
            ("version", .number(String(record.version))),
            ("occurred_at", CustomerJSON.time(record.occurredAt)),
            ("status", CustomerJSON.status(event.status)),
        ]
        if !record.referenceID.isEmpty { data.append(("reference_id", .string(record.referenceID))) }
        if let purchase = event.subject.purchase { data.append(("purchase", CustomerJSON.purchase(purchase))) }
        if let grant = event.subject.grant { data.append(("grant", CustomerJSON.grant(grant))) }
        if let attributes = event.subject.attributes { data.append(("attributes", self.attributes(attributes))) }
        if !event.subject.revenue.isEmpty { data.append(("revenue", .array(event.subject.revenue.map(CustomerJSON.revenue)))) }
        if let (key, value) = counterpart(of: event) { data.append((key, value)) }
        let message: JSONValue = .object([
            ("type", .string(type(primary))), ("timestamp", CustomerJSON.time(record.occurredAt)), ("data", .object(data)),
        ])
        return Array(message.text.utf8)
    }

    /// Both customers of a transfer or merge, by canonical app user ID.
    private static func counterpart(of event: Event) -> (String, JSONValue)? {
        let this = event.customer.customer.appUserID
        let other = event.record.relatedAppUserID
        guard !other.isEmpty else { return nil }
        switch event.record.cause {
        case .transferredOut where event.subject.isMergedAway:
            return ("merge", .object([("from_app_user_id", .string(this)), ("into_app_user_id", .string(other))]))
        case .merged:
            return ("merge", .object([("from_app_user_id", .string(other)), ("into_app_user_id", .string(this))]))
        case .transferredOut:
            return ("transfer", .object([("from_app_user_id", .string(this)), ("to_app_user_id", .string(other))]))
        case .transferredIn:
            return ("transfer", .object([("from_app_user_id", .string(other)), ("to_app_user_id", .string(this))]))
        default:
            return nil
        }
    }

    /// The keys changed, and every attribute after the change (a removed key is absent from `values`).
    private static func attributes(_ subject: AttributeSubject) -> JSONValue {
        .object([
            ("changed_keys", .array(subject.changedKeys.map(JSONValue.string))),
            ("values", .object(subject.attributes.map { ($0.key, .string($0.value)) })),
        ])
    }
}

extension EventCause {
    /// The cause as webhook bodies (and metric labels) name it.
    public var webhookName: String {
        switch self {
        case .created: "created"
        case .merged: "merged"
        case .purchase: "purchase"
        case .restore: "restore"
        case .transferredIn: "transferred_in"
        case .transferredOut: "transferred_out"
        case .appStoreNotification: "app_store_notification"
        case .playStoreNotification: "play_store_notification"
        case .grant: "grant"
        case .revoke: "revoke"
        case .expiry: "expiry"
        case .storeAPI: "store_api"
        case .stripeWebhook: "stripe_webhook"
        case .redemption: "redemption"
        case .support: "support"
        case .attributes: "attributes"
        case .offerSigned: "offer_signed"
        }
    }
}

extension EntitlementSource {
    var webhookName: String {
        switch self {
        case .appStore: "app_store"
        case .playStore: "play_store"
        case .stripe: "web"
        case .grant: "grant"
        }
    }
}

extension Store {
    var webhookName: String { entitlementSource.webhookName }
}

extension PurchaseEnvironment {
    var webhookName: String {
        switch self {
        case .production: "production"
        case .sandbox: "sandbox"
        case .xcode: "xcode"
        case .localTesting: "local_testing"
        }
    }
}
