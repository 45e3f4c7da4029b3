public import ProtobufWire

/// `entitlements.v1.Attribute`: one customer attribute.
public struct Attribute: ProtoMessage {
    public var key = ""
    public var value = ""
    /// Set in answers; ignored in requests.
    public var updatedAt: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(key: String = "", value: String = "", updatedAt: ProtoTimestamp? = nil) {
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: key = try reader.decodeString(tag)
            case 2: value = try reader.decodeString(tag)
            case 3: updatedAt = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, key)
        writer.writeString(2, value)
        writer.writeMessage(3, updatedAt)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SetAttributesRequest`, and `SetCustomerAttributesRequest` (the same fields, on AdminService).
public struct SetAttributesRequest: ProtoMessage {
    public var appUserID = ""
    public var attributes: [Attribute] = []
    public var unsetKeys: [String] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "", attributes: [Attribute] = [], unsetKeys: [String] = []) {
        self.appUserID = appUserID
        self.attributes = attributes
        self.unsetKeys = unsetKeys
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: attributes.append(try reader.decodeMessage(tag))
            case 3: unsetKeys.append(try reader.decodeString(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeRepeatedMessages(2, attributes)
        writer.writeRepeatedStrings(3, unsetKeys)
        writer.writeRaw(unknownFields)
    }
}

public typealias SetCustomerAttributesRequest = SetAttributesRequest

/// `entitlements.v1.SetAttributesResponse`, and `SetCustomerAttributesResponse` (the same fields, on AdminService).
public struct SetAttributesResponse: ProtoMessage {
    public var attributes: [Attribute] = []
    public var changedKeys: [String] = []
    public var appUserID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(attributes: [Attribute] = [], changedKeys: [String] = [], appUserID: String = "") {
        self.attributes = attributes
        self.changedKeys = changedKeys
        self.appUserID = appUserID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: attributes.append(try reader.decodeMessage(tag))
            case 2: changedKeys.append(try reader.decodeString(tag))
            case 3: appUserID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, attributes)
        writer.writeRepeatedStrings(2, changedKeys)
        writer.writeString(3, appUserID)
        writer.writeRaw(unknownFields)
    }
}

public typealias SetCustomerAttributesResponse = SetAttributesResponse
