public import ProtobufWire

/// `entitlements.v1.CustomerStatus`: a customer's access, versioned so clients can order updates.
public struct CustomerStatus: ProtoMessage {
    /// `server_time`'s field number: ``SyncStatusResponse/encoding(customer:serverTime:)`` writes it after the rest.
    public static let serverTimeField = 4
    /// `signed_status`'s field number: written after `server_time`, like it.
    public static let signedStatusField = 5

    /// Canonical id (the surviving one after merges).
    public var appUserID = ""
    public var status: SubscriptionStatus?
    /// Grows by exactly one per change to the customer.
    public var version: UInt64 = 0
    public var serverTime: ProtoTimestamp?
    /// The status as a compact JWS signed with the tenant's key; empty when the tenant does not sign status.
    public var signedStatus = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        appUserID: String = "", status: SubscriptionStatus? = nil, version: UInt64 = 0, serverTime: ProtoTimestamp? = nil
    ) {
        self.appUserID = appUserID
        self.status = status
        self.version = version
        self.serverTime = serverTime
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: status = try reader.decodeMessage(tag)
            case 3: version = try reader.decodeUInt64(tag)
            case Self.serverTimeField: serverTime = try reader.decodeMessage(tag)
            case Self.signedStatusField: signedStatus = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeMessage(2, status)
        writer.writeUInt64(3, version)
        writer.writeMessage(Self.serverTimeField, serverTime)
        writer.writeString(Self.signedStatusField, signedStatus)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SubscriptionStatus`: the entitlements a customer holds right now.
public struct SubscriptionStatus: ProtoMessage {
    /// `SubscriptionStatus.State`: `.active` exactly when there are entitlements.
    public struct State: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let active = Self(rawValue: 1)
        public static let inactive = Self(rawValue: 2)
    }

    public var state = State.unspecified
    /// One per entitlement id, ordered by id.
    public var entitlements: [ActiveEntitlement] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(state: State = .unspecified, entitlements: [ActiveEntitlement] = []) {
        self.state = state
        self.entitlements = entitlements
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: state = try reader.decodeEnum(tag)
            case 2: entitlements.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, state)
        writer.writeRepeatedMessages(2, entitlements)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ActiveEntitlement`: one entitlement held now and what backs it.
public struct ActiveEntitlement: ProtoMessage {
    public var id = ""
    public var source = Store.unspecified
    /// Empty for grants.
    public var productID = ""
    /// `nil` means the entitlement does not expire.
    public var expiresAt: ProtoTimestamp?
    public var willRenew = false
    public var inGracePeriod = false
    public var inBillingRetry = false
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        id: String = "", source: Store = .unspecified, productID: String = "", expiresAt: ProtoTimestamp? = nil,
        willRenew: Bool = false, inGracePeriod: Bool = false, inBillingRetry: Bool = false
    ) {
        self.id = id
        self.source = source
        self.productID = productID
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.inGracePeriod = inGracePeriod
        self.inBillingRetry = inBillingRetry
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: id = try reader.decodeString(tag)
            case 2: source = try reader.decodeEnum(tag)
            case 3: productID = try reader.decodeString(tag)
            case 4: expiresAt = try reader.decodeMessage(tag)
            case 5: willRenew = try reader.decodeBool(tag)
            case 6: inGracePeriod = try reader.decodeBool(tag)
            case 7: inBillingRetry = try reader.decodeBool(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, id)
        writer.writeEnum(2, source)
        writer.writeString(3, productID)
        writer.writeMessage(4, expiresAt)
        writer.writeBool(5, willRenew)
        writer.writeBool(6, inGracePeriod)
        writer.writeBool(7, inBillingRetry)
        writer.writeRaw(unknownFields)
    }
}
