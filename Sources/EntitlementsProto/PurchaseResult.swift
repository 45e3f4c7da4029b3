public import ProtobufWire

/// `entitlements.v1.PurchaseResult`: one store purchase sent to Purchase or Restore, as its token shows it, and how
/// it relates to what the server already held.
public struct PurchaseResult: ProtoMessage {
    /// `PurchaseResult.Outcome`.
    public struct Outcome: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        /// Never seen before.
        public static let new = Self(rawValue: 1)
        /// Newer than what the server held: applied.
        public static let updated = Self(rawValue: 2)
        /// The data the server held already.
        public static let unchanged = Self(rawValue: 3)
        /// Signed before the data the server holds, which stands.
        public static let olderThanStored = Self(rawValue: 4)
    }

    public var store = Store.unspecified
    public var productID = ""
    public var originalTransactionID = ""
    public var transactionID = ""
    public var environment = StoreEnvironment.unspecified
    public var purchasedAt: ProtoTimestamp?
    /// `nil` for non-expiring purchases.
    public var expiresAt: ProtoTimestamp?
    public var revokedAt: ProtoTimestamp?
    public var outcome = Outcome.unspecified
    /// The purchase, as the server holds it after the call, grants access now.
    public var active = false
    /// Entitlements the product maps to; empty for consumables.
    public var entitlementIDs: [String] = []
    /// The customer this call moved the purchase away from; empty if none.
    public var transferredFromAppUserID = ""
    /// This call gave the customer a purchase no customer held yet (reported by a store first, or redeemed).
    public var claimed = false
    public var unknownFields: [UInt8] = []

    public init() {}

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
            case 7: expiresAt = try reader.decodeMessage(tag)
            case 8: revokedAt = try reader.decodeMessage(tag)
            case 9: outcome = try reader.decodeEnum(tag)
            case 10: active = try reader.decodeBool(tag)
            case 11: entitlementIDs.append(try reader.decodeString(tag))
            case 12: transferredFromAppUserID = try reader.decodeString(tag)
            case 13: claimed = try reader.decodeBool(tag)
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
        writer.writeMessage(7, expiresAt)
        writer.writeMessage(8, revokedAt)
        writer.writeEnum(9, outcome)
        writer.writeBool(10, active)
        writer.writeRepeatedStrings(11, entitlementIDs)
        writer.writeString(12, transferredFromAppUserID)
        writer.writeBool(13, claimed)
        writer.writeRaw(unknownFields)
    }
}
