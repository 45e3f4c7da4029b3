public import ProtobufWire

/// `entitlements.v1.RestoreRequest`: every purchase the device knows of.
public struct RestoreRequest: ProtoMessage {
    public var appUserID = ""
    public var appStore: [AppStorePurchase] = []
    public var playStore: [PlayStorePurchase] = []
    /// App Store transaction IDs whose transaction histories to read from Apple.
    public var appStoreTransactionIDs: [String] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        appUserID: String = "", appStore: [AppStorePurchase] = [], playStore: [PlayStorePurchase] = [],
        appStoreTransactionIDs: [String] = []
    ) {
        self.appUserID = appUserID
        self.appStore = appStore
        self.playStore = playStore
        self.appStoreTransactionIDs = appStoreTransactionIDs
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: appStore.append(try reader.decodeMessage(tag))
            case 3: playStore.append(try reader.decodeMessage(tag))
            case 4: appStoreTransactionIDs.append(try reader.decodeString(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeRepeatedMessages(2, appStore)
        writer.writeRepeatedMessages(3, playStore)
        writer.writeRepeatedStrings(4, appStoreTransactionIDs)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RestoreResponse`.
public struct RestoreResponse: ProtoMessage {
    public var customer: CustomerStatus?
    /// Customers purchases were moved away from, without repeats.
    public var transferredFromAppUserIDs: [String] = []
    /// One per App Store and Play purchase of the request, in the same order.
    public var results: [PurchaseResult] = []
    /// One per App Store transaction history read.
    public var appStoreHistories: [AppStoreHistoryResult] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        customer: CustomerStatus? = nil, transferredFromAppUserIDs: [String] = [], results: [PurchaseResult] = [],
        appStoreHistories: [AppStoreHistoryResult] = []
    ) {
        self.customer = customer
        self.transferredFromAppUserIDs = transferredFromAppUserIDs
        self.results = results
        self.appStoreHistories = appStoreHistories
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customer = try reader.decodeMessage(tag)
            case 2: transferredFromAppUserIDs.append(try reader.decodeString(tag))
            case 3: results.append(try reader.decodeMessage(tag))
            case 4: appStoreHistories.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, customer)
        writer.writeRepeatedStrings(2, transferredFromAppUserIDs)
        writer.writeRepeatedMessages(3, results)
        writer.writeRepeatedMessages(4, appStoreHistories)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.AppStoreHistoryResult`: what Apple's transaction history held for one transaction ID of a
/// Restore.
public struct AppStoreHistoryResult: ProtoMessage {
    public var transactionID = ""
    public var environment = StoreEnvironment.unspecified
    /// Signed transactions over all pages, each verified.
    public var transactionsFound: UInt32 = 0
    /// The newest state of each purchase in the history, as attached.
    public var purchases: [PurchaseResult] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: transactionID = try reader.decodeString(tag)
            case 2: environment = try reader.decodeEnum(tag)
            case 3: transactionsFound = try reader.decodeUInt32(tag)
            case 4: purchases.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, transactionID)
        writer.writeEnum(2, environment)
        writer.writeUInt32(3, transactionsFound)
        writer.writeRepeatedMessages(4, purchases)
        writer.writeRaw(unknownFields)
    }
}
