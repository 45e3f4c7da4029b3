public import ProtobufWire

/// `entitlements.v1.SendTestWebhookRequest`.
public struct SendTestWebhookRequest: ProtoMessage {
    public var endpointID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(endpointID: String) {
        self.endpointID = endpointID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: endpointID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, endpointID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SendTestWebhookResponse`: how one test delivery went.
public struct SendTestWebhookResponse: ProtoMessage {
    public var webhookID = ""
    public var delivered = false
    /// 0 when no answer came.
    public var statusCode: Int32 = 0
    public var error = ""
    public var duration: ProtoDuration?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: webhookID = try reader.decodeString(tag)
            case 2: delivered = try reader.decodeBool(tag)
            case 3: statusCode = try reader.decodeInt32(tag)
            case 4: error = try reader.decodeString(tag)
            case 5: duration = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, webhookID)
        writer.writeBool(2, delivered)
        writer.writeInt32(3, statusCode)
        writer.writeString(4, error)
        writer.writeMessage(5, duration)
        writer.writeRaw(unknownFields)
    }
}
