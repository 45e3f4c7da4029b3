public import ProtobufWire

/// `entitlements.v1.WebRedemption`: a web purchase nobody owns yet, claimed with its redemption code.
public struct WebRedemption: ProtoMessage {
    public var code = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(code: String) {
        self.code = code
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: code = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, code)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.GetRedemptionCodeRequest`.
public struct GetRedemptionCodeRequest: ProtoMessage {
    /// A Stripe ID naming the purchase: its checkout session, subscription, customer, invoice or payment intent.
    public var stripeID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(stripeID: String) {
        self.stripeID = stripeID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: stripeID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, stripeID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RedemptionCode`: a code just issued, shown once.
public struct RedemptionCode: ProtoMessage {
    public var code = ""
    public var expiresAt: ProtoTimestamp?
    /// The purchase it attaches.
    public var transaction: Transaction?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: code = try reader.decodeString(tag)
            case 2: expiresAt = try reader.decodeMessage(tag)
            case 3: transaction = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, code)
        writer.writeMessage(2, expiresAt)
        writer.writeMessage(3, transaction)
        writer.writeRaw(unknownFields)
    }
}
