public import ProtobufWire

/// `entitlements.v1.ReconcileAppStoreRequest`: a window of Apple's notification history to replay.
public struct ReconcileAppStoreRequest: ProtoMessage {
    public var startTime: ProtoTimestamp?
    public var endTime: ProtoTimestamp?
    /// Any App Store transaction ID of each customer whose notifications to read; empty: all.
    public var transactionIDs: [String] = []
    public var onlyFailures = false
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        startTime: ProtoTimestamp? = nil, endTime: ProtoTimestamp? = nil, transactionIDs: [String] = [],
        onlyFailures: Bool = false
    ) {
        self.startTime = startTime
        self.endTime = endTime
        self.transactionIDs = transactionIDs
        self.onlyFailures = onlyFailures
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: startTime = try reader.decodeMessage(tag)
            case 2: endTime = try reader.decodeMessage(tag)
            case 3: transactionIDs.append(try reader.decodeString(tag))
            case 4: onlyFailures = try reader.decodeBool(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, startTime)
        writer.writeMessage(2, endTime)
        writer.writeRepeatedStrings(3, transactionIDs)
        writer.writeBool(4, onlyFailures)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ReconcileAppStoreResponse`: one report per environment read.
public struct ReconcileAppStoreResponse: ProtoMessage {
    public var environments: [AppStoreReconciliation] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(environments: [AppStoreReconciliation]) {
        self.environments = environments
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: environments.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, environments)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.AppStoreReconciliation`: what one environment's notification history held.
public struct AppStoreReconciliation: ProtoMessage {
    public var environment = StoreEnvironment.unspecified
    public var startTime: ProtoTimestamp?
    public var endTime: ProtoTimestamp?
    public var pages: Int32 = 0
    public var found: Int32 = 0
    public var applied: Int32 = 0
    public var unchanged: Int32 = 0
    public var unowned: Int32 = 0
    public var alreadyProcessed: Int32 = 0
    public var rejected: Int32 = 0
    public var rejections: [String] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: environment = try reader.decodeEnum(tag)
            case 2: startTime = try reader.decodeMessage(tag)
            case 3: endTime = try reader.decodeMessage(tag)
            case 4: pages = try reader.decodeInt32(tag)
            case 5: found = try reader.decodeInt32(tag)
            case 6: applied = try reader.decodeInt32(tag)
            case 7: unchanged = try reader.decodeInt32(tag)
            case 8: unowned = try reader.decodeInt32(tag)
            case 9: alreadyProcessed = try reader.decodeInt32(tag)
            case 10: rejected = try reader.decodeInt32(tag)
            case 11: rejections.append(try reader.decodeString(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, environment)
        writer.writeMessage(2, startTime)
        writer.writeMessage(3, endTime)
        writer.writeInt32(4, pages)
        writer.writeInt32(5, found)
        writer.writeInt32(6, applied)
        writer.writeInt32(7, unchanged)
        writer.writeInt32(8, unowned)
        writer.writeInt32(9, alreadyProcessed)
        writer.writeInt32(10, rejected)
        writer.writeRepeatedStrings(11, rejections)
        writer.writeRaw(unknownFields)
    }
}
