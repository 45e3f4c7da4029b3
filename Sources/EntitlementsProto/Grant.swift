public import ProtobufWire

/// `entitlements.v1.GrantEntitlementRequest`: give a customer an entitlement outside any store.
public struct GrantEntitlementRequest: ProtoMessage {
    public var appUserID = ""
    public var entitlementID = ""
    /// Set at most one of `expiresAt` and `duration`; neither means the grant never expires.
    public var expiresAt: ProtoTimestamp?
    public var duration: ProtoDuration?
    public var reason = ""
    /// Retries with the same key return the first grant instead of creating another.
    public var idempotencyKey = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        appUserID: String = "", entitlementID: String = "", expiresAt: ProtoTimestamp? = nil,
        duration: ProtoDuration? = nil, reason: String = "", idempotencyKey: String = ""
    ) {
        self.appUserID = appUserID
        self.entitlementID = entitlementID
        self.expiresAt = expiresAt
        self.duration = duration
        self.reason = reason
        self.idempotencyKey = idempotencyKey
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: entitlementID = try reader.decodeString(tag)
            case 3: expiresAt = try reader.decodeMessage(tag)
            case 4: duration = try reader.decodeMessage(tag)
            case 5: reason = try reader.decodeString(tag)
            case 6: idempotencyKey = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeString(2, entitlementID)
        writer.writeMessage(3, expiresAt)
        writer.writeMessage(4, duration)
        writer.writeString(5, reason)
        writer.writeString(6, idempotencyKey)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.Grant`: an entitlement given by an operator.
public struct Grant: ProtoMessage {
    public var grantID = ""
    public var appUserID = ""
    public var entitlementID = ""
    public var startsAt: ProtoTimestamp?
    /// `nil` means the grant never expires.
    public var expiresAt: ProtoTimestamp?
    /// `nil` while the grant is in force.
    public var revokedAt: ProtoTimestamp?
    public var reason = ""
    public var revocationReason = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        grantID: String = "", appUserID: String = "", entitlementID: String = "", startsAt: ProtoTimestamp? = nil,
        expiresAt: ProtoTimestamp? = nil, revokedAt: ProtoTimestamp? = nil, reason: String = "",
        revocationReason: String = ""
    ) {
        self.grantID = grantID
        self.appUserID = appUserID
        self.entitlementID = entitlementID
        self.startsAt = startsAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.reason = reason
        self.revocationReason = revocationReason
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: grantID = try reader.decodeString(tag)
            case 2: appUserID = try reader.decodeString(tag)
            case 3: entitlementID = try reader.decodeString(tag)
            case 4: startsAt = try reader.decodeMessage(tag)
            case 5: expiresAt = try reader.decodeMessage(tag)
            case 6: revokedAt = try reader.decodeMessage(tag)
            case 7: reason = try reader.decodeString(tag)
            case 8: revocationReason = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, grantID)
        writer.writeString(2, appUserID)
        writer.writeString(3, entitlementID)
        writer.writeMessage(4, startsAt)
        writer.writeMessage(5, expiresAt)
        writer.writeMessage(6, revokedAt)
        writer.writeString(7, reason)
        writer.writeString(8, revocationReason)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RevokeGrantRequest`: end a grant now.
public struct RevokeGrantRequest: ProtoMessage {
    public var grantID = ""
    public var reason = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(grantID: String = "", reason: String = "") {
        self.grantID = grantID
        self.reason = reason
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: grantID = try reader.decodeString(tag)
            case 2: reason = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, grantID)
        writer.writeString(2, reason)
        writer.writeRaw(unknownFields)
    }
}
