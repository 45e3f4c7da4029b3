import EntitlementDomain
import Testing

@Suite struct IdentityRulesTests {
    private func customer(_ id: Int64, _ appUserID: String, version: UInt64 = 1) -> CustomerRecord {
        CustomerRecord(
            id: id, tenantID: "demo", appUserID: appUserID, isAnonymous: AppUserID.isAnonymous(appUserID),
            version: version, createdAt: ms(0), nextChangeAt: nil)
    }

    private func decide(
        _ appUserID: String, _ anonymousID: String? = nil, identified: CustomerRecord? = nil,
        anonymous: CustomerRecord? = nil, history: Bool = false
    ) throws(DomainError) -> IdentifyDecision {
        try IdentityRules.plan(
            appUserID: appUserID, anonymousID: anonymousID, appUserCustomer: identified, anonymousCustomer: anonymous,
            anonymousHasHistory: history)
    }

    // MARK: Without an anonymous ID

    @Test func unknownUserIsCreated() throws {
        let decision = try decide("alice")
        #expect(decision.plan == .create)
        #expect(decision.created)
        #expect(!decision.merged)
    }

    @Test func knownUserResolves() throws {
        let decision = try decide("alice", identified: customer(3, "alice"))
        #expect(decision.plan == .existing(customerID: 3))
        #expect(!decision.created)
        #expect(!decision.merged)
    }

    @Test func emptyAnonymousIDMeansNone() throws {
        let decision = try decide("alice", "", anonymous: customer(9, "$anon:x"), history: true)
        #expect(decision.request.anonymousID == nil)
        #expect(decision.plan == .create)
    }

    // MARK: Anonymous app_user_id: just get or create

    @Test func anonymousAppUserIDIsResolvedOrCreated() throws {
        #expect(try decide("$anon:a").plan == .create)
        #expect(try decide("$anon:a", identified: customer(4, "$anon:a")).plan == .existing(customerID: 4))
    }

    @Test func anonymousAppUserIDNeverMergesAnotherAnonymousID() throws {
        let anonymous = customer(9, "$anon:b", version: 5)
        let unknown = try decide("$anon:a", "$anon:b", anonymous: anonymous, history: true)
        #expect(unknown.plan == .create)
        #expect(unknown.request.anonymousID == nil)
        let known = try decide("$anon:a", "$anon:b", identified: customer(4, "$anon:a"), anonymous: anonymous, history: true)
        #expect(known.plan == .existing(customerID: 4))
        #expect(!known.merged)
    }

    @Test func anonymousIDEqualToAppUserIDIsNoMerge() throws {
        let same = customer(4, "$anon:a", version: 3)
        let decision = try decide("$anon:a", "$anon:a", identified: same, anonymous: same, history: true)
        #expect(decision.plan == .existing(customerID: 4))
        #expect(decision.request.anonymousID == nil)
    }

    // MARK: New identified ID

    @Test func newIdentifiedIDAdoptsAnAnonymousCustomerWithHistory() throws {
        let decision = try decide("alice", "$anon:a", anonymous: customer(9, "$anon:a", version: 4), history: true)
        #expect(decision.plan == .adoptAnonymous(customerID: 9))
        #expect(!decision.created)
        #expect(decision.merged)
    }

    @Test func newIdentifiedIDAdoptsAnAnonymousCustomerWithoutHistory() throws {
        let decision = try decide("alice", "$anon:a", anonymous: customer(9, "$anon:a"), history: false)
        #expect(decision.plan == .adoptAnonymous(customerID: 9))
        #expect(decision.merged)
    }

    @Test func newIdentifiedIDWithUnknownAnonymousIDIsCreated() throws {
        let decision = try decide("alice", "$anon:a")
        #expect(decision.plan == .create)
        #expect(decision.created)
        #expect(!decision.merged)
        #expect(decision.request.anonymousID == "$anon:a")
    }

    @Test func newIdentifiedIDNeverTakesAnotherIdentifiedCustomer() throws {
        // "$anon:a" was merged into bob earlier: it is bob's alias now, and bob is identified.
        let bob = customer(5, "bob", version: 7)
        let decision = try decide("alice", "$anon:a", anonymous: bob, history: true)
        #expect(decision.plan == .create)
        #expect(decision.created)
        #expect(!decision.merged)
    }

    // MARK: Existing identified ID

    @Test func anonymousCustomerWithHistoryMergesIntoExistingIdentifiedCustomer() throws {
        let decision = try decide(
            "alice", "$anon:a", identified: customer(3, "alice"), anonymous: customer(9, "$anon:a", version: 2),
            history: true)
        #expect(decision.plan == .mergeAnonymous(from: 9, into: 3))
        #expect(!decision.created)
        #expect(decision.merged)
    }

    @Test func anonymousCustomerWithoutHistoryIsLeftAlone() throws {
        let decision = try decide(
            "alice", "$anon:a", identified: customer(3, "alice"), anonymous: customer(9, "$anon:a"), history: false)
        #expect(decision.plan == .existing(customerID: 3))
        #expect(!decision.merged)
    }

    @Test func anonymousIDAlreadyMergedIntoThisCustomerIsARetry() throws {
        let alice = customer(3, "alice", version: 6)
        let decision = try decide("alice", "$anon:a", identified: alice, anonymous: alice, history: true)
        #expect(decision.plan == .existing(customerID: 3))
        #expect(!decision.merged)
    }

    @Test func identifiedCustomerIsNeverMergedIntoAnother() throws {
        let decision = try decide(
            "alice", "$anon:a", identified: customer(3, "alice"), anonymous: customer(5, "bob", version: 9),
            history: true)
        #expect(decision.plan == .existing(customerID: 3))
        #expect(!decision.merged)
    }

    @Test func unknownAnonymousIDWithExistingUserResolves() throws {
        #expect(try decide("alice", "$anon:a", identified: customer(3, "alice")).plan == .existing(customerID: 3))
    }

    // MARK: Validation

    @Test func anonymousIDMustBeAnonymous() {
        do {
            _ = try decide("alice", "bob")
            Issue.record("expected INVALID_ARGUMENT")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.message.hasPrefix("anonymous_id must be an anonymous ID starting with \"$anon:\""))
        }
    }

    @Test func bothIDsAreValidatedWithTheirFieldNames() {
        for (appUserID, anonymousID, prefix) in [
            ("null", nil, "app_user_id \"null\""), ("alice", "$anon:", "anonymous_id is just the anonymous prefix"),
            ("alice", "undefined", "anonymous_id \"undefined\""), ("", "$anon:a", "app_user_id is empty"),
        ] as [(String, String?, String)] {
            do {
                _ = try decide(appUserID, anonymousID)
                Issue.record("expected INVALID_ARGUMENT for \(appUserID), \(String(describing: anonymousID))")
            } catch {
                #expect(error.code == .invalidRequest)
                #expect(error.message.hasPrefix(prefix), "\(error.message)")
            }
        }
    }

    @Test func validateAndPlanCompose() throws {
        let request = try IdentityRules.validate(appUserID: "alice", anonymousID: "$anon:a")
        #expect(request == IdentifyRequest(appUserID: "alice", anonymousID: "$anon:a"))
        let plan = IdentityRules.plan(
            for: request, identified: nil, anonymous: customer(9, "$anon:a"), anonymousHasHistory: true)
        #expect(plan == .adoptAnonymous(customerID: 9))
        #expect(plan.merged && !plan.created)
    }

    // MARK: History

    @Test func historyMeansGrantsOrAnyChangeAfterCreation() {
        let fresh = customer(9, "$anon:a", version: 1)
        #expect(!IdentityRules.hasHistory(CustomerSnapshot(customer: fresh, aliases: [], grants: [])))
        #expect(!IdentityRules.hasHistory(CustomerSnapshot(customer: customer(9, "$anon:a", version: 0), aliases: [], grants: [])))
        #expect(IdentityRules.hasHistory(CustomerSnapshot(customer: customer(9, "$anon:a", version: 2), aliases: [], grants: [])))
        let grant = GrantRecord(
            grantID: "g", tenantID: "demo", customerID: 9, entitlementID: "pro", startsAt: ms(0), expiresAt: ms(1),
            revokedAt: nil, reason: "", revocationReason: "", idempotencyKey: nil)
        #expect(IdentityRules.hasHistory(CustomerSnapshot(customer: fresh, aliases: [], grants: [grant])))
    }
}
