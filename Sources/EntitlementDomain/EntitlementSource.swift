/// Where an entitlement comes from. The API and the stored status encoding map it explicitly; a test pins them.
public enum EntitlementSource: Sendable, Hashable, CaseIterable, Comparable {
    case appStore
    case playStore
    /// Stripe (the API's and recorded statuses' `WEB`, 3).
    case stripe
    /// A grant an admin made with a secret key.
    case grant

    /// Declaration order, which is also the preference order when two sources are otherwise equal.
    public static func < (lhs: EntitlementSource, rhs: EntitlementSource) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
