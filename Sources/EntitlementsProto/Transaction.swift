public import ProtobufWire

/// `entitlements.v1.Transaction`: a store purchase as last verified; for subscriptions the
/// whole renewal chain, identified by `originalTransactionID`.
public struct Transaction: ProtoMessage {
    /// `Transaction.Ownership`.
    public struct Ownership: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let purchased = Self(rawValue: 1)
        public static let familyShared = Self(rawValue: 2)
    }

    /// `Transaction.Acknowledgement`.
    public struct Acknowledgement: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let notRequired = Self(rawValue: 1)
        public static let pending = Self(rawValue: 2)
        public static let acknowledged = Self(rawValue: 3)
        public static let failed = Self(rawValue: 4)
    }

    public var store = Store.unspecified
    public var productID = ""
    /// App Store originalTransactionId, or the Play purchase token.
    public var originalTransactionID = ""
    /// Latest renewal: App Store transactionId, or the Play order ID.
    public var transactionID = ""
    public var environment = StoreEnvironment.unspecified
    public var purchasedAt: ProtoTimestamp?
    public var originalPurchaseAt: ProtoTimestamp?
    /// `nil` for non-expiring purchases.
    public var expiresAt: ProtoTimestamp?
    /// `nil` unless the store revoked the purchase.
    public var revokedAt: ProtoTimestamp?
    /// The store's reason, e.g. "REFUND_FULL", "FAMILY_REVOKE", "VOIDED".
    public var revocationReason = ""
    public var ownerAppUserID = ""
    public var ownership = Ownership.unspecified
    /// Auto-renew is on.
    public var willRenew = false
    public var inGracePeriod = false
    public var inBillingRetry = false
    /// The product the subscription renews to when that differs from `productID` (takes effect at renewal).
    public var renewalProductID = ""
    /// The purchase that replaced this one; empty when none did.
    public var supersededBy = ""
    /// The purchase this one replaced; empty when none.
    public var replaces = ""
    public var acknowledgement = Acknowledgement.unspecified
    public var acknowledgementAttempts: Int32 = 0
    public var acknowledgementError = ""
    /// The store says it gives nothing now, whatever its dates.
    public var suspended = false
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        store: Store = .unspecified, productID: String = "", originalTransactionID: String = "",
        transactionID: String = "", environment: StoreEnvironment = .unspecified, purchasedAt: ProtoTimestamp? = nil,
        originalPurchaseAt: ProtoTimestamp? = nil, expiresAt: ProtoTimestamp? = nil, revokedAt: ProtoTimestamp? = nil,
        revocationReason: String = "", ownerAppUserID: String = "", ownership: Ownership = .unspecified,
        willRenew: Bool = false, inGracePeriod: Bool = false, inBillingRetry: Bool = false,
        renewalProductID: String = ""
    ) {
        self.store = store
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.environment = environment
        self.purchasedAt = purchasedAt
        self.originalPurchaseAt = originalPurchaseAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.revocationReason = revocationReason
        self.ownerAppUserID = ownerAppUserID
        self.ownership = ownership
        self.willRenew = willRenew
        self.inGracePeriod = inGracePeriod
        self.inBillingRetry = inBillingRetry
        self.renewalProductID = renewalProductID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: store = try reader.decodeEnum(tag)
            case 2: productID = try reader.decodeString(tag)
            case 3: originalTransactionID = try reader.decodeString(tag)
            case 4: transactionID = try reader.decodeString(tag)
            case 5: environment = try reader.decodeEnum(tag)
            case 6: purchasedAt = try reader.decodeMessage(tag)
            case 7: originalPurchaseAt = try reader.decodeMessage(tag)
            case 8: expiresAt = try reader.decodeMessage(tag)
            case 9: revokedAt = try reader.decodeMessage(tag)
            case 10: revocationReason = try reader.decodeString(tag)
            case 11: ownerAppUserID = try reader.decodeString(tag)
            case 12: ownership = try reader.decodeEnum(tag)
            case 13: willRenew = try reader.decodeBool(tag)
            case 14: inGracePeriod = try reader.decodeBool(tag)
            case 15: inBillingRetry = try reader.decodeBool(tag)
            case 16: renewalProductID = try reader.decodeString(tag)
            case 17: supersededBy = try reader.decodeString(tag)
            case 18: replaces = try reader.decodeString(tag)
            case 19: acknowledgement = try reader.decodeEnum(tag)
            case 20: acknowledgementAttempts = try reader.decodeInt32(tag)
            case 21: acknowledgementError = try reader.decodeString(tag)
            case 22: suspended = try reader.decodeBool(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, store)
        writer.writeString(2, productID)
        writer.writeString(3, originalTransactionID)
        writer.writeString(4, transactionID)
        writer.writeEnum(5, environment)
        writer.writeMessage(6, purchasedAt)
        writer.writeMessage(7, originalPurchaseAt)
        writer.writeMessage(8, expiresAt)
        writer.writeMessage(9, revokedAt)
        writer.writeString(10, revocationReason)
        writer.writeString(11, ownerAppUserID)
        writer.writeEnum(12, ownership)
        writer.writeBool(13, willRenew)
        writer.writeBool(14, inGracePeriod)
        writer.writeBool(15, inBillingRetry)
        writer.writeString(16, renewalProductID)
        writer.writeString(17, supersededBy)
        writer.writeString(18, replaces)
        writer.writeEnum(19, acknowledgement)
        writer.writeInt32(20, acknowledgementAttempts)
        writer.writeString(21, acknowledgementError)
        writer.writeBool(22, suspended)
        writer.writeRaw(unknownFields)
    }
}
