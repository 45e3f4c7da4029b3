public import ProtobufWire

/// `entitlements.v1.CountCustomersRequest`: no fields yet (the caller's tenant, now); unknown ones are kept.
public struct CountCustomersRequest: ProtoMessage {
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            unknownFields += try reader.skipField(tag)
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.CountCustomersResponse`: active customers in all and per entitlement, product and store.
public struct CountCustomersResponse: ProtoMessage {
    public var activeCustomers: Int64 = 0
    /// Ordered by entitlement ID.
    public var entitlements: [CustomerCount] = []
    /// Ordered by product ID.
    public var products: [CustomerCount] = []
    /// In `Store` order.
    public var stores: [StoreCount] = []
    public var countedAt: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        activeCustomers: Int64 = 0, entitlements: [CustomerCount] = [], products: [CustomerCount] = [],
        stores: [StoreCount] = [], countedAt: ProtoTimestamp? = nil
    ) {
        self.activeCustomers = activeCustomers
        self.entitlements = entitlements
        self.products = products
        self.stores = stores
        self.countedAt = countedAt
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: activeCustomers = try reader.decodeInt64(tag)
            case 2: entitlements.append(try reader.decodeMessage(tag))
            case 3: products.append(try reader.decodeMessage(tag))
            case 4: stores.append(try reader.decodeMessage(tag))
            case 5: countedAt = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt64(1, activeCustomers)
        writer.writeRepeatedMessages(2, entitlements)
        writer.writeRepeatedMessages(3, products)
        writer.writeRepeatedMessages(4, stores)
        writer.writeMessage(5, countedAt)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.CustomerCount`: distinct customers holding an entitlement, or one a product gives, now.
public struct CustomerCount: ProtoMessage {
    /// The entitlement ID or product ID counted.
    public var id = ""
    public var customers: Int64 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(id: String, customers: Int64) {
        self.id = id
        self.customers = customers
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: id = try reader.decodeString(tag)
            case 2: customers = try reader.decodeInt64(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, id)
        writer.writeInt64(2, customers)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.StoreCount`.
public struct StoreCount: ProtoMessage {
    public var store = Store.unspecified
    public var customers: Int64 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(store: Store, customers: Int64) {
        self.store = store
        self.customers = customers
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: store = try reader.decodeEnum(tag)
            case 2: customers = try reader.decodeInt64(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, store)
        writer.writeInt64(2, customers)
        writer.writeRaw(unknownFields)
    }
}
