
/// One entitlement a customer holds, and the record that backs it (the one that lasts longest).
public struct ActiveEntitlementValue: Hashable, Sendable {
    public var id: String
    public var source: EntitlementSource
    /// Empty for grants.
    public var productID: String
    /// When it stops as known now: the backing record's expiry, or an earlier scheduled revocation; nil: never.
    public var expiresAt: UnixTime?
    public var willRenew: Bool
    public var inGracePeriod: Bool
    public var inBillingRetry: Bool
    /// The grant ID or purchase (original transaction ID) behind it (not sent to clients; for logs, events and `GetCustomer`).
    public var referenceID: String

    public init(
        id: String, source: EntitlementSource, productID: String, expiresAt: UnixTime?, willRenew: Bool,
        inGracePeriod: Bool, inBillingRetry: Bool, referenceID: String
    ) {
        self.id = id
        self.source = source
        self.productID = productID
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.inGracePeriod = inGracePeriod
        self.inBillingRetry = inBillingRetry
        self.referenceID = referenceID
    }
}

/// A customer's status at one instant, as ``StatusCalculator`` computes it.
///
/// Equality compares every stored property, `nextChangeAt` included; to ask whether a client would see a
/// difference, use ``StatusCalculator/change(from:to:)``, which ignores `nextChangeAt`.
public struct ComputedStatus: Hashable, Sendable {
    /// One per entitlement ID, sorted by ID.
    public let entitlements: [ActiveEntitlementValue]
    /// The earliest instant after the one computed for at which the status differs without any new record
    /// (a start, an expiry, a scheduled revocation); nil when it never changes by time alone.
    public var nextChangeAt: UnixTime?

    /// `entitlements` are sorted by ID here; the caller passes at most one value per ID.
    public init(entitlements: [ActiveEntitlementValue], nextChangeAt: UnixTime?) {
        self.entitlements = entitlements.sorted { $0.id < $1.id }
        self.nextChangeAt = nextChangeAt
    }

    /// No entitlements, and none coming by time.
    public static let inactive = ComputedStatus(entitlements: [], nextChangeAt: nil)

    /// ACTIVE exactly when at least one entitlement is held.
    public var isActive: Bool { !entitlements.isEmpty }

    public var activeIDs: Set<String> { Set(entitlements.map(\.id)) }

    public func entitlement(_ id: String) -> ActiveEntitlementValue? {
        entitlements.first { $0.id == id }
    }
}
