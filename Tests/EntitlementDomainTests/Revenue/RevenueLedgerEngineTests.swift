import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

/// The ledger as the engine writes it: in the transaction that applies the purchase, once per movement however often
/// the same data arrives, whichever way it comes (a device's Purchase or Restore, a store's notification).
@Suite struct RevenueLedgerEngineTests {
    private func period(_ harness: EngineHarness, _ n: Int64, kind: SaleKind, offer: OfferKind = .none, price: Int64)
        -> StorePurchase
    {
        let start = harness.now.milliseconds + n * 30 * Milliseconds.perDay
        return StorePurchase(
            tenantID: harness.tenantID, store: .appStore, originalTransactionID: "1000", transactionID: "100\(n)",
            customerID: nil, productID: "monthly", productType: "Auto-Renewable Subscription", entitlementIDs: ["pro"],
            environment: .production, purchasedAt: UnixTime(milliseconds: start), originalPurchaseAt: nil,
            expiresAt: UnixTime(milliseconds: start + 30 * Milliseconds.perDay), revokedAt: nil, revocationReason: "",
            ownership: .purchased, willRenew: true, appAccountToken: "", offerType: "",
            signedAt: UnixTime(milliseconds: start), updatedAt: UnixTime(milliseconds: start),
            price: PurchasePrice(milliunits: price, currency: "USD"),
            sale: PurchaseSale(kind: kind, offer: offer, country: "US"))
    }

    @Test func eachMovementIsRecordedOnceWhicheverWayItArrives() async throws {
        let harness = try EngineHarness()
        guard let memory = harness.repository as? InMemoryRepository else { return }
        let trial = period(harness, 0, kind: .subscriptionPurchase, offer: .freeTrial, price: 0)
        try await harness.purchase("alice", [trial])
        try await harness.purchase("alice", [trial], cause: .restore)
        let converted = period(harness, 1, kind: .subscriptionRenewal, price: 9_990)
        try await harness.notify(converted, reason: "DID_RENEW", cause: .appStoreNotification)
        try await harness.notify(converted, reason: "DID_RENEW", cause: .appStoreNotification)
        try await harness.purchase("alice", [converted])
        var refunded = converted
        refunded.revokedAt = UnixTime(milliseconds: converted.purchasedAt.milliseconds + Milliseconds.perDay)
        refunded.signedAt = refunded.revokedAt!
        refunded.sale?.refundedMilliunits = 9_990
        try await harness.notify(refunded, reason: "REFUND", cause: .appStoreNotification)
        try await harness.notify(refunded, reason: "REFUND", cause: .appStoreNotification)
        let ledger = memory.ledger
        #expect(ledger.map(\.kind) == [.trialStart, .trialConversion, .refund])
        #expect(ledger.map(\.amount.milliunits) == [0, 9_990, -9_990])
        #expect(ledger.map(\.transactionID) == ["1000", "1001", "1001"])
        let alice = try await harness.state("alice").customerID
        #expect(ledger.allSatisfy { $0.customerID == alice })
    }

    @Test func aLateRenewalIsRecordedThoughTheStoredPurchaseIsNewer() async throws {
        let harness = try EngineHarness()
        guard let memory = harness.repository as? InMemoryRepository else { return }
        try await harness.purchase("alice", [period(harness, 2, kind: .subscriptionRenewal, price: 9_990)])
        try await harness.notify(period(harness, 1, kind: .subscriptionRenewal, price: 9_990), reason: "DID_RENEW")
        #expect(memory.ledger.map(\.transactionID) == ["1002", "1001"])
        #expect(try harness.stored("1000", store: .appStore)?.transactionID == "1002")
    }
}
