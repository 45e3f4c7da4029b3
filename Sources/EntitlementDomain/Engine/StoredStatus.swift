import ProtobufWire

/// The domain's own encoding of a status inside an event record, so a stream can be resumed from the log.
///
/// Private to the domain (storage keeps it as opaque bytes); the API's encoding belongs to the services layer.
struct StoredStatus: ProtoMessage {
    struct Entitlement: ProtoMessage {
        var id = ""
        var source: Int32 = 0
        var productID = ""
        var expiresAtMilliseconds: Int64?
        var willRenew = false
        var inGracePeriod = false
        var inBillingRetry = false
        var referenceID = ""
        var unknownFields: [UInt8] = []

        init() {}

        init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: id = try reader.decodeString(tag)
                case 2: source = try reader.decodeInt32(tag)
                case 3: productID = try reader.decodeString(tag)
                case 4: expiresAtMilliseconds = try reader.decodeInt64(tag)
                case 5: willRenew = try reader.decodeBool(tag)
                case 6: inGracePeriod = try reader.decodeBool(tag)
                case 7: inBillingRetry = try reader.decodeBool(tag)
                case 8: referenceID = try reader.decodeString(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        func encode(to writer: inout ProtoWriter) {
            writer.writeString(1, id)
            writer.writeInt32(2, source)
            writer.writeString(3, productID)
            if let expiresAtMilliseconds {
                // Written even when zero: presence is what says "has an expiry".
                writer.writeTag(4, .varint)
                writer.writeVarint(UInt64(bitPattern: expiresAtMilliseconds))
            }
            writer.writeBool(5, willRenew)
            writer.writeBool(6, inGracePeriod)
            writer.writeBool(7, inBillingRetry)
            writer.writeString(8, referenceID)
            writer.writeRaw(unknownFields)
        }
    }

    var entitlements: [Entitlement] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: entitlements.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, entitlements)
        writer.writeRaw(unknownFields)
    }

    init(_ status: ComputedStatus) {
        self.init()
        entitlements = status.entitlements.map { value in
            var entitlement = Entitlement()
            entitlement.id = value.id
            entitlement.source = value.source.storedStatusNumber
            entitlement.productID = value.productID
            entitlement.expiresAtMilliseconds = value.expiresAt?.milliseconds
            entitlement.willRenew = value.willRenew
            entitlement.inGracePeriod = value.inGracePeriod
            entitlement.inBillingRetry = value.inBillingRetry
            entitlement.referenceID = value.referenceID
            return entitlement
        }
    }

    /// The status as it was recorded; its `nextChangeAt` is not kept (a recorded status is history, not a plan).
    var computedStatus: ComputedStatus {
        ComputedStatus(
            entitlements: entitlements.map { entitlement in
                ActiveEntitlementValue(
                    id: entitlement.id,
                    source: EntitlementSource(storedStatusNumber: entitlement.source) ?? .grant,
                    productID: entitlement.productID,
                    expiresAt: entitlement.expiresAtMilliseconds.map(UnixTime.init(milliseconds:)),
                    willRenew: entitlement.willRenew,
                    inGracePeriod: entitlement.inGracePeriod,
                    inBillingRetry: entitlement.inBillingRetry,
                    referenceID: entitlement.referenceID)
            },
            nextChangeAt: nil)
    }
}

extension ComputedStatus {
    /// The bytes an event record keeps.
    public var storedBytes: [UInt8] { StoredStatus(self).serializedBytes() }

    /// A recorded status; a record that does not decode reads as inactive rather than failing the whole read.
    public init(storedBytes: [UInt8]) {
        self = (try? StoredStatus(serializedBytes: storedBytes))?.computedStatus ?? .inactive
    }
}

extension EntitlementSource {
    /// The number recorded statuses carry for the source: history on disk, so these never change.
    public var storedStatusNumber: Int32 {
        switch self {
        case .appStore: 1
        case .playStore: 2
        case .stripe: 3
        case .grant: 4
        }
    }

    public init?(storedStatusNumber: Int32) {
        guard let source = Self.allCases.first(where: { $0.storedStatusNumber == storedStatusNumber }) else { return nil }
        self = source
    }
}
