import EntitlementDomain
import Testing

@Suite struct StatusChangeTests {
    private func value(
        _ id: String = "pro", expires: Int64? = 5000, willRenew: Bool = false, reference: String = "g1"
    ) -> ActiveEntitlementValue {
        ActiveEntitlementValue(
            id: id, source: .grant, productID: "", expiresAt: expires.map(ms), willRenew: willRenew,
            inGracePeriod: false, inBillingRetry: false, referenceID: reference)
    }

    private func status(_ values: ActiveEntitlementValue..., next: Int64? = nil) -> ComputedStatus {
        ComputedStatus(entitlements: values, nextChangeAt: next.map(ms))
    }

    @Test func nothingDiffers() {
        #expect(StatusCalculator.change(from: status(value()), to: status(value())) == nil)
        #expect(StatusCalculator.change(from: .inactive, to: .inactive) == nil)
        #expect(StatusCalculator.change(from: nil, to: .inactive) == nil)
        // nextChangeAt is a plan, not something a client sees.
        #expect(StatusCalculator.change(from: status(value(), next: 10), to: status(value(), next: 20)) == nil)
    }

    @Test func theActiveSetChanged() {
        #expect(StatusCalculator.change(from: nil, to: status(value())) == .statusChanged)
        #expect(StatusCalculator.change(from: .inactive, to: status(value())) == .statusChanged)
        #expect(StatusCalculator.change(from: status(value()), to: .inactive) == .statusChanged)
        #expect(StatusCalculator.change(from: status(value()), to: status(value(), value("premium"))) == .statusChanged)
        // Same count, different IDs.
        #expect(StatusCalculator.change(from: status(value("pro")), to: status(value("premium"))) == .statusChanged)
    }

    @Test func onlyDetailsChanged() {
        #expect(StatusCalculator.change(from: status(value(expires: 5000)), to: status(value(expires: 9000))) == .customerInfoChanged)
        #expect(StatusCalculator.change(from: status(value(expires: 5000)), to: status(value(expires: nil))) == .customerInfoChanged)
        #expect(StatusCalculator.change(from: status(value()), to: status(value(willRenew: true))) == .customerInfoChanged)
        #expect(StatusCalculator.change(from: status(value(reference: "g1")), to: status(value(reference: "g2"))) == .customerInfoChanged)
    }

    @Test func computedStatusSortsByID() {
        let unsorted = ComputedStatus(entitlements: [value("pro"), value("beta"), value("premium")], nextChangeAt: nil)
        #expect(unsorted.entitlements.map(\.id) == ["beta", "premium", "pro"])
        #expect(unsorted == ComputedStatus(entitlements: [value("beta"), value("premium"), value("pro")], nextChangeAt: nil))
    }

    @Test func aGrantExpiringByTimeIsAStatusChange() {
        let grant = candidate(expires: 5000)
        let before = StatusCalculator.status(of: [grant], at: ms(4999))
        let after = StatusCalculator.status(of: [grant], at: try! #require(before.nextChangeAt))
        #expect(StatusCalculator.change(from: before, to: after) == .statusChanged)
    }
}
