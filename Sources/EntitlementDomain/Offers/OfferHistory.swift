/// What a customer's purchases in every store say about its subscriptions to some entitlements: what offers are
/// judged on. Built from the purchases the server holds (each store's interpretation of them), so a subscription on
/// Google Play or the web counts as one on the App Store.
public struct OfferHistory: Sendable, Hashable {
    /// The first subscription to the entitlements, by purchase date: what ended introductory-offer eligibility.
    public var firstSubscription: StorePurchase?
    /// One of them grants now.
    public var subscribedNow: Bool
    /// When the last access through them ended; nil while one grants, or when none ever did.
    public var lastAccessEndedAt: UnixTime?
    /// A purchase granting the entitlements (a subscription or not) was refunded or otherwise revoked from its buyer.
    public var refunded: Bool

    /// The history of `purchases` granting any of `scope`, from `stores`, at `now`.
    public init(purchases: [StorePurchase], scope: Set<String>, stores: Set<Store> = Set(Store.allCases), at now: UnixTime) {
        firstSubscription = nil
        subscribedNow = false
        lastAccessEndedAt = nil
        refunded = false
        for purchase in purchases where stores.contains(purchase.store) && purchase.entitlementIDs.contains(where: scope.contains) {
            if purchase.revokedAt != nil, purchase.ownership == .purchased { refunded = true }
            guard Self.isSubscription(purchase) else { continue }
            if firstSubscription.map({ purchase.purchasedAt < $0.purchasedAt }) ?? true { firstSubscription = purchase }
            let access = PurchaseAccess(purchase)
            if access.grants(at: now) {
                subscribedNow = true
            } else if let ended = access.span?.lastsUntil ?? purchase.revokedAt ?? purchase.expiresAt, ended <= now {
                lastAccessEndedAt = max(lastAccessEndedAt ?? ended, ended)
            }
        }
        if subscribedNow { lastAccessEndedAt = nil }
    }

    /// An auto-renewable subscription, whichever store sold it (Apple's raw type; Google Play's and Stripe's own).
    static func isSubscription(_ purchase: StorePurchase) -> Bool {
        switch purchase.store {
        case .appStore: purchase.productType == AppStoreInterpretation.autoRenewableType
        case .playStore: purchase.productType == PlayProductType.subscription.rawValue
        case .stripe: purchase.productType == StripeInterpretation.subscriptionType
        }
    }
}
