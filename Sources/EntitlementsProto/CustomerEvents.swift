public import ProtobufWire

/// `entitlements.v1.ListCustomerEventsRequest`: one page of a customer's history.
public struct ListCustomerEventsRequest: ProtoMessage {
    public var appUserID = ""
    /// 0 or less means the server default.
    public var pageSize: Int32 = 0
    /// The previous page's `nextPageToken`; empty for the first page.
    public var pageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "", pageSize: Int32 = 0, pageToken: String = "") {
        self.appUserID = appUserID
        self.pageSize = pageSize
        self.pageToken = pageToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: pageSize = try reader.decodeInt32(tag)
            case 3: pageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeInt32(2, pageSize)
        writer.writeString(3, pageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListCustomerEventsResponse`.
public struct ListCustomerEventsResponse: ProtoMessage {
    /// Newest first.
    public var events: [CustomerEvent] = []
    /// Empty on the last page.
    public var nextPageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(events: [CustomerEvent] = [], nextPageToken: String = "") {
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

/// `entitlements.v1.CustomerEvent`: one recorded change to a customer.
public struct CustomerEvent: ProtoMessage {
    /// `CustomerEvent.Cause`: what caused the change.
    public struct Cause: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let created = Self(rawValue: 1)
        public static let merged = Self(rawValue: 2)
        public static let purchase = Self(rawValue: 3)
        public static let restore = Self(rawValue: 4)
        public static let transferredIn = Self(rawValue: 5)
        public static let transferredOut = Self(rawValue: 6)
        public static let appStoreNotification = Self(rawValue: 7)
        public static let playStoreNotification = Self(rawValue: 8)
        public static let grant = Self(rawValue: 9)
        public static let revoke = Self(rawValue: 10)
        public static let expiry = Self(rawValue: 11)
        public static let storeAPI = Self(rawValue: 12)
        public static let stripeWebhook = Self(rawValue: 13)
        public static let redemption = Self(rawValue: 14)
        public static let support = Self(rawValue: 15)
        public static let attributes = Self(rawValue: 16)
        public static let offerSigned = Self(rawValue: 17)
    }

    /// The customer's version after the change.
    public var version: UInt64 = 0
    public var cause = Cause.unspecified
    /// `.statusChanged` or `.customerInfoChanged`.
    public var change = StatusEvent.Kind.unspecified
    public var reason = ""
    public var occurredAt: ProtoTimestamp?
    /// Entitlements after the change.
    public var status: SubscriptionStatus?
    /// The other customer of a merge or transfer.
    public var relatedAppUserID = ""
    /// Grant, transaction or notification id behind the change.
    public var referenceID = ""
    /// The name of the API key whose call made the change.
    public var keyName = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        version: UInt64 = 0, cause: Cause = .unspecified, change: StatusEvent.Kind = .unspecified, reason: String = "",
        occurredAt: ProtoTimestamp? = nil, status: SubscriptionStatus? = nil, relatedAppUserID: String = "",
        referenceID: String = "", keyName: String = ""
    ) {
        self.version = version
        self.cause = cause
        self.change = change
        self.reason = reason
        self.occurredAt = occurredAt
        self.status = status
        self.relatedAppUserID = relatedAppUserID
        self.referenceID = referenceID
        self.keyName = keyName
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: version = try reader.decodeUInt64(tag)
            case 2: cause = try reader.decodeEnum(tag)
            case 3: change = try reader.decodeEnum(tag)
            case 4: reason = try reader.decodeString(tag)
            case 5: occurredAt = try reader.decodeMessage(tag)
            case 6: status = try reader.decodeMessage(tag)
            case 7: relatedAppUserID = try reader.decodeString(tag)
            case 8: referenceID = try reader.decodeString(tag)
            case 9: keyName = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeUInt64(1, version)
        writer.writeEnum(2, cause)
        writer.writeEnum(3, change)
        writer.writeString(4, reason)
        writer.writeMessage(5, occurredAt)
        writer.writeMessage(6, status)
        writer.writeString(7, relatedAppUserID)
        writer.writeString(8, referenceID)
        writer.writeString(9, keyName)
        writer.writeRaw(unknownFields)
    }
}
