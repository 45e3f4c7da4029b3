/// A span of access: from `startsAt` (inclusive) until just before `endsAt` (exclusive; nil: for life), ended early
/// at `revokedAt` (inclusive; it may lie ahead: a scheduled revocation). A grant's access and a purchase's
/// (``PurchaseAccess``) are each one of these, so whether access holds at an instant is decided here alone.
public struct AccessSpan: Hashable, Sendable {
    /// Why an instant lies outside the span.
    public enum Outside: Hashable, Sendable {
        case notStarted, expired, revoked
    }

    public var startsAt: UnixTime
    public var endsAt: UnixTime?
    public var revokedAt: UnixTime?

    public init(startsAt: UnixTime, endsAt: UnixTime?, revokedAt: UnixTime?) {
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.revokedAt = revokedAt
    }

    /// Why `now` lies outside the span (a revocation named first); nil inside it. An entitlement ending at
    /// 12:00:00.000 is over at 12:00:00.000.
    public func outside(at now: UnixTime) -> Outside? {
        if let revokedAt, revokedAt <= now { return .revoked }
        if now < startsAt { return .notStarted }
        if let endsAt, endsAt <= now { return .expired }
        return nil
    }

    public func contains(_ now: UnixTime) -> Bool { outside(at: now) == nil }

    /// When access stops, as known now: the earlier of the end and a revocation; nil: never.
    public var lastsUntil: UnixTime? {
        switch (endsAt, revokedAt) {
        case (nil, nil): nil
        case (let end?, nil): end
        case (nil, let revocation?): revocation
        case (let end?, let revocation?): min(end, revocation)
        }
    }
}
