import CivilCalendar
import EntitlementDomain
import Foundation
import Testing
import TestSupport

/// The outbox through the engine on a real SQLite file: what is queued in an event's transaction, in which order it
/// may go, and what recording attempts, redelivery and pruning do.
@Suite struct WebhookOutboxTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    static func harness(_ endpoints: [WebhookEndpoint]) throws -> EngineHarness {
        try EngineHarness(webhookEndpoints: { $0 == EngineHarness.tenantID ? endpoints : [] })
    }

    static let everything = WebhookEndpoint(id: "all", url: "https://example.com/hooks", secrets: [secret])
    static let grantsOnly = WebhookEndpoint(
        id: "grants", url: "https://example.com/grants", events: [.grant], secrets: [secret])

    func log(_ harness: EngineHarness, _ filter: WebhookDeliveryFilter? = nil) throws -> [WebhookDelivery] {
        try harness.engine.outbox.deliveries(
            filter ?? WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: nil, pageSize: 500, pageToken: ""
        ).deliveries
    }

    func claim(_ harness: EngineHarness, excluding: [WebhookEndpointKey] = []) async throws -> [WebhookDelivery] {
        try await harness.engine.outbox.exchange(
            recording: [], claimLimit: 100, excludedEndpoints: excluding, leaseMilliseconds: Milliseconds.perMinute
        ) { $0 }
    }

    func record(_ harness: EngineHarness, _ delivery: WebhookDelivery, _ verdict: WebhookAttemptResult.Verdict, status: Int? = 500)
        async throws
    {
        let result = WebhookAttemptResult(
            delivery: delivery, attemptedAt: harness.now, status: status, error: "HTTP 500", verdict: verdict)
        _ = try await harness.engine.outbox.exchange(
            recording: [result], claimLimit: 0, excludedEndpoints: [], leaseMilliseconds: Milliseconds.perMinute) { $0 }
    }

    @Test func everyEventAnEndpointWantsIsQueuedWithItsBody() async throws {
        let harness = try Self.harness([Self.everything, Self.grantsOnly])
        try await harness.grant("alice", "pro")
        let queued = try log(harness).reversed() as [WebhookDelivery]
        // created (v1) to "all" only; the grant (v2) to both.
        #expect(queued.map(\.endpointID) == ["all", "all", "grants"])
        #expect(queued.map(\.version) == [1, 2, 2])
        #expect(queued.map(\.type) == ["customer.customer_info_changed", "customer.grant", "customer.grant"])
        #expect(queued.allSatisfy { $0.state == .pending && $0.appUserID == "alice" && $0.attempts == 0 })
        // One body per event, whatever the endpoint; one webhook-id per event and endpoint.
        #expect(queued[1].body == queued[2].body)
        #expect(Set(queued.map(\.messageID)).count == 3)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(queued[1].body)) as? [String: Any])
        #expect(body["type"] as? String == "customer.grant")
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["app_user_id"] as? String == "alice")
        #expect(data["version"] as? Int == 2)
        #expect(data["kind"] as? String == "status_changed")
    }

    @Test func aTenantWithoutEndpointsQueuesNothing() async throws {
        let harness = try Self.harness([])
        try await harness.grant("alice")
        #expect(try log(harness).isEmpty)
        #expect(try harness.engine.outbox.nextAttemptAt() == nil)
    }

    @Test func aWriteThatFailsQueuesNothing() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.grant("alice", "pro", idempotencyKey: "k1")
        let before = try log(harness)
        // The same key for another entitlement: refused inside the transaction.
        await #expect(throws: DomainError.self) { try await harness.grant("alice", "plus", idempotencyKey: "k1") }
        await #expect(throws: DomainError.self) { try await harness.grant("bob", "nope") }
        #expect(try log(harness) == before)
    }

    @Test func aLaterEventWaitsForAnEarlierOneOfTheSameCustomerToTheSameEndpoint() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.grant("alice", "pro")
        try await harness.grant("bob", "pro")
        let first = try await claim(harness)
        // alice v1 and bob v1 (each customer's oldest); their v2s wait.
        #expect(first.map(\.version) == [1, 1])
        #expect(Set(first.map(\.appUserID)) == ["alice", "bob"])
        // Leased: not claimed again while their attempts run, and the v2s still wait behind them.
        #expect(try await claim(harness).isEmpty)
        let alice = try #require(first.first { $0.appUserID == "alice" })
        try await record(harness, alice, .delivered, status: 200)
        let next = try await claim(harness)
        #expect(next.map { "\($0.appUserID) v\($0.version)" } == ["alice v2"])
    }

    @Test func aRetryIsDueAtItsTime() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.identify("alice")
        let created = try #require(try await claim(harness).first)
        let retryAt = UnixTime(milliseconds: harness.now.milliseconds + 5000)
        try await record(harness, created, .retry(at: retryAt))
        #expect(try harness.engine.outbox.nextAttemptAt() == retryAt)
        #expect(try await claim(harness).isEmpty)
        harness.clock.advance(milliseconds: 5000)
        let again = try #require(try await claim(harness).first)
        #expect(again.id == created.id && again.attempts == 1 && again.lastStatus == 500)
    }

    /// SQLite's one instance ends every lease at start; on a shared PostgreSQL the other instances' leases stand.
    @Test func leasesEndWithARestartOfTheOnlyInstance() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.grant("alice")
        #expect(try await claim(harness).count == 1)
        #expect(try await claim(harness).isEmpty)
        try await harness.engine.outbox.releaseLeases()
        #expect(try await claim(harness).count == (harness.isShared ? 0 : 1))
    }

    @Test func excludedEndpointsAreLeftForLater() async throws {
        let harness = try Self.harness([Self.everything, Self.grantsOnly])
        try await harness.grant("alice")
        let key = WebhookEndpointKey(tenantID: harness.tenantID, endpointID: "all")
        let claimed = try await claim(harness, excluding: [key])
        #expect(claimed.map(\.endpointID) == ["grants"])
    }

    @Test func exhaustingADeliveryFailsItAndLogsANotice() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.grant("alice")
        let created = try #require(try await claim(harness).first)
        try await record(harness, created, .exhausted)
        let rows = try log(harness)
        let failed = try #require(rows.first { $0.id == created.id })
        #expect(failed.state == .failed && failed.attempts == 1 && failed.nextAttemptAt == nil)
        let notice = try #require(rows.first { $0.state == .notice })
        #expect(notice.type == "webhook.exhausted" && notice.endpointID == "all" && notice.appUserID == "alice")
        #expect(String(decoding: notice.body, as: UTF8.self).contains(created.messageID))
        // The v2 behind it is free to go.
        #expect(try await claim(harness).map(\.version) == [2])
    }

    @Test func goneDisablesTheEndpointAndFailsWhatWaitsForIt() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.grant("alice")
        let created = try #require(try await claim(harness).first)
        try await record(harness, created, .endpointGone, status: 410)
        #expect(try harness.engine.outbox.disabledEndpoints().map(\.endpointID) == ["all"])
        let rows = try log(harness)
        #expect(rows.filter { $0.state == .failed }.count == 2)
        #expect(rows.contains { $0.type == "webhook.disabled" && $0.state == .notice })
        #expect(try await claim(harness).isEmpty)
        // A redelivery turns it on again and queues both, keeping their webhook-ids.
        let count = try await harness.engine.outbox.redeliver(WebhookDeliveryFilter(tenantID: harness.tenantID))
        #expect(count == 2)
        #expect(try harness.engine.outbox.disabledEndpoints().isEmpty)
        let again = try await claim(harness)
        #expect(again.map(\.id) == [created.id])
        #expect(again.first?.messageID == created.messageID && again.first?.attempts == 0)
    }

    @Test func oneDeliveryIsRedeliveredByIDWhateverItsStateAndNoticesNever() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.grant("alice")
        let created = try #require(try await claim(harness).first)
        try await record(harness, created, .delivered, status: 200)
        var one = WebhookDeliveryFilter(tenantID: harness.tenantID)
        one.deliveryID = created.id
        #expect(try await harness.engine.outbox.redeliver(one) == 1)
        await #expect(throws: DomainError.self) {
            var other = WebhookDeliveryFilter(tenantID: "globex")
            other.deliveryID = created.id
            _ = try await harness.engine.outbox.redeliver(other)
        }
    }

    @Test func theLogPagesNewestFirstAndNarrowsByCustomer() async throws {
        let harness = try Self.harness([Self.everything])
        try await harness.grant("alice", "pro")
        try await harness.grant("bob", "pro")
        try await harness.grant("alice", "plus")
        let first = try harness.engine.outbox.deliveries(
            WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: "alice", pageSize: 2, pageToken: "")
        #expect(first.deliveries.map(\.version) == [3, 2])
        let second = try harness.engine.outbox.deliveries(
            WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: "alice", pageSize: 2,
            pageToken: first.nextPageToken)
        #expect(second.deliveries.map(\.version) == [1] && second.nextPageToken.isEmpty)
        let nobody = try harness.engine.outbox.deliveries(
            WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: "carol", pageSize: 2, pageToken: "")
        #expect(nobody.deliveries.isEmpty)
        #expect(try log(harness, WebhookDeliveryFilter(tenantID: "globex")).isEmpty)
        #expect(throws: DomainError.self) {
            try harness.engine.outbox.deliveries(
                WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: nil, pageSize: 2, pageToken: "v3")
        }
    }
}
