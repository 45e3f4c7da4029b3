public import ProtobufWire

/// `entitlements.v1.ListCustomersRequest`: one page of the tenant's customers, filtered.
public struct ListCustomersRequest: ProtoMessage {
    /// `ListCustomersRequest.State`: customers by what they hold now.
    public struct State: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let active = Self(rawValue: 1)
        public static let inactive = Self(rawValue: 2)
        public static let gracePeriod = Self(rawValue: 3)
        public static let billingRetry = Self(rawValue: 4)
    }

    /// 0 means the server default.
    public var pageSize: Int32 = 0
    /// The previous page's `nextPageToken`; empty for the first page.
    public var pageToken = ""
    public var entitlementID = ""
    public var store = Store.unspecified
    public var productID = ""
    public var state = State.unspecified
    public var changedSince: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        pageSize: Int32 = 0, pageToken: String = "", entitlementID: String = "", store: Store = .unspecified,
        productID: String = "", state: State = .unspecified, changedSince: ProtoTimestamp? = nil
    ) {
        self.pageSize = pageSize
        self.pageToken = pageToken
        self.entitlementID = entitlementID
        self.store = store
        self.productID = productID
        self.state = state
        self.changedSince = changedSince
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: pageSize = try reader.decodeInt32(tag)
            case 2: pageToken = try reader.decodeString(tag)
            case 3: entitlementID = try reader.decodeString(tag)
            case 4: store = try reader.decodeEnum(tag)
            case 5: productID = try reader.decodeString(tag)
            case 6: state = try reader.decodeEnum(tag)
            case 7: changedSince = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt32(1, pageSize)
        writer.writeString(2, pageToken)
        writer.writeString(3, entitlementID)
        writer.writeEnum(4, store)
        writer.writeString(5, productID)
        writer.writeEnum(6, state)
        writer.writeMessage(7, changedSince)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListCustomersResponse`.
public struct ListCustomersResponse: ProtoMessage {
    /// In creation order.
    public var customers: [ListedCustomer] = []
    /// Empty on the last page.
    public var nextPageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(customers: [ListedCustomer] = [], nextPageToken: String = "") {
        self.customers = customers
        self.nextPageToken = nextPageToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customers.append(try reader.decodeMessage(tag))
            case 2: nextPageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, customers)
        writer.writeString(2, nextPageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListedCustomer`: a customer's status with when it was created and last changed.
public struct ListedCustomer: ProtoMessage {
    public var customer: CustomerStatus?
    public var createdAt: ProtoTimestamp?
    public var changedAt: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(customer: CustomerStatus? = nil, createdAt: ProtoTimestamp? = nil, changedAt: ProtoTimestamp? = nil) {
        self.customer = customer
        self.createdAt = createdAt
        self.changedAt = changedAt
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customer = try reader.decodeMessage(tag)
            case 2: createdAt = try reader.decodeMessage(tag)
            case 3: changedAt = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, customer)
        writer.writeMessage(2, createdAt)
        writer.writeMessage(3, changedAt)
        writer.writeRaw(unknownFields)
    }
}
