import EntitlementDomain
import Foundation
import Testing
import TestSupport

/// Customer attributes through the engine: events, webhooks, the app's limits, merges and search.
@Suite struct CustomerEngineAttributeTests {
    static let endpoint = WebhookEndpoint(
        id: "all", url: "https://example.com/hooks", secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])

    @discardableResult
    func set(
        _ harness: EngineHarness, _ appUserID: String, _ set: [(String, String)] = [], unset: [String] = [],
        by writer: AttributeWriter = .backend, in tenant: Tenant? = nil
    ) async throws -> AttributeOutcome {
        try await harness.engine.attributes.set(
            tenant: tenant ?? harness.tenant, appUserID: appUserID,
            change: AttributeChange(set: set.map { (key: $0.0, value: $0.1) }, unset: unset), by: writer)
    }

    func attributes(_ harness: EngineHarness, _ appUserID: String) throws -> [String: String] {
        let details = try harness.engine.customers.details(tenantID: harness.tenantID, appUserID: appUserID)
        return Dictionary(uniqueKeysWithValues: details.attributes.map { ($0.key, $0.value) })
    }

    @Test func aChangeIsACustomerInfoEventAndAWebhookNamingTheKeys() async throws {
        let harness = try EngineHarness(webhookEndpoints: { _ in [Self.endpoint] })
        try await harness.grant("alice", "pro")
        let customerID = try #require(try await harness.state("alice").customerID)
        let subscription = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: customerID)
        defer { subscription.cancel() }

        let outcome = try await set(harness, "alice", [("plan", "gold"), ("$email", "Ana@Example.com")])
        #expect(outcome.changedKeys == ["$email", "plan"])
        #expect(outcome.attributes.map(\.key) == ["$email", "plan"])
        #expect(outcome.attributes.allSatisfy { $0.updatedAt == harness.now })
        let state = try await harness.state("alice")
        #expect(state.version == 3)
        #expect(state.status.activeIDs == ["pro"])
        let event = try #require(try harness.events("alice").first)
        #expect(event.cause == .attributes)
        #expect(event.change == .customerInfoChanged)
        #expect(event.reason == "Attributes changed: $email, plan.")
        let update = try await subscription.next(within: 5)
        #expect(update.kind == .changed(.customerInfoChanged))
        #expect(update.state.version == 3)

        let deliveries = try harness.engine.outbox.deliveries(
            WebhookDeliveryFilter(tenantID: harness.tenantID), appUserID: nil, pageSize: 10, pageToken: ""
        ).deliveries
        #expect(deliveries.first?.type == "customer.attributes_changed")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(deliveries[0].body)) as? [String: Any])
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["event_kinds"] as? [String] == ["customer_info_changed", "attributes_changed"])
        let attributes = try #require(data["attributes"] as? [String: Any])
        #expect(attributes["changed_keys"] as? [String] == ["$email", "plan"])
        #expect(attributes["values"] as? [String: String] == ["$email": "Ana@Example.com", "plan": "gold"])
    }

    @Test func aCallThatChangesNothingRecordsNothing() async throws {
        let harness = try EngineHarness()
        try await set(harness, "alice", [("plan", "gold")])
        let version = try await harness.state("alice").version
        let again = try await set(harness, "alice", [("plan", "gold")], unset: ["never-set"])
        #expect(again.changedKeys.isEmpty)
        #expect(try await harness.state("alice").version == version)
        let removed = try await set(harness, "alice", unset: ["plan"])
        #expect(removed.changedKeys == ["plan"])
        #expect(removed.attributes.isEmpty)
        #expect(try attributes(harness, "alice").isEmpty)
        #expect(try await harness.state("alice").version == version + 1)
    }

    @Test func theFirstCallCreatesTheCustomer() async throws {
        let harness = try EngineHarness()
        try await set(harness, "newcomer", [("$locale", "en_gb")], by: .app)
        #expect(try harness.events("newcomer").map(\.cause) == [.attributes, .created])
        #expect(try attributes(harness, "newcomer") == ["$locale": "en-GB"])
    }

    @Test func anAppWritesItsKeysForItsCurrentUserOnly() async throws {
        let harness = try EngineHarness()
        try await harness.identify("$anon:device")
        try await harness.identify("alice", anonymousID: "$anon:device")
        await #expect(throws: DomainError.permissionDenied("")) {
            try await set(harness, "$anon:device", [("$email", "a@example.com")], by: .app)
        }
        await #expect(throws: DomainError.permissionDenied("")) { try await set(harness, "alice", [("plan", "x")], by: .app) }
        #expect(try attributes(harness, "alice").isEmpty)
        // The backend may use any of the customer's IDs.
        let outcome = try await set(harness, "$anon:device", [("plan", "x")])
        #expect(outcome.appUserID == "alice")
        try await set(harness, "alice", [("$email", "a@example.com")], by: .app)
        #expect(try attributes(harness, "alice") == ["plan": "x", "$email": "a@example.com"])
    }

    @Test func aCustomerHoldsAtMostFiftyKeys() async throws {
        let harness = try EngineHarness()
        try await set(harness, "alice", (0..<50).map { ("k\($0)", "v") })
        let before = try await harness.state("alice").version
        await #expect(throws: DomainError.invalidRequest("")) { try await set(harness, "alice", [("one-more", "v")]) }
        #expect(try await harness.state("alice").version == before)
        // Replacing a value, or swapping one key for another, still passes.
        try await set(harness, "alice", [("k0", "w"), ("one-more", "v")], unset: ["k1"])
        #expect(try attributes(harness, "alice").count == 50)
    }

    @Test func aMergeKeepsTheIdentifiedValuesAndAddsTheAnonymousOnes() async throws {
        let harness = try EngineHarness()
        try await set(harness, "$anon:device", [("$email", "old@example.com"), ("$locale", "de")], by: .app)
        try await set(harness, "alice", [("$email", "alice@example.com")])
        try await harness.identify("alice", anonymousID: "$anon:device")
        #expect(try attributes(harness, "alice") == ["$email": "alice@example.com", "$locale": "de"])
        let matches = try harness.engine.subscriberQueries.findCustomers(tenantID: harness.tenantID, query: "OLD@example.com")
        #expect(matches.isEmpty)
    }

    @Test func findCustomersByEmailIgnoresCaseAndStaysInItsTenant() async throws {
        let harness = try EngineHarness()
        try await set(harness, "alice", [("$email", "Alice@Example.com")])
        try await set(harness, "bob", [("$email", "alice@example.COM")])
        try await set(harness, "carol", [("$email", "alice@example.com")], in: harness.otherTenant)
        let matches = try harness.engine.subscriberQueries.findCustomers(tenantID: harness.tenantID, query: "ALICE@example.com")
        #expect(matches == [CustomerMatch(appUserID: "alice", matchedBy: .email), CustomerMatch(appUserID: "bob", matchedBy: .email)])
        // Other keys are not searched.
        try await set(harness, "dave", [("backup", "dave@example.com")])
        #expect(try harness.engine.subscriberQueries.findCustomers(tenantID: harness.tenantID, query: "dave@example.com").isEmpty)
    }
}
