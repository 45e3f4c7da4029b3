import CivilCalendar

/// A tenant's `app_store.offers`: the promotional offers the server signs and who may have them, and whose history
/// decides introductory-offer eligibility (README, "Offers"). Signing uses `app_store.server_api`'s In-App Purchase
/// key, so offers need it.
///
///     "offers": {
///       "promotional": {                                  // optional: offer identifier (App Store Connect) → rules
///         "winback_50": {
///           "products": ["com.example.pro.monthly"],      // required: the subscriptions the offer is set up on
///           "customers": "lapsed",                        // optional: any (default) | new | lapsed | subscribed
///           "lapsed_days": 30,                            // with "lapsed": days since access ended, default 1
///           "refunded": false,                            // optional: only customers who had (true) or never had
///                                                         // (false) a refund of these entitlements
///           "limit": {"count": 1, "days": 365},           // optional: signatures per customer per period
///           "starts_at": "2026-12-01T00:00:00Z",          // optional: signed from then
///           "ends_at": "2027-01-01T00:00:00Z"             // optional: until just before then
///         }
///       },
///       "introductory": {"history": "all_stores"}         // optional: all_stores (default) | app_store
///     }
///
/// "Subscribed", "new" and "lapsed" are judged over the entitlements the offer's products grant (the tenant's
/// `products`), across every store: a customer who subscribed to them on Google Play or the web is not new on iOS.
public struct AppStoreOffers: Sendable, Hashable {
    /// Offer identifier → its rules.
    public var promotional: [String: PromotionalOfferRules]
    public var introductory: IntroductoryOfferHistory

    public init(promotional: [String: PromotionalOfferRules] = [:], introductory: IntroductoryOfferHistory = .allStores) {
        self.promotional = promotional
        self.introductory = introductory
    }

    /// At most this many offers per tenant: every GetOfferEligibility judges each.
    public static let maximumOffers = 200

    // MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

    /// These settings checked as configured `offers` would be; error paths are relative to it.
    package func validated(mappedProducts: [String: [String]], hasKey: Bool) throws(TenantRuleError) -> AppStoreOffers {
        try Self.checkKeyConfigured(hasKey)
        try TenantRuleError.at(".promotional") { () throws(TenantRuleError) in
            try Self.checkCount(promotional.count)
            for id in promotional.keys.sorted() {
                try TenantRuleError.at("[\"\(id)\"]") { () throws(TenantRuleError) in
                    try Self.checkOfferID(id)
                    try promotional[id]!.check(mappedProducts: mappedProducts)
                }
            }
        }
        return self
    }

    /// Offers are signed with the In-App Purchase key of `server_api` (error at `offers`).
    package static func checkKeyConfigured(_ hasKey: Bool) throws(TenantRuleError) {
        guard hasKey else {
            throw TenantRuleError(
                .missingField,
                "offers are signed with the In-App Purchase key: configure \"app_store.server_api\" (key_file, key_id, "
                    + "issuer_id) too")
        }
    }

    package static func checkCount(_ count: Int) throws(TenantRuleError) {
        guard count <= maximumOffers else {
            throw TenantRuleError(.invalidValue, "at most \(maximumOffers) promotional offers per tenant, got \(count)")
        }
    }

    /// An offer identifier as App Store Connect takes it: 1 to 64 letters, digits, `.`, `_` and `-`.
    package static func checkOfferID(_ id: String) throws(TenantRuleError) {
        let allowed = id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        guard (1...64).contains(id.utf8.count), allowed else {
            throw TenantRuleError(
                .invalidValue,
                "an offer identifier is 1 to 64 letters, digits, \".\", \"_\" and \"-\", as App Store Connect shows it")
        }
    }
}

/// Whose purchases decide whether a customer may have a subscription's introductory offer.
public enum IntroductoryOfferHistory: String, Sendable, Hashable, CaseIterable, ConfiguredName {
    /// Any subscription to the same entitlements in any store ends it: a trial on Android or the web counts on iOS.
    case allStores = "all_stores"
    /// Only App Store subscriptions count, as StoreKit itself decides (by subscription group).
    case appStore = "app_store"

    package static let nameKind = "introductory offer history"
}

/// Which customers an offer is for, by their subscriptions to the entitlements its products grant.
public enum OfferAudience: Sendable, Hashable {
    case anyone
    /// Never subscribed to them in any store.
    case newSubscribers
    /// Subscribed before, subscribed to none now, and the last access ended at least `days` days ago.
    case lapsed(days: Int)
    /// Subscribed now (retention, upgrade).
    case subscribed

    /// The configured spellings, in order.
    public static let names = ["any", "new", "lapsed", "subscribed"]
    public static let lapsedDaysRange: ClosedRange<Int> = 1...3650
}

/// At most `count` signatures of one offer per customer per `days` days.
public struct OfferLimit: Sendable, Hashable {
    public static let countRange: ClosedRange<Int> = 1...1000
    public static let dayRange: ClosedRange<Int> = 1...3650

    public var count: Int
    public var days: Int

    public init(count: Int, days: Int) {
        self.count = count
        self.days = days
    }
}

/// One promotional offer's rules: who may have it, how often, and when.
public struct PromotionalOfferRules: Sendable, Hashable {
    /// The App Store products (subscriptions) the offer is set up on in App Store Connect.
    public var productIDs: [String]
    public var audience: OfferAudience
    /// true: only customers who had a refund of these entitlements; false: only those who never had; nil: either.
    public var refunded: Bool?
    public var limit: OfferLimit?
    /// Signed from this instant (inclusive); nil: from now on.
    public var startsAt: UnixTime?
    /// Signed until just before this instant; nil: without end.
    public var endsAt: UnixTime?

    public init(
        productIDs: [String], audience: OfferAudience = .anyone, refunded: Bool? = nil, limit: OfferLimit? = nil,
        startsAt: UnixTime? = nil, endsAt: UnixTime? = nil
    ) {
        self.productIDs = productIDs
        self.audience = audience
        self.refunded = refunded
        self.limit = limit
        self.startsAt = startsAt
        self.endsAt = endsAt
    }

    /// The entitlements the offer's products grant: what "subscribed", "new" and "lapsed" are judged over.
    public func scope(in products: [String: [String]]) -> Set<String> {
        Set(productIDs.flatMap { products[$0] ?? [] })
    }

    func check(mappedProducts: [String: [String]]) throws(TenantRuleError) {
        try TenantRuleError.at(".products") { () throws(TenantRuleError) in
            try Self.checkProductsListed(count: productIDs.count)
            try ListRule.checkEach(productIDs) { id, earlier throws(TenantRuleError) in
                try Self.checkProduct(id, listedAfter: earlier, mapped: mappedProducts[id] != nil)
            }
        }
        if case .lapsed(let days) = audience {
            _ = try TenantRuleError.at(".lapsed_days") { () throws(TenantRuleError) in
                try Self.checkLapsedDays(days, written: String(days))
            }
        }
        if let limit {
            try TenantRuleError.at(".limit") { () throws(TenantRuleError) in
                _ = try TenantRuleError.at(".count") { () throws(TenantRuleError) in
                    try Self.checkLimitCount(limit.count, written: String(limit.count))
                }
                _ = try TenantRuleError.at(".days") { () throws(TenantRuleError) in
                    try Self.checkLimitDays(limit.days, written: String(limit.days))
                }
            }
        }
        try TenantRuleError.at(".ends_at") { () throws(TenantRuleError) in try Self.checkWindow(startsAt, endsAt) }
    }

    package static func checkProductsListed(count: Int) throws(TenantRuleError) {
        try ListRule.checkNotEmpty(count: count, "list the subscriptions the offer is set up on in App Store Connect")
    }

    /// A product the tenant's `products` maps, listed once: an offer on a product that grants nothing means nothing.
    package static func checkProduct(_ id: String, listedAfter earlier: [String], mapped: Bool) throws(TenantRuleError) {
        try Tenant.checkProductID(id)
        try ListRule.checkNotListed(id, written: id, in: earlier)
        guard mapped else {
            throw TenantRuleError(
                .unmappedProduct,
                "\"\(id)\" is not in the tenant's \"products\": map it to the entitlements it grants first")
        }
    }

    package static func audience(named text: String) throws(TenantRuleError) -> OfferAudience {
        switch text {
        case "any": return .anyone
        case "new": return .newSubscribers
        case "lapsed": return .lapsed(days: 1)
        case "subscribed": return .subscribed
        default:
            throw TenantRuleError(
                .invalidValue,
                "unknown customers \"\(text)\": expected one of " + OfferAudience.names.map { "\"\($0)\"" }.joined(separator: ", "))
        }
    }

    package static func checkLapsedDays(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: OfferAudience.lapsedDaysRange, unit: "days")
    }

    package static func checkLimitCount(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: OfferLimit.countRange, unit: "signatures")
    }

    package static func checkLimitDays(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: OfferLimit.dayRange, unit: "days")
    }

    /// An RFC 3339 instant (`2026-12-01T00:00:00Z`).
    package static func instant(_ text: String) throws(TenantRuleError) -> UnixTime {
        guard let milliseconds = CivilCalendar.milliseconds(fromRFC3339: text), milliseconds >= 0 else {
            throw TenantRuleError(.invalidValue, "expected an RFC 3339 time, such as \"2026-12-01T00:00:00Z\"")
        }
        return UnixTime(milliseconds: milliseconds)
    }

    /// The window, when both ends are set, is not empty.
    package static func checkWindow(_ startsAt: UnixTime?, _ endsAt: UnixTime?) throws(TenantRuleError) {
        guard let startsAt, let endsAt, endsAt <= startsAt else { return }
        throw TenantRuleError(.invalidValue, "ends_at is not after starts_at: the offer could never be signed")
    }
}
