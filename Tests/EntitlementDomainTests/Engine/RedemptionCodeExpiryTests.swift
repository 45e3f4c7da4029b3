import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

/// Redemption codes against the engine's clock: expiry cannot be reached through a running server (the shortest
/// validity a tenant may configure is a day), so it is tested here with a ``ManualClock``.
@Suite struct RedemptionCodeExpiryTests {
    static let day = Milliseconds.perDay

    /// A web subscription nobody owns (an anonymous checkout), held through a webhook with no owner hint.
    private func unownedWebPurchase(_ harness: EngineHarness, id: String = "sub_1") async throws {
        let now = harness.now
        let record = StorePurchase(
            tenantID: harness.tenantID, store: .stripe, originalTransactionID: id, transactionID: "in_1",
            customerID: nil, productID: "pro_monthly_web", productType: "subscription", entitlementIDs: ["pro"],
            environment: .sandbox, purchasedAt: now, originalPurchaseAt: now,
            expiresAt: UnixTime(milliseconds: now.milliseconds + 30 * Self.day), revokedAt: nil, revocationReason: "",
            ownership: .purchased, willRenew: true,
            appAccountToken: "", offerType: "", signedAt: now, updatedAt: now)
        let outcome = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_\(id)", purchase: record,
            reason: "customer.subscription.created", cause: .stripeWebhook)
        #expect(outcome == .recorded)
    }

    private func issue(_ harness: EngineHarness, days: Int64 = 1) async throws -> IssuedRedemptionCode {
        try await harness.engine.purchases.issueRedemptionCode(
            tenantID: harness.tenantID, store: .stripe, referenceID: "sub_1", validityMilliseconds: days * Self.day)
    }

    private func redeem(_ harness: EngineHarness, _ code: String, by user: String = "alice") async throws -> Redemption {
        try await harness.engine.purchases.redeem(tenantID: harness.tenantID, appUserID: user, code: code) { _ in .transfer }
    }

    @Test func aCodeWorksUntilItsExpiryAndNotAfter() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        let issued = try await issue(harness)
        #expect(issued.expiresAt.milliseconds == harness.now.milliseconds + Self.day)
        harness.clock.advance(milliseconds: Self.day)
        let refusal = await #expect(throws: DomainError.wrongState("")) { try await redeem(harness, issued.code) }
        #expect(refusal?.message.contains("expired") == true)
        #expect(try await harness.state("alice").customerID == nil)
    }

    @Test func aCodeRedeemedJustBeforeItsExpiryAttachesThePurchase() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        let issued = try await issue(harness)
        harness.clock.advance(milliseconds: Self.day - 1)
        let redemption = try await redeem(harness, issued.code)
        #expect(redemption.outcome.state.status.activeIDs == ["pro"])
    }

    @Test func anExpiredCodeIsReplacedByANewOneThatWorks() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        let first = try await issue(harness)
        harness.clock.advance(milliseconds: 2 * Self.day)
        let second = try await issue(harness)
        #expect(second.code != first.code)
        let refusal = await #expect(throws: DomainError.wrongState("")) { try await redeem(harness, first.code) }
        // Replaced after it expired: either word tells the user to ask for a new link.
        #expect(refusal.map { $0.message.contains("replaced") || $0.message.contains("expired") } == true)
        #expect(try await redeem(harness, second.code).outcome.state.status.activeIDs == ["pro"])
    }
}
