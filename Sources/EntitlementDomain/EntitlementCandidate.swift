
/// One record that can make an entitlement active: a grant now, a store purchase (one per entitlement its product
/// maps to) later. Status is computed from these alone, so the calculator knows nothing of where they came from.
public struct EntitlementCandidate: Hashable, Sendable {
    public var entitlementID: String
    public var source: EntitlementSource
    /// The store product; empty for grants.
    public var productID: String
    /// When it gives its entitlement.
    public var span: AccessSpan
    public var willRenew: Bool
    public var inGracePeriod: Bool
    public var inBillingRetry: Bool
    /// What backs it: a grant ID or a purchase's original transaction ID.
    public var referenceID: String

    public init(
        entitlementID: String, source: EntitlementSource, productID: String = "", startsAt: UnixTime,
        expiresAt: UnixTime?, revokedAt: UnixTime? = nil, willRenew: Bool = false, inGracePeriod: Bool = false,
        inBillingRetry: Bool = false, referenceID: String
    ) {
        self.entitlementID = entitlementID
        self.source = source
        self.productID = productID
        self.span = AccessSpan(startsAt: startsAt, endsAt: expiresAt, revokedAt: revokedAt)
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

    /// Active from this instant on (inclusive).
    public var startsAt: UnixTime {
        get { span.startsAt }
        set { span.startsAt = newValue }
    }
    /// Active until just before this instant (exclusive); nil: no expiry (lifetime).
    public var expiresAt: UnixTime? {
        get { span.endsAt }
        set { span.endsAt = newValue }
    }
    /// Inactive from this instant on (inclusive); nil: not revoked. May lie in the future (a scheduled revocation).
    public var revokedAt: UnixTime? {
        get { span.revokedAt }
        set { span.revokedAt = newValue }
    }

    /// Whether this candidate gives its entitlement at `now`.
    public func isActive(at now: UnixTime) -> Bool { span.contains(now) }

    /// When it stops giving its entitlement, as known now: the earlier of its expiry and a revocation; nil: never.
    public var endsAt: UnixTime? { span.lastsUntil }
}
