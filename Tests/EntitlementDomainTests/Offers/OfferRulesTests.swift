import EntitlementDomain
import Testing

/// The offer decisions on a customer's purchases in every store: each rule refusing, and passing.
@Suite struct OfferRulesTests {
    static let day: Int64 = 86_400_000
    static let now = UnixTime(milliseconds: 1_800_000_000_000)

    static func at(days: Int64) -> UnixTime { UnixTime(milliseconds: now.milliseconds + days * day) }

    /// A subscription to `entitlement` bought `from` days from now, expiring `to` days from now.
    static func subscription(
        _ store: Store, product: String = "pro.monthly", entitlement: String = "pro", from: Int64, to: Int64,
        revokedAt: Int64? = nil
    ) -> StorePurchase {
        let type: String =
            switch store {
            case .appStore: AppStoreInterpretation.autoRenewableType
            case .playStore: PlayProductType.subscription.rawValue
            case .stripe: StripeInterpretation.subscriptionType
            }
        return StorePurchase(
            tenantID: "t", store: store, originalTransactionID: "\(store)-\(from)", transactionID: "\(store)-\(from)",
            customerID: 1, productID: product, productType: type, entitlementIDs: [entitlement], environment: .production,
            purchasedAt: at(days: from), originalPurchaseAt: nil, expiresAt: at(days: to),
            revokedAt: revokedAt.map { at(days: $0) }, revocationReason: revokedAt == nil ? "" : "1", ownership: .purchased,
            willRenew: false, appAccountToken: "", offerType: "", signedAt: at(days: from), updatedAt: at(days: from))
    }

    static func history(_ purchases: [StorePurchase], stores: Set<Store> = Set(Store.allCases)) -> OfferHistory {
        OfferHistory(purchases: purchases, scope: ["pro"], stores: stores, at: now)
    }

    func refusal(_ rules: PromotionalOfferRules, _ purchases: [StorePurchase], product: String = "pro.monthly", signed: Int = 0)
        -> OfferRefusal.Rule?
    {
        OfferRules.promotional(
            offerID: "o", rules, productID: product, history: Self.history(purchases), signedInPeriod: signed, at: Self.now)?.rule
    }

    @Test func introductoryOffersEndWithAnySubscriptionToTheSameEntitlementsInAnyStore() {
        #expect(OfferRules.introductory(history: nil).reason == .noHistory)
        #expect(OfferRules.introductory(history: nil).eligible)
        #expect(OfferRules.introductory(history: Self.history([])).reason == .neverSubscribed)
        let play = Self.subscription(.playStore, product: "pro_android", from: -400, to: -370)
        let web = Self.subscription(.stripe, from: -100, to: -70)
        let decision = OfferRules.introductory(history: Self.history([web, play]))
        #expect(!decision.eligible && decision.reason == .subscribedBefore)
        #expect(decision.subscription?.store == .playStore, "the first subscription, by purchase date")
        // Counting the App Store alone, as StoreKit does.
        #expect(OfferRules.introductory(history: Self.history([web, play], stores: [.appStore])).eligible)
        // Another entitlement's subscription, or a one-time purchase, is no subscription to these.
        let other = Self.subscription(.appStore, entitlement: "extra", from: -10, to: 20)
        var lifetime = Self.subscription(.appStore, product: "pro.lifetime", from: -5, to: 0)
        lifetime.productType = "Non-Consumable"
        lifetime.expiresAt = nil
        #expect(OfferRules.introductory(history: Self.history([other, lifetime])).reason == .neverSubscribed)
    }

    @Test func anEligibilitySignatureOnlyWithholdsTheOffer() {
        func refusal(_ history: OfferHistory?) -> OfferRefusal.Rule? {
            OfferRules.introductorySignatureRefusal(OfferRules.introductory(history: history), appUserID: "u")?.rule
        }
        #expect(refusal(nil) == .storeKitDecides)
        #expect(refusal(Self.history([])) == .storeKitDecides)
        #expect(refusal(Self.history([Self.subscription(.playStore, from: -400, to: -370)])) == nil)
    }

    @Test func audiences() {
        let active = Self.subscription(.playStore, from: -10, to: 20)
        let lapsedLongAgo = Self.subscription(.stripe, from: -100, to: -60)
        let lapsedRecently = Self.subscription(.appStore, from: -35, to: -5)
        let newOnly = PromotionalOfferRules(productIDs: ["pro.monthly"], audience: .newSubscribers)
        #expect(refusal(newOnly, []) == nil)
        #expect(refusal(newOnly, [lapsedLongAgo]) == .newSubscribers)
        let subscribers = PromotionalOfferRules(productIDs: ["pro.monthly"], audience: .subscribed)
        #expect(refusal(subscribers, [active]) == nil)
        #expect(refusal(subscribers, [lapsedLongAgo]) == .subscribers)
        #expect(refusal(subscribers, []) == .subscribers)
        let lapsed = PromotionalOfferRules(productIDs: ["pro.monthly"], audience: .lapsed(days: 30))
        #expect(refusal(lapsed, [lapsedLongAgo]) == nil)
        #expect(refusal(lapsed, [lapsedRecently]) == .lapsedDays)
        #expect(refusal(lapsed, [lapsedLongAgo, lapsedRecently]) == .lapsedDays, "the last access counts")
        #expect(refusal(lapsed, [lapsedLongAgo, active]) == .lapsed)
        #expect(refusal(lapsed, []) == .lapsed)
        // Exactly 30 days after access ended: lapsed long enough.
        #expect(refusal(lapsed, [Self.subscription(.appStore, from: -60, to: -30)]) == nil)
    }

    @Test func refundsWindowsLimitsAndProducts() {
        let refunded = Self.subscription(.appStore, from: -60, to: -30, revokedAt: -50)
        let paid = Self.subscription(.appStore, from: -60, to: -30)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], refunded: true), [paid]) == .refunded)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], refunded: true), [refunded]) == nil)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], refunded: false), [refunded]) == .neverRefunded)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], refunded: false), [paid]) == nil)
        // A refunded subscription ended at its revocation.
        #expect(Self.history([refunded]).lastAccessEndedAt == Self.at(days: -50))

        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], startsAt: Self.at(days: 1)), []) == .notStarted)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], startsAt: Self.now), []) == nil)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], endsAt: Self.now), []) == .ended)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"], endsAt: Self.at(days: 1)), []) == nil)

        let limited = PromotionalOfferRules(productIDs: ["pro.monthly"], limit: OfferLimit(count: 2, days: 30))
        #expect(refusal(limited, [], signed: 1) == nil)
        #expect(refusal(limited, [], signed: 2) == .limit)
        #expect(refusal(PromotionalOfferRules(productIDs: ["pro.monthly"]), [], product: "pro.yearly") == .product)
    }

    @Test func refusalsSayWhy() throws {
        let rules = PromotionalOfferRules(productIDs: ["pro.monthly"], audience: .newSubscribers)
        let play = Self.subscription(.playStore, product: "pro_android", from: -400, to: -370)
        let refusal = try #require(
            OfferRules.promotional(
                offerID: "welcome", rules, productID: "pro.monthly", history: Self.history([play]), signedInPeriod: 0,
                at: Self.now))
        #expect(refusal.message.contains("\"welcome\"") && refusal.message.contains("\"pro_android\""))
        #expect(refusal.message.contains("Google Play"))
    }
}
