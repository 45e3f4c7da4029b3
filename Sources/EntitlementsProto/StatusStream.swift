public import ProtobufWire

/// `entitlements.v1.StreamStatusRequest`: opens a status stream for one customer.
public struct StreamStatusRequest: ProtoMessage {
    public var appUserID = ""
    /// Last version the client has seen.
    public var afterVersion: UInt64 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "", afterVersion: UInt64 = 0) {
        self.appUserID = appUserID
        self.afterVersion = afterVersion
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: afterVersion = try reader.decodeUInt64(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeUInt64(2, afterVersion)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.StatusEvent`: one message of the `StreamStatus` stream.
public struct StatusEvent: ProtoMessage {
    /// `StatusEvent.Kind`: why the event was sent.
    public struct Kind: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let snapshot = Self(rawValue: 1)
        public static let statusChanged = Self(rawValue: 2)
        public static let customerInfoChanged = Self(rawValue: 3)
        /// Sent on gRPC-Web streams after a quiet heartbeat interval; carries no customer. Clients ignore it.
        public static let heartbeat = Self(rawValue: 4)
    }

    public var kind = Kind.unspecified
    public var customer: CustomerStatus?
    /// Human-readable cause, for logs.
    public var reason = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(kind: Kind = .unspecified, customer: CustomerStatus? = nil, reason: String = "") {
        self.kind = kind
        self.customer = customer
        self.reason = reason
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: kind = try reader.decodeEnum(tag)
            case 2: customer = try reader.decodeMessage(tag)
            case 3: reason = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, kind)
        writer.writeMessage(2, customer)
        writer.writeString(3, reason)
        writer.writeRaw(unknownFields)
    }
}
