public import Encodings

/// `purchases.subscriptionsv2.get`'s answer, the fields this service reads (Google's names; unknown fields ignored).
/// Times are RFC 3339 strings as Google sends them; ``GooglePlayTime`` reads them.
public struct SubscriptionPurchaseV2: Sendable, Hashable {
    public struct LineItem: Sendable, Hashable {
        public struct AutoRenewingPlan: Sendable, Hashable {
            public var autoRenewEnabled: Bool?
            /// What each period at the base plan's price costs now.
            public var recurringPrice: GoogleMoney?
        }

        public struct OfferDetails: Sendable, Hashable {
            public var basePlanId: String?
            public var offerId: String?
        }

        public var productId: String?
        public var expiryTime: String?
        public var autoRenewingPlan: AutoRenewingPlan?
        /// Present (possibly empty) for a prepaid plan, which never renews by itself.
        public var prepaidPlan: EmptyObject?
        public var offerDetails: OfferDetails?
        /// The pricing phase the item is in now.
        public var offerPhase: OfferPhase?
        public var latestSuccessfulOrderId: String?
    }

    public struct ExternalAccountIdentifiers: Sendable, Hashable {
        public var obfuscatedExternalAccountId: String?
        public var obfuscatedExternalProfileId: String?
    }

    public struct OutOfAppPurchaseContext: Sendable, Hashable {
        public var expiredExternalAccountIdentifiers: ExternalAccountIdentifiers?
        public var expiredPurchaseToken: String?
    }

    public struct PausedStateContext: Sendable, Hashable {
        public var autoResumeTime: String?
    }

    /// Which of its members is present says why a subscription was canceled.
    public struct CanceledStateContext: Sendable, Hashable {
        public var userInitiatedCancellation: EmptyObject?
        public var systemInitiatedCancellation: EmptyObject?
        public var developerInitiatedCancellation: EmptyObject?
        public var replacementCancellation: EmptyObject?
    }

    public var kind: String?
    public var regionCode: String?
    public var startTime: String?
    public var subscriptionState: OpenString<SubscriptionState>?
    public var latestOrderId: String?
    public var linkedPurchaseToken: String?
    public var pausedStateContext: PausedStateContext?
    public var canceledStateContext: CanceledStateContext?
    /// Present (an empty object) for license testers' purchases.
    public var testPurchase: EmptyObject?
    public var acknowledgementState: OpenString<AcknowledgementState>?
    public var externalAccountIdentifiers: ExternalAccountIdentifiers?
    public var outOfAppPurchaseContext: OutOfAppPurchaseContext?
    public var lineItems: [LineItem]?
}

/// `subscriptionState` values.
public enum SubscriptionState: String, Sendable, Hashable, CaseIterable {
    case unspecified = "SUBSCRIPTION_STATE_UNSPECIFIED"
    case pending = "SUBSCRIPTION_STATE_PENDING"
    case active = "SUBSCRIPTION_STATE_ACTIVE"
    case paused = "SUBSCRIPTION_STATE_PAUSED"
    case inGracePeriod = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
    case onHold = "SUBSCRIPTION_STATE_ON_HOLD"
    case canceled = "SUBSCRIPTION_STATE_CANCELED"
    case expired = "SUBSCRIPTION_STATE_EXPIRED"
    case pendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
}

/// `acknowledgementState` of a subscription.
public enum AcknowledgementState: String, Sendable, Hashable, CaseIterable {
    case unspecified = "ACKNOWLEDGEMENT_STATE_UNSPECIFIED"
    case pending = "ACKNOWLEDGEMENT_STATE_PENDING"
    case acknowledged = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
}

/// A JSON object whose presence is the information (`testPurchase: {}`); its members are ignored.
public struct EmptyObject: Sendable, Hashable, JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        try reader.readObject { reader, _ throws(JSONReadError) in try reader.skipValue() }
    }
}

extension SubscriptionPurchaseV2: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("kind", \.kind), .optional("regionCode", \.regionCode), .optional("startTime", \.startTime),
            .optional("subscriptionState", \.subscriptionState), .optional("latestOrderId", \.latestOrderId),
            .optional("linkedPurchaseToken", \.linkedPurchaseToken),
            .optional("pausedStateContext", \.pausedStateContext),
            .optional("canceledStateContext", \.canceledStateContext), .optional("testPurchase", \.testPurchase),
            .optional("acknowledgementState", \.acknowledgementState),
            .optional("externalAccountIdentifiers", \.externalAccountIdentifiers),
            .optional("outOfAppPurchaseContext", \.outOfAppPurchaseContext), .optional("lineItems", \.lineItems),
        ])
    }
}

extension SubscriptionPurchaseV2.LineItem: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("productId", \.productId), .optional("expiryTime", \.expiryTime),
            .optional("autoRenewingPlan", \.autoRenewingPlan), .optional("prepaidPlan", \.prepaidPlan),
            .optional("offerDetails", \.offerDetails), .optional("offerPhase", \.offerPhase),
            .optional("latestSuccessfulOrderId", \.latestSuccessfulOrderId),
        ])
    }
}

extension SubscriptionPurchaseV2.LineItem.AutoRenewingPlan: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("autoRenewEnabled", \.autoRenewEnabled), .optional("recurringPrice", \.recurringPrice),
        ])
    }
}

extension SubscriptionPurchaseV2.LineItem.OfferDetails: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("basePlanId", \.basePlanId), .optional("offerId", \.offerId)])
    }
}

extension SubscriptionPurchaseV2.ExternalAccountIdentifiers: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("obfuscatedExternalAccountId", \.obfuscatedExternalAccountId),
            .optional("obfuscatedExternalProfileId", \.obfuscatedExternalProfileId),
        ])
    }
}

extension SubscriptionPurchaseV2.OutOfAppPurchaseContext: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("expiredExternalAccountIdentifiers", \.expiredExternalAccountIdentifiers),
            .optional("expiredPurchaseToken", \.expiredPurchaseToken),
        ])
    }
}

extension SubscriptionPurchaseV2.PausedStateContext: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("autoResumeTime", \.autoResumeTime)])
    }
}

extension SubscriptionPurchaseV2.CanceledStateContext: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("userInitiatedCancellation", \.userInitiatedCancellation),
            .optional("systemInitiatedCancellation", \.systemInitiatedCancellation),
            .optional("developerInitiatedCancellation", \.developerInitiatedCancellation),
            .optional("replacementCancellation", \.replacementCancellation),
        ])
    }
}
