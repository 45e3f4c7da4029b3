public import ProtobufWire

/// `entitlements.v1.FindCustomersRequest`: one ID to look up.
public struct FindCustomersRequest: ProtoMessage {
    public var query = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(query: String) {
        self.query = query
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: query = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, query)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.FindCustomersResponse`: customers by their IDs first, then purchases.
public struct FindCustomersResponse: ProtoMessage {
    public var matches: [CustomerMatch] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(matches: [CustomerMatch]) {
        self.matches = matches
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: matches.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, matches)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.CustomerMatch`: one thing the query named.
public struct CustomerMatch: ProtoMessage {
    /// `entitlements.v1.CustomerMatch.MatchedBy`.
    public struct MatchedBy: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let appUserID = Self(rawValue: 1)
        public static let alias = Self(rawValue: 2)
        public static let originalTransactionID = Self(rawValue: 3)
        public static let transactionID = Self(rawValue: 4)
        public static let storeReference = Self(rawValue: 5)
        public static let email = Self(rawValue: 6)
    }

    /// Empty for a purchase nobody owns yet.
    public var appUserID = ""
    public var matchedBy = MatchedBy.unspecified
    public var store = Store.unspecified
    public var originalTransactionID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        appUserID: String = "", matchedBy: MatchedBy = .unspecified, store: Store = .unspecified,
        originalTransactionID: String = ""
    ) {
        self.appUserID = appUserID
        self.matchedBy = matchedBy
        self.store = store
        self.originalTransactionID = originalTransactionID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: matchedBy = try reader.decodeEnum(tag)
            case 3: store = try reader.decodeEnum(tag)
            case 4: originalTransactionID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeEnum(2, matchedBy)
        writer.writeEnum(3, store)
        writer.writeString(4, originalTransactionID)
        writer.writeRaw(unknownFields)
    }
}
