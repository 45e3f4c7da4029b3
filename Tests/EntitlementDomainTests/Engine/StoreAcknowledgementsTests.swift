import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

/// The acknowledgement a store waits for (Google Play refunds purchases left unacknowledged for three days), kept with
/// the purchase on a real SQLite repository: what is due, each attempt recorded, giving up told to the owner.
@Suite struct StoreAcknowledgementsTests {
    /// Alice's purchase `token`, owing an acknowledgement from now.
    @discardableResult
    func owed(_ harness: EngineHarness, _ token: String = "token-1", by appUserID: String = "alice") async throws
        -> StorePurchase
    {
        let record = harness.playPurchase(token, acknowledgement: .pending(at: harness.now))
        try await harness.purchase(appUserID, [record])
        return try #require(try harness.stored(token))
    }

    /// One attempt on `purchase`, claimed and then recorded as ending with `outcome` (nothing when the claim is
    /// refused), as the acknowledger makes it.
    func attempt(_ acknowledgements: StoreAcknowledgements, _ purchase: StorePurchase, _ outcome: AcknowledgementAttempt)
        async throws
    {
        guard let claimed = try await acknowledgements.begin(purchase, retryAt: UnixTime(milliseconds: 0)) else { return }
        try await acknowledgements.record(of: claimed, outcome)
    }

    @Test func anAcknowledgementOwedIsStoredWithThePurchaseAndDueAtOnce() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        #expect(stored.acknowledgement == PurchaseAcknowledgement(state: .pending, attempts: 0, dueAt: harness.now))
        #expect(try harness.engine.acknowledgements.due(limit: 10).map(\.originalTransactionID) == ["token-1"])
        #expect(try harness.engine.acknowledgements.nextDue() == harness.now)
    }

    @Test func onlyWhatIsDueIsListedSoonestFirstUpToTheLimit() async throws {
        let harness = try EngineHarness()
        let start = harness.now
        try await harness.purchase("alice", [harness.playPurchase("not-required")])
        for (token, delay) in [("third", 3_000), ("first", 1_000), ("second", 2_000), ("later", Milliseconds.perMinute)] as [(String, Int64)] {
            let due = UnixTime(milliseconds: start.milliseconds + delay)
            try await harness.purchase("alice", [harness.playPurchase(token, acknowledgement: .pending(at: due))])
        }
        #expect(try harness.engine.acknowledgements.due(limit: 10).isEmpty)
        #expect(try harness.engine.acknowledgements.nextDue()?.milliseconds == start.milliseconds + 1_000)
        harness.clock.advance(milliseconds: 3_000)
        #expect(try harness.engine.acknowledgements.due(limit: 10).map(\.originalTransactionID) == ["first", "second", "third"])
        #expect(try harness.engine.acknowledgements.due(limit: 2).map(\.originalTransactionID) == ["first", "second"])
    }

    @Test func anAcknowledgedPurchaseIsNoLongerDueAndTellsNobody() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        let version = try await harness.state("alice").version
        try await attempt(harness.engine.acknowledgements, stored, .acknowledged)
        #expect(try harness.stored("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .acknowledged, attempts: 1))
        #expect(try harness.engine.acknowledgements.due(limit: 10).isEmpty)
        #expect(try harness.engine.acknowledgements.nextDue() == nil)
        #expect(try await harness.state("alice").version == version)
    }

    @Test func aFailedAttemptIsDueAgainAtItsRetryTime() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        let retryAt = UnixTime(milliseconds: harness.now.milliseconds + 30_000)
        try await attempt(harness.engine.acknowledgements, stored, .failed(error: "Google could not answer (503)", retryAt: retryAt))
        let failed = try #require(try harness.stored("token-1")).acknowledgement
        #expect(failed == PurchaseAcknowledgement(state: .pending, attempts: 1, dueAt: retryAt, lastError: "Google could not answer (503)"))
        #expect(try harness.engine.acknowledgements.due(limit: 10).isEmpty)
        #expect(try harness.engine.acknowledgements.nextDue() == retryAt)
        harness.clock.set(retryAt)
        let due = try harness.engine.acknowledgements.due(limit: 10)
        #expect(due.map(\.acknowledgement.attempts) == [1])
        // Attempts count up from what is stored.
        try await attempt(harness.engine.acknowledgements, try #require(due.first), .failed(error: "again", retryAt: retryAt))
        #expect(try harness.stored("token-1")?.acknowledgement.attempts == 2)
    }

    @Test func givingUpIsAnEventOnTheOwnerFromTheStoreAPI() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        let version = try await harness.state("alice").version
        try await attempt(harness.engine.acknowledgements, stored, .gaveUp(error: "Google refused (400)"))
        let acknowledgement = try #require(try harness.stored("token-1")).acknowledgement
        #expect(acknowledgement == PurchaseAcknowledgement(state: .failed, attempts: 1, lastError: "Google refused (400)"))
        #expect(try harness.engine.acknowledgements.due(limit: 10).isEmpty)
        #expect(try harness.engine.acknowledgements.nextDue() == nil)
        #expect(try await harness.state("alice").version == version + 1)
        let event = try #require(try harness.events("alice").first)
        #expect(event.cause == .storeAPI && event.referenceID == "token-1")
        #expect(event.reason.contains("Google refused (400)") && event.reason.contains("after 1 attempt ("))
        // The purchase still grants: the store, not the server, refunds it.
        #expect(try await harness.state("alice").status.activeIDs == ["pro"])
    }

    @Test func givingUpOnAPurchaseNobodyOwnsTellsNobody() async throws {
        let harness = try EngineHarness()
        #expect(try await harness.notify(harness.playPurchase("token-1", acknowledgement: .pending(at: harness.now))) == .recorded)
        let stored = try #require(try harness.stored("token-1"))
        try await attempt(harness.engine.acknowledgements, stored, .gaveUp(error: "x"))
        #expect(try harness.stored("token-1")?.acknowledgement.state == .failed)
    }

    @Test func anAttemptOnAPurchaseNoLongerOwingOneChangesNothing() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        try await attempt(harness.engine.acknowledgements, stored, .acknowledged)
        try await attempt(harness.engine.acknowledgements, stored, .gaveUp(error: "late"))
        #expect(try harness.stored("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .acknowledged, attempts: 1))
        try await attempt(harness.engine.acknowledgements, harness.playPurchase("never-stored"), .acknowledged)
        #expect(try harness.stored("never-stored") == nil)
    }

    @Test func aLaterFetchSayingAcknowledgedEndsWhatIsOwed() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        try await attempt(harness.engine.acknowledgements, stored, .failed(error: "503", retryAt: UnixTime(milliseconds: harness.now.milliseconds + 30_000)))
        harness.clock.advance(milliseconds: 1_000)
        // The app acknowledged it meanwhile: Google's data says so.
        _ = try await harness.notify(harness.playPurchase("token-1", acknowledgement: PurchaseAcknowledgement(state: .acknowledged)))
        #expect(try harness.stored("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .acknowledged, attempts: 1))
        #expect(try harness.engine.acknowledgements.nextDue() == nil)
    }

    @Test func aLaterFetchStillSayingPendingKeepsTheServersProgress() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        let retryAt = UnixTime(milliseconds: harness.now.milliseconds + 30_000)
        try await attempt(harness.engine.acknowledgements, stored, .failed(error: "503", retryAt: retryAt))
        harness.clock.advance(milliseconds: 1_000)
        _ = try await harness.notify(harness.playPurchase("token-1", acknowledgement: .pending(at: harness.now)))
        #expect(try harness.stored("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .pending, attempts: 1, dueAt: retryAt, lastError: "503"))
    }

    @Test func retryingAFailedAcknowledgementMakesItDueNow() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        try await attempt(harness.engine.acknowledgements, stored, .gaveUp(error: "refused"))
        harness.clock.advance(milliseconds: 5_000)
        try await harness.engine.acknowledgements.retry(tenantID: harness.tenantID, store: .playStore, originalTransactionID: "token-1")
        #expect(
            try harness.stored("token-1")?.acknowledgement
                == PurchaseAcknowledgement(state: .pending, attempts: 1, dueAt: harness.now, lastError: "refused"))
        #expect(try harness.engine.acknowledgements.due(limit: 10).map(\.originalTransactionID) == ["token-1"])
    }

    @Test func retryingWhatHasNotFailedChangesNothing() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        harness.clock.advance(milliseconds: 5_000)
        try await harness.engine.acknowledgements.retry(tenantID: harness.tenantID, store: .playStore, originalTransactionID: "token-1")
        #expect(try harness.stored("token-1")?.acknowledgement == stored.acknowledgement)
        try await attempt(harness.engine.acknowledgements, stored, .acknowledged)
        try await harness.engine.acknowledgements.retry(tenantID: harness.tenantID, store: .playStore, originalTransactionID: "token-1")
        #expect(try harness.stored("token-1")?.acknowledgement.state == .acknowledged)
        try await harness.engine.acknowledgements.retry(tenantID: harness.tenantID, store: .playStore, originalTransactionID: "unknown")
    }

    @Test func whatIsOwedSurvivesReopeningTheDatabase() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        try await owed(harness, "token-2")
        let retryAt = UnixTime(milliseconds: harness.now.milliseconds + 30_000)
        try await attempt(harness.engine.acknowledgements, stored, .failed(error: "timed out", retryAt: retryAt))
        let restarted = try harness.reopened()
        #expect(try restarted.acknowledgements.due(limit: 10).map(\.originalTransactionID) == ["token-2"])
        #expect(try restarted.acknowledgements.nextDue() == harness.now)
        let reread = try #require(try restarted.purchases.purchase(tenantID: harness.tenantID, store: .playStore, originalTransactionID: "token-1"))
        #expect(reread.acknowledgement == PurchaseAcknowledgement(state: .pending, attempts: 1, dueAt: retryAt, lastError: "timed out"))
        try await attempt(restarted.acknowledgements, reread, .gaveUp(error: "refused"))
        let again = try harness.reopened()
        #expect(
            try again.purchases.purchase(tenantID: harness.tenantID, store: .playStore, originalTransactionID: "token-1")?.acknowledgement
                == PurchaseAcknowledgement(state: .failed, attempts: 2, lastError: "refused"))
    }

    @Test func aClaimedAttemptWhoseOutcomeIsNeverRecordedIsDueAgainAtItsRetryTime() async throws {
        let harness = try EngineHarness()
        let stored = try await owed(harness)
        let retryAt = UnixTime(milliseconds: harness.now.milliseconds + 30_000)
        let claimed = try #require(try await harness.engine.acknowledgements.begin(stored, retryAt: retryAt))
        #expect(claimed.acknowledgement == PurchaseAcknowledgement(state: .pending, attempts: 1, dueAt: retryAt))
        #expect(try harness.stored("token-1")?.acknowledgement == claimed.acknowledgement)
        // The instance stops here (its answer is never recorded): nothing is due until the retry time.
        #expect(try harness.engine.acknowledgements.due(limit: 10).isEmpty)
        harness.clock.set(retryAt)
        #expect(try harness.engine.acknowledgements.due(limit: 10).map(\.acknowledgement.attempts) == [1])
    }

    @Test func anInstanceThatReadItBeforeAnotherClaimedItNeitherClaimsNorRecordsIt() async throws {
        // A holder frozen mid-batch (its `stale` read) resumes after another instance took over and claimed the same
        // acknowledgement: the stale claim is refused, and the stale outcome does not overwrite the newer attempt's.
        let harness = try EngineHarness()
        let stale = try await owed(harness)
        let first = try #require(try await harness.engine.acknowledgements.begin(stale, retryAt: harness.now))
        let reread = try #require(try harness.stored("token-1"))
        let second = try #require(try await harness.engine.acknowledgements.begin(reread, retryAt: harness.now))
        #expect(try await harness.engine.acknowledgements.begin(stale, retryAt: harness.now) == nil)
        try await harness.engine.acknowledgements.record(of: first, .failed(error: "late answer", retryAt: harness.now))
        #expect(try harness.stored("token-1")?.acknowledgement == second.acknowledgement)
        try await harness.engine.acknowledgements.record(of: second, .acknowledged)
        #expect(try harness.stored("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .acknowledged, attempts: 2))
    }
}
