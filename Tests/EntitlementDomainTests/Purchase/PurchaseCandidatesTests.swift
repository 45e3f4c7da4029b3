import EntitlementDomain
import Testing

@Suite struct PurchaseCandidatesTests {
    private func ms(_ value: Int64) -> UnixTime { UnixTime(milliseconds: value) }

    private func purchase(
        entitlements: [String] = ["pro"], expiresAt: Int64? = 2_000, revokedAt: Int64? = nil,
        renewal: RenewalState = .paid, willRenew: Bool = true
    ) -> StorePurchase {
        StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "1000", transactionID: "1001", customerID: 1,
            productID: "com.example.pro", productType: "Auto-Renewable Subscription", entitlementIDs: entitlements,
            environment: .sandbox, purchasedAt: ms(1_000), originalPurchaseAt: ms(1_000),
            expiresAt: expiresAt.map(ms), revokedAt: revokedAt.map(ms), revocationReason: "", ownership: .purchased,
            willRenew: willRenew, renewal: renewal,
            appAccountToken: "", offerType: "", signedAt: ms(1_000), updatedAt: ms(1_000))
    }

    @Test func aPausedSubscriptionGivesNothingUntilItResumes() {
        var paused = purchase(expiresAt: 5_000)
        paused.renewal = .paused(resumesAt: ms(3_000))
        let candidates = EntitlementCandidate.candidates(of: paused)
        #expect(candidates.map(\.startsAt) == [ms(3_000)])
        let status = { (time: Int64) in StatusCalculator.status(of: candidates, at: self.ms(time)) }
        #expect(!status(2_000).isActive)
        #expect(status(3_000).isActive && status(4_999).isActive && !status(5_000).isActive)
        #expect(status(2_000).nextChangeAt == ms(3_000))
        // Superseded by a newer purchase: nothing at all.
        var superseded = purchase()
        superseded.supersededBy = "newer-token"
        #expect(EntitlementCandidate.candidates(of: superseded).isEmpty)
    }

    @Test func subscriptionGivesItsEntitlementsUntilItExpires() {
        let candidates = EntitlementCandidate.candidates(of: purchase(entitlements: ["pro", "plus"]))
        #expect(candidates.map(\.entitlementID) == ["pro", "plus"])
        #expect(candidates.allSatisfy { $0.source == .appStore && $0.referenceID == "1000" && $0.willRenew })
        #expect(StatusCalculator.status(of: candidates, at: ms(1_999)).activeIDs == ["pro", "plus"])
        #expect(StatusCalculator.status(of: candidates, at: ms(2_000)).activeIDs.isEmpty)
    }

    @Test func gracePeriodExtendsAccessToItsEnd() {
        let candidates = EntitlementCandidate.candidates(of: purchase(renewal: .grace(until: ms(5_000))))
        let status = StatusCalculator.status(of: candidates, at: ms(4_999))
        #expect(status.activeIDs == ["pro"])
        #expect(status.entitlements.first?.inGracePeriod == true)
        #expect(StatusCalculator.status(of: candidates, at: ms(5_000)).activeIDs.isEmpty)
    }

    @Test func refundedPurchaseStopsGivingAtOnce() {
        let candidates = EntitlementCandidate.candidates(of: purchase(revokedAt: 1_500))
        #expect(StatusCalculator.status(of: candidates, at: ms(1_499)).activeIDs == ["pro"])
        #expect(StatusCalculator.status(of: candidates, at: ms(1_500)).activeIDs.isEmpty)
    }

    @Test func nonConsumableIsForLifeAndConsumableGivesNothing() {
        let lifetime = EntitlementCandidate.candidates(of: purchase(expiresAt: nil, willRenew: false))
        #expect(StatusCalculator.status(of: lifetime, at: ms(Int64.max / 2)).activeIDs == ["pro"])
        #expect(EntitlementCandidate.candidates(of: purchase(entitlements: [])).isEmpty)
    }

    @Test func snapshotCandidatesCombineGrantsAndPurchases() {
        let customer = CustomerRecord(
            id: 1, tenantID: "t", appUserID: "u", isAnonymous: false, version: 3, createdAt: ms(0), nextChangeAt: nil)
        let grant = GrantRecord(
            grantID: "gr_1", tenantID: "t", customerID: 1, entitlementID: "premium", startsAt: ms(0), expiresAt: nil,
            revokedAt: nil, reason: "", revocationReason: "", idempotencyKey: nil)
        let snapshot = CustomerSnapshot(customer: customer, aliases: [], grants: [grant], purchases: [purchase()])
        #expect(StatusCalculator.status(of: snapshot.candidates, at: ms(1_500)).activeIDs == ["premium", "pro"])
        #expect(IdentityRules.hasHistory(snapshot))
    }
}
