
/// Status as a pure function of a customer's candidates and the current time.
///
/// - A candidate is active at `now` iff `startsAt <= now`, it is not revoked at or before `now`, and it has no expiry
///   or `now < expiresAt` (see ``EntitlementCandidate/isActive(at:)``).
/// - Of the active candidates for one entitlement, the one that lasts longest is reported (``preferred(_:over:)``).
/// - `nextChangeAt` is exact: the earliest instant after `now` at which ``status(of:at:)`` reports different
///   entitlements. A candidate that expires while a longer one covers the same entitlement does not count, so the
///   expiry scheduler never wakes for nothing.
public enum StatusCalculator {
    public static func status(of candidates: [EntitlementCandidate], at now: UnixTime) -> ComputedStatus {
        var byEntitlement: [String: [EntitlementCandidate]] = [:]
        for candidate in candidates { byEntitlement[candidate.entitlementID, default: []].append(candidate) }

        var entitlements: [ActiveEntitlementValue] = []
        var nextChangeAt: UnixTime?
        for (_, group) in byEntitlement {
            let current = winner(of: group, at: now)
            if let current { entitlements.append(current) }
            if let change = nextChange(of: group, after: now, current: current, before: nextChangeAt) {
                nextChangeAt = change
            }
        }
        return ComputedStatus(entitlements: entitlements, nextChangeAt: nextChangeAt)
    }

    /// How a status differs from the previous one, for the event that records the change:
    /// nil when the entitlements are identical (`nextChangeAt` is ignored), `.statusChanged` when the set of active
    /// IDs differs, `.customerInfoChanged` when only details differ (expiry, will_renew, grace, billing retry,
    /// product, source or backing record). A missing `old` status counts as inactive.
    ///
    /// A write that must record an event although nothing visible changed (a grant that starts tomorrow, a revoke of
    /// a grant that another one covers) records `.customerInfoChanged`.
    public static func change(from old: ComputedStatus?, to new: ComputedStatus) -> StatusChange? {
        let before = old?.entitlements ?? []
        if before == new.entitlements { return nil }
        return Set(before.map(\.id)) == new.activeIDs ? .customerInfoChanged : .statusChanged
    }

    /// The value reported for one entitlement at `now`: the preferred active candidate; nil when none is active.
    static func winner(of group: [EntitlementCandidate], at now: UnixTime) -> ActiveEntitlementValue? {
        var best: ActiveEntitlementValue?
        for candidate in group where candidate.isActive(at: now) {
            let value = ActiveEntitlementValue(
                id: candidate.entitlementID, source: candidate.source, productID: candidate.productID,
                expiresAt: candidate.endsAt, willRenew: candidate.willRenew, inGracePeriod: candidate.inGracePeriod,
                inBillingRetry: candidate.inBillingRetry, referenceID: candidate.referenceID)
            if let current = best, !preferred(value, over: current) { continue }
            best = value
        }
        return best
    }

    /// A total order on values for one entitlement, so the result never depends on record order:
    /// 1. the one that lasts longer (no end beats any end, a later end beats an earlier one);
    /// 2. one that will renew; 3. one not in billing retry; 4. one not in a grace period;
    /// 5. a store before a grant (`appStore`, `playStore`, `web`, `grant`), as it carries product details;
    /// 6. the smaller reference ID, then the smaller product ID (byte order).
    static func preferred(_ lhs: ActiveEntitlementValue, over rhs: ActiveEntitlementValue) -> Bool {
        switch (lhs.expiresAt, rhs.expiresAt) {
        case (nil, .some): return true
        case (.some, nil): return false
        case (let left?, let right?) where left != right: return left > right
        default: break
        }
        if lhs.willRenew != rhs.willRenew { return lhs.willRenew }
        if lhs.inBillingRetry != rhs.inBillingRetry { return !lhs.inBillingRetry }
        if lhs.inGracePeriod != rhs.inGracePeriod { return !lhs.inGracePeriod }
        if lhs.source != rhs.source { return lhs.source < rhs.source }
        if lhs.referenceID != rhs.referenceID { return lhs.referenceID.utf8.lexicographicallyPrecedes(rhs.referenceID.utf8) }
        return lhs.productID.utf8.lexicographicallyPrecedes(rhs.productID.utf8)
    }

    /// The first instant after `now` (and before `limit`, when given) at which the group's reported value differs
    /// from `current`. The value can only change where some candidate starts, expires or is revoked.
    private static func nextChange(
        of group: [EntitlementCandidate], after now: UnixTime, current: ActiveEntitlementValue?, before limit: UnixTime?
    ) -> UnixTime? {
        var instants: Set<UnixTime> = []
        for candidate in group {
            for instant in [candidate.startsAt, candidate.expiresAt, candidate.revokedAt] {
                if let instant, instant > now { instants.insert(instant) }
            }
        }
        for instant in instants.sorted() {
            if let limit, instant >= limit { return nil }
            if winner(of: group, at: instant) != current { return instant }
        }
        return nil
    }
}
