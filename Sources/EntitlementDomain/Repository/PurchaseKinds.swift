/// The store that sold a purchase. Storage and the API each map it to their own numbers explicitly
/// (`StorageColumns`, `ProtoMapping`); a test pins all three.
public enum Store: Sendable, Hashable, CaseIterable {
    case appStore
    case playStore
    /// A web checkout through Stripe (the API's and the database's `WEB`, 3).
    case stripe

    /// Where its entitlements come from, in status.
    public var entitlementSource: EntitlementSource {
        switch self {
        case .appStore: .appStore
        case .playStore: .playStore
        case .stripe: .stripe
        }
    }
}

/// The store environment a purchase was made in.
public enum PurchaseEnvironment: Sendable, Hashable, CaseIterable {
    case production
    case sandbox
    /// Signed by Xcode's local StoreKit configuration (never verifiable).
    case xcode
    /// Apple's local testing environment.
    case localTesting
}

/// Who bought it: the user, or a family member sharing it (Family Sharing).
public enum PurchaseOwnership: Sendable, Hashable, CaseIterable {
    case purchased
    case familyShared
}

/// Where the newest data of a purchase came from.
public enum PurchaseOrigin: Sendable, Hashable, CaseIterable {
    /// A device presented it (Purchase, Restore).
    case device
    /// A store notification carried it.
    case notification
    /// The server asked the store's API.
    case storeAPI
}
