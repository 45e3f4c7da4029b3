
/// One record that can make an entitlement active: a grant now, a store transaction (one per entitlement its product
/// maps to) later. Status is computed from these alone, so the calculator knows nothing of where they came from.
public struct EntitlementCandidate: Hashable, Sendable {
    public var entitlementID: String
    public var source: EntitlementSource
    /// The store product; empty for grants.
    public var productID: String
    /// Active from this instant on (inclusive).
    public var startsAt: UnixTime
    /// Active until just before this instant (exclusive); nil: no expiry (lifetime).
    public var expiresAt: UnixTime?
    /// Inactive from this instant on (inclusive); nil: not revoked. May lie in the future (a scheduled revocation).
    public var revokedAt: UnixTime?
    public var willRenew: Bool
    public var inGracePeriod: Bool
    public var inBillingRetry: Bool
    /// What backs it: a grant ID or a store transaction ID.
    public var referenceID: String

    public init(
        entitlementID: String, source: EntitlementSource, productID: String = "", startsAt: UnixTime,
        expiresAt: UnixTime?, revokedAt: UnixTime? = nil, willRenew: Bool = false, inGracePeriod: Bool = false,
        inBillingRetry: Bool = false, referenceID: String
    ) {
        self.entitlementID = entitlementID
        self.source = source
        self.productID = productID
        self.startsAt = startsAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.willRenew = willRenew
        self.inGracePeriod = inGracePeriod
        self.inBillingRetry = inBillingRetry
        self.referenceID = referenceID
    }

    /// A grant as a candidate: source `.grant`, no product, never renews, backed by the grant ID.
    public init(grant: GrantRecord) {
        self.init(
            entitlementID: grant.entitlementID, source: .grant, productID: "", startsAt: grant.startsAt,
            expiresAt: grant.expiresAt, revokedAt: grant.revokedAt, referenceID: grant.grantID)
    }

    /// Whether this candidate gives its entitlement at `now`: started, not revoked at or before `now`, and not yet
    /// expired (`now < expiresAt`; an entitlement expiring at 12:00:00.000 is inactive at 12:00:00.000).
    public func isActive(at now: UnixTime) -> Bool {
        guard startsAt <= now else { return false }
        if let revokedAt, revokedAt <= now { return false }
        if let expiresAt, expiresAt <= now { return false }
        return true
    }

    /// When it stops giving its entitlement, as known now: the earlier of its expiry and a revocation; nil: never.
    public var endsAt: UnixTime? {
        switch (expiresAt, revokedAt) {
        case (nil, nil): nil
        case (let expiry?, nil): expiry
        case (nil, let revocation?): revocation
        case (let expiry?, let revocation?): min(expiry, revocation)
        }
    }
}
