/// What caused a customer event. Raw values are `entitlements.v1.CustomerEvent.Cause`'s, stored as they are.
public enum EventCause: Int32, Sendable, CaseIterable {
    case created = 1
    case merged = 2
    case purchase = 3
    case restore = 4
    case transferredIn = 5
    case transferredOut = 6
    case appStoreNotification = 7
    case playStoreNotification = 8
    case grant = 9
    case revoke = 10
    case expiry = 11
}

/// Whether a change touched the set of active entitlements. Raw values are `StatusEvent.Kind`'s.
public enum StatusChange: Int32, Sendable {
    /// The set of active entitlement IDs changed (something was gained or lost).
    case statusChanged = 2
    /// The set is the same, but details changed: an expiry date, will_renew, grace or billing-retry state, a product.
    case customerInfoChanged = 3
}
