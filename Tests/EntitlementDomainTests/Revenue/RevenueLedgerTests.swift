import CivilCalendar
@testable import EntitlementDomain
import Testing

/// Which ledger entries ``RevenueLedger`` makes of a verified purchase and the one stored before it.
@Suite struct RevenueLedgerTests {
    private static let day = Milliseconds.perDay

    /// Period `n` of a monthly subscription (purchased on day 30n, for 30 days) sold as `kind` under `offer` for
    /// `price` thousandths of a euro, its transaction ID `100n`.
    private func period(
        _ n: Int64, _ kind: SaleKind = .subscriptionRenewal, offer: OfferKind = .none, price: Int64 = 4_990,
        product: String = "monthly"
    ) -> StorePurchase {
        let purchased = UnixTime(milliseconds: 30 * n * Self.day)
        return StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "1000", transactionID: "100\(n)", customerID: 7,
            productID: product, productType: "Auto-Renewable Subscription", entitlementIDs: ["pro"],
            environment: .production, purchasedAt: purchased, originalPurchaseAt: UnixTime(milliseconds: 0),
            expiresAt: UnixTime(milliseconds: purchased.milliseconds + 30 * Self.day), revokedAt: nil,
            revocationReason: "", ownership: .purchased, willRenew: true, appAccountToken: "", offerType: "",
            signedAt: purchased, updatedAt: purchased, price: PurchasePrice(milliunits: price, currency: "EUR"),
            sale: PurchaseSale(kind: kind, offer: offer, country: "FR"))
    }

    private func entries(
        for incoming: StorePurchase, stored: StorePurchase?, commission: StoreCommission = Commissions.defaults.appStore
    ) -> [LedgerEntry] {
        RevenueLedger.entries(for: incoming, stored: stored, commission: commission)
    }

    private func kinds(_ incoming: StorePurchase, stored: StorePurchase?) -> [MovementKind] {
        entries(for: incoming, stored: stored).map(\.kind)
    }

    @Test func aPaymentRecordsWhatTheStoreReported() throws {
        let entry = try #require(entries(for: period(0, .subscriptionPurchase), stored: nil).first)
        #expect(entry.kind == .purchase && entry.transactionID == "1000" && entry.originalTransactionID == "1000")
        #expect(entry.customerID == 7 && entry.productID == "monthly" && entry.entitlementIDs == ["pro"])
        #expect(entry.environment == .production && entry.country == "FR" && entry.offer == .none)
        #expect(entry.amount == PurchasePrice(milliunits: 4_990, currency: "EUR"))
        #expect(entry.periodStart.milliseconds == 0 && entry.periodEnd?.milliseconds == 30 * Self.day)
        #expect(entry.occurredAt.milliseconds == 0)
    }

    @Test func aSubscriptionsPeriodsAreItsPurchaseItsRenewalsAndItsChanges() {
        #expect(kinds(period(0, .subscriptionPurchase), stored: nil) == [.purchase])
        #expect(kinds(period(1), stored: period(0, .subscriptionPurchase)) == [.renewal])
        // A renewal seen first (the purchase never reached us) is a renewal still.
        #expect(kinds(period(3), stored: nil) == [.renewal])
        // Bought again within a paid period: an upgrade or crossgrade.
        var upgrade = period(1, .subscriptionPurchase, product: "yearly")
        upgrade.purchasedAt = UnixTime(milliseconds: 10 * Self.day)
        #expect(kinds(upgrade, stored: period(0, .subscriptionPurchase)) == [.productChange])
        // Bought again after the period lapsed, or after it was refunded: a purchase.
        #expect(kinds(period(2, .subscriptionPurchase), stored: period(0, .subscriptionPurchase)) == [.purchase])
        var refunded = period(0, .subscriptionPurchase)
        refunded.revokedAt = UnixTime(milliseconds: 5 * Self.day)
        #expect(kinds(upgrade, stored: refunded) == [.purchase])
        let lifetime = StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "2000", transactionID: "2000", customerID: 7,
            productID: "lifetime", productType: "Non-Consumable", entitlementIDs: ["premium"], environment: .production,
            purchasedAt: UnixTime(milliseconds: 0), originalPurchaseAt: nil, expiresAt: nil, revokedAt: nil,
            revocationReason: "", ownership: .purchased, willRenew: false, appAccountToken: "", offerType: "",
            signedAt: UnixTime(milliseconds: 0), updatedAt: UnixTime(milliseconds: 0),
            price: PurchasePrice(milliunits: 29_990, currency: "EUR"),
            sale: PurchaseSale(kind: .oneTime, offer: .none, country: "FR"))
        #expect(kinds(lifetime, stored: nil) == [.oneTime])
    }

    @Test func aFreeTrialStartsAndItsFirstPaidPeriodConvertsIt() {
        let trial = period(0, .subscriptionPurchase, offer: .freeTrial, price: 0)
        #expect(kinds(trial, stored: nil) == [.trialStart])
        #expect(entries(for: trial, stored: nil).first?.amount.milliunits == 0)
        #expect(kinds(period(1), stored: trial) == [.trialConversion])
        // Upgraded to a paid plan during the trial: converted all the same.
        var upgrade = period(1, .subscriptionPurchase, product: "yearly")
        upgrade.purchasedAt = UnixTime(milliseconds: 3 * Self.day)
        #expect(kinds(upgrade, stored: trial) == [.trialConversion])
        // The stored record is later than the incoming one (delivered out of order): what came before is unknown.
        #expect(kinds(period(1), stored: period(2)) == [.renewal])
        // A paid introductory period is a payment like the others, its offer kept.
        let intro = entries(for: period(0, .subscriptionPurchase, offer: .introductory, price: 990), stored: nil)
        #expect(intro.map(\.kind) == [.purchase] && intro.first?.offer == .introductory)
    }

    @Test func aRefundIsAnEntryOfItsOwnAndItsReversalAnother() throws {
        var refunded = period(1)
        refunded.revokedAt = UnixTime(milliseconds: 35 * Self.day)
        refunded.sale?.refundedMilliunits = 2_495
        let made = entries(for: refunded, stored: period(1))
        #expect(made.map(\.kind) == [.renewal, .refund])
        let refund = try #require(made.last)
        #expect(refund.transactionID == "1001" && refund.amount == PurchasePrice(milliunits: -2_495, currency: "EUR"))
        #expect(refund.occurredAt.milliseconds == 35 * Self.day && refund.periodStart == made[0].periodStart)
        #expect(refund.kind.direction == .refund && made[0].kind.direction == .payment)
        // The store takes the refund back: the same transaction, no longer revoked, signed later.
        var reversed = period(1)
        reversed.signedAt = UnixTime(milliseconds: 40 * Self.day)
        let reversal = entries(for: reversed, stored: refunded)
        #expect(reversal.map(\.kind) == [.renewal, .refundReversal])
        #expect(reversal.last?.amount.milliunits == 2_495 && reversal.last?.occurredAt.milliseconds == 40 * Self.day)
        // A revocation that moved no money (a family member's) makes no refund entry.
        var familyRevoked = period(1)
        familyRevoked.revokedAt = UnixTime(milliseconds: 35 * Self.day)
        #expect(kinds(familyRevoked, stored: nil) == [.renewal])
    }

    @Test func proceedsAreWhatTheStoreLeavesAndARefundTakesThemBack() throws {
        var refunded = period(0, .subscriptionPurchase)
        refunded.revokedAt = UnixTime(milliseconds: 5 * Self.day)
        refunded.sale?.refundedMilliunits = 4_990
        // Apple's 30% of 4.99 EUR is 1.497 EUR; refunded, Apple gives its share back.
        #expect(entries(for: refunded, stored: nil).map(\.proceedsMilliunits) == [3_493, -3_493])
        // In the subscription's second year, Apple's 15%; a product's own rate wins whatever the year.
        var secondYear = period(13)
        secondYear.originalPurchaseAt = UnixTime(milliseconds: 0)
        #expect(entries(for: secondYear, stored: nil).first?.proceedsMilliunits == 4_242)
        let coins = StoreCommission(
            rate: CommissionRate(thousandths: 30_000), afterFirstYear: CommissionRate(thousandths: 15_000),
            products: ["monthly": CommissionRate(thousandths: 20_000)])
        #expect(entries(for: secondYear, stored: nil, commission: coins).first?.proceedsMilliunits == 3_992)
        // A one-time purchase has no second year.
        var lifetime = period(13, .oneTime)
        lifetime.originalPurchaseAt = UnixTime(milliseconds: 0)
        #expect(entries(for: lifetime, stored: nil).first?.proceedsMilliunits == 3_493)
    }

    @Test func withoutASaleAPriceOrABuyerThereIsNoEntry() {
        var unpriced = period(0)
        unpriced.price = nil
        var unsold = period(0)
        unsold.sale = nil
        var shared = period(0)
        shared.ownership = .familyShared
        for purchase in [unpriced, unsold, shared] { #expect(entries(for: purchase, stored: nil).isEmpty) }
    }
}

/// A part of an amount's share, exact in 128 bits.
@Suite struct ProportionTests {
    @Test func aShareGoesWithItsPartRoundedTowardZero() {
        #expect(Int64(8_560).proportion(-11_990, of: 11_990) == -8_560)
        #expect(Int64(8_560).proportion(-5_995, of: 11_990) == -4_280)
        #expect(Int64(1_000).proportion(1, of: 3) == 333 && Int64(-1_000).proportion(1, of: 3) == -333)
        #expect(Int64.max.proportion(Int64.max - 1, of: Int64.max) == Int64.max - 1)
        // More than the whole counts as the whole; no whole leaves the amount.
        #expect(Int64(700).proportion(-5_000, of: 1_000) == -700 && Int64(700).proportion(10, of: 0) == 700)
        #expect(Int64.min.proportion(1, of: 1) == Int64.min && Int64.min.proportion(-1, of: 1) == Int64.max)
    }
}
