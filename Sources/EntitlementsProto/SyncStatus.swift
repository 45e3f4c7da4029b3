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

    /// The encoding of a response whose `customer` is given already encoded but for its `server_time` and
    /// `signed_status`, which are written after it: a server keeps the encoding of the fields that rarely change (the
    /// fields of one message may come in any order). One buffer, written once.
    public static func encoding(customer: [UInt8], serverTime: ProtoTimestamp, signedStatus: String = "") -> [UInt8] {
        var writer = ProtoWriter(reservingCapacity: customer.count + 24 + signedStatus.utf8.count)
        writer.writeLengthDelimited(1) { customerWriter in
            customerWriter.writeRaw(customer)
            customerWriter.writeMessage(CustomerStatus.serverTimeField, serverTime)
            customerWriter.writeString(CustomerStatus.signedStatusField, signedStatus)
        }
        return writer.bytes
    }
}
