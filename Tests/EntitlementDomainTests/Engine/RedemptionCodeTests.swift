import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

/// Redemption codes: issued for a purchase nobody owns, single use, expiring, replaced by a newer one.
@Suite struct RedemptionCodeTests {
    private func unownedWebPurchase(_ harness: EngineHarness, id: String = "pi_1") async throws {
        var record = harness.playPurchase(id, product: "lifetime_web", entitlements: ["pro"])
        record.store = .stripe
        record.expiresAt = nil
        let outcome = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_\(id)", purchase: record,
            reason: "checkout.session.completed", cause: .stripeWebhook,
            references: [PurchaseReference(store: .stripe, referenceID: "cs_\(id)", originalTransactionID: id)])
        #expect(outcome == .recorded)
    }

    private func issue(_ harness: EngineHarness, _ reference: String = "cs_pi_1", days: Int64 = 7) async throws
        -> IssuedRedemptionCode
    {
        try await harness.engine.purchases.issueRedemptionCode(
            tenantID: harness.tenantID, store: .stripe, referenceID: reference, validityMilliseconds: days * Milliseconds.perDay)
    }

    private func redeem(_ harness: EngineHarness, _ appUserID: String, _ code: String, policy: TransferPolicy = .transfer)
        async throws -> Redemption
    {
        try await harness.engine.purchases.redeem(tenantID: harness.tenantID, appUserID: appUserID, code: code, policy: { _ in policy })
    }

    @Test func aCodeAttachesThePurchaseOnceAndOnlyOnce() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        let issued = try await issue(harness)
        #expect(RedemptionCodeFormat.isWellFormed(issued.code) && issued.purchase.originalTransactionID == "pi_1")
        let redeemed = try await redeem(harness, "alice", issued.code.uppercased())
        #expect(redeemed.outcome.state.status.activeIDs == ["pro"])
        #expect(try harness.events("alice").first?.cause == .redemption)
        let again = await #expect(throws: DomainError.self) { try await redeem(harness, "bob", issued.code) }
        #expect(again?.code == .wrongState && again?.message.contains("already used") == true)
        #expect(try await harness.state("bob").status.activeIDs.isEmpty)
    }

    @Test func anOwnedPurchaseGetsNoCodeAndAnUnknownReferenceNone() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        _ = try await redeem(harness, "alice", try await issue(harness).code)
        let owned = await #expect(throws: DomainError.self) { try await issue(harness) }
        #expect(owned?.code == .wrongState)
        let unknown = await #expect(throws: DomainError.self) { try await issue(harness, "cs_unknown") }
        #expect(unknown?.code == .notFound)
    }

    @Test func aNewCodeReplacesTheUnusedOne() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        let first = try await issue(harness)
        let second = try await issue(harness, "pi_1")
        let replaced = await #expect(throws: DomainError.self) { try await redeem(harness, "alice", first.code) }
        #expect(replaced?.code == .wrongState && replaced?.message.contains("replaced") == true)
        #expect(try await redeem(harness, "alice", second.code).outcome.state.status.activeIDs == ["pro"])
    }

    @Test func anExpiredCodeFailsAndSaysSo() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        let issued = try await issue(harness, days: 1)
        harness.clock.advance(milliseconds: Milliseconds.perDay)
        let expired = await #expect(throws: DomainError.self) { try await redeem(harness, "alice", issued.code) }
        #expect(expired?.code == .wrongState && expired?.message.contains("expired") == true)
    }

    @Test func unknownAndMalformedCodesAreNotFound() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        for code in ["rc_" + String(repeating: "a", count: 32), "nonsense", "rc_!!"] {
            let unknown = await #expect(throws: DomainError.self) { try await redeem(harness, "alice", code) }
            #expect(unknown?.code == .notFound)
        }
    }

    @Test func aRefusedTransferChangesNothingAndKeepsTheCode() async throws {
        let harness = try EngineHarness()
        try await unownedWebPurchase(harness)
        let issued = try await issue(harness)
        // Someone else got the purchase meanwhile (a later event named its buyer).
        var owned = try #require(try harness.stored("pi_1", store: .stripe))
        owned.signedAt = harness.now
        _ = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_2", purchase: owned, reason: "x",
            cause: .stripeWebhook, ownerHints: [.appUserID("carol")])
        let refused = await #expect(throws: DomainError.self) {
            try await redeem(harness, "alice", issued.code, policy: .keepWithOriginal)
        }
        #expect(refused?.code == .alreadyExists)
        #expect(try await harness.state("carol").status.activeIDs == ["pro"])
        // The code was not used up by the refusal.
        let moved = try await redeem(harness, "alice", issued.code, policy: .transfer)
        #expect(moved.outcome.transferredFrom == ["carol"])
    }

    @Test func aBuyerNamedBeforeThePurchaseArrivesOwnsIt() async throws {
        let harness = try EngineHarness()
        _ = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_session", purchase: nil,
            reason: "checkout.session.completed", cause: .stripeWebhook,
            references: [PurchaseReference(store: .stripe, referenceID: "cs_9", originalTransactionID: "sub_9", appUserID: "dave")])
        var record = harness.playPurchase("sub_9", product: "pro_web", entitlements: ["pro"])
        record.store = .stripe
        let outcome = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_sub", purchase: record,
            reason: "customer.subscription.created", cause: .stripeWebhook)
        #expect(outcome == .applied(appUserID: "dave", changed: true))
    }

    @Test func aNamedAnonymousIDNobodyHasLeavesThePurchaseUnowned() async throws {
        let harness = try EngineHarness()
        var record = harness.playPurchase("sub_8", product: "pro_web", entitlements: ["pro"])
        record.store = .stripe
        let anonymous = "$anon:" + "4f8e2c1a-0000-4000-8000-000000000001"
        #expect(AppUserID.isAnonymous(anonymous))
        let outcome = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_anon", purchase: record,
            reason: "customer.subscription.created", cause: .stripeWebhook, ownerHints: [.appUserID(anonymous)])
        #expect(outcome == .recorded)
    }
}

/// Refunds and disputes that arrive before the purchase they take back.
@Suite struct PendingRevocationTests {
    @Test func aRefundBeforeItsCheckoutRevokesThePurchaseWhenItArrivesOnce() async throws {
        let harness = try EngineHarness()
        let refundedAt = harness.now
        let early = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_refund", purchase: nil, reason: "charge.refunded",
            cause: .stripeWebhook,
            pendingRevocations: [PendingRevocation(store: .stripe, referenceID: "pi_7", revokedAt: refundedAt, reason: "REFUNDED")])
        #expect(early == .recorded)
        var record = harness.playPurchase("pi_7", product: "lifetime_web", entitlements: ["pro"])
        record.store = .stripe
        record.expiresAt = nil
        _ = try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: "stripe:evt_checkout", purchase: record,
            reason: "checkout.session.completed", cause: .stripeWebhook, ownerHints: [.appUserID("alice")])
        let stored = try #require(try harness.stored("pi_7", store: .stripe))
        #expect(stored.revokedAt == refundedAt && stored.revocationReason == "REFUNDED")
        #expect(try await harness.state("alice").status.activeIDs.isEmpty)
        // Used up: later data about the purchase is not revoked again by it.
        var paidAgain = record
        paidAgain.transactionID = "cs_other"
        paidAgain.signedAt = UnixTime(milliseconds: harness.now.milliseconds + 1000)
        _ = try await harness.notify(paidAgain, reason: "checkout.session.completed", cause: .stripeWebhook)
        #expect(try await harness.state("alice").status.activeIDs == ["pro"])
    }
}
