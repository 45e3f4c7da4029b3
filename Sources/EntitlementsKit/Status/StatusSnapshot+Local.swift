public import Foundation

extension StatusSnapshot {
    /// The gate the app uses: the server's entitlements OR those the device's own store data shows now, for the
    /// products the app maps to entitlements. An entitlement only the device shows is labelled `.local`; when the
    /// server never answered, the result comes from the device alone.
    public func including(
        local transactions: [LocalTransaction], productEntitlements: [String: Set<String>], at now: Date
    ) -> StatusSnapshot {
        let serverIDs = status.entitlementIDs
        var added: Set<Entitlement> = []
        for transaction in transactions where transaction.isActive(at: now) {
            for id in productEntitlements[transaction.productID] ?? [] where !serverIDs.contains(id) {
                // Two local transactions granting one entitlement: keep the one that lasts longer.
                if let other = added.first(where: { $0.id == id }) {
                    guard Self.lastsLonger(transaction.expiresAt, than: other.expiresAt) else { continue }
                    added.remove(other)
                }
                added.insert(Entitlement(id: id, source: .local, productID: transaction.productID, expiresAt: transaction.expiresAt))
            }
        }
        guard !added.isEmpty else { return self }
        var combined = self
        combined.status = .active(status.entitlements.union(added))
        if status == .unknown { combined.origin = .device }
        return combined
    }

    /// The IDs of the entitlements in this status that only the device shows.
    public var localEntitlementIDs: Set<String> { Set(status.entitlements.filter { $0.source == .local }.map(\.id)) }

    private static func lastsLonger(_ expiry: Date?, than other: Date?) -> Bool {
        guard let other else { return false }
        return expiry.map { $0 > other } ?? true
    }
}
