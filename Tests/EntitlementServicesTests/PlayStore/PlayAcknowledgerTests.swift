import CivilCalendar
import EntitlementDomain
@testable import EntitlementServices
import TestSupport
import Testing

/// When a failed acknowledgement is tried again.
@Suite struct PlayAcknowledgerScheduleTests {
    @Test func delaysDoubleFromTheFirstRetryUpToTheCap() {
        let schedule = PlayAcknowledger.Schedule(firstRetry: .seconds(30), maxDelay: .seconds(300), maxAttempts: 10)
        let delays = (1..<10).map { schedule.delay(afterAttempts: $0) }
        #expect(delays == [30, 60, 120, 240, 300, 300, 300, 300, 300].map { Duration.seconds($0) })
    }

    @Test func thereIsNoDelayAfterTheLastAttempt() {
        let schedule = PlayAcknowledger.Schedule(firstRetry: .seconds(1), maxDelay: .seconds(8), maxAttempts: 3)
        #expect(schedule.delay(afterAttempts: 2) == .seconds(2))
        #expect(schedule.delay(afterAttempts: 3) == nil)
        #expect(schedule.delay(afterAttempts: 4) == nil)
        // At least one attempt, whatever the configuration says.
        let once = PlayAcknowledger.Schedule(maxAttempts: 0)
        #expect(once.maxAttempts == 1 && once.delay(afterAttempts: 1) == nil)
    }

    @Test func theDefaultsKeepTryingForAboutADayAndAHalfInsideGooglesThreeDays() {
        let schedule = PlayAcknowledger.Schedule()
        #expect(schedule.firstRetry == .seconds(30) && schedule.maxDelay == .seconds(Seconds.perHour) && schedule.maxAttempts == 40)
        let delays = (1..<schedule.maxAttempts).compactMap { schedule.delay(afterAttempts: $0) }
        #expect(delays.count == 39)
        let total = delays.reduce(Duration.zero, +)
        #expect(total > .seconds(30 * Seconds.perHour) && total < .seconds(40 * Seconds.perHour))
        #expect(total < .seconds(72 * Seconds.perHour))
    }

    @Test func aDelayIsCountedInWholeMilliseconds() {
        #expect(Duration.seconds(30).milliseconds == 30_000)
        #expect(Duration.milliseconds(1_500).milliseconds == 1_500)
        #expect(Duration.microseconds(1_999).milliseconds == 1)
        #expect(Duration.zero.milliseconds == 0)
    }
}

/// The acknowledger against a scripted Google, from the durable record: each purchase owed is sent once, and what
/// Google answers is recorded.
@Suite struct PlayAcknowledgerTests {
    static let ackPath = "/purchases/subscriptions/premium/tokens/token-1:acknowledge"

    @Test func anAcknowledgementOwedIsSentAndRecorded() async throws {
        let play = try PlayServices()
        try await play.stored("token-1")
        play.answers.set(Self.ackPath, .status(204))
        let wait = await play.acknowledger().runDue()
        // Nothing else is owed: it looks again (for what other instances took) within the retry interval.
        #expect(wait == WorkHolding.retryInterval)
        let sent = try #require(play.google.apiRequests.first)
        #expect(sent.method == "POST" && sent.target == PlayServices.path(Self.ackPath))
        #expect(sent.headers["authorization"] == "Bearer ya29.token-1")
        #expect(try play.purchase("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .acknowledged, attempts: 1))
        // Nothing is sent twice.
        _ = await play.acknowledger().runDue()
        #expect(play.google.apiRequests.count == 1)
    }

    @Test func aOneTimeProductIsAcknowledgedAtItsOwnPath() async throws {
        let play = try PlayServices()
        try await play.stored("token-2", product: "lifetime")
        play.answers.set("/purchases/products/lifetime/tokens/token-2:acknowledge", .status(204))
        _ = await play.acknowledger().runDue()
        #expect(play.google.apiRequests.map(\.target) == [PlayServices.path("/purchases/products/lifetime/tokens/token-2:acknowledge")])
        #expect(try play.purchase("token-2")?.acknowledgement.state == .acknowledged)
    }

    @Test func aFailureIsTriedAgainAfterTheScheduledDelay() async throws {
        let play = try PlayServices()
        try await play.stored("token-1")
        play.answers.set(Self.ackPath, ScriptedGoogle.error(503, "Backend Error", reason: "backendError", status: "UNAVAILABLE"))
        let acknowledger = play.acknowledger(PlayAcknowledger.Schedule(firstRetry: .seconds(30)))
        let wait = await acknowledger.runDue()
        #expect(wait == WorkHolding.retryInterval)
        let owed = try #require(try play.purchase("token-1")).acknowledgement
        #expect(owed.state == .pending && owed.attempts == 1)
        #expect(owed.dueAt?.milliseconds == play.now.milliseconds + 30_000)
        #expect(owed.lastError.contains("Backend Error"))
        // Not before it is due; then again.
        let sent = play.google.apiRequests.count
        _ = await acknowledger.runDue()
        #expect(play.google.apiRequests.count == sent)
        play.answers.set(Self.ackPath, .status(204))
        play.clock.advance(milliseconds: 30_000)
        _ = await acknowledger.runDue()
        #expect(try play.purchase("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .acknowledged, attempts: 2))
    }

    @Test func googleRefusingBecauseItIsAcknowledgedAlreadyIsSuccess() async throws {
        let play = try PlayServices()
        try await play.stored("token-1")
        play.answers.set(
            Self.ackPath,
            ScriptedGoogle.error(400, "The subscription purchase is not owned by the user.", reason: "subscriptionNotOwnedByUser", status: "INVALID_ARGUMENT"))
        play.answers.set("/purchases/subscriptionsv2/tokens/token-1", play.subscription())
        _ = await play.acknowledger().runDue()
        #expect(try play.purchase("token-1")?.acknowledgement.state == .acknowledged)
    }

    @Test func aRefusalGoogleDoesNotExplainIsTriedAgain() async throws {
        let play = try PlayServices()
        try await play.stored("token-1")
        play.answers.set(Self.ackPath, ScriptedGoogle.error(400, "Invalid Value", reason: "invalid", status: "INVALID_ARGUMENT"))
        play.answers.set(
            "/purchases/subscriptionsv2/tokens/token-1", play.subscription(["acknowledgementState": "ACKNOWLEDGEMENT_STATE_PENDING"]))
        _ = await play.acknowledger().runDue()
        let owed = try #require(try play.purchase("token-1")).acknowledgement
        #expect(owed.state == .pending && owed.attempts == 1 && owed.lastError.contains("Invalid Value"))
    }

    @Test func aPurchaseGoogleDoesNotKnowIsGivenUpAtOnceAndTheOwnerTold() async throws {
        let play = try PlayServices()
        try await play.stored("token-1")
        let version = try await play.state("alice").version
        play.answers.set(
            Self.ackPath,
            ScriptedGoogle.error(410, "The subscription purchase is no longer available.", reason: "subscriptionPurchaseNoLongerAvailable", status: "NOT_FOUND"))
        _ = await play.acknowledger().runDue()
        let failed = try #require(try play.purchase("token-1")).acknowledgement
        #expect(failed.state == .failed && failed.attempts == 1)
        #expect(try await play.state("alice").version == version + 1)
        let event = try #require(try play.engine.customers.events(tenantID: PlayServices.tenantID, appUserID: "alice", pageSize: 1, pageToken: "").events.first)
        #expect(event.cause == .storeAPI && event.reason.contains("no longer available"))
    }

    /// An attempt whose outcome was never recorded (its instance froze or died while Google took it): the next one,
    /// by whichever instance holds the work, asks Google first and sends nothing again.
    @Test func anAttemptAfterAnUnrecordedOneAsksGoogleFirstAndSendsNothingTwice() async throws {
        let play = try PlayServices()
        try await play.stored("token-1")
        let owed = try #require(try play.engine.acknowledgements.due(limit: 1).first)
        _ = try #require(try await play.engine.acknowledgements.begin(owed, retryAt: play.now))
        play.answers.set(Self.ackPath, .status(204))
        play.answers.set("/purchases/subscriptionsv2/tokens/token-1", play.subscription())
        _ = await play.acknowledger().runDue()
        #expect(play.google.apiRequests.map(\.method) == ["GET"])
        #expect(try play.purchase("token-1")?.acknowledgement == PurchaseAcknowledgement(state: .acknowledged, attempts: 2))
    }

    @Test func theLastAttemptGivesUp() async throws {
        let play = try PlayServices()
        try await play.stored("token-1")
        play.answers.set(Self.ackPath, .status(503))
        _ = await play.acknowledger(PlayAcknowledger.Schedule(maxAttempts: 1)).runDue()
        #expect(try play.purchase("token-1")?.acknowledgement.state == .failed)
        #expect(try play.engine.acknowledgements.nextDue() == nil)
    }
}
