import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

@Suite struct StorePurchaseTests {
    private func record(
        _ harness: EngineHarness, original: String = "1000", signedAt: Int64? = nil, expiresIn: Int64 = Milliseconds.perMinute,
        entitlements: [String] = ["pro"]
    ) -> StorePurchase {
        let now = harness.now.milliseconds
        let signed = signedAt ?? now
        return StorePurchase(
            tenantID: harness.tenantID, store: .appStore, originalTransactionID: original,
            transactionID: original, customerID: nil, productID: "com.example.pro", productType: "Auto-Renewable Subscription",
            entitlementIDs: entitlements, environment: .sandbox, purchasedAt: UnixTime(milliseconds: now),
            originalPurchaseAt: nil, expiresAt: UnixTime(milliseconds: now + expiresIn), revokedAt: nil,
            revocationReason: "", ownership: .purchased, willRenew: true,
            appAccountToken: "", offerType: "", signedAt: UnixTime(milliseconds: signed),
            updatedAt: UnixTime(milliseconds: signed))
    }

    private func purchase(
        _ harness: EngineHarness, _ appUserID: String, _ records: [StorePurchase],
        policy: TransferPolicy = .transfer, cause: EventCause = .purchase
    ) async throws -> StorePurchaseOutcome {
        try await harness.engine.purchases.applyStorePurchases(
            tenantID: harness.tenantID, appUserID: appUserID, purchases: records, cause: cause, policy: policy)
    }

    @Test func purchaseGrantsItsEntitlementsAndTheSameDataTwiceChangesNothing() async throws {
        let harness = try EngineHarness()
        let first = try await purchase(harness, "alice", [record(harness)])
        #expect(first.state.status.activeIDs == ["pro"])
        #expect(first.state.status.entitlements.first?.source == .appStore)
        let again = try await purchase(harness, "alice", [record(harness)])
        #expect(again.state.version == first.state.version)
    }

    @Test func olderSignedDataNeverOverwritesNewer() async throws {
        let harness = try EngineHarness()
        let newer = record(harness, signedAt: harness.now.milliseconds, expiresIn: 2 * Milliseconds.perMinute)
        let older = record(harness, signedAt: harness.now.milliseconds - 10_000, expiresIn: 10)
        let first = try await purchase(harness, "alice", [newer])
        let second = try await purchase(harness, "alice", [older])
        #expect(second.state.version == first.state.version)
        #expect(second.state.status.entitlements.first?.expiresAt == newer.expiresAt)
    }

    @Test func transferMovesThePurchaseAndTellsThePreviousOwner() async throws {
        let harness = try EngineHarness()
        _ = try await purchase(harness, "alice", [record(harness)])
        let moved = try await purchase(harness, "bob", [record(harness)])
        #expect(moved.transferredFrom == ["alice"])
        #expect(moved.state.status.activeIDs == ["pro"])
        #expect(try await harness.state("alice").status.activeIDs.isEmpty)
    }

    @Test func keepWithOriginalRefusesAndChangesNothing() async throws {
        let harness = try EngineHarness()
        let original = try await purchase(harness, "alice", [record(harness)])
        await #expect(throws: DomainError.alreadyExists("")) {
            _ = try await purchase(harness, "bob", [record(harness)], policy: .keepWithOriginal)
        }
        #expect(try await harness.state("alice").version == original.state.version)
        #expect(try await harness.state("bob").customerID == nil)
    }

    @Test func transferIfNoActiveMovesOnlyWhatGivesTheOwnerNothing() async throws {
        let harness = try EngineHarness()
        _ = try await purchase(harness, "alice", [record(harness, original: "active")])
        await #expect(throws: DomainError.alreadyExists("")) {
            _ = try await purchase(harness, "bob", [record(harness, original: "active")], policy: .transferIfNoActive)
        }
        _ = try await purchase(harness, "carol", [record(harness, original: "lapsed", expiresIn: 1)])
        _ = harness.clock.advance(milliseconds: 10)
        let moved = try await purchase(
            harness, "bob", [record(harness, original: "lapsed", expiresIn: -5)], policy: .transferIfNoActive)
        #expect(moved.transferredFrom == ["carol"])
    }

    @Test func eachPurchaseReportsHowItRelatesToWhatWasStored() async throws {
        let harness = try EngineHarness()
        let now = harness.now.milliseconds
        _ = try await purchase(harness, "alice", [record(harness, original: "alices", signedAt: now)])
        _ = try await purchase(harness, "bob", [record(harness, original: "stored", signedAt: now)])
        let restored = try await purchase(
            harness, "bob",
            [
                record(harness, original: "fresh"),
                record(harness, original: "fresh"),
                record(harness, original: "stored", signedAt: now + 5, expiresIn: 90_000),
                record(harness, original: "stored", signedAt: now - 5),
                record(harness, original: "alices", signedAt: now),
                record(harness, original: "lapsed", expiresIn: -1),
            ], cause: .restore)
        #expect(
            restored.purchases.map(\.outcome) == [.new, .unchanged, .updated, .olderThanStored, .unchanged, .new])
        #expect(restored.purchases.map(\.grantsAccess) == [true, true, true, true, true, false])
        #expect(restored.purchases.map(\.transferredFrom) == [nil, nil, nil, nil, "alice", nil])
        #expect(restored.transferredFrom == ["alice"])
    }
}

@Suite struct AppAccountTokenAttributionTests {
    private func record(_ harness: EngineHarness, original: String, token: String, signedAt: Int64? = nil)
        -> StorePurchase
    {
        let now = harness.now.milliseconds
        let signed = signedAt ?? now
        return StorePurchase(
            tenantID: harness.tenantID, store: .appStore, originalTransactionID: original,
            transactionID: original, customerID: nil, productID: "com.example.pro",
            productType: "Auto-Renewable Subscription", entitlementIDs: ["pro"], environment: .sandbox,
            purchasedAt: UnixTime(milliseconds: now), originalPurchaseAt: nil,
            expiresAt: UnixTime(milliseconds: now + Milliseconds.perMinute), revokedAt: nil, revocationReason: "",
            ownership: .purchased, willRenew: true,
            appAccountToken: token, offerType: "", signedAt: UnixTime(milliseconds: signed),
            updatedAt: UnixTime(milliseconds: signed))
    }

    private func notify(_ harness: EngineHarness, _ id: String, _ record: StorePurchase) async throws
        -> StoreNotificationOutcome
    {
        try await harness.engine.purchases.applyStoreNotification(
            tenantID: harness.tenantID, notificationID: id, purchase: record, reason: "SUBSCRIBED/INITIAL_BUY")
    }

    @Test func identifyReturnsTheDerivedTokenOfTheCanonicalID() async throws {
        let harness = try EngineHarness()
        let alice = try await harness.identify("alice")
        #expect(alice.appAccountToken == AppAccountToken.derive(tenantID: harness.tenantID, appUserID: "alice"))
        #expect(try await harness.identify("alice").appAccountToken == alice.appAccountToken)
        let adopted = try await harness.identify("bob", anonymousID: "$anon:x")
        #expect(adopted.appAccountToken == AppAccountToken.derive(tenantID: harness.tenantID, appUserID: "bob"))
    }

    @Test func notificationWithAKnownTokenIsAttributedWithoutPurchase() async throws {
        let harness = try EngineHarness()
        let token = try await harness.identify("alice").appAccountToken
        let before = try await harness.state("alice").version
        let outcome = try await notify(harness, "n-1", record(harness, original: "7000", token: token.uppercased()))
        #expect(outcome == .applied(appUserID: "alice", changed: true))
        let alice = try await harness.state("alice")
        #expect(alice.status.activeIDs == ["pro"])
        #expect(alice.version == before + 1)

        // An unknown token (or none) still leaves the purchase unowned.
        let stranger = try await notify(
            harness, "n-2", record(harness, original: "7001", token: "00000000-0000-8000-8000-000000000000"))
        #expect(stranger == .recorded)
        #expect(try await notify(harness, "n-3", record(harness, original: "7002", token: "")) == .recorded)
        // Another tenant's user with the same ID does not get it either.
        let otherToken = AppAccountToken.derive(tenantID: "globex", appUserID: "alice")
        #expect(try await notify(harness, "n-4", record(harness, original: "7003", token: otherToken)) == .recorded)
    }

    @Test func storedUnownedPurchaseIsAttachedByALaterNotificationWithTheToken() async throws {
        let harness = try EngineHarness()
        let token = AppAccountToken.derive(tenantID: harness.tenantID, appUserID: "alice")
        // The first notification arrives before alice has ever identified: stored unowned.
        #expect(try await notify(harness, "n-1", record(harness, original: "8000", token: token)) == .recorded)
        _ = try await harness.identify("alice")
        // A re-send of the same data (same signedAt) now finds its owner.
        let outcome = try await notify(harness, "n-2", record(harness, original: "8000", token: token))
        #expect(outcome == .applied(appUserID: "alice", changed: true))
        #expect(try await harness.state("alice").status.activeIDs == ["pro"])
    }
}

/// Revocations on a real SQLite repository: Google Play's are known only from notifications and the voided list and
/// stay for their order; Apple's are in its signed data and may be reversed.
@Suite struct StoreRevocationTests {
    @Test func aPlayRevocationStaysWhenALaterFetchOfTheSameOrderShowsNone() async throws {
        let harness = try EngineHarness()
        try await harness.purchase("alice", [harness.playPurchase("token-1", order: "GPA.1..0")])
        harness.clock.advance(milliseconds: 1_000)
        let voided = harness.playPurchase("token-1", order: "GPA.1..0", revokedAt: harness.now)
        #expect(try await harness.notify(voided, cause: .storeAPI) == .applied(appUserID: "alice", changed: true))
        #expect(try await harness.state("alice").status.activeIDs.isEmpty)
        harness.clock.advance(milliseconds: 1_000)
        // Google's purchase data never shows the revocation: a device's Purchase or a notification's fetch.
        try await harness.purchase("alice", [harness.playPurchase("token-1", order: "GPA.1..0")])
        _ = try await harness.notify(harness.playPurchase("token-1", order: "GPA.1..0"))
        #expect(try await harness.state("alice").status.activeIDs.isEmpty)
        #expect(try harness.stored("token-1")?.revocationReason == "VOIDED")
    }

    @Test func aNewOrderOfThePlaySubscriptionClearsTheRevocation() async throws {
        let harness = try EngineHarness()
        try await harness.purchase("alice", [harness.playPurchase("token-1", order: "GPA.1..0")])
        harness.clock.advance(milliseconds: 1_000)
        _ = try await harness.notify(harness.playPurchase("token-1", order: "GPA.1..0", revokedAt: harness.now), cause: .storeAPI)
        harness.clock.advance(milliseconds: 1_000)
        let renewed = harness.playPurchase("token-1", order: "GPA.1..1", expiresIn: 60 * Milliseconds.perDay)
        #expect(try await harness.notify(renewed) == .applied(appUserID: "alice", changed: true))
        #expect(try await harness.state("alice").status.activeIDs == ["pro"])
        #expect(try harness.stored("token-1")?.revokedAt == nil)
    }

    @Test func anAppStoreRefundReversedGrantsAgain() async throws {
        let harness = try EngineHarness()
        var purchase = harness.playPurchase("2000000000000001", order: "2000000000000002")
        purchase.store = .appStore
        purchase.productType = "Auto-Renewable Subscription"
        try await harness.purchase("alice", [purchase])
        harness.clock.advance(milliseconds: 1_000)
        var refunded = purchase
        refunded.revokedAt = harness.now
        refunded.signedAt = harness.now
        #expect(try await harness.notify(refunded, reason: "REFUND", cause: .appStoreNotification) == .applied(appUserID: "alice", changed: true))
        #expect(try await harness.state("alice").status.activeIDs.isEmpty)
        harness.clock.advance(milliseconds: 1_000)
        var reinstated = purchase
        reinstated.signedAt = harness.now
        #expect(
            try await harness.notify(reinstated, reason: "REFUND_REVERSED", cause: .appStoreNotification)
                == .applied(appUserID: "alice", changed: true))
        #expect(try await harness.state("alice").status.activeIDs == ["pro"])
    }
}
