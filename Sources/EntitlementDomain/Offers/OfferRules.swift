import BoundedText

/// Why the server will not sign an offer for a customer now: the rule, by a name stable in the API
/// (`SignOffer`'s `FAILED_PRECONDITION`, `GetOfferEligibility`'s `refused_rule`), and a sentence saying why.
public struct OfferRefusal: Sendable, Hashable {
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        /// The offer is not set up on the product asked for.
        case product
        /// Its window has not opened yet.
        case notStarted = "not_started"
        /// Its window has closed.
        case ended
        /// For customers who never subscribed to its entitlements; this one did.
        case newSubscribers = "new_subscribers"
        /// For lapsed subscribers; this one never subscribed, or is subscribed now.
        case lapsed
        /// For customers lapsed at least so many days; this one lapsed more recently.
        case lapsedDays = "lapsed_days"
        /// For current subscribers; this one is not.
        case subscribers
        /// For customers who had a refund; this one had none.
        case refunded
        /// For customers who never had a refund; this one had.
        case neverRefunded = "never_refunded"
        /// The customer had as many signatures of it in the period as it allows.
        case limit
        /// An introductory offer eligibility JWS for a customer the introductory offer is for, as far as the server
        /// knows: StoreKit's own check of the Apple ID decides (the server signs only to withhold the offer).
        case storeKitDecides = "storekit_decides"
    }

    public var rule: Rule
    public var message: String

    public init(_ rule: Rule, _ message: String) {
        self.rule = rule
        self.message = message
    }
}

/// Whether a customer may have a subscription's introductory offer, and why.
public struct IntroductoryOfferDecision: Sendable, Hashable {
    public enum Reason: Sendable, Hashable, CaseIterable {
        /// The customer never subscribed to the product's entitlements in the stores counted.
        case neverSubscribed
        /// The server knows no customer by that ID: eligible as far as it knows; StoreKit's own answer stands.
        case noHistory
        /// The customer subscribed to them before (``IntroductoryOfferDecision/subscription``): intro offers are
        /// for new subscribers.
        case subscribedBefore
    }

    public var eligible: Bool { reason != .subscribedBefore }
    public var reason: Reason
    /// The first subscription that ended eligibility.
    public var subscription: StorePurchase?
}

/// The offer decisions, as pure functions of the tenant's rules and a customer's ``OfferHistory``.
public enum OfferRules {
    /// Whether `productID`'s introductory offer is for the customer; `history` nil when the server knows no such
    /// customer.
    public static func introductory(history: OfferHistory?) -> IntroductoryOfferDecision {
        guard let history else { return IntroductoryOfferDecision(reason: .noHistory) }
        guard let first = history.firstSubscription else { return IntroductoryOfferDecision(reason: .neverSubscribed) }
        return IntroductoryOfferDecision(reason: .subscribedBefore, subscription: first)
    }

    /// Why the server makes no introductory offer eligibility JWS for `decision`: it signs one only to withhold an
    /// offer StoreKit would give (a subscription in another store). Telling StoreKit "eligible" would override its
    /// check of the Apple ID, which knows trials the server cannot see (under another app user ID, or from before the
    /// server knew the user), so an eligible user is left to StoreKit.
    public static func introductorySignatureRefusal(_ decision: IntroductoryOfferDecision, appUserID: String)
        -> OfferRefusal?
    {
        switch decision.reason {
        case .subscribedBefore:
            return nil
        case .noHistory:
            return OfferRefusal(
                .storeKitDecides,
                "The server knows no purchases of \(appUserID.quotedForMessage): StoreKit's own eligibility stands "
                    + "(Product.SubscriptionInfo.isEligibleForIntroOffer).")
        case .neverSubscribed:
            return OfferRefusal(
                .storeKitDecides,
                "\(appUserID.quotedForMessage) may have the introductory offer as far as the server knows: StoreKit's own "
                    + "check of the Apple ID stands; the server signs only to withhold the offer.")
        }
    }

    /// Why the offer `offerID` (configured as `rules`) is not for the customer on `productID` at `now`, nil when it
    /// is. `signedInPeriod`: its signatures for the customer within the limit's period.
    public static func promotional(
        offerID: String, _ rules: PromotionalOfferRules, productID: String, history: OfferHistory, signedInPeriod: Int,
        at now: UnixTime
    ) -> OfferRefusal? {
        let offer = "Offer \"\(offerID)\""
        guard rules.productIDs.contains(productID) else {
            return OfferRefusal(
                .product,
                "\(offer) is set up on " + rules.productIDs.map { "\"\($0)\"" }.joined(separator: ", ")
                    + ", not \"\(productID)\".")
        }
        if let startsAt = rules.startsAt, now < startsAt {
            return OfferRefusal(.notStarted, "\(offer) is signed from \(startsAt.rfc3339).")
        }
        if let endsAt = rules.endsAt, endsAt <= now {
            return OfferRefusal(.ended, "\(offer) ended at \(endsAt.rfc3339).")
        }
        if let refusal = audienceRefusal(offer, rules.audience, history: history, at: now) { return refusal }
        switch (rules.refunded, history.refunded) {
        case (true?, false): return OfferRefusal(.refunded, "\(offer) is for customers who had a refund; this one had none.")
        case (false?, true): return OfferRefusal(.neverRefunded, "\(offer) is for customers who never had a refund; this one had.")
        default: break
        }
        if let limit = rules.limit, signedInPeriod >= limit.count {
            return OfferRefusal(
                .limit,
                "\(offer) is signed at most \(limit.count) time\(limit.count == 1 ? "" : "s") per customer in "
                    + "\(limit.days) day\(limit.days == 1 ? "" : "s"); this customer had \(signedInPeriod).")
        }
        return nil
    }

    private static func audienceRefusal(_ offer: String, _ audience: OfferAudience, history: OfferHistory, at now: UnixTime)
        -> OfferRefusal?
    {
        switch audience {
        case .anyone:
            return nil
        case .newSubscribers:
            guard let first = history.firstSubscription else { return nil }
            return OfferRefusal(
                .newSubscribers,
                "\(offer) is for customers who never subscribed; this one subscribed to \"\(first.productID)\" "
                    + "(\(storeName(first.store))).")
        case .subscribed:
            if history.subscribedNow { return nil }
            return OfferRefusal(.subscribers, "\(offer) is for current subscribers; this customer is not subscribed.")
        case .lapsed(let days):
            if history.subscribedNow {
                return OfferRefusal(.lapsed, "\(offer) is for lapsed subscribers; this customer is subscribed now.")
            }
            guard let ended = history.lastAccessEndedAt else {
                return OfferRefusal(.lapsed, "\(offer) is for lapsed subscribers; this customer never subscribed.")
            }
            guard ended.adding(days: days) <= now else {
                return OfferRefusal(
                    .lapsedDays,
                    "\(offer) is for customers lapsed at least \(days) day\(days == 1 ? "" : "s"); this one's access "
                        + "ended at \(ended.rfc3339).")
            }
            return nil
        }
    }

    private static func storeName(_ store: Store) -> String {
        switch store {
        case .appStore: "App Store"
        case .playStore: "Google Play"
        case .stripe: "web"
        }
    }
}
