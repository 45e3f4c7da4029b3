/// Where an entitlement comes from. Raw values are `entitlements.v1.Store`'s (the domain does not import the proto).
public enum EntitlementSource: Int32, Sendable, Hashable, CaseIterable, Comparable {
    case appStore = 1
    case playStore = 2
    case web = 3
    /// A grant an admin made with a secret key.
    case grant = 4

    /// Declaration order, which is also the preference order when two sources are otherwise equal.
    public static func < (lhs: EntitlementSource, rhs: EntitlementSource) -> Bool { lhs.rawValue < rhs.rawValue }
}
