public import Encodings

/// `purchases.voidedpurchases.list`'s answer: one page of voided purchases and the token of the next.
public struct VoidedPurchaseList: Sendable, Hashable {
    public struct TokenPagination: Sendable, Hashable {
        public var nextPageToken: String?
    }

    public var voidedPurchases: [VoidedPurchase]?
    public var tokenPagination: TokenPagination?
}

/// One voided purchase (a refund, chargeback or revocation that took the item back).
public struct VoidedPurchase: Sendable, Hashable {
    public var kind: String?
    public var purchaseToken: String?
    public var purchaseTimeMillis: String?
    public var voidedTimeMillis: String?
    /// Per renewal for subscriptions (`GPA.…..0`, `..1`): which period was voided.
    public var orderId: String?
    /// 0 user, 1 developer, 2 Google.
    public var voidedSource: Int?
    /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly fraud,
    /// 7 chargeback, 8 unacknowledged purchase.
    public var voidedReason: Int?
    public var voidedQuantity: Int?

    /// The reason by name, as recorded on the revoked purchase.
    public var reasonName: String {
        let names = [
            "OTHER", "REMORSE", "NOT_RECEIVED", "DEFECTIVE", "ACCIDENTAL_PURCHASE", "FRAUD", "FRIENDLY_FRAUD",
            "CHARGEBACK", "UNACKNOWLEDGED_PURCHASE",
        ]
        guard let voidedReason, names.indices.contains(voidedReason) else { return "VOIDED" }
        return "VOIDED_" + names[voidedReason]
    }
}

extension VoidedPurchaseList: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("voidedPurchases", \.voidedPurchases), .optional("tokenPagination", \.tokenPagination),
        ])
    }
}

extension VoidedPurchaseList.TokenPagination: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("nextPageToken", \.nextPageToken)])
    }
}

extension VoidedPurchase: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("kind", \.kind), .optional("purchaseToken", \.purchaseToken),
            .optional("purchaseTimeMillis", \.purchaseTimeMillis),
            .optional("voidedTimeMillis", \.voidedTimeMillis), .optional("orderId", \.orderId),
            .optional("voidedSource", \.voidedSource), .optional("voidedReason", \.voidedReason),
            .optional("voidedQuantity", \.voidedQuantity),
        ])
    }
}
