public import Encodings

/// `purchases.products.get`'s answer for a one-time product. Google sends the 64-bit numbers as strings.
public struct ProductPurchase: Sendable, Hashable {
    public var kind: String?
    public var purchaseTimeMillis: String?
    /// 0 purchased, 1 canceled, 2 pending.
    public var purchaseState: Int?
    /// 0 not yet consumed, 1 consumed.
    public var consumptionState: Int?
    public var developerPayload: String?
    public var orderId: String?
    /// Only for purchases outside the normal flow: 0 test (license tester), 1 promo code, 2 rewarded ad.
    public var purchaseType: Int?
    /// 0 pending, 1 acknowledged.
    public var acknowledgementState: Int?
    public var purchaseToken: String?
    public var productId: String?
    public var quantity: Int?
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?
    public var regionCode: String?
    public var refundableQuantity: Int?

    public enum State: Int, Sendable {
        case purchased = 0
        case canceled = 1
        case pending = 2
    }

    public var state: State? { purchaseState.flatMap(State.init(rawValue:)) }
    public var isTestPurchase: Bool { purchaseType == 0 }
    public var isAcknowledged: Bool { acknowledgementState == 1 }
}

extension ProductPurchase: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("kind", \.kind), .optional("purchaseTimeMillis", \.purchaseTimeMillis),
            .optional("purchaseState", \.purchaseState), .optional("consumptionState", \.consumptionState),
            .optional("developerPayload", \.developerPayload), .optional("orderId", \.orderId),
            .optional("purchaseType", \.purchaseType), .optional("acknowledgementState", \.acknowledgementState),
            .optional("purchaseToken", \.purchaseToken), .optional("productId", \.productId),
            .optional("quantity", \.quantity),
            .optional("obfuscatedExternalAccountId", \.obfuscatedExternalAccountId),
            .optional("obfuscatedExternalProfileId", \.obfuscatedExternalProfileId),
            .optional("regionCode", \.regionCode), .optional("refundableQuantity", \.refundableQuantity),
        ])
    }
}
