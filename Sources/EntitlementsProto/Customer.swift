public import ProtobufWire

/// `entitlements.v1.GetCustomerRequest`.
public struct GetCustomerRequest: ProtoMessage {
    public var appUserID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "") {
        self.appUserID = appUserID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.Customer`: everything known about one customer.
public struct Customer: ProtoMessage {
    public var customer: CustomerStatus?
    /// Merged anonymous ids, oldest first.
    public var aliases: [String] = []
    public var grants: [Grant] = []
    public var transactions: [Transaction] = []
    /// By key.
    public var attributes: [Attribute] = []
    /// The newest 50, newest first.
    public var offerSignatures: [OfferSignature] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(
        customer: CustomerStatus? = nil, aliases: [String] = [], grants: [Grant] = [], transactions: [Transaction] = [],
        attributes: [Attribute] = []
    ) {
        self.customer = customer
        self.aliases = aliases
        self.grants = grants
        self.transactions = transactions
        self.attributes = attributes
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customer = try reader.decodeMessage(tag)
            case 2: aliases.append(try reader.decodeString(tag))
            case 3: grants.append(try reader.decodeMessage(tag))
            case 4: transactions.append(try reader.decodeMessage(tag))
            case 5: attributes.append(try reader.decodeMessage(tag))
            case 6: offerSignatures.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, customer)
        writer.writeRepeatedStrings(2, aliases)
        writer.writeRepeatedMessages(3, grants)
        writer.writeRepeatedMessages(4, transactions)
        writer.writeRepeatedMessages(5, attributes)
        writer.writeRepeatedMessages(6, offerSignatures)
        writer.writeRaw(unknownFields)
    }
}
