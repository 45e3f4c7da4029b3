import Foundation

extension StatusSnapshot {
    /// A verified signed status as the SDK publishes it: everything from its claims, none from the unsigned fields
    /// beside it.
    init(_ claims: SignedStatusClaims, token: String, appUserID: String, origin: Origin, receivedAt: Date) {
        self.init(
            appUserID: appUserID, status: claims.status, version: claims.version, origin: origin, receivedAt: receivedAt,
            signedStatus: token, validUntil: claims.expiresAt)
    }

    /// This status as it may be shown with no server to ask at `now`: the entitlements that have not expired yet.
    func offline(at now: Date) -> StatusSnapshot {
        var offline = self
        offline.origin = .offline
        let current = status.entitlements.filter { $0.expiresAt.map { $0 > now } ?? true }
        offline.status = current.isEmpty ? .inactive : .active(current)
        return offline
    }
}
