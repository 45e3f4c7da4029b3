import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

/// Purchases that replace others (Google Play's `linkedPurchaseToken`: an upgrade, a downgrade, a re-signup), in
/// either arrival order, and the owners of purchases nobody owns yet, on a real SQLite repository.
@Suite struct PurchaseReplacementTests {
    @Test func aNewTokenThatReplacesAStoredOneSupersedesItAtOnceWithOneEvent() async throws {
        let harness = try EngineHarness()
        let basic = try await harness.purchase("alice", [harness.playPurchase("token-basic", entitlements: ["plus"])])
        #expect(basic.state.status.activeIDs == ["plus"])
        let upgrade = try await harness.purchase(
            "alice", [harness.playPurchase("token-premium", entitlements: ["pro"], replaces: "token-basic")])
        // The old purchase still shows a future expiry, but grants nothing from now on.
        #expect(upgrade.state.status.activeIDs == ["pro"])
        #expect(upgrade.state.version == basic.state.version + 1)
        #expect(upgrade.purchases.map(\.outcome) == [.new])
        let old = try #require(try harness.stored("token-basic"))
        #expect(old.supersededBy == "token-premium" && old.expiresAt! > harness.now)
        #expect(try await harness.state("alice").status.activeIDs == ["pro"], "the cached state agrees")
        let events = try harness.events("alice")
        #expect(events.first?.cause == .purchase && events.first?.version == upgrade.state.version)
    }

    @Test func anotherOwnersReplacedPurchaseGivesThatOwnerItsOwnEvent() async throws {
        let harness = try EngineHarness()
        let bob = try await harness.purchase("bob", [harness.playPurchase("token-basic", entitlements: ["plus"])])
        let alice = try await harness.purchase(
            "alice", [harness.playPurchase("token-premium", entitlements: ["pro"], replaces: "token-basic")])
        #expect(alice.state.status.activeIDs == ["pro"])
        #expect(alice.transferredFrom.isEmpty)
        let bobNow = try await harness.state("bob")
        #expect(bobNow.status.activeIDs.isEmpty)
        #expect(bobNow.version == bob.state.version + 1)
        let event = try #require(try harness.events("bob").first)
        #expect(event.cause == .purchase && event.reason.contains("Replaced") && event.referenceID == "token-premium")
        // The old purchase stays bob's: it was replaced, not transferred.
        #expect(try harness.stored("token-basic")?.customerID == bobNow.customerID)
    }

    @Test func theOldTokenArrivingAfterTheNewOneIsMarkedSupersededToo() async throws {
        let harness = try EngineHarness()
        _ = try await harness.purchase(
            "alice", [harness.playPurchase("token-premium", entitlements: ["pro"], replaces: "token-basic")])
        // A restore presents the old token (Google still shows it active at upgrade time).
        let restored = try await harness.purchase(
            "alice", [harness.playPurchase("token-basic", entitlements: ["plus"])], cause: .restore)
        #expect(restored.state.status.activeIDs == ["pro"])
        #expect(restored.purchases.map(\.grantsAccess) == [false])
        #expect(try harness.stored("token-basic")?.supersededBy == "token-premium")
        // And by a notification for it.
        let harness2 = try EngineHarness()
        _ = try await harness2.purchase(
            "alice", [harness2.playPurchase("token-premium", entitlements: ["pro"], replaces: "token-basic")])
        _ = try await harness2.notify(harness2.playPurchase("token-basic", entitlements: ["plus"]))
        #expect(try harness2.stored("token-basic")?.supersededBy == "token-premium")
        #expect(try await harness2.state("alice").status.activeIDs == ["pro"])
    }

    @Test func aRestoreOfBothTokensReportsOnlyTheNewOneAsGrantingWhateverTheirOrder() async throws {
        for oldFirst in [true, false] {
            let harness = try EngineHarness()
            let old = harness.playPurchase("token-basic", entitlements: ["plus"])
            let new = harness.playPurchase("token-premium", entitlements: ["pro"], replaces: "token-basic")
            let restored = try await harness.purchase("alice", oldFirst ? [old, new] : [new, old], cause: .restore)
            #expect(restored.state.status.activeIDs == ["pro"])
            #expect(restored.purchases.map(\.grantsAccess) == (oldFirst ? [false, true] : [true, false]), "old first: \(oldFirst)")
            #expect(try harness.stored("token-basic")?.supersededBy == "token-premium")
        }
    }

    @Test func beingSupersededIsFinalWhateverLaterFetchesOfTheOldTokenSay() async throws {
        let harness = try EngineHarness()
        _ = try await harness.purchase("alice", [harness.playPurchase("token-basic", entitlements: ["plus"])])
        _ = try await harness.purchase(
            "alice", [harness.playPurchase("token-premium", entitlements: ["pro"], replaces: "token-basic")])
        harness.clock.advance(milliseconds: Milliseconds.perMinute)
        let renewedOld = harness.playPurchase("token-basic", order: "GPA.token-basic..1", entitlements: ["plus"])
        _ = try await harness.notify(renewedOld)
        _ = try await harness.purchase("alice", [renewedOld], cause: .restore)
        #expect(try harness.stored("token-basic")?.supersededBy == "token-premium")
        #expect(try harness.stored("token-basic")?.transactionID == "GPA.token-basic..1", "its data is still kept")
        #expect(try await harness.state("alice").status.activeIDs == ["pro"])
    }

    @Test func aNotificationForAnUnownedNewTokenGoesToTheReplacedPurchasesOwner() async throws {
        let harness = try EngineHarness()
        let before = try await harness.purchase("alice", [harness.playPurchase("token-basic", entitlements: ["plus"])])
        let outcome = try await harness.notify(
            harness.playPurchase("token-premium", entitlements: ["pro"], replaces: "token-basic"), reason: "SUBSCRIPTION_PURCHASED")
        #expect(outcome == .applied(appUserID: "alice", changed: true))
        let alice = try await harness.state("alice")
        #expect(alice.status.activeIDs == ["pro"])
        #expect(alice.version == before.state.version + 1, "one event for the new purchase and the old one it replaced")
        #expect(try harness.stored("token-premium")?.customerID == alice.customerID)
        #expect(try harness.stored("token-basic")?.supersededBy == "token-premium")
        #expect(try harness.events("alice").first?.reason == "SUBSCRIPTION_PURCHASED")
    }

    @Test func aNotificationThatOnlyReplacesAnUnownedPurchaseIsRecorded() async throws {
        let harness = try EngineHarness()
        #expect(try await harness.notify(harness.playPurchase("token-basic")) == .recorded)
        #expect(try await harness.notify(harness.playPurchase("token-premium", replaces: "token-basic")) == .recorded)
        #expect(try harness.stored("token-basic")?.supersededBy == "token-premium")
        #expect(try harness.stored("token-premium")?.customerID == nil)
    }

    @Test func thePurchasesOwnAppAccountTokenComesBeforeTheReplacedPurchaseAndTheHints() async throws {
        let harness = try EngineHarness()
        _ = try await harness.purchase("alice", [harness.playPurchase("token-basic")])
        let carol = try await harness.identify("carol")
        let outcome = try await harness.notify(
            harness.playPurchase("token-premium", replaces: "token-basic", appAccountToken: carol.appAccountToken),
            hints: [.appAccountToken(AppAccountToken.derive(tenantID: harness.tenantID, appUserID: "alice"))])
        #expect(outcome == .applied(appUserID: "carol", changed: true))
        // Alice's old purchase is superseded by carol's new one: alice hears of it.
        #expect(try harness.events("alice").first?.reason.contains("Replaced") == true)
        #expect(try await harness.state("alice").status.activeIDs.isEmpty)
    }

    @Test func ownerHintsResolveInOrder() async throws {
        let harness = try EngineHarness()
        _ = try await harness.purchase("alice", [harness.playPurchase("token-alice", expiresIn: -1)])
        let bobToken = try await harness.identify("bob").appAccountToken
        // Hints that name nobody are passed over; the first that resolves wins.
        let first = try await harness.notify(
            harness.playPurchase("token-1"),
            hints: [
                .ownerOf(originalTransactionID: "token-unknown"), .appAccountToken("00000000-0000-8000-8000-000000000000"),
                .appAccountToken(bobToken.uppercased()), .ownerOf(originalTransactionID: "token-alice"),
            ])
        #expect(first == .applied(appUserID: "bob", changed: true))
        let second = try await harness.notify(
            harness.playPurchase("token-2"),
            hints: [.ownerOf(originalTransactionID: "token-alice"), .appAccountToken(bobToken)])
        #expect(second == .applied(appUserID: "alice", changed: true))
        // A purchase is not its own owner's hint.
        #expect(try await harness.notify(harness.playPurchase("token-3"), hints: [.ownerOf(originalTransactionID: "token-3")]) == .recorded)
        #expect(try await harness.notify(harness.playPurchase("token-4"), hints: []) == .recorded)
    }

    @Test func hintsDoNotMoveAPurchaseThatAlreadyHasAnOwner() async throws {
        let harness = try EngineHarness()
        _ = try await harness.purchase("alice", [harness.playPurchase("token-1")])
        let bobToken = try await harness.identify("bob").appAccountToken
        harness.clock.advance(milliseconds: 1_000)
        let outcome = try await harness.notify(harness.playPurchase("token-1"), hints: [.appAccountToken(bobToken)])
        #expect(outcome == .applied(appUserID: "alice", changed: true))
        #expect(try await harness.state("bob").status.activeIDs.isEmpty)
    }

    @Test func aNotificationIDIsAppliedOnceAndNoIDAppliesEveryTime() async throws {
        let harness = try EngineHarness()
        _ = try await harness.purchase("alice", [harness.playPurchase("token-1")])
        harness.clock.advance(milliseconds: 1_000)
        let renewal = harness.playPurchase("token-1", order: "GPA.token-1..1", expiresIn: 60 * Milliseconds.perDay)
        #expect(try await harness.notify(renewal, id: "play:42") == .applied(appUserID: "alice", changed: true))
        #expect(try await harness.notify(renewal, id: "play:42") == .duplicate)
        #expect(try await harness.notify(renewal, id: nil) == .applied(appUserID: "alice", changed: false))
        #expect(try await harness.notify(renewal, id: nil) == .applied(appUserID: "alice", changed: false))
    }
}
