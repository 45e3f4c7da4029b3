import CivilCalendar
import EntitlementDomain
import Foundation
import Testing
import TestSupport

/// DeleteCustomer through the engine (in memory, and on SQL with `ENTITLEMENTD_TEST_DOMAIN_DATABASE=sql`): what
/// goes, what stays pseudonymised, the streams, the cache, the audit log, the notice, and purchases that stay erased.
@Suite struct CustomerErasureTests {
    static let endpoint = WebhookEndpoint(
        id: "all", url: "https://example.com/hooks", secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])

    func delete(_ harness: EngineHarness, _ appUserID: String) async throws -> ErasureOutcome {
        try await harness.engine.privacy.delete(
            tenant: harness.tenant, appUserID: appUserID, confirmation: appUserID, noticeWait: .zero)
    }

    @Test func anErasedCustomerIsGoneWithEveryIDAndItsStreamEnds() async throws {
        let harness = try EngineHarness()
        try await harness.identify("$anon:phone")
        _ = try await harness.engine.attributes.set(
            tenant: harness.tenant, appUserID: "$anon:phone", change: AttributeChange(set: [("$email", "a@example.com")]),
            by: .app)
        try await harness.identify("alice", anonymousID: "$anon:phone")
        try await harness.grant("alice", "pro")
        try await harness.purchase("alice", [harness.playPurchase("token-1", appAccountToken: "")])
        let customerID = try #require(try await harness.state("alice").customerID)
        let stream = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: customerID)

        let outcome = try await delete(harness, "$anon:phone")
        #expect(outcome.tombstone.hasPrefix("erased_") && outcome.tombstone.count == 29)
        let counts = try #require(outcome.counts)
        #expect(counts.purchasesKept == 1 && counts.purchasesDeleted == 0 && counts.events >= 4)
        #expect(await stream.next() == nil)
        #expect(stream.endedBy?.code == .notFound && stream.endedBy?.message.hasPrefix("customer deleted") == true)
        for id in ["alice", "$anon:phone"] {
            #expect(try await harness.state(id).customerID == nil, "\(id)")
            #expect(throws: DomainError.notFound("")) { try harness.engine.customers.details(tenantID: harness.tenantID, appUserID: id) }
            #expect(try harness.engine.subscriberQueries.findCustomers(tenantID: harness.tenantID, query: id).isEmpty)
        }
        #expect(try harness.engine.subscriberQueries.findCustomers(tenantID: harness.tenantID, query: "a@example.com").isEmpty)
        // The purchase stays, owned by nobody.
        let kept = try #require(try harness.stored("token-1"))
        #expect(kept.customerID == nil && kept.appAccountToken.isEmpty)
        // The audit log names the erasure by the hash only.
        let audit = try harness.engine.privacy.auditLog(tenantID: harness.tenantID, pageSize: 10, pageToken: "")
        #expect(audit.events.map(\.action) == [.customerDeleted] && audit.events[0].subject == outcome.tombstone)
        // Again: the same hash, nothing more to do; an ID never known is not found.
        let again = try await delete(harness, "alice")
        #expect(again.tombstone == outcome.tombstone && again.counts == nil)
        await #expect(throws: DomainError.notFound("")) { _ = try await delete(harness, "nobody") }
    }

    @Test func theConfirmationMustRepeatTheID() async throws {
        let harness = try EngineHarness()
        try await harness.identify("alice")
        await #expect(throws: DomainError.invalidRequest("")) {
            _ = try await harness.engine.privacy.delete(tenant: harness.tenant, appUserID: "alice", confirmation: "Alice")
        }
        #expect(try await harness.state("alice").customerID != nil)
    }

    @Test func aStoreNotificationAboutAKeptPurchaseAppliesToNobodyAndNamesNobody() async throws {
        let harness = try EngineHarness()
        let token = AppAccountToken.derive(tenantID: harness.tenantID, appUserID: "alice")
        try await harness.identify("alice")
        try await harness.purchase("alice", [harness.playPurchase("token-1", appAccountToken: token)])
        _ = try await delete(harness, "alice")

        // The store names the person every way it can: the token, the buyer's app user ID.
        harness.clock.advance(milliseconds: 1000)
        let renewed = harness.playPurchase("token-1", order: "GPA.2", expiresIn: 60 * Milliseconds.perDay, appAccountToken: token)
        let outcome = try await harness.notify(renewed, hints: [.appUserID("alice"), .appAccountToken(token)])
        #expect(outcome == .recorded)
        #expect(try await harness.state("alice").customerID == nil)
        let stored = try #require(try harness.stored("token-1"))
        #expect(stored.customerID == nil && stored.appAccountToken.isEmpty && stored.transactionID == "GPA.2")

        // A user presenting the purchase takes it, under the transfer rules; then it is theirs like any other.
        let claimed = try await harness.purchase("bob", [renewed])
        #expect(claimed.state.status.activeIDs == ["pro"])
        #expect(try harness.stored("token-1")?.customerID == claimed.state.customerID)
    }

    @Test func theNoticeGoesOutOnceAndIsNotKept() async throws {
        let harness = try EngineHarness(webhookEndpoints: { _ in [Self.endpoint] })
        try await harness.identify("alice")
        let outcome = try await delete(harness, "alice")
        let queued = try harness.engine.outbox.deliveries(
            WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: nil, pageSize: 10, pageToken: ""
        ).deliveries
        #expect(queued.map(\.type) == ["customer.deleted"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(queued[0].body)) as? [String: Any])
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["app_user_id"] as? String == "alice" && data["subject"] as? String == outcome.tombstone)
        // Delivered: gone from the outbox.
        let claimed = try await harness.engine.outbox.exchange(
            recording: [], claimLimit: 10, excludedEndpoints: [], leaseMilliseconds: 60_000) { $0 }
        _ = try await harness.engine.outbox.exchange(
            recording: [
                WebhookAttemptResult(
                    delivery: claimed[0], attemptedAt: harness.now, status: 200, error: "", verdict: .delivered)
            ], claimLimit: 0, excludedEndpoints: [], leaseMilliseconds: 60_000) { $0 }
        #expect(
            try harness.engine.outbox.deliveries(
                WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: nil, pageSize: 10, pageToken: ""
            ).deliveries.isEmpty)
    }

    @Test func anErasedTokenIsNotKeptForAnotherOwnerButTheSameIDComingBackHoldsItAgain() async throws {
        let harness = try EngineHarness()
        let token = AppAccountToken.derive(tenantID: harness.tenantID, appUserID: "alice")
        try await harness.identify("alice")
        try await harness.purchase("alice", [harness.playPurchase("token-1", appAccountToken: token)])
        // Bob restores alice's purchase on his device (the transfer policy moves it), then alice is erased.
        try await harness.purchase("bob", [harness.playPurchase("token-1", appAccountToken: token)])
        _ = try await delete(harness, "alice")
        harness.clock.advance(milliseconds: 1000)
        try await harness.notify(harness.playPurchase("token-1", order: "GPA.2", appAccountToken: token))
        #expect(try harness.stored("token-1")?.appAccountToken == "")
        try await harness.purchase("bob", [harness.playPurchase("token-1", order: "GPA.3", appAccountToken: token)])
        #expect(try harness.stored("token-1")?.appAccountToken == "")

        // Alice signs up again under the same ID: her token is hers again, and a purchase carrying it finds her.
        let back = try await harness.identify("alice")
        #expect(back.appAccountToken == token)
        try await harness.notify(harness.playPurchase("token-2", appAccountToken: token))
        #expect(try harness.stored("token-2")?.customerID == back.state.customerID)
        #expect(try harness.stored("token-2")?.appAccountToken == token)
    }

    @Test func aStatusReadOfAnErasedIDSaysSoAndAnExportFindsNobody() async throws {
        let harness = try EngineHarness()
        try await harness.identify("alice")
        _ = try await delete(harness, "alice")
        let error = harness.engine.privacy.unknownCustomer(
            tenantID: harness.tenantID, appUserID: "alice", otherwise: .internalError("not erased"))
        #expect(error.code == .notFound && error.message == CustomerPrivacy.deletedMessage)
        let never = harness.engine.privacy.unknownCustomer(
            tenantID: harness.tenantID, appUserID: "bob", otherwise: .internalError("never known"))
        #expect(never.code == .internalError)
        await #expect(throws: DomainError.notFound("")) {
            _ = try await harness.engine.privacy.export(tenantID: harness.tenantID, appUserID: "alice")
        }
        #expect(try harness.engine.privacy.auditLog(tenantID: harness.tenantID, pageSize: 10, pageToken: "").events.map(\.action) == [.customerDeleted])
    }

    @Test func anAttemptInFlightWhenItsCustomerIsErasedLeavesNoNotice() async throws {
        let harness = try EngineHarness(webhookEndpoints: { _ in [Self.endpoint] })
        try await harness.grant("alice", "pro")
        let claimed = try await harness.engine.outbox.exchange(
            recording: [], claimLimit: 10, excludedEndpoints: [], leaseMilliseconds: 60_000) { $0 }
        #expect(!claimed.isEmpty)
        // (On SQLite the notice this queues may take the ID of a delivery deleted with alice.)
        _ = try await delete(harness, "alice")
        _ = try await harness.engine.outbox.exchange(
            recording: claimed.map {
                WebhookAttemptResult(delivery: $0, attemptedAt: harness.now, status: 500, error: "HTTP 500", verdict: .exhausted)
            }, claimLimit: 0, excludedEndpoints: [], leaseMilliseconds: 60_000) { $0 }
        let left = try harness.engine.outbox.deliveries(
            WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: nil, pageSize: 10, pageToken: "").deliveries
        #expect(left.map(\.type) == ["customer.deleted"])
    }
}
