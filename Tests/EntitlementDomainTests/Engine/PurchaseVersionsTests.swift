import CivilCalendar
import EntitlementDomain
import Testing

@Suite struct PurchaseVersionsTests {
    private static let day = Milliseconds.perDay

    /// Period `n` of a monthly subscription (purchased on day 30n, expiring 30 days later), signed on `signedDay`,
    /// as a device presents it: no renewal info, so its renewal state is as of its purchase.
    private func period(_ n: Int64, signedDay: Int64, product: String = "monthly") -> StorePurchase {
        let purchased = UnixTime(milliseconds: 30 * n * Self.day)
        return StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "1000",
            transactionID: "100\(n)", customerID: 7, productID: product, productType: "Auto-Renewable Subscription",
            entitlementIDs: ["pro"], environment: .sandbox, purchasedAt: purchased,
            originalPurchaseAt: UnixTime(milliseconds: 0),
            expiresAt: UnixTime(milliseconds: purchased.milliseconds + 30 * Self.day), revokedAt: nil,
            revocationReason: "", ownership: .purchased, willRenew: true,
            appAccountToken: "", offerType: "",
            signedAt: UnixTime(milliseconds: signedDay * Self.day), updatedAt: UnixTime(milliseconds: signedDay * Self.day))
    }

    /// `record` as a notification leaves it: with renewal info signed on `day`.
    private func withRenewal(
        _ record: StorePurchase, day: Int64, willRenew: Bool = true, nextProduct: String = "",
        graceUntilDay: Int64? = nil
    ) -> StorePurchase {
        var record = record
        record.renewalStateAsOf = UnixTime(milliseconds: day * Self.day)
        record.willRenew = willRenew
        record.renewalProductID = nextProduct
        record.renewal = graceUntilDay.map { .grace(until: UnixTime(milliseconds: $0 * Self.day)) } ?? .paid
        return record
    }

    @Test func aLaterPeriodWinsWhateverTheSigningOrder() {
        let current = period(2, signedDay: 61)
        let resignedOldPeriod = period(1, signedDay: 70)
        #expect(!PurchaseVersions.supersedes(resignedOldPeriod, current))
        #expect(PurchaseVersions.merge(stored: current, incoming: resignedOldPeriod) == current)
        #expect(PurchaseVersions.supersedes(current, resignedOldPeriod))
        #expect(PurchaseVersions.merge(stored: resignedOldPeriod, incoming: current).transactionID == "1002")
    }

    @Test func withinOneTransactionTheLaterSignatureWins() {
        let stored = period(2, signedDay: 65)
        var refunded = period(2, signedDay: 66)
        refunded.revokedAt = UnixTime(milliseconds: 66 * Self.day)
        #expect(PurchaseVersions.merge(stored: stored, incoming: refunded).revokedAt == refunded.revokedAt)
        #expect(PurchaseVersions.merge(stored: refunded, incoming: stored).revokedAt == refunded.revokedAt)
    }

    @Test func aRefundOrItsReversalForAnEarlierPeriodLeavesTheCurrentOneAlone() {
        let current = period(2, signedDay: 61)
        var refundedEarlier = withRenewal(period(1, signedDay: 75), day: 75)
        refundedEarlier.revokedAt = UnixTime(milliseconds: 75 * Self.day)
        let merged = PurchaseVersions.merge(stored: current, incoming: refundedEarlier)
        #expect(merged.transactionID == "1002" && merged.revokedAt == nil && merged.willRenew)
        let reversedEarlier = withRenewal(period(1, signedDay: 80), day: 80)
        #expect(PurchaseVersions.merge(stored: merged, incoming: reversedEarlier).transactionID == "1002")
    }

    @Test func aPurchaseUpgradedAwayFromNeverReplacesAnother() {
        var upgradedAway = period(1, signedDay: 90)
        upgradedAway.isUpgraded = true
        let upgrade = period(2, signedDay: 40, product: "premium")
        #expect(!PurchaseVersions.supersedes(upgradedAway, upgrade))
        #expect(PurchaseVersions.supersedes(upgrade, upgradedAway))
        #expect(PurchaseVersions.merge(stored: upgradedAway, incoming: upgrade).productID == "premium")
        #expect(EntitlementCandidate.candidates(of: upgradedAway).isEmpty)
        // Nor does an earlier period replace a stored upgraded-away one: the order things arrive in never matters.
        #expect(!PurchaseVersions.supersedes(period(0, signedDay: 95), upgradedAway))
    }

    @Test func aPendingProductIsJudgedAgainstTheCurrentPeriodNotTheNotifications() {
        // Period 2 is monthly after a crossgrade; a refund of the yearly period 1 carries renewal info saying the
        // subscription renews as yearly.
        let current = period(2, signedDay: 61)
        var refundedYearly = withRenewal(period(1, signedDay: 80, product: "yearly"), day: 80, nextProduct: "yearly")
        refundedYearly.revokedAt = UnixTime(milliseconds: 80 * Self.day)
        let merged = PurchaseVersions.merge(stored: current, incoming: refundedYearly)
        #expect(merged.productID == "monthly" && merged.renewalProductID == "yearly")
    }

    @Test func aRevocationThatIsUndoneLeavesAutoRenewAsTheStoreSaid() {
        let renewing = withRenewal(period(2, signedDay: 61), day: 70)
        var refunded = period(2, signedDay: 75)
        refunded.revokedAt = UnixTime(milliseconds: 75 * Self.day)
        let afterRefund = PurchaseVersions.merge(stored: renewing, incoming: refunded)
        #expect(afterRefund.willRenew, "stored as the store said")
        #expect(EntitlementCandidate.candidates(of: afterRefund).allSatisfy { !$0.willRenew })
        let reversed = PurchaseVersions.merge(stored: afterRefund, incoming: period(2, signedDay: 85))
        #expect(reversed.revokedAt == nil && reversed.willRenew)
    }

    @Test func renewalStateFromAppleOutlivesTheDeviceShowingTheSamePeriod() {
        let cancelled = withRenewal(period(2, signedDay: 61), day: 70, willRenew: false, nextProduct: "basic")
        let fromDevice = period(2, signedDay: 75)
        let merged = PurchaseVersions.merge(stored: cancelled, incoming: fromDevice)
        #expect(!merged.willRenew)
        #expect(merged.renewalProductID == "basic")
        #expect(PurchaseVersions.sameData(merged, cancelled))
    }

    @Test func aLateNotificationStillAppliesItsRenewalStateAfterADeviceCopySignedLater() {
        // Apple keeps a retried notification's signedDate; the device had presented the period meanwhile.
        let fromDevice = period(2, signedDay: 75)
        let lateGrace = withRenewal(period(2, signedDay: 70), day: 90, graceUntilDay: 96)
        let merged = PurchaseVersions.merge(stored: fromDevice, incoming: lateGrace)
        #expect(merged.signedAt == fromDevice.signedAt)
        #expect(merged.renewal == .grace(until: UnixTime(milliseconds: 96 * Self.day)))
    }

    @Test func olderRenewalInfoArrivingLateChangesNothing() {
        let off = withRenewal(period(2, signedDay: 61), day: 70, willRenew: false)
        let earlierOn = withRenewal(period(2, signedDay: 61), day: 65, willRenew: true)
        #expect(PurchaseVersions.merge(stored: off, incoming: earlierOn) == off)
    }

    @Test func aPeriodBoughtAfterTheRenewalInfoResetsItsState() {
        // Grace and auto-renew off were reported during period 2; the device then shows period 3 (a renewal or a
        // resubscribe): it renews, and billing worked.
        let trouble = withRenewal(period(2, signedDay: 61), day: 80, willRenew: false, graceUntilDay: 96)
        let merged = PurchaseVersions.merge(stored: trouble, incoming: period(3, signedDay: 91))
        #expect(merged.transactionID == "1003")
        #expect(merged.willRenew && merged.renewal == .paid)
    }

    @Test func aPendingProductClearsWhenThePurchaseBecomesIt() {
        let pending = withRenewal(period(2, signedDay: 61), day: 70, nextProduct: "basic")
        let stillMonthly = PurchaseVersions.merge(stored: pending, incoming: period(2, signedDay: 80))
        #expect(stillMonthly.renewalProductID == "basic")
        var renewedAsBasic = withRenewal(period(3, signedDay: 90, product: "basic"), day: 90)
        renewedAsBasic.renewalProductID = ""
        #expect(PurchaseVersions.merge(stored: pending, incoming: renewedAsBasic).renewalProductID == "")
    }
}

/// A refund or revocation dated ahead of the server's clock.
@Suite struct RevocationTakingEffectTests {
    private static let day = Milliseconds.perDay
    private let now = UnixTime(milliseconds: 66 * day)

    private func refunded(at milliseconds: Int64?, transactionID: String = "1002") -> StorePurchase {
        StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "1000",
            transactionID: transactionID, customerID: 7, productID: "monthly", productType: "Auto-Renewable Subscription",
            entitlementIDs: ["pro"], environment: .sandbox, purchasedAt: UnixTime(milliseconds: 60 * Self.day),
            originalPurchaseAt: UnixTime(milliseconds: 0), expiresAt: UnixTime(milliseconds: 90 * Self.day),
            revokedAt: milliseconds.map(UnixTime.init(milliseconds:)), revocationReason: "0", ownership: .purchased,
            willRenew: false, appAccountToken: "", offerType: "", signedAt: now, updatedAt: now)
    }

    @Test func aFutureDatedRevocationTakesEffectNow() {
        let ahead = refunded(at: now.milliseconds + 5_000)
        #expect(PurchaseVersions.takingEffect(ahead, stored: nil, at: now).revokedAt == now)
        let active = StatusCalculator.status(
            of: EntitlementCandidate.candidates(of: PurchaseVersions.takingEffect(ahead, stored: nil, at: now)),
            at: now)
        #expect(!active.isActive)
    }

    @Test func aRevocationInThePastOrNowIsKeptAsDated() {
        for milliseconds in [now.milliseconds - 5_000, now.milliseconds] {
            let record = refunded(at: milliseconds)
            #expect(PurchaseVersions.takingEffect(record, stored: nil, at: now) == record)
        }
        let unrevoked = refunded(at: nil)
        #expect(PurchaseVersions.takingEffect(unrevoked, stored: nil, at: now) == unrevoked)
    }

    @Test func theSameRefundPresentedAgainKeepsTheDateFirstApplied() {
        let applied = refunded(at: now.milliseconds - 1_000)
        let again = refunded(at: now.milliseconds + 5_000)
        #expect(PurchaseVersions.takingEffect(again, stored: applied, at: now).revokedAt == applied.revokedAt)
        // Another transaction of the same purchase is not the refund stored: it takes effect now.
        let otherPeriod = refunded(at: now.milliseconds + 5_000, transactionID: "1003")
        #expect(PurchaseVersions.takingEffect(otherPeriod, stored: applied, at: now).revokedAt == now)
    }
}

/// The merge rules that only Google Play's data needs: being replaced and being revoked are never in a later fetch.
@Suite struct PlayPurchaseVersionsTests {
    private static let day = Milliseconds.perDay

    /// A Play subscription fetched on `fetchedDay`, its current order `order`.
    private func fetched(day fetchedDay: Int64, order: String = "GPA.1..0") -> StorePurchase {
        let fetched = UnixTime(milliseconds: fetchedDay * Self.day)
        return StorePurchase(
            tenantID: "t", store: .playStore, originalTransactionID: "token", transactionID: order, customerID: 7,
            productID: "premium", productType: "subscription", entitlementIDs: ["pro"], environment: .production,
            purchasedAt: UnixTime(milliseconds: 0), originalPurchaseAt: UnixTime(milliseconds: 0),
            expiresAt: UnixTime(milliseconds: 30 * Self.day), revokedAt: nil, revocationReason: "", ownership: .purchased,
            willRenew: true,  appAccountToken: "",
            offerType: "", signedAt: fetched, updatedAt: fetched, renewalStateAsOf: fetched, origin: .storeAPI)
    }

    @Test func beingSupersededSurvivesLaterDataOfTheOldPurchase() {
        var superseded = fetched(day: 1)
        superseded.supersededBy = "token-new"
        let merged = PurchaseVersions.merge(stored: superseded, incoming: fetched(day: 2, order: "GPA.1..1"))
        #expect(merged.supersededBy == "token-new" && merged.transactionID == "GPA.1..1")
        #expect(EntitlementCandidate.candidates(of: merged).isEmpty)
    }

    /// Google's order is fetched only while an order's amounts are unknown: a fetch without it never takes away what
    /// the stored sale says, a fetch with it fills in one recorded without, and a refund once known stays.
    @Test func aPlayOrdersSaleStandsAgainstAFetchThatSaysLess() {
        var ordered = fetched(day: 1)
        ordered.price = PurchasePrice(milliunits: 1_990, currency: "EUR")
        ordered.sale = PurchaseSale(
            kind: .subscriptionPurchase, offer: .introductory, country: "DE", taxMilliunits: 318,
            reportedProceedsMilliunits: 1_420)
        var bare = fetched(day: 2)
        bare.sale = PurchaseSale(kind: .subscriptionPurchase, offer: .introductory, country: "DE")
        let kept = PurchaseVersions.merge(stored: ordered, incoming: bare)
        #expect(kept.sale == ordered.sale && kept.price == ordered.price && kept.signedAt == bare.signedAt)
        #expect(PurchaseVersions.sameData(kept, ordered), "a refetch that says less is no change")
        let filledIn = PurchaseVersions.merge(stored: bare, incoming: ordered)
        #expect(filledIn.sale == ordered.sale && filledIn.price == ordered.price)
        var refunded = ordered
        refunded.sale?.refundedMilliunits = 1_990
        #expect(PurchaseVersions.merge(stored: refunded, incoming: bare).sale?.refundedMilliunits == 1_990)
        // Another order is another sale.
        var renewed = fetched(day: 2, order: "GPA.1..1")
        renewed.sale = PurchaseSale(kind: .subscriptionRenewal, offer: .none, country: "DE")
        #expect(PurchaseVersions.merge(stored: ordered, incoming: renewed).sale == renewed.sale)
    }

    @Test func aPlayRevocationStaysWhileTheOrderIsTheSame() {
        var revoked = fetched(day: 1)
        revoked.revokedAt = UnixTime(milliseconds: Self.day)
        revoked.revocationReason = "VOIDED_FRAUD"
        let refetched = PurchaseVersions.merge(stored: revoked, incoming: fetched(day: 2))
        #expect(refetched.revokedAt == revoked.revokedAt && refetched.revocationReason == "VOIDED_FRAUD")
        #expect(refetched.signedAt.milliseconds == 2 * Self.day, "the rest of the data is the newer fetch's")
        let renewed = PurchaseVersions.merge(stored: revoked, incoming: fetched(day: 2, order: "GPA.1..1"))
        #expect(renewed.revokedAt == nil && renewed.revocationReason == "")
    }

    @Test func anAppStoreRevocationIsTheSignedDatasOwn() {
        var revoked = fetched(day: 1)
        revoked.store = .appStore
        revoked.revokedAt = UnixTime(milliseconds: Self.day)
        var reversed = fetched(day: 2)
        reversed.store = .appStore
        #expect(PurchaseVersions.merge(stored: revoked, incoming: reversed).revokedAt == nil)
    }

    @Test func theAcknowledgementIsCombinedNotReplaced() {
        var owed = fetched(day: 1)
        owed.acknowledgement = PurchaseAcknowledgement(state: .pending, attempts: 3, dueAt: UnixTime(milliseconds: 5), lastError: "e")
        var stillOwed = fetched(day: 2)
        stillOwed.acknowledgement = .pending(at: UnixTime(milliseconds: 2 * Self.day))
        #expect(PurchaseVersions.merge(stored: owed, incoming: stillOwed).acknowledgement == owed.acknowledgement)
        var acknowledged = fetched(day: 2)
        acknowledged.acknowledgement = PurchaseAcknowledgement(state: .acknowledged)
        #expect(
            PurchaseVersions.merge(stored: owed, incoming: acknowledged).acknowledgement
                == PurchaseAcknowledgement(state: .acknowledged, attempts: 3))
        // Bookkeeping, not purchase data.
        #expect(PurchaseVersions.sameData(owed, fetched(day: 2)))
    }
}

/// A renewal dated ahead of the server's clock: charged before its period begins, or by a clock a few seconds ahead.
@Suite struct PurchaseDatedAheadTests {
    static let day = Milliseconds.perDay

    private func period(_ n: Int64) -> StorePurchase {
        let purchased = UnixTime(milliseconds: 30 * n * Self.day)
        return StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "1000", transactionID: "100\(n)", customerID: 7,
            productID: "monthly", productType: "Auto-Renewable Subscription", entitlementIDs: ["pro"],
            environment: .sandbox, purchasedAt: purchased, originalPurchaseAt: UnixTime(milliseconds: 0),
            expiresAt: UnixTime(milliseconds: purchased.milliseconds + 30 * Self.day), revokedAt: nil,
            revocationReason: "", ownership: .purchased, willRenew: true, appAccountToken: "", offerType: "",
            signedAt: purchased, updatedAt: purchased)
    }

    private func grants(_ purchase: StorePurchase, atMilliseconds time: Int64) -> Bool {
        PurchaseAccess(purchase).grants(at: UnixTime(milliseconds: time))
    }

    @Test func aRenewalAppliedBeforeItsPeriodBeginsTakesNothingAway() {
        // Period 2 ends on day 90; Apple charged period 3 a day early and the notification arrives on day 89.
        let merged = PurchaseVersions.merge(stored: period(2), incoming: period(3))
        #expect(merged.transactionID == "1003")
        #expect(merged.accessFrom == period(2).purchasedAt)
        #expect(grants(merged, atMilliseconds: 89 * Self.day) && grants(merged, atMilliseconds: 119 * Self.day))
        #expect(!grants(merged, atMilliseconds: 120 * Self.day))
    }

    @Test func aRenewalAfterALapseStartsAtItsOwnDate() {
        var lapsed = period(1)
        lapsed.expiresAt = UnixTime(milliseconds: 40 * Self.day)
        let merged = PurchaseVersions.merge(stored: lapsed, incoming: period(3))
        #expect(merged.accessFrom == nil && !grants(merged, atMilliseconds: 89 * Self.day))
        // Nor does a revoked, held or upgraded-away period carry over.
        var revoked = period(2)
        revoked.revokedAt = UnixTime(milliseconds: 80 * Self.day)
        #expect(PurchaseVersions.merge(stored: revoked, incoming: period(3)).accessFrom == nil)
        var held = period(2)
        held.renewal = .held(billingRetry: true)
        #expect(PurchaseVersions.merge(stored: held, incoming: period(3)).accessFrom == nil)
    }

    @Test func aPurchaseDatedAFewSecondsAheadStartsWhenApplied() {
        let now = UnixTime(milliseconds: 90 * Self.day - 5_000)
        let effective = PurchaseVersions.takingEffect(period(3), stored: nil, at: now)
        #expect(effective.accessFrom == now && effective.purchasedAt == period(3).purchasedAt)
        #expect(grants(effective, atMilliseconds: now.milliseconds))
        // At the allowance it still counts; past it, the purchase starts at its date.
        let allowance = PurchaseAccess.clockSkewAllowanceMilliseconds
        let atLimit = UnixTime(milliseconds: 90 * Self.day - allowance)
        #expect(PurchaseVersions.takingEffect(period(3), stored: nil, at: atLimit).accessFrom == atLimit)
        let beyond = UnixTime(milliseconds: 90 * Self.day - allowance - 1)
        #expect(PurchaseVersions.takingEffect(period(3), stored: nil, at: beyond).accessFrom == nil)
        // A purchase already begun is left as it is.
        #expect(PurchaseVersions.takingEffect(period(3), stored: nil, at: UnixTime(milliseconds: 91 * Self.day)) == period(3))
    }
}
