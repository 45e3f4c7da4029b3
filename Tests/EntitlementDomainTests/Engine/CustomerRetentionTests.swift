import CivilCalendar
import Testing
import TestSupport

@testable import EntitlementDomain

/// The tenant's retention through the engine: what goes after how long, and what a customer's history and status
/// look like afterwards.
@Suite("Retention")
struct CustomerRetentionTests {
    static let day = Milliseconds.perDay

    func apply(_ harness: EngineHarness, _ settings: RetentionSettings, proceed: @escaping () -> Bool = { true }) async throws
        -> RetentionCounts
    {
        try await harness.engine.privacy.applyRetention(tenantID: harness.tenantID, settings: settings, batch: 2, proceed: proceed)
    }

    @Test func oldEventsGoButTheStatusAndItsNewestEventStay() async throws {
        let harness = try EngineHarness()
        try await harness.grant("alice", "pro")
        try await harness.grant("alice", "plus")
        harness.clock.advance(milliseconds: 40 * Self.day)
        try await harness.grant("alice", "pro", idempotencyKey: "later")
        try await harness.grant("bob", "pro")
        let before = try await harness.state("alice")
        #expect(try harness.events("alice").map(\.version) == [4, 3, 2, 1])

        var settings = RetentionSettings.defaults
        settings.eventDays = 30
        let counts = try await apply(harness, settings)
        // alice's v1 and v2 were replaced 40 days ago; v3 was her status 30 days ago, until v4: it stays.
        #expect(counts.events == 2)
        #expect(try harness.events("alice").map(\.version) == [4, 3])
        #expect(try harness.events("bob").count == 2)
        let after = try await harness.state("alice")
        #expect(after == before)
        let customerID = try #require(after.customerID)
        func replay(_ version: UInt64) throws -> [StatusUpdate]? {
            try harness.engine.customers.replay(tenantID: harness.tenantID, customerID: customerID, afterVersion: version, current: after)
        }
        // A stream resuming from a removed version starts from a snapshot; from a kept one it gets what followed.
        #expect(try replay(1) == nil)
        #expect(try replay(2)?.map(\.state.version) == [3, 4])
        #expect(try replay(4) == [])

        // The next pass reads only what aged since: alice's v3 (replaced by v4) and bob's v1 go.
        harness.clock.advance(milliseconds: 400 * Self.day)
        #expect(try await apply(harness, settings).events == 2)
        #expect(try harness.events("alice").map(\.version) == [4])
        #expect(try harness.events("bob").map(\.version) == [2])
        #expect(try await harness.state("alice") == before)
    }

    @Test func withoutEventDaysEventsStay() async throws {
        let harness = try EngineHarness()
        try await harness.grant("alice", "pro")
        harness.clock.advance(milliseconds: 3650 * Self.day)
        #expect(try await apply(harness, .defaults).events == 0)
        #expect(try harness.events("alice").count == 2)
    }

    @Test func deliveredDeliveriesGoAfterWebhookDaysAndFailedOnesAfterTheirOwn() async throws {
        let endpoint = WebhookEndpoint(id: "all", url: "https://example.com/hooks", secrets: [WebhookOutboxTests.secret])
        let harness = try EngineHarness(webhookEndpoints: { $0 == EngineHarness.tenantID ? [endpoint] : [] })
        try await harness.grant("alice")
        let claimed = try await harness.engine.outbox.exchange(
            recording: [], claimLimit: 100, excludedEndpoints: [], leaseMilliseconds: Milliseconds.perMinute) { $0 }
        #expect(claimed.map(\.version) == [1])  // v2 waits behind it
        let results = [
            WebhookAttemptResult(delivery: claimed[0], attemptedAt: harness.now, status: 200, error: "", verdict: .delivered)
        ]
        _ = try await harness.engine.outbox.exchange(
            recording: results, claimLimit: 0, excludedEndpoints: [], leaseMilliseconds: Milliseconds.perMinute) { $0 }
        let settings = RetentionSettings(eventDays: nil, webhookDays: 7, failedWebhookDays: 30, spentCodeDays: 30)
        harness.clock.advance(milliseconds: 6 * Self.day)
        #expect(try await apply(harness, settings).webhookDeliveries == 0)
        harness.clock.advance(milliseconds: 2 * Self.day)
        // The delivered v1 goes; v2, still pending, stays however old.
        #expect(try await apply(harness, settings).webhookDeliveries == 1)
        let left = try harness.engine.outbox.deliveries(
            WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: nil, pageSize: 10, pageToken: "").deliveries
        #expect(left.map(\.version) == [2] && left[0].state == .pending)
    }

    @Test func anErasureAfterCompactionStillFindsTheDeliveriesNamingThePerson() async throws {
        let endpoint = WebhookEndpoint(id: "all", url: "https://example.com/hooks", secrets: [WebhookOutboxTests.secret])
        let harness = try EngineHarness(webhookEndpoints: { $0 == EngineHarness.tenantID ? [endpoint] : [] })
        let token = AppAccountToken.derive(tenantID: harness.tenantID, appUserID: "alice")
        try await harness.identify("alice")
        try await harness.purchase("alice", [harness.playPurchase("token-1", appAccountToken: token)])
        // Bob restores alice's purchase (a transfer naming her), then his status changes again.
        try await harness.purchase("bob", [harness.playPurchase("token-1", appAccountToken: token)])
        try await harness.grant("bob", "plus")
        func naming() throws -> [WebhookDelivery] {
            try harness.engine.outbox.deliveries(
                WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: "bob", pageSize: 100, pageToken: ""
            ).deliveries.filter { String(decoding: $0.body, as: UTF8.self).contains("\"alice\"") }
        }
        #expect(try naming().count == 1)
        harness.clock.advance(milliseconds: 40 * Self.day)
        let settings = RetentionSettings(eventDays: 30, webhookDays: 3650, failedWebhookDays: 3650, spentCodeDays: 3650)
        #expect(try await apply(harness, settings).events > 0)
        #expect(try harness.events("bob").allSatisfy { $0.relatedAppUserID.isEmpty })
        #expect(try naming().count == 1)

        _ = try await harness.engine.privacy.delete(
            tenant: harness.tenant, appUserID: "alice", confirmation: "alice", noticeWait: .zero)
        #expect(try naming().isEmpty)
    }

    @Test func aPassStopsWhenThisInstanceNoLongerHoldsTheWork() async throws {
        let harness = try EngineHarness()
        for (index, entitlement) in ["pro", "plus", "pro", "plus"].enumerated() {
            try await harness.grant("alice", entitlement, idempotencyKey: "grant-\(index)")
        }
        harness.clock.advance(milliseconds: 2 * Self.day)
        var settings = RetentionSettings.defaults
        settings.eventDays = 1
        let asked = Counter()
        let counts = try await apply(harness, settings) {
            defer { asked.increment() }
            return asked.value < 1
        }
        // One batch of two (v1 and v2 scanned: v1 goes), then the pass stops; the next starts over and finishes.
        #expect(counts.events == 1)
        #expect(try harness.events("alice").count == 4)
        #expect(try await apply(harness, settings).events == 3)
        #expect(try harness.events("alice").map(\.version) == [5])
    }
}
