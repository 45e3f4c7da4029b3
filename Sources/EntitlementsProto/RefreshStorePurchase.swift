public import ProtobufWire

/// `entitlements.v1.RefreshStorePurchaseRequest`.
public struct RefreshStorePurchaseRequest: ProtoMessage {
    public var store = Store.unspecified
    /// A Google Play purchase token.
    public var purchaseID = ""
    /// Optional when the server already holds the purchase.
    public var productID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(store: Store, purchaseID: String, productID: String = "") {
        self.store = store
        self.purchaseID = purchaseID
        self.productID = productID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: store = try reader.decodeEnum(tag)
            case 2: purchaseID = try reader.decodeString(tag)
            case 3: productID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, store)
        writer.writeString(2, purchaseID)
        writer.writeString(3, productID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RefreshStorePurchaseResponse`.
public struct RefreshStorePurchaseResponse: ProtoMessage {
    public var transaction: Transaction?
    public var changed = false
    /// The owner's status; nil when nobody owns the purchase yet.
    public var customer: CustomerStatus?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: transaction = try reader.decodeMessage(tag)
            case 2: changed = try reader.decodeBool(tag)
            case 3: customer = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, transaction)
        writer.writeBool(2, changed)
        writer.writeMessage(3, customer)
        writer.writeRaw(unknownFields)
    }
}
