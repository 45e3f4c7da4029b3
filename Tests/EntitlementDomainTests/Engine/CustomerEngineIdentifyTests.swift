import EntitlementDomain
import Testing

/// Identify through the engine and its repository: create, resolve, adopt, merge, and never merge two
/// identified users.
@Suite struct CustomerEngineIdentifyTests {
    @Test func unknownUserIsCreatedWithOneCreatedEvent() async throws {
        let harness = try EngineHarness()
        let outcome = try await harness.identify("alice")
        #expect(outcome.created)
        #expect(!outcome.merged)
        #expect(outcome.state.appUserID == "alice")
        #expect(outcome.state.version == 1)
        #expect(outcome.state.customerID != nil)
        #expect(!outcome.state.status.isActive)
        let events = try harness.events("alice")
        #expect(events.map(\.version) == [1])
        #expect(events.first?.cause == .created)
    }

    @Test func existingUserResolvesWithoutWriting() async throws {
        let harness = try EngineHarness()
        let first = try await harness.identify("alice")
        let second = try await harness.identify("alice")
        #expect(!second.created)
        #expect(!second.merged)
        #expect(second.state.customerID == first.state.customerID)
        #expect(second.state.version == 1)
        #expect(try harness.events("alice").count == 1)
    }

    @Test func newIdentifiedIDAdoptsTheAnonymousCustomer() async throws {
        let harness = try EngineHarness()
        let anonymous = try await harness.identify("$anon:device-1")
        try await harness.grant("$anon:device-1", "pro")
        let outcome = try await harness.identify("bob", anonymousID: "$anon:device-1")
        #expect(outcome.merged)
        #expect(!outcome.created)
        #expect(outcome.state.customerID == anonymous.state.customerID)
        #expect(outcome.state.appUserID == "bob")
        #expect(outcome.state.version == 3)
        #expect(outcome.state.status.activeIDs == ["pro"])

        // The anonymous ID is now an alias of bob.
        let viaAlias = try await harness.state("$anon:device-1")
        #expect(viaAlias.appUserID == "bob")
        #expect(viaAlias.customerID == anonymous.state.customerID)
        #expect(viaAlias.status.activeIDs == ["pro"])
        let details = try harness.engine.customers.details(tenantID: harness.tenantID, appUserID: "bob")
        #expect(details.aliases == ["$anon:device-1"])

        let latest = try #require(try harness.events("bob").first)
        #expect(latest.cause == .merged)
        #expect(latest.relatedAppUserID == "$anon:device-1")
        #expect(latest.version == 3)
    }

    @Test func anonymousCustomerWithGrantsMergesIntoExistingIdentifiedUser() async throws {
        let harness = try EngineHarness()
        let carol = try await harness.identify("carol")
        let anonymous = try await harness.identify("$anon:device-2")
        let grant = try await harness.grant("$anon:device-2", "pro")
        #expect(try await harness.state("$anon:device-2").version == 2)
        let carolID = try #require(carol.state.customerID)
        let anonymousID = try #require(anonymous.state.customerID)

        let outcome = try await harness.identify("carol", anonymousID: "$anon:device-2")
        #expect(outcome.merged)
        #expect(!outcome.created)
        #expect(outcome.state.customerID == carolID)
        #expect(outcome.state.appUserID == "carol")
        #expect(outcome.state.status.activeIDs == ["pro"])
        // Both customers moved one version: carol 1 → 2, the anonymous husk 2 → 3.
        #expect(outcome.state.version == 2)

        // The grant followed, and the anonymous ID resolves to carol.
        let details = try harness.engine.customers.details(tenantID: harness.tenantID, appUserID: "carol")
        #expect(details.grants.map(\.grantID) == [grant.grant.grantID])
        #expect(details.grants.first?.customerID == carolID)
        #expect(details.aliases == ["$anon:device-2"])
        let viaAlias = try await harness.state("$anon:device-2")
        #expect(viaAlias.customerID == carolID)
        #expect(viaAlias.appUserID == "carol")
        #expect(viaAlias.status.activeIDs == ["pro"])
        let grantNow = try #require(
            try harness.repository.grant(tenantID: harness.tenantID, grantID: grant.grant.grantID))
        #expect(grantNow.customerID == carolID)

        // Both customers recorded the merge.
        let carolEvents = try harness.events("carol")
        #expect(carolEvents.map(\.version) == [2, 1])
        #expect(carolEvents.first?.cause == .merged)
        #expect(carolEvents.first?.relatedAppUserID == "$anon:device-2")
        let huskEvents = try harness.eventRecords(customerID: anonymousID)
        #expect(huskEvents.map(\.version) == [3, 2, 1])
        #expect(huskEvents.first?.cause == .transferredOut)
        #expect(huskEvents.first?.relatedAppUserID == "carol")
        let husk = try #require(try harness.repository.snapshot(tenantID: harness.tenantID, customerID: anonymousID))
        #expect(husk.grants.isEmpty)
        #expect(husk.customer.version == 3)
    }

    @Test func anonymousCustomerWithoutHistoryIsLeftAlone() async throws {
        let harness = try EngineHarness()
        try await harness.identify("hank")
        let anonymous = try await harness.identify("$anon:device-3")
        let outcome = try await harness.identify("hank", anonymousID: "$anon:device-3")
        #expect(!outcome.merged)
        #expect(!outcome.created)
        #expect(outcome.state.appUserID == "hank")
        #expect(outcome.state.version == 1)
        #expect(try await harness.state("$anon:device-3").customerID == anonymous.state.customerID)
    }

    @Test func identifiedUserIsNeverMergedIntoAnotherIdentifiedUser() async throws {
        let harness = try EngineHarness()
        try await harness.identify("dave")
        try await harness.grant("dave", "pro")
        try await harness.identify("erin")
        // An identified ID as anonymous_id is refused outright.
        await #expect(throws: DomainError.invalidRequest("")) {
            try await harness.identify("erin", anonymousID: "dave")
        }

        // An anonymous ID that an identified user already adopted belongs to that user: it is never moved.
        try await harness.identify("$anon:device-4")
        try await harness.grant("$anon:device-4", "plus")
        let frank = try await harness.identify("frank", anonymousID: "$anon:device-4")
        #expect(frank.merged)
        let erin = try await harness.identify("erin", anonymousID: "$anon:device-4")
        #expect(!erin.merged)
        #expect(!erin.state.status.isActive)
        #expect(erin.state.version == 1)
        #expect(try await harness.state("$anon:device-4").appUserID == "frank")
        #expect(try await harness.state("frank").status.activeIDs == ["plus"])
        #expect(try await harness.state("dave").status.activeIDs == ["pro"])
        #expect(try await harness.state("frank").version == frank.state.version)
    }

    @Test func invalidIDsAreRefused() async throws {
        let harness = try EngineHarness()
        for id in ["", "null", "$anon:", "undefined", " padded"] {
            await #expect(throws: DomainError.invalidRequest(""), "\(id)") { try await harness.identify(id) }
        }
        #expect(try await harness.engine.customers.state(tenantID: harness.tenantID, appUserID: "never-seen").customerID == nil)
    }

    @Test func stateOfAnUnknownUserCreatesNothing() async throws {
        let harness = try EngineHarness()
        let state = try await harness.state("nobody")
        #expect(state == CustomerState.unknown("nobody"))
        #expect(!state.status.isActive)
        #expect(try harness.repository.snapshot(tenantID: harness.tenantID, appUserID: "nobody") == nil)
        #expect(throws: DomainError.notFound("")) {
            try harness.engine.customers.details(tenantID: harness.tenantID, appUserID: "nobody")
        }
        #expect(throws: DomainError.notFound("")) { try harness.events("nobody") }
        // Reading twice (now from whatever the engine remembers) still creates nothing, and Identify then creates.
        #expect(try await harness.state("nobody").version == 0)
        #expect(try await harness.identify("nobody").created)
    }
}
