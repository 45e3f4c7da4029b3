public import EntitlementDomain

/// A purchase's ``RenewalState`` in the columns that held its parts before it was one value (`in_grace_period`,
/// `in_billing_retry`, `grace_period_expires_at`, `paused_until`, `suspended`), so rows written by earlier builds
/// read as they did and no migration rewrites them.
extension StorageColumns {
    public static func graceEnd(_ renewal: RenewalState) -> UnixTime? {
        if case .grace(let until) = renewal { until } else { nil }
    }

    public static func pausedUntil(_ renewal: RenewalState) -> UnixTime? {
        if case .paused(let resumesAt) = renewal { resumesAt } else { nil }
    }

    /// The state the columns hold. A grace period stored without its end (never written) lasts to the expiry, as
    /// those rows always meant.
    public static func renewal(
        inGracePeriod: Bool, inBillingRetry: Bool, graceEnd: UnixTime?, pausedUntil: UnixTime?, suspended: Bool,
        expiresAt: UnixTime?
    ) -> RenewalState {
        if suspended { return .held(billingRetry: inBillingRetry) }
        if let pausedUntil { return .paused(resumesAt: pausedUntil) }
        if inGracePeriod, let until = graceEnd ?? expiresAt { return .grace(until: until) }
        return inBillingRetry || inGracePeriod ? .billingRetry : .paid
    }
}
