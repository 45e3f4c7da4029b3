import CivilCalendar
import EntitlementDomain
import Testing

/// What versions of a subscription say about a failed renewal, and the days in a grace period and billing retry
/// that gives.
@Suite struct BillingObservationTests {
    static let day = Milliseconds.perDay

    static func time(_ days: Int64, hours: Int64 = 0) -> UnixTime {
        UnixTime(milliseconds: days * day + hours * 3_600_000)
    }

    /// A monthly subscription paid from day 0 to day 30, its renewal state as of `asOf`.
    static func purchase(_ renewal: RenewalState, asOf: Int64, expiresOn: Int64 = 30) -> StorePurchase {
        StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "1000", transactionID: "100\(expiresOn)",
            customerID: 7, productID: "monthly", productType: "Auto-Renewable Subscription", entitlementIDs: ["pro"],
            environment: .production, purchasedAt: time(expiresOn - 30), originalPurchaseAt: time(0),
            expiresAt: time(expiresOn), revokedAt: nil, revocationReason: "", ownership: .purchased, willRenew: true,
            renewal: renewal, appAccountToken: "", offerType: "", signedAt: time(asOf), updatedAt: time(asOf),
            renewalStateAsOf: time(asOf), price: PurchasePrice(milliunits: 9_990, currency: "USD"),
            sale: PurchaseSale(kind: .subscriptionRenewal, offer: .none, country: "US"))
    }

    static func observed(_ renewal: RenewalState, asOf: Int64, expiresOn: Int64 = 30, after stored: StorePurchase?)
        -> BillingObservation?
    {
        BillingObservation(stored: stored, incoming: purchase(renewal, asOf: asOf, expiresOn: expiresOn))
    }

    func described(_ intervals: [CoverageInterval]) -> [String] {
        intervals.map { "\($0.state.name) \($0.days) \($0.monthlyMilliunits)" }
    }

    @Test func onlyNewsIsObserved() throws {
        let paid = Self.purchase(.paid, asOf: 1)
        #expect(Self.observed(.paid, asOf: 2, after: paid) == nil, "neither retries")
        let grace = try #require(Self.observed(.grace(until: Self.time(46)), asOf: 30, after: paid))
        #expect(grace.billing == .grace(until: Self.time(46)) && grace.dueAt == Self.time(30))
        #expect(grace.payment.amount == PurchasePrice(milliunits: 9_990, currency: "USD") && grace.payment.country == "US")
        let inGrace = Self.purchase(.grace(until: Self.time(46)), asOf: 30)
        #expect(Self.observed(.grace(until: Self.time(46)), asOf: 31, after: inGrace) == nil, "the same again")
        #expect(Self.observed(.billingRetry, asOf: 31, after: inGrace)?.billing == .retrying)
        #expect(Self.observed(.held(billingRetry: true), asOf: 31, after: inGrace)?.billing == .retrying, "an account hold")
        #expect(Self.observed(.paid, asOf: 33, expiresOn: 63, after: inGrace)?.billing == .settled, "recovered")
        #expect(Self.observed(.paid, asOf: 20, after: inGrace) == nil, "older than what is stored")
        #expect(Self.observed(.paused(resumesAt: Self.time(60)), asOf: 31, after: inGrace)?.billing == .settled)
        var shared = Self.purchase(.billingRetry, asOf: 31)
        shared.ownership = .familyShared
        #expect(BillingObservation(stored: nil, incoming: shared) == nil, "a family member's share is the organizer's")
    }

    @Test func aGracePeriodThenBillingRetryUntilSettled() throws {
        let paid = Self.purchase(.paid, asOf: 1)
        let grace = try #require(Self.observed(.grace(until: Self.time(46)), asOf: 30, after: paid))
        // Open: grace to its end, then billing retry for the rest of the 60 days.
        #expect(described(BillingObservation.intervals(of: [grace])) == ["grace 30..<46 9990", "billing_retry 46..<90 9990"])
        let recovered = try #require(
            Self.observed(.paid, asOf: 50, expiresOn: 80, after: Self.purchase(.grace(until: Self.time(46)), asOf: 30)))
        #expect(described(BillingObservation.intervals(of: [recovered, grace])) == ["grace 30..<46 9990", "billing_retry 46..<50 9990"])
        let early = try #require(
            Self.observed(.paid, asOf: 40, expiresOn: 70, after: Self.purchase(.grace(until: Self.time(46)), asOf: 30)))
        #expect(described(BillingObservation.intervals(of: [grace, early])) == ["grace 30..<40 9990"])
    }

    @Test func anAccountHoldEndsTheGracePeriodAndANewFailureIsANewEpisode() throws {
        let grace = try #require(Self.observed(.grace(until: Self.time(46)), asOf: 30, after: Self.purchase(.paid, asOf: 1)))
        let held = Self.purchase(.held(billingRetry: true), asOf: 37)
        let hold = try #require(
            Self.observed(.held(billingRetry: true), asOf: 37, after: Self.purchase(.grace(until: Self.time(46)), asOf: 30)))
        #expect(described(BillingObservation.intervals(of: [grace, hold])) == ["grace 30..<37 9990", "billing_retry 37..<90 9990"])
        // Recovered on day 40 (paid to day 70), then that renewal fails too.
        let recovered = try #require(Self.observed(.paid, asOf: 40, expiresOn: 70, after: held))
        let next = try #require(
            Self.observed(.billingRetry, asOf: 70, expiresOn: 70, after: Self.purchase(.paid, asOf: 40, expiresOn: 70)))
        #expect(
            described(BillingObservation.intervals(of: [next, grace, recovered, hold])) == [
                "grace 30..<37 9990", "billing_retry 37..<40 9990", "billing_retry 70..<130 9990",
            ])
    }

    /// Google Play extends the expiry through the grace period: the renewal was due where the paid period ended.
    @Test func aGraceThatExtendsTheExpiryBeginsWhereThePaidPeriodEnded() throws {
        var extended = Self.purchase(.grace(until: Self.time(33)), asOf: 30, expiresOn: 33)
        extended.purchasedAt = Self.time(0)
        extended.sale?.periodStart = Self.time(0)
        let grace = try #require(BillingObservation(stored: Self.purchase(.paid, asOf: 1), incoming: extended))
        #expect(grace.dueAt == Self.time(30))
        #expect(described(BillingObservation.intervals(of: [grace])) == ["grace 30..<33 9990", "billing_retry 33..<90 9990"])
    }

    /// Google Play's grace period first seen without the version before it: from when it was seen.
    @Test func aGraceFirstSeenWithItsExtendedExpiryBeginsWhenSeen() throws {
        var extended = Self.purchase(.grace(until: Self.time(33)), asOf: 31, expiresOn: 33)
        extended.sale?.periodStart = Self.time(0)
        let grace = try #require(BillingObservation(stored: nil, incoming: extended))
        #expect(described(BillingObservation.intervals(of: [grace])) == ["grace 31..<33 9990", "billing_retry 33..<91 9990"])
    }

    /// Stripe's past-due update names the invoice that failed, with no sale: the payment retried is the one stored.
    /// Paid later for the period from its due date, the episode's days were paid for after all; given up, they stay.
    @Test func aRetriedPaymentIsTheLastPaidAndAPaymentFromTheDueDateEndsTheEpisodeThere() throws {
        let paid = Self.purchase(.paid, asOf: 1)
        var failed = Self.purchase(.billingRetry, asOf: 30)
        failed.transactionID = "in_failed"
        failed.sale = nil
        failed.price = PurchasePrice(milliunits: 12_000, currency: "EUR")
        let retry = try #require(BillingObservation(stored: paid, incoming: failed))
        #expect(retry.payment.transactionID == paid.transactionID && retry.payment.amount == paid.price)
        var repaid = Self.purchase(.paid, asOf: 40, expiresOn: 60)
        repaid.sale?.periodStart = Self.time(30)
        let recovered = try #require(BillingObservation(stored: failed, incoming: repaid))
        #expect(BillingObservation.intervals(of: [retry, recovered]).allSatisfy { $0.days.isEmpty })
        var canceled = failed
        canceled.renewal = .held(billingRetry: false)
        canceled.renewalStateAsOf = Self.time(40)
        let givenUp = try #require(BillingObservation(stored: failed, incoming: canceled))
        #expect(described(BillingObservation.intervals(of: [retry, givenUp])) == ["billing_retry 30..<40 9990"])
    }

    @Test func aDayCountsWhenTheEpisodeHoldsItsEnd() throws {
        // Failed at noon on day 30, recovered at noon on day 31: in billing retry at the end of day 30 only.
        var failing = Self.purchase(.billingRetry, asOf: 30)
        failing.expiresAt = Self.time(30, hours: 12)
        failing.renewalStateAsOf = Self.time(30, hours: 12)
        let retry = try #require(BillingObservation(stored: Self.purchase(.paid, asOf: 1), incoming: failing))
        var renewed = Self.purchase(.paid, asOf: 31, expiresOn: 61)
        renewed.renewalStateAsOf = Self.time(31, hours: 12)
        let settled = try #require(BillingObservation(stored: failing, incoming: renewed))
        #expect(described(BillingObservation.intervals(of: [retry, settled])) == ["billing_retry 30..<31 9990"])
        // Recovered the same day: no day at all.
        renewed.renewalStateAsOf = Self.time(30, hours: 18)
        let sameDay = try #require(BillingObservation(stored: failing, incoming: renewed))
        #expect(BillingObservation.intervals(of: [retry, sameDay]).allSatisfy { $0.days.isEmpty })
        #expect(SubscriptionCoverage.changes(from: [], to: BillingObservation.intervals(of: [retry, sameDay])).isEmpty)
    }

    @Test func farFutureInstantsDoNotOverflow() throws {
        var far = Self.purchase(.grace(until: UnixTime(milliseconds: .max)), asOf: 1)
        far.expiresAt = UnixTime(milliseconds: .max - 1)
        far.renewalStateAsOf = UnixTime(milliseconds: .max - 1)
        let observation = try #require(BillingObservation(stored: nil, incoming: far))
        #expect(BillingObservation.intervals(of: [observation]).allSatisfy { $0.days.isEmpty })
    }
}
