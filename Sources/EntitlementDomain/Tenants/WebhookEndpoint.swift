/// What a tenant's backend can ask to be told about: the kind of change (the entitlements changed, or only other
/// customer data), and what caused it.
public enum WebhookEventKind: String, Sendable, Hashable, CaseIterable {
    case statusChanged = "status_changed"
    case customerInfoChanged = "customer_info_changed"
    /// Purchase, Restore, a redemption code.
    case purchase
    /// A store renewed a subscription.
    case renewal
    /// A store refunded, revoked or charged back a purchase.
    case refund
    /// A purchase moved between customers.
    case transfer
    /// An anonymous customer was merged into an identified one.
    case merge
    /// An operator granted or revoked an entitlement.
    case grant
    /// The app or the backend set or removed customer attributes.
    case attributesChanged = "attributes_changed"
    /// `DeleteCustomer` erased a customer (`customer.deleted`).
    case deleted
    /// `SendTestWebhook`.
    case test
}

/// One of a tenant's webhook endpoints: where its backend hears of customer changes (signed the Standard Webhooks
/// way), and which changes it wants.
///
///     "webhooks": [                                    // optional, at most 10 endpoints
///       {
///         "id": "backend",                             // required: [a-z0-9_-], 1–64, unique in the tenant
///         "url": "https://api.example.com/hooks",      // required: https://; http:// only to a loopback host
///                                                      // unless "allow_http" is true
///         "events": ["status_changed", "refund"],      // optional, default every kind (WebhookEventKind)
///         "secrets": ["whsec_…"],                      // required, 1–5 Standard Webhooks secrets (`entctl
///                                                      // gen-webhook-secret`); each delivery is signed with all
///                                                      // of them, so one can be rolled while the other works
///         "allow_http": false                          // optional: plain http:// to any host (a private network)
///       }
///     ]
///
/// Secrets are kept as given and never appear in ``description`` or errors. The rules are in
/// WebhookEndpoint+Rules.swift, shared by the tenants file reader and the code initializer of ``Tenant``.
public struct WebhookEndpoint: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let maxEndpoints = 10
    public static let secretCountRange: ClosedRange<Int> = 1...5

    public var id: String
    public var url: String
    /// Never empty.
    public var events: Set<WebhookEventKind>
    public var secrets: [String]
    public var allowsPlainHTTP: Bool

    public init(
        id: String, url: String, events: Set<WebhookEventKind> = Set(WebhookEventKind.allCases), secrets: [String],
        allowsPlainHTTP: Bool = false
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.secrets = secrets
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    /// Every field but the secrets, which are only counted.
    public var description: String {
        "WebhookEndpoint(id: \"\(id)\", url: \"\(url)\", events: \(events.map(\.rawValue).sorted()), secrets: "
            + "\(secrets.count) redacted, allowsPlainHTTP: \(allowsPlainHTTP))"
    }

    public var debugDescription: String { description }
}
