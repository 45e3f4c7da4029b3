import CivilCalendar

/// Whether a purchase grants its entitlements, from when, until when, and why not: the one answer for every store.
/// Each store's interpretation states its purchases in the terms read here (a period, a ``RenewalState``, a
/// revocation, a replacement), so a grace period, a pause or a hold means the same whichever store reported it;
/// status, the subscriber index and every reply that says "grants access" read this.
///
/// README's "How status works" has the table of what each state grants, and which store states become it; a test
/// derives its last column from this type.
public struct PurchaseAccess: Hashable, Sendable {
    /// Why a purchase grants nothing at some instant.
    public enum Denial: Hashable, Sendable {
        /// The user upgraded from this purchase; the upgrade's own purchase grants (Apple's `isUpgraded`).
        case upgraded
        /// Another purchase replaced this one (Google Play's `linkedPurchaseToken`).
        case superseded
        /// The store says it gives nothing now (``RenewalState/held(billingRetry:)``).
        case held
        /// Its period, or its resumption after a pause, lies ahead.
        case notStarted
        case expired
        case revoked
    }

    /// When the purchase grants: from the period's start (or a pause's end), until just before the period's end
    /// (or the grace period's, if later; nil: for life, a non-consumable), ended early by a revocation. nil when it
    /// grants nothing at any time.
    public let span: AccessSpan?
    /// Why it grants nothing at any time, if so.
    private let never: Denial?

    public init(_ purchase: StorePurchase) {
        let never: Denial?
        if purchase.isUpgraded {
            never = .upgraded
        } else if !purchase.supersededBy.isEmpty {
            never = .superseded
        } else if case .held = purchase.renewal {
            never = .held
        } else {
            never = nil
        }
        self.never = never
        guard never == nil else {
            span = nil
            return
        }
        let periodStart = purchase.accessFrom ?? purchase.purchasedAt
        let startsAt: UnixTime
        switch purchase.renewal {
        case .paused(let resumesAt): startsAt = max(resumesAt, periodStart)
        default: startsAt = periodStart
        }
        let endsAt: UnixTime?
        switch (purchase.expiresAt, purchase.renewal) {
        case (let expiry?, .grace(let until)): endsAt = max(expiry, until)
        default: endsAt = purchase.expiresAt
        }
        span = AccessSpan(startsAt: startsAt, endsAt: endsAt, revokedAt: purchase.revokedAt)
    }

    /// Access begins at this instant (inclusive); nil when the purchase grants nothing at any time.
    public var startsAt: UnixTime? { span?.startsAt }
    /// Access ends just before this instant (exclusive); nil: for life, or never granting.
    public var endsAt: UnixTime? { span?.endsAt }

    /// Why the purchase grants nothing at `now`; nil when it grants.
    public func denial(at now: UnixTime) -> Denial? {
        if let never { return never }
        switch span?.outside(at: now) {
        case nil: return nil
        case .notStarted: return .notStarted
        case .expired: return .expired
        case .revoked: return .revoked
        }
    }

    /// The purchase grants its entitlements at `now`.
    public func grants(at now: UnixTime) -> Bool { denial(at: now) == nil }

    /// How far ahead of the server's clock a store may date a purchase and have it count as starting when it is
    /// applied: the stores' clocks and ours differ by seconds, and a purchase the store has just confirmed should
    /// not wait for them. A purchase dated further ahead starts at its date.
    public static let clockSkewAllowanceMilliseconds = 5 * Milliseconds.perMinute
}
