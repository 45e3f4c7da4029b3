public import ProtobufWire

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

/// `entitlements.v1.StoreEnvironment`: where a purchase was made.
public struct StoreEnvironment: ProtoEnum {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: 0)
    public static let production = Self(rawValue: 1)
    /// App Store sandbox or a Google Play test purchase.
    public static let sandbox = Self(rawValue: 2)
    /// Signed by Xcode's local StoreKit configuration.
    public static let xcode = Self(rawValue: 3)
    public static let localTesting = Self(rawValue: 4)
}
