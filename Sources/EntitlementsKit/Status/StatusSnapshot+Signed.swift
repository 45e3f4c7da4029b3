import Foundation

extension StatusSnapshot {
    /// A verified signed status as the SDK publishes it: everything from its claims, none from the unsigned fields
    /// beside it.
    init(_ claims: SignedStatusClaims, token: String, appUserID: String, origin: Origin, receivedAt: Date) {
        self.init(
            appUserID: appUserID, status: claims.status, version: claims.version, origin: origin, receivedAt: receivedAt,
            signedStatus: token, validUntil: claims.expiresAt)
    }

    /// This status as it is shown at `now`: while offline, only the entitlements that have not expired by then (no
    /// server says when one ends).
    func shown(at now: Date) -> StatusSnapshot {
        guard origin == .offline, case .active(let entitlements) = status else { return self }
        var shown = self
        let current = entitlements.filter { $0.expiresAt.map { $0 > now } ?? true }
        shown.status = current.isEmpty ? .inactive : .active(current)
        return shown
    }

    /// When the next entitlement shown ends, after `now`.
    func nextExpiry(after now: Date) -> Date? {
        status.entitlements.compactMap(\.expiresAt).filter { $0 > now }.min()
    }
}
