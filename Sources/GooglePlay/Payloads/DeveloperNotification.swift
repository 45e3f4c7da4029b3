public import Encodings

/// A Real-time Developer Notification: what a Pub/Sub push's `message.data` decodes to. It only says that something
/// changed for a token; the state is fetched from the Play Developer API.
public struct DeveloperNotification: Sendable, Hashable {
    public struct SubscriptionNotification: Sendable, Hashable {
        public var version: String?
        public var notificationType: Int?
        public var purchaseToken: String?
        /// Deprecated by Google, still sent.
        public var subscriptionId: String?
    }

    public struct OneTimeProductNotification: Sendable, Hashable {
        public var version: String?
        /// 1 purchased, 2 canceled.
        public var notificationType: Int?
        public var purchaseToken: String?
        public var sku: String?
    }

    public struct VoidedPurchaseNotification: Sendable, Hashable {
        public var purchaseToken: String?
        public var orderId: String?
        /// 1 subscription, 2 one-time product.
        public var productType: Int?
        /// 1 full refund, 2 quantity-based partial refund.
        public var refundType: Int?
    }

    public struct TestNotification: Sendable, Hashable {
        public var version: String?
    }

    public var version: String?
    public var packageName: String?
    /// Milliseconds since 1970, as a string.
    public var eventTimeMillis: String?
    public var subscriptionNotification: SubscriptionNotification?
    public var oneTimeProductNotification: OneTimeProductNotification?
    public var voidedPurchaseNotification: VoidedPurchaseNotification?
    public var testNotification: TestNotification?
    /// The names of the members that say what kind of notification this is: every member but `version`,
    /// `packageName` and `eventTimeMillis`, kinds this build does not read (Google adds some) and `null` ones included.
    public var kinds: Set<String> = []
}

extension DeveloperNotification: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key {
            case "version": version = try reader.optional(String.self)
            case "packageName": packageName = try reader.optional(String.self)
            case "eventTimeMillis": eventTimeMillis = try reader.optional(String.self)
            default:
                kinds.insert(key.text)
                switch key {
                case "subscriptionNotification": subscriptionNotification = try reader.optional(SubscriptionNotification.self)
                case "oneTimeProductNotification":
                    oneTimeProductNotification = try reader.optional(OneTimeProductNotification.self)
                case "voidedPurchaseNotification":
                    voidedPurchaseNotification = try reader.optional(VoidedPurchaseNotification.self)
                case "testNotification": testNotification = try reader.optional(TestNotification.self)
                default: try reader.skipValue()
                }
            }
        }
    }
}

extension DeveloperNotification.SubscriptionNotification: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("version", \.version), .optional("notificationType", \.notificationType),
            .optional("purchaseToken", \.purchaseToken), .optional("subscriptionId", \.subscriptionId),
        ])
    }
}

extension DeveloperNotification.OneTimeProductNotification: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("version", \.version), .optional("notificationType", \.notificationType),
            .optional("purchaseToken", \.purchaseToken), .optional("sku", \.sku),
        ])
    }
}

extension DeveloperNotification.VoidedPurchaseNotification: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("purchaseToken", \.purchaseToken), .optional("orderId", \.orderId),
            .optional("productType", \.productType), .optional("refundType", \.refundType),
        ])
    }
}

extension DeveloperNotification.TestNotification: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("version", \.version)])
    }
}

/// `subscriptionNotification.notificationType` by name (Google's numbering has gaps: 14–16 and 21 are unused).
public enum SubscriptionNotificationType: Int, Sendable, Hashable, CaseIterable {
    case recovered = 1
    case renewed = 2
    case canceled = 3
    case purchased = 4
    case onHold = 5
    case inGracePeriod = 6
    case restarted = 7
    case priceChangeConfirmed = 8
    case deferred = 9
    case paused = 10
    case pauseScheduleChanged = 11
    case revoked = 12
    case expired = 13
    case itemsChanged = 17
    case cancellationScheduled = 18
    case priceChangeUpdated = 19
    case pendingPurchaseCanceled = 20
    case priceStepUpConsentUpdated = 22

    /// `SUBSCRIPTION_RECOVERED` and so on, as Google documents them.
    public var name: String {
        switch self {
        case .recovered: "SUBSCRIPTION_RECOVERED"
        case .renewed: "SUBSCRIPTION_RENEWED"
        case .canceled: "SUBSCRIPTION_CANCELED"
        case .purchased: "SUBSCRIPTION_PURCHASED"
        case .onHold: "SUBSCRIPTION_ON_HOLD"
        case .inGracePeriod: "SUBSCRIPTION_IN_GRACE_PERIOD"
        case .restarted: "SUBSCRIPTION_RESTARTED"
        case .priceChangeConfirmed: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED"
        case .deferred: "SUBSCRIPTION_DEFERRED"
        case .paused: "SUBSCRIPTION_PAUSED"
        case .pauseScheduleChanged: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED"
        case .revoked: "SUBSCRIPTION_REVOKED"
        case .expired: "SUBSCRIPTION_EXPIRED"
        case .itemsChanged: "SUBSCRIPTION_ITEMS_CHANGED"
        case .cancellationScheduled: "SUBSCRIPTION_CANCELLATION_SCHEDULED"
        case .priceChangeUpdated: "SUBSCRIPTION_PRICE_CHANGE_UPDATED"
        case .pendingPurchaseCanceled: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED"
        case .priceStepUpConsentUpdated: "SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED"
        }
    }
}

/// The Pub/Sub push request body (`{"message": {...}, "subscription": "..."}`).
public struct PubSubPushEnvelope: Sendable, Hashable {
    public struct Message: Sendable, Hashable {
        /// Base64 of the notification JSON.
        public var data: String?
        public var messageId: String?
        /// The same ID in the older snake_case spelling Pub/Sub also sends.
        public var message_id: String?
        public var publishTime: String?
        public var attributes: [String: String]?
    }

    public var message: Message?
    public var subscription: String?
}

extension PubSubPushEnvelope: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("message", \.message), .optional("subscription", \.subscription),
        ])
    }
}

extension PubSubPushEnvelope.Message: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("data", \.data), .optional("messageId", \.messageId), .optional("message_id", \.message_id),
            .optional("publishTime", \.publishTime), .optional("attributes", \.attributes),
        ])
    }
}
