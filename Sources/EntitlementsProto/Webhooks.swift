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

/// `entitlements.v1.WebhookDeliveryState`.
public struct WebhookDeliveryState: ProtoEnum {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: 0)
    public static let pending = Self(rawValue: 1)
    public static let delivered = Self(rawValue: 2)
    public static let failed = Self(rawValue: 3)
    public static let notice = Self(rawValue: 4)
}

/// `entitlements.v1.ListWebhookDeliveriesRequest`: a page of the delivery log, narrowed.
public struct ListWebhookDeliveriesRequest: ProtoMessage {
    public var endpointID = ""
    public var appUserID = ""
    public var state = WebhookDeliveryState.unspecified
    public var createdAfter: ProtoTimestamp?
    public var createdBefore: ProtoTimestamp?
    public var pageSize: Int32 = 0
    public var pageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        endpointID: String = "", appUserID: String = "", state: WebhookDeliveryState = .unspecified,
        createdAfter: ProtoTimestamp? = nil, createdBefore: ProtoTimestamp? = nil, pageSize: Int32 = 0,
        pageToken: String = ""
    ) {
        self.endpointID = endpointID
        self.appUserID = appUserID
        self.state = state
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
        self.pageSize = pageSize
        self.pageToken = pageToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: endpointID = try reader.decodeString(tag)
            case 2: appUserID = try reader.decodeString(tag)
            case 3: state = try reader.decodeEnum(tag)
            case 4: createdAfter = try reader.decodeMessage(tag)
            case 5: createdBefore = try reader.decodeMessage(tag)
            case 6: pageSize = try reader.decodeInt32(tag)
            case 7: pageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, endpointID)
        writer.writeString(2, appUserID)
        writer.writeEnum(3, state)
        writer.writeMessage(4, createdAfter)
        writer.writeMessage(5, createdBefore)
        writer.writeInt32(6, pageSize)
        writer.writeString(7, pageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListWebhookDeliveriesResponse`.
public struct ListWebhookDeliveriesResponse: ProtoMessage {
    /// Newest first.
    public var deliveries: [WebhookDelivery] = []
    /// Empty on the last page.
    public var nextPageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(deliveries: [WebhookDelivery], nextPageToken: String) {
        self.deliveries = deliveries
        self.nextPageToken = nextPageToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: deliveries.append(try reader.decodeMessage(tag))
            case 2: nextPageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, deliveries)
        writer.writeString(2, nextPageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.WebhookDelivery`: one message to one endpoint, or a notice about one.
public struct WebhookDelivery: ProtoMessage {
    public var deliveryID: Int64 = 0
    public var endpointID = ""
    public var webhookID = ""
    public var type = ""
    public var state = WebhookDeliveryState.unspecified
    public var appUserID = ""
    public var version: UInt64 = 0
    public var createdAt: ProtoTimestamp?
    public var attempts: Int32 = 0
    public var lastAttemptAt: ProtoTimestamp?
    /// 0 when no answer came or no attempt was made.
    public var lastStatusCode: Int32 = 0
    public var lastError = ""
    public var nextAttemptAt: ProtoTimestamp?
    public var deliveredAt: ProtoTimestamp?
    /// The JSON body as sent.
    public var body = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: deliveryID = try reader.decodeInt64(tag)
            case 2: endpointID = try reader.decodeString(tag)
            case 3: webhookID = try reader.decodeString(tag)
            case 4: type = try reader.decodeString(tag)
            case 5: state = try reader.decodeEnum(tag)
            case 6: appUserID = try reader.decodeString(tag)
            case 7: version = try reader.decodeUInt64(tag)
            case 8: createdAt = try reader.decodeMessage(tag)
            case 9: attempts = try reader.decodeInt32(tag)
            case 10: lastAttemptAt = try reader.decodeMessage(tag)
            case 11: lastStatusCode = try reader.decodeInt32(tag)
            case 12: lastError = try reader.decodeString(tag)
            case 13: nextAttemptAt = try reader.decodeMessage(tag)
            case 14: deliveredAt = try reader.decodeMessage(tag)
            case 15: body = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt64(1, deliveryID)
        writer.writeString(2, endpointID)
        writer.writeString(3, webhookID)
        writer.writeString(4, type)
        writer.writeEnum(5, state)
        writer.writeString(6, appUserID)
        writer.writeUInt64(7, version)
        writer.writeMessage(8, createdAt)
        writer.writeInt32(9, attempts)
        writer.writeMessage(10, lastAttemptAt)
        writer.writeInt32(11, lastStatusCode)
        writer.writeString(12, lastError)
        writer.writeMessage(13, nextAttemptAt)
        writer.writeMessage(14, deliveredAt)
        writer.writeString(15, body)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RedeliverWebhooksRequest`: one delivery, or every failed one matching.
public struct RedeliverWebhooksRequest: ProtoMessage {
    /// 0: every failed delivery matching the other fields.
    public var deliveryID: Int64 = 0
    public var endpointID = ""
    public var createdAfter: ProtoTimestamp?
    public var createdBefore: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        deliveryID: Int64 = 0, endpointID: String = "", createdAfter: ProtoTimestamp? = nil,
        createdBefore: ProtoTimestamp? = nil
    ) {
        self.deliveryID = deliveryID
        self.endpointID = endpointID
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: deliveryID = try reader.decodeInt64(tag)
            case 2: endpointID = try reader.decodeString(tag)
            case 3: createdAfter = try reader.decodeMessage(tag)
            case 4: createdBefore = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt64(1, deliveryID)
        writer.writeString(2, endpointID)
        writer.writeMessage(3, createdAfter)
        writer.writeMessage(4, createdBefore)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RedeliverWebhooksResponse`.
public struct RedeliverWebhooksResponse: ProtoMessage {
    public var requeued: Int32 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(requeued: Int32) {
        self.requeued = requeued
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: requeued = try reader.decodeInt32(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt32(1, requeued)
        writer.writeRaw(unknownFields)
    }
}
