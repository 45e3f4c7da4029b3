public import ProtobufWire

/// `entitlements.v1.DescribeKeyRequest`: no fields (the key described is the call's), so `google.protobuf.Empty`'s
/// codec.
public typealias DescribeKeyRequest = ProtoEmpty

/// `entitlements.v1.KeyDescription`: the calling key's tenant, name and scope, and what the tenant declares.
public struct KeyDescription: ProtoMessage {
    /// `entitlements.v1.KeyDescription.Scope`.
    public struct Scope: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let read = Self(rawValue: 1)
        public static let write = Self(rawValue: 2)
    }

    public var tenantID = ""
    public var keyName = ""
    public var scope = Scope.unspecified
    /// Sorted.
    public var entitlements: [String] = []
    public var allowsUndeclaredEntitlements = false
    public var webhookEndpoints: [String] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: tenantID = try reader.decodeString(tag)
            case 2: keyName = try reader.decodeString(tag)
            case 3: scope = try reader.decodeEnum(tag)
            case 4: entitlements.append(try reader.decodeString(tag))
            case 5: allowsUndeclaredEntitlements = try reader.decodeBool(tag)
            case 6: webhookEndpoints.append(try reader.decodeString(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, tenantID)
        writer.writeString(2, keyName)
        writer.writeEnum(3, scope)
        writer.writeRepeatedStrings(4, entitlements)
        writer.writeBool(5, allowsUndeclaredEntitlements)
        writer.writeRepeatedStrings(6, webhookEndpoints)
        writer.writeRaw(unknownFields)
    }
}
