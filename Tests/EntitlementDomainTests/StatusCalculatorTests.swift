import EntitlementDomain
import TestSupport
import Testing

func ms(_ value: Int64) -> UnixTime { UnixTime(milliseconds: value) }

func candidate(
    _ entitlementID: String = "pro", source: EntitlementSource = .grant, product: String = "", starts: Int64 = 0,
    expires: Int64? = nil, revoked: Int64? = nil, willRenew: Bool = false, grace: Bool = false,
    billingRetry: Bool = false, reference: String = "g1"
) -> EntitlementCandidate {
    EntitlementCandidate(
        entitlementID: entitlementID, source: source, productID: product, startsAt: ms(starts),
        expiresAt: expires.map(ms), revokedAt: revoked.map(ms), willRenew: willRenew, inGracePeriod: grace,
        inBillingRetry: billingRetry, referenceID: reference)
}

@Suite struct StatusCalculatorTests {
    private func status(_ candidates: [EntitlementCandidate], at now: Int64) -> ComputedStatus {
        StatusCalculator.status(of: candidates, at: ms(now))
    }

    @Test func noCandidatesIsInactive() {
        let result = status([], at: 1000)
        #expect(result == .inactive)
        #expect(!result.isActive)
        #expect(result.activeIDs.isEmpty)
        #expect(result.nextChangeAt == nil)
    }

    @Test func grantNotYetStartedBecomesActiveAtItsStart() {
        let grant = candidate(starts: 1000, expires: 5000)
        let before = status([grant], at: 999)
        #expect(!before.isActive)
        #expect(before.nextChangeAt == ms(1000))
        let atStart = status([grant], at: 1000)
        #expect(atStart.activeIDs == ["pro"])
        #expect(atStart.nextChangeAt == ms(5000))
    }

    @Test func grantExpiresExactlyAtItsExpiryMillisecond() throws {
        let grant = candidate(starts: 0, expires: 5000, reference: "grant-1")
        let last = status([grant], at: 4999)
        #expect(last.isActive)
        let value = try #require(last.entitlement("pro"))
        #expect(value == ActiveEntitlementValue(
            id: "pro", source: .grant, productID: "", expiresAt: ms(5000), willRenew: false, inGracePeriod: false,
            inBillingRetry: false, referenceID: "grant-1"))
        #expect(last.nextChangeAt == ms(5000))
        let expired = status([grant], at: 5000)
        #expect(!expired.isActive)
        #expect(expired.nextChangeAt == nil)
    }

    @Test func revokedInThePastOrNowIsInactive() {
        #expect(!status([candidate(starts: 0, expires: 9000, revoked: 100)], at: 200).isActive)
        #expect(!status([candidate(starts: 0, revoked: 200)], at: 200).isActive)
        #expect(status([candidate(starts: 0, revoked: 200)], at: 199).isActive)
        #expect(status([candidate(starts: 0, revoked: 200)], at: 200).nextChangeAt == nil)
    }

    @Test func revocationInTheFutureEndsItThenAndIsReportedAsItsEnd() throws {
        let grant = candidate(starts: 0, expires: 5000, revoked: 3000)
        let now = status([grant], at: 1000)
        #expect(try #require(now.entitlement("pro")).expiresAt == ms(3000))
        #expect(now.nextChangeAt == ms(3000))
        #expect(status([grant], at: 2999).isActive)
        #expect(!status([grant], at: 3000).isActive)
        // A scheduled revocation of a lifetime grant is its end.
        #expect(try #require(status([candidate(revoked: 7000)], at: 1).entitlement("pro")).expiresAt == ms(7000))
    }

    @Test func lifetimeGrantNeverChanges() throws {
        let result = status([candidate(starts: 0, expires: nil)], at: 123_456_789)
        #expect(try #require(result.entitlement("pro")).expiresAt == nil)
        #expect(result.nextChangeAt == nil)
    }

    @Test func expiryBeforeStartIsNeverActive() {
        let broken = candidate(starts: 5000, expires: 5000)
        #expect(!status([broken], at: 4000).isActive)
        #expect(!status([broken], at: 5000).isActive)
        #expect(status([broken], at: 4000).nextChangeAt == nil)
    }

    @Test func longestLastingSourceWinsAndItsExpiryIsTheNextChange() throws {
        let store = candidate(source: .appStore, product: "com.example.pro.monthly", expires: 5000, willRenew: true, reference: "t1")
        let grant = candidate(source: .grant, expires: 8000, reference: "g1")
        let result = status([store, grant], at: 1000)
        let value = try #require(result.entitlement("pro"))
        #expect(value.source == .grant)
        #expect(value.expiresAt == ms(8000))
        #expect(value.referenceID == "g1")
        // The store purchase's expiry at 5000 changes nothing: the grant still covers the entitlement.
        #expect(result.nextChangeAt == ms(8000))
        #expect(result.entitlements.count == 1)
    }

    @Test func lifetimeBeatsAnyDate() throws {
        let store = candidate(source: .appStore, product: "p", expires: .max, willRenew: true, reference: "t1")
        let lifetime = candidate(source: .grant, expires: nil, reference: "g1")
        for order in [[store, lifetime], [lifetime, store]] {
            let value = try #require(status(order, at: 10).entitlement("pro"))
            #expect(value.referenceID == "g1")
            #expect(value.expiresAt == nil)
        }
    }

    @Test func tiesAreBrokenDeterministically() throws {
        func winner(_ candidates: [EntitlementCandidate]) throws -> String {
            let forward = try #require(status(candidates, at: 10).entitlement("pro")).referenceID
            let backward = try #require(status(candidates.reversed(), at: 10).entitlement("pro")).referenceID
            #expect(forward == backward)
            return forward
        }
        // Same end: the one that will renew.
        #expect(try winner([candidate(source: .appStore, expires: 900, reference: "a"), candidate(source: .playStore, expires: 900, willRenew: true, reference: "b")]) == "b")
        // Then one not in billing retry, then one not in grace.
        #expect(try winner([candidate(expires: 900, billingRetry: true, reference: "a"), candidate(expires: 900, reference: "b")]) == "b")
        #expect(try winner([candidate(expires: 900, grace: true, reference: "a"), candidate(expires: 900, reference: "b")]) == "b")
        // Then store order: App Store, Play Store, web, grant.
        #expect(try winner([candidate(source: .grant, expires: 900, reference: "a"), candidate(source: .stripe, expires: 900, reference: "b")]) == "b")
        #expect(try winner([candidate(source: .playStore, expires: 900, reference: "a"), candidate(source: .appStore, expires: 900, reference: "b")]) == "b")
        // Then the smaller reference ID.
        #expect(try winner([candidate(expires: nil, reference: "g2"), candidate(expires: nil, reference: "g10"), candidate(expires: nil, reference: "g1")]) == "g1")
        // A later end beats every tie-breaker.
        #expect(try winner([candidate(source: .appStore, expires: 900, willRenew: true, reference: "a"), candidate(source: .grant, expires: 901, billingRetry: true, reference: "b")]) == "b")
    }

    @Test func aLongerCandidateStartingLaterChangesTheWinnerWhenItStarts() throws {
        let current = candidate(expires: 5000, reference: "now")
        let later = candidate(starts: 3000, expires: 9000, reference: "later")
        let before = status([current, later], at: 1000)
        #expect(try #require(before.entitlement("pro")).referenceID == "now")
        #expect(before.nextChangeAt == ms(3000))
        let after = status([current, later], at: 3000)
        #expect(try #require(after.entitlement("pro")).referenceID == "later")
        #expect(after.nextChangeAt == ms(9000))
    }

    @Test func aShorterCandidateStartingLaterUnderALifetimeOneChangesNothing() {
        let lifetime = candidate(expires: nil, reference: "life")
        let short = candidate(starts: 3000, expires: 4000, reference: "short")
        let revokedLater = candidate(expires: 6000, revoked: 5000, reference: "revoked")
        #expect(status([lifetime, short, revokedLater], at: 1000).nextChangeAt == nil)
    }

    @Test func severalEntitlementsAreSortedAndTheEarliestChangeWins() throws {
        let result = status(
            [
                candidate("premium", expires: 9000, reference: "g1"),
                candidate("beta", starts: 7000, reference: "g2"),
                candidate("pro", expires: 8000, reference: "g3"),
                candidate("old", expires: 500, reference: "g4"),
            ], at: 1000)
        #expect(result.entitlements.map(\.id) == ["premium", "pro"])
        #expect(result.activeIDs == ["premium", "pro"])
        #expect(result.isActive)
        #expect(result.nextChangeAt == ms(7000))
        #expect(result.entitlement("beta") == nil)
    }

    @Test func grantRecordsBecomeCandidates() {
        let record = GrantRecord(
            grantID: "grant_1", tenantID: "demo", customerID: 7, entitlementID: "pro", startsAt: ms(10),
            expiresAt: ms(20), revokedAt: ms(15), reason: "support", revocationReason: "", idempotencyKey: nil)
        let converted = EntitlementCandidate(grant: record)
        #expect(converted == EntitlementCandidate(
            entitlementID: "pro", source: .grant, productID: "", startsAt: ms(10), expiresAt: ms(20),
            revokedAt: ms(15), willRenew: false, inGracePeriod: false, inBillingRetry: false, referenceID: "grant_1"))
        #expect(converted.isActive(at: ms(14)))
        #expect(!converted.isActive(at: ms(15)))
        #expect(converted.endsAt == ms(15))
    }

    @Test func sourcesArePreferredInDeclarationOrder() {
        #expect(EntitlementSource.allCases.sorted() == [.appStore, .playStore, .stripe, .grant])
        #expect(EntitlementSource.appStore < .grant && !(EntitlementSource.stripe < .playStore))
    }

    /// For random candidate sets, `nextChangeAt` is exactly the first millisecond at which the status differs.
    @Test func nextChangeAtIsExactAgainstBruteForce() {
        var random = SeededRandomNumberGenerator(seed: 0x5EED)
        for _ in 0..<300 {
            let candidates = (0..<Int(random.next() % 5)).map { index in
                let starts = Int64(random.next() % 60)
                let expires: Int64? = random.next() % 4 == 0 ? nil : starts + Int64(random.next() % 60)
                let revoked: Int64? = random.next() % 3 == 0 ? Int64(random.next() % 100) : nil
                return candidate(
                    ["pro", "premium"][Int(random.next() % 2)],
                    source: EntitlementSource.allCases[Int(random.next() % 4)], starts: starts, expires: expires,
                    revoked: revoked, willRenew: random.next() % 2 == 0, reference: "r\(index)")
            }
            let now = Int64(random.next() % 80)
            let result = status(candidates, at: now)
            var expected: UnixTime?
            for instant in (now + 1)...200 where status(candidates, at: instant).entitlements != result.entitlements {
                expected = ms(instant)
                break
            }
            #expect(result.nextChangeAt == expected, "candidates \(candidates) at \(now)")
        }
    }
}
