public import ProtobufWire

/// `entitlements.v1.RestoreRequest`: every purchase the device knows of.
public struct RestoreRequest: ProtoMessage {
    public var appUserID = ""
    public var appStore: [AppStorePurchase] = []
    public var playStore: [PlayStorePurchase] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "", appStore: [AppStorePurchase] = [], playStore: [PlayStorePurchase] = []) {
        self.appUserID = appUserID
        self.appStore = appStore
        self.playStore = playStore
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: appStore.append(try reader.decodeMessage(tag))
            case 3: playStore.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeRepeatedMessages(2, appStore)
        writer.writeRepeatedMessages(3, playStore)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RestoreResponse`.
public struct RestoreResponse: ProtoMessage {
    public var customer: CustomerStatus?
    /// Customers purchases were moved away from, without repeats.
    public var transferredFromAppUserIDs: [String] = []
    /// One per App Store transaction of the request, in the same order.
    public var results: [PurchaseResult] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        customer: CustomerStatus? = nil, transferredFromAppUserIDs: [String] = [], results: [PurchaseResult] = []
    ) {
        self.customer = customer
        self.transferredFromAppUserIDs = transferredFromAppUserIDs
        self.results = results
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customer = try reader.decodeMessage(tag)
            case 2: transferredFromAppUserIDs.append(try reader.decodeString(tag))
            case 3: results.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, customer)
        writer.writeRepeatedStrings(2, transferredFromAppUserIDs)
        writer.writeRepeatedMessages(3, results)
        writer.writeRaw(unknownFields)
    }
}
