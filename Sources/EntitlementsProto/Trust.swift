public import ProtobufWire

/// `entitlements.v1.DescribeTrustRequest`: no fields (the tenant is the caller's), so `google.protobuf.Empty`'s codec.
public typealias DescribeTrustRequest = ProtoEmpty

/// `entitlements.v1.TrustDescription`: a tenant's user tokens and signed status.
public struct TrustDescription: ProtoMessage {
    public var userTokens: UserTokenDescription?
    /// nil when the tenant does not sign status.
    public var signedStatus: StatusSigningDescription?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: userTokens = try reader.decodeMessage(tag)
            case 2: signedStatus = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, userTokens)
        writer.writeMessage(2, signedStatus)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.UserTokenDescription`: a tenant's `user_tokens` and this instance's counts of the tokens it judged.
public struct UserTokenDescription: ProtoMessage {
    /// `entitlements.v1.UserTokenDescription.Mode`.
    public struct Mode: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let off = Self(rawValue: 1)
        public static let observe = Self(rawValue: 2)
        public static let required = Self(rawValue: 3)
    }

    public var mode = Mode.unspecified
    public var issuer = ""
    public var maxLifetimeSeconds: UInt32 = 0
    /// How many, never the secrets.
    public var hs256Secrets: UInt32 = 0
    /// The `jwks_url`, `file` for a `jwks_file`, empty for none.
    public var keysFrom = ""
    public var allowsAnonymous = false
    /// Most first.
    public var counts: [UserTokenCount] = []
    public var countedSince: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: mode = try reader.decodeEnum(tag)
            case 2: issuer = try reader.decodeString(tag)
            case 3: maxLifetimeSeconds = try reader.decodeUInt32(tag)
            case 4: hs256Secrets = try reader.decodeUInt32(tag)
            case 5: keysFrom = try reader.decodeString(tag)
            case 6: allowsAnonymous = try reader.decodeBool(tag)
            case 7: counts.append(try reader.decodeMessage(tag))
            case 8: countedSince = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, mode)
        writer.writeString(2, issuer)
        writer.writeUInt32(3, maxLifetimeSeconds)
        writer.writeUInt32(4, hs256Secrets)
        writer.writeString(5, keysFrom)
        writer.writeBool(6, allowsAnonymous)
        writer.writeRepeatedMessages(7, counts)
        writer.writeMessage(8, countedSince)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.UserTokenCount`: how many tokens had one outcome, for one reason.
public struct UserTokenCount: ProtoMessage {
    public var outcome = ""
    /// Empty for accepted tokens.
    public var reason = ""
    public var count: UInt64 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(outcome: String, reason: String, count: UInt64) {
        self.outcome = outcome
        self.reason = reason
        self.count = count
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: outcome = try reader.decodeString(tag)
            case 2: reason = try reader.decodeString(tag)
            case 3: count = try reader.decodeUInt64(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, outcome)
        writer.writeString(2, reason)
        writer.writeUInt64(3, count)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.StatusSigningDescription`: the keys of a tenant's `signed_status`.
public struct StatusSigningDescription: ProtoMessage {
    public var signingKeyID = ""
    public var keyIDs: [String] = []
    public var offlineValidityHours: UInt32 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: signingKeyID = try reader.decodeString(tag)
            case 2: keyIDs.append(try reader.decodeString(tag))
            case 3: offlineValidityHours = try reader.decodeUInt32(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, signingKeyID)
        writer.writeRepeatedStrings(2, keyIDs)
        writer.writeUInt32(3, offlineValidityHours)
        writer.writeRaw(unknownFields)
    }
}
