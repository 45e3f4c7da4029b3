import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

/// Grants, revokes, idempotency and time-based changes through the engine, its repository and a manual clock.
@Suite struct CustomerEngineGrantTests {
    @Test func grantActivatesStatusAndRecordsAStatusChangedEvent() async throws {
        let harness = try EngineHarness()
        let identified = try await harness.identify("alice")
        let customerID = try #require(identified.state.customerID)
        let subscription = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: customerID)
        defer { subscription.cancel() }

        let outcome = try await harness.grant("alice", "pro")
        #expect(outcome.appUserID == "alice")
        #expect(outcome.grant.entitlementID == "pro")
        #expect(outcome.grant.expiresAt == nil)
        #expect(outcome.grant.startsAt == harness.now)

        let state = try await harness.state("alice")
        #expect(state.version == 2)
        #expect(state.status.isActive)
        #expect(state.status.activeIDs == ["pro"])
        #expect(state.status.entitlement("pro")?.source == .grant)
        #expect(state.status.entitlement("pro")?.expiresAt == nil)

        let event = try #require(try harness.events("alice").first)
        #expect(event.version == 2)
        #expect(event.cause == .grant)
        #expect(event.change == .statusChanged)
        #expect(event.referenceID == outcome.grant.grantID)
        #expect(event.status.activeIDs == ["pro"])

        let update = try await subscription.next(within: 5)
        #expect(update.kind == .changed(.statusChanged))
        #expect(update.state.version == 2)
        #expect(update.state.status.activeIDs == ["pro"])
    }

    @Test func grantToAnUnknownUserCreatesIt() async throws {
        let harness = try EngineHarness()
        let outcome = try await harness.grant("newcomer", "plus", durationMilliseconds: Milliseconds.perMinute)
        #expect(outcome.grant.expiresAt == UnixTime(milliseconds: harness.now.milliseconds + Milliseconds.perMinute))
        let events = try harness.events("newcomer")
        #expect(events.map(\.cause) == [.grant, .created])
        #expect(try await harness.state("newcomer").version == 2)
    }

    @Test func grantOfAnUndeclaredEntitlementIsRefused() async throws {
        let harness = try EngineHarness()
        await #expect(throws: DomainError.invalidRequest("")) { try await harness.grant("alice", "gold") }
        #expect(try await harness.state("alice").customerID == nil)
    }

    @Test func idempotencyKeyReturnsTheFirstGrant() async throws {
        let harness = try EngineHarness()
        let first = try await harness.grant("alice", "pro", durationMilliseconds: Milliseconds.perMinute, idempotencyKey: "req-1")
        harness.clock.advance(milliseconds: 10)
        let retry = try await harness.grant("alice", "pro", durationMilliseconds: Milliseconds.perMinute, idempotencyKey: "req-1")
        #expect(retry.grant == first.grant)
        #expect(try await harness.state("alice").version == 2)
        #expect(try harness.engine.customers.details(tenantID: harness.tenantID, appUserID: "alice").grants.count == 1)

        // The same key for something else is a mistake, not a retry.
        await #expect(throws: DomainError.wrongState("")) {
            try await harness.grant("alice", "plus", idempotencyKey: "req-1")
        }
        await #expect(throws: DomainError.wrongState("")) {
            try await harness.grant("someone-else", "pro", idempotencyKey: "req-1")
        }
        // Keys are per tenant.
        let other = try await harness.grant("alice", "pro", idempotencyKey: "req-1", in: harness.otherTenant)
        #expect(other.grant.grantID != first.grant.grantID)
        #expect(try await harness.state("someone-else").customerID == nil)
    }

    @Test func revokeDeactivatesOnceAndOnlyInItsTenant() async throws {
        let harness = try EngineHarness()
        let granted = try await harness.grant("alice", "pro")
        #expect(try await harness.state("alice").version == 2)

        // Another tenant cannot see the grant.
        await #expect(throws: DomainError.notFound("")) {
            try await harness.engine.grants.revoke(tenantID: harness.otherTenant.id, grantID: granted.grant.grantID, reason: "")
        }
        #expect(try await harness.state("alice").status.isActive)

        harness.clock.advance(milliseconds: 5)
        let revoked = try await harness.engine.grants.revoke(
            tenantID: harness.tenantID, grantID: granted.grant.grantID, reason: "refund")
        #expect(revoked.grant.revokedAt == harness.now)
        #expect(revoked.grant.revocationReason == "refund")
        let state = try await harness.state("alice")
        #expect(!state.status.isActive)
        #expect(state.version == 3)
        let event = try #require(try harness.events("alice").first)
        #expect(event.cause == .revoke)
        #expect(event.change == .statusChanged)
        #expect(event.reason == "refund")

        // Revoking again changes nothing.
        let again = try await harness.engine.grants.revoke(tenantID: harness.tenantID, grantID: granted.grant.grantID, reason: "")
        #expect(again.grant == revoked.grant)
        #expect(try await harness.state("alice").version == 3)
        await #expect(throws: DomainError.notFound("")) {
            try await harness.engine.grants.revoke(tenantID: harness.tenantID, grantID: "gr_nope", reason: "")
        }
    }

    @Test func longerSecondGrantOfTheSameEntitlementIsCustomerInfoChanged() async throws {
        let harness = try EngineHarness()
        try await harness.grant("alice", "pro", durationMilliseconds: Milliseconds.perHour)
        let longer = try await harness.grant("alice", "pro", durationMilliseconds: 2 * Milliseconds.perHour)
        let event = try #require(try harness.events("alice").first)
        #expect(event.cause == .grant)
        #expect(event.change == .customerInfoChanged)
        #expect(event.version == 3)
        let state = try await harness.state("alice")
        #expect(state.status.activeIDs == ["pro"])
        #expect(state.status.entitlement("pro")?.expiresAt == longer.grant.expiresAt)
        #expect(state.status.entitlement("pro")?.referenceID == longer.grant.grantID)
    }

    @Test func applyTimeChangesRecordsTheExpiryAtItsInstant() async throws {
        let harness = try EngineHarness()
        let start = harness.now
        let granted = try await harness.grant("alice", "pro", durationMilliseconds: 1_000)
        let expiry = try #require(granted.grant.expiresAt)
        #expect(expiry == UnixTime(milliseconds: start.milliseconds + 1_000))
        let customerID = try #require(try await harness.state("alice").customerID)
        let subscription = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: customerID)
        defer { subscription.cancel() }

        // One millisecond before: nothing is due, and the next change is the expiry.
        harness.clock.set(UnixTime(milliseconds: expiry.milliseconds - 1))
        #expect(try await harness.engine.customers.applyTimeChanges() == expiry)
        #expect(try await harness.state("alice").version == 2)
        #expect(try await harness.state("alice").status.isActive)

        // At the instant: one EXPIRY event that changes the status.
        harness.clock.set(expiry)
        #expect(try await harness.state("alice").status.isActive == false, "reads recompute at the instant")
        #expect(try await harness.engine.customers.applyTimeChanges() == nil)
        let state = try await harness.state("alice")
        #expect(state.version == 3)
        #expect(!state.status.isActive)
        let event = try #require(try harness.events("alice").first)
        #expect(event.cause == .expiry)
        #expect(event.change == .statusChanged)
        #expect(event.occurredAt == expiry)
        let update = try await subscription.next(within: 5)
        #expect(update.kind == .changed(.statusChanged))
        #expect(update.state.version == 3)
        #expect(!update.state.status.isActive)

        // Nothing due: nothing recorded.
        harness.clock.advance(milliseconds: Milliseconds.perMinute)
        #expect(try await harness.engine.customers.applyTimeChanges() == nil)
        #expect(try await harness.state("alice").version == 3)
    }

    @Test func expiryCoveredByALongerGrantRecordsNothingUntilTheLongerOneEnds() async throws {
        let harness = try EngineHarness()
        let start = harness.now.milliseconds
        try await harness.grant("alice", "pro", durationMilliseconds: 1_000)
        try await harness.grant("alice", "pro", durationMilliseconds: 5_000)
        #expect(try await harness.state("alice").version == 3)
        harness.clock.set(UnixTime(milliseconds: start + 1_000))
        #expect(try await harness.engine.customers.applyTimeChanges() == UnixTime(milliseconds: start + 5_000))
        #expect(try await harness.state("alice").version == 3)
        harness.clock.set(UnixTime(milliseconds: start + 5_000))
        #expect(try await harness.engine.customers.applyTimeChanges() == nil)
        #expect(try await harness.state("alice").version == 4)
        #expect(try harness.events("alice").first?.cause == .expiry)
    }

    @Test func replayReturnsExactlyTheLaterEventsOrNilWhenTooOld() async throws {
        let harness = try EngineHarness(replayLimit: 2)
        try await harness.identify("alice")  // v1
        try await harness.grant("alice", "pro")  // v2 STATUS_CHANGED
        try await harness.grant("alice", "plus")  // v3 STATUS_CHANGED
        try await harness.grant("alice", "plus", durationMilliseconds: 1_000)  // v4: covered by the lifetime grant
        let current = try await harness.state("alice")
        #expect(current.version == 4)
        let customerID = try #require(current.customerID)

        func replay(_ after: UInt64) throws -> [StatusUpdate]? {
            try harness.engine.customers.replay(tenantID: harness.tenantID, customerID: customerID, afterVersion: after, current: current)
        }
        let tail = try #require(try replay(2))
        #expect(tail.map(\.state.version) == [3, 4])
        #expect(tail.first?.kind == .changed(.statusChanged))
        #expect(tail.first?.state.status.activeIDs == ["plus", "pro"])
        #expect(tail.allSatisfy { $0.state.appUserID == "alice" && $0.state.customerID == customerID })
        #expect(tail.last?.kind == .changed(.customerInfoChanged))
        #expect(try replay(3)?.map(\.state.version) == [4])
        #expect(try replay(4) == [])
        #expect(try replay(1) == nil, "3 versions back is past the replay limit of 2")
        #expect(try replay(5) == nil, "a version the customer never had")
    }

    /// A replayed event is the status as it was when it happened: it carries that time, not the replay's.
    @Test func replayedUpdatesCarryTheTimeOfTheirEvents() async throws {
        let harness = try EngineHarness()
        try await harness.identify("alice")  // v1
        let proGranted = harness.clock.now()
        try await harness.grant("alice", "pro")  // v2
        let plusGranted = harness.clock.advance(milliseconds: Milliseconds.perMinute)
        try await harness.grant("alice", "plus")  // v3
        harness.clock.advance(milliseconds: Milliseconds.perHour)
        let current = try await harness.state("alice")
        let customerID = try #require(current.customerID)
        let replayed = try #require(
            try harness.engine.customers.replay(tenantID: harness.tenantID, customerID: customerID, afterVersion: 1, current: current))
        #expect(replayed.map(\.computedAt) == [proGranted, plusGranted])
        #expect(try harness.events("alice").prefix(2).map(\.occurredAt) == [plusGranted, proGranted])
    }
}
