/// The App Store environment signed data belongs to (`environment`, or `receiptType` in an app transaction).
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// Xcode's local StoreKit configuration: never signed by the App Store.
    case xcode = "Xcode"
    /// Apple's libraries use it for unit tests; never signed by the App Store.
    case localTesting = "LocalTesting"

    /// Xcode and LocalTesting data are not signed by the App Store and cannot be verified.
    public var isSignedByAppStore: Bool { self == .production || self == .sandbox }
}
