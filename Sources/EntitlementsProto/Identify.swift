public import ProtobufWire

/// `entitlements.v1.IdentifyRequest`.
public struct IdentifyRequest: ProtoMessage {
    public var appUserID = ""
    /// Anonymous id to merge into `appUserID`; empty for none.
    public var anonymousID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "", anonymousID: String = "") {
        self.appUserID = appUserID
        self.anonymousID = anonymousID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: anonymousID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeString(2, anonymousID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.IdentifyResponse`.
public struct IdentifyResponse: ProtoMessage {
    public var customer: CustomerStatus?
    /// The customer did not exist before the call.
    public var created = false
    /// The anonymous customer was merged by the call.
    public var merged = false
    /// Lowercase UUID for StoreKit's `appAccountToken`; stable per tenant and canonical app user ID.
    public var appAccountToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(customer: CustomerStatus? = nil, created: Bool = false, merged: Bool = false, appAccountToken: String = "") {
        self.customer = customer
        self.created = created
        self.merged = merged
        self.appAccountToken = appAccountToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customer = try reader.decodeMessage(tag)
            case 2: created = try reader.decodeBool(tag)
            case 3: merged = try reader.decodeBool(tag)
            case 4: appAccountToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, customer)
        writer.writeBool(2, created)
        writer.writeBool(3, merged)
        writer.writeString(4, appAccountToken)
        writer.writeRaw(unknownFields)
    }
}
