public import ProtobufWire

/// `entitlements.v1.ExportCustomerRequest`.
public struct ExportCustomerRequest: ProtoMessage {
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

/// `entitlements.v1.ExportCustomerChunk`: the next bytes of the export's JSON document.
public struct ExportCustomerChunk: ProtoMessage {
    public var data: [UInt8] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(data: [UInt8] = []) {
        self.data = data
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: data = try reader.decodeBytes(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeBytes(1, data)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListAuditEventsRequest`.
public struct ListAuditEventsRequest: ProtoMessage {
    /// 0 or less means the server default.
    public var pageSize: Int32 = 0
    public var pageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(pageSize: Int32 = 0, pageToken: String = "") {
        self.pageSize = pageSize
        self.pageToken = pageToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: pageSize = try reader.decodeInt32(tag)
            case 2: pageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt32(1, pageSize)
        writer.writeString(2, pageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListAuditEventsResponse`.
public struct ListAuditEventsResponse: ProtoMessage {
    /// Newest first.
    public var events: [AuditEvent] = []
    /// Empty on the last page.
    public var nextPageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(events: [AuditEvent] = [], nextPageToken: String = "") {
        self.events = events
        self.nextPageToken = nextPageToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: events.append(try reader.decodeMessage(tag))
            case 2: nextPageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, events)
        writer.writeString(2, nextPageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.AuditEvent`: one entry of a tenant's audit log.
public struct AuditEvent: ProtoMessage {
    /// `AuditEvent.Action`.
    public struct Action: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let customerExported = Self(rawValue: 1)
        public static let customerDeleted = Self(rawValue: 2)
    }

    public var id: UInt64 = 0
    public var occurredAt: ProtoTimestamp?
    public var action = Action.unspecified
    public var keyName = ""
    public var requestID = ""
    public var subject = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        id: UInt64 = 0, occurredAt: ProtoTimestamp? = nil, action: Action = .unspecified, keyName: String = "",
        requestID: String = "", subject: String = ""
    ) {
        self.id = id
        self.occurredAt = occurredAt
        self.action = action
        self.keyName = keyName
        self.requestID = requestID
        self.subject = subject
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: id = try reader.decodeUInt64(tag)
            case 2: occurredAt = try reader.decodeMessage(tag)
            case 3: action = try reader.decodeEnum(tag)
            case 4: keyName = try reader.decodeString(tag)
            case 5: requestID = try reader.decodeString(tag)
            case 6: subject = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeUInt64(1, id)
        writer.writeMessage(2, occurredAt)
        writer.writeEnum(3, action)
        writer.writeString(4, keyName)
        writer.writeString(5, requestID)
        writer.writeString(6, subject)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.DeleteCustomerRequest`.
public struct DeleteCustomerRequest: ProtoMessage {
    public var appUserID = ""
    public var confirmAppUserID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "", confirmAppUserID: String = "") {
        self.appUserID = appUserID
        self.confirmAppUserID = confirmAppUserID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: confirmAppUserID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeString(2, confirmAppUserID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.DeleteCustomerResponse`.
public struct DeleteCustomerResponse: ProtoMessage {
    public var subject = ""
    public var alreadyDeleted = false
    public var eventsDeleted: UInt32 = 0
    public var purchasesKept: UInt32 = 0
    public var purchasesDeleted: UInt32 = 0
    public var webhookDeliveriesDeleted: UInt32 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        subject: String = "", alreadyDeleted: Bool = false, eventsDeleted: UInt32 = 0, purchasesKept: UInt32 = 0,
        purchasesDeleted: UInt32 = 0, webhookDeliveriesDeleted: UInt32 = 0
    ) {
        self.subject = subject
        self.alreadyDeleted = alreadyDeleted
        self.eventsDeleted = eventsDeleted
        self.purchasesKept = purchasesKept
        self.purchasesDeleted = purchasesDeleted
        self.webhookDeliveriesDeleted = webhookDeliveriesDeleted
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: subject = try reader.decodeString(tag)
            case 2: alreadyDeleted = try reader.decodeBool(tag)
            case 3: eventsDeleted = try reader.decodeUInt32(tag)
            case 4: purchasesKept = try reader.decodeUInt32(tag)
            case 5: purchasesDeleted = try reader.decodeUInt32(tag)
            case 6: webhookDeliveriesDeleted = try reader.decodeUInt32(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, subject)
        writer.writeBool(2, alreadyDeleted)
        writer.writeUInt32(3, eventsDeleted)
        writer.writeUInt32(4, purchasesKept)
        writer.writeUInt32(5, purchasesDeleted)
        writer.writeUInt32(6, webhookDeliveriesDeleted)
        writer.writeRaw(unknownFields)
    }
}
