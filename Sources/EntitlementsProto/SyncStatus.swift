public import ProtobufWire

/// `entitlements.v1.SyncStatusRequest`.
public struct SyncStatusRequest: ProtoMessage {
    public var appUserID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "") {
        self.appUserID = appUserID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SyncStatusResponse`.
public struct SyncStatusResponse: ProtoMessage {
    public var customer: CustomerStatus?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(customer: CustomerStatus? = nil) {
        self.customer = customer
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customer = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, customer)
        writer.writeRaw(unknownFields)
    }

    /// The encoding of a response whose `customer` is given already encoded: a server can keep the encoding of the
    /// fields that rarely change and append the others (the fields of one message may come in any order).
    public static func encoding(customer: [UInt8]) -> [UInt8] {
        var writer = ProtoWriter(reservingCapacity: customer.count + 8)
        writer.writeMessage(1, EncodedMessage<CustomerStatus>(customer))
        return writer.bytes
    }
}
