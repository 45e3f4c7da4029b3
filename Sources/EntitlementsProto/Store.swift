import ProtobufWire

/// `entitlements.v1.Store`: where an entitlement or a transaction comes from.
///
/// Like every enum of the contract this is an open enum (see ``ProtoEnum``): values added to
/// the proto later decode into `Store(rawValue:)` and survive re-encoding.
public struct Store: ProtoEnum {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: 0)
    public static let appStore = Self(rawValue: 1)
    public static let playStore = Self(rawValue: 2)
    public static let web = Self(rawValue: 3)
    public static let grant = Self(rawValue: 4)
}
