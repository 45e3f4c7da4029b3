/// What the stores keep of a tenant's payments, for the revenue ledger's estimated proceeds (the tenants file's
/// `commission`):
///
///     "commission": {                                     // optional; each store absent keeps the rates shown
///       "app_store": { "percent": 30,                     // Apple's standard rate (the Small Business Program: 15)
///                      "after_first_year_percent": 15,    // a subscription's rate after a year of paid service
///                      "products": { "com.example.coins": 30 } },   // a product's own rate, whatever the year
///       "play_store": { "percent": 15 },                  // Google's rate for subscriptions and the first $1M a year
///       "stripe": { "percent": 2.9 }                      // Stripe's card rate, without its fixed fee per charge
///     }
///
/// Percents are 0 to 100 with at most three decimals. An estimate: taxes are not taken out (no store's data here
/// reports them), and a year of paid service is counted from the subscription's first purchase.
public struct Commissions: Sendable, Hashable {
    public var appStore: StoreCommission
    public var playStore: StoreCommission
    public var stripe: StoreCommission

    public static let defaults = Commissions(
        appStore: StoreCommission(rate: CommissionRate(thousandths: 30_000), afterFirstYear: CommissionRate(thousandths: 15_000)),
        playStore: StoreCommission(rate: CommissionRate(thousandths: 15_000)),
        stripe: StoreCommission(rate: CommissionRate(thousandths: 2_900)))

    public init(appStore: StoreCommission, playStore: StoreCommission, stripe: StoreCommission) {
        self.appStore = appStore
        self.playStore = playStore
        self.stripe = stripe
    }

    public subscript(store: Store) -> StoreCommission {
        switch store {
        case .appStore: appStore
        case .playStore: playStore
        case .stripe: stripe
        }
    }
}

/// One store's rates.
public struct StoreCommission: Sendable, Hashable {
    public var rate: CommissionRate
    /// A subscription's rate once a year has passed since its first purchase (Apple's 15% from the second year);
    /// nil: `rate` throughout.
    public var afterFirstYear: CommissionRate?
    /// Products with a rate of their own, whatever the year.
    public var products: [String: CommissionRate]

    public init(rate: CommissionRate, afterFirstYear: CommissionRate? = nil, products: [String: CommissionRate] = [:]) {
        self.rate = rate
        self.afterFirstYear = afterFirstYear
        self.products = products
    }

    /// The rate of a payment for `productID` for a period from `periodStart`, of a subscription first bought at
    /// `subscribedAt` (nil for anything but a subscription).
    public func rate(productID: String, periodStart: UnixTime, subscribedAt: UnixTime?) -> CommissionRate {
        if let own = products[productID] { return own }
        if let afterFirstYear, let subscribedAt, subscribedAt.adding(days: 365) <= periodStart { return afterFirstYear }
        return rate
    }
}

/// A share of a payment, in thousandths of a percent (15% is 15,000), so that no rate is a binary fraction.
public struct CommissionRate: Sendable, Hashable {
    public static let range = 0...100_000
    public let thousandths: Int

    /// Made in code: `thousandths` must be within ``range``.
    public init(thousandths: Int) {
        precondition(Self.range.contains(thousandths), "a commission rate is 0 to 100,000 thousandths of a percent")
        self.thousandths = thousandths
    }

    /// A percent as the tenants file writes it (`30`, `2.9`, `15.125`).
    public init(percent text: String) throws(TenantRuleError) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !whole.isEmpty, whole.count <= 3, whole.allSatisfy(\.isASCIIDigit), fraction.count <= 3,
            fraction.allSatisfy(\.isASCIIDigit), parts.count == 1 || !fraction.isEmpty,
            let units = Int(whole), let thousandths = Int(fraction + String(repeating: "0", count: 3 - fraction.count)),
            case let value = units * 1_000 + thousandths, Self.range.contains(value)
        else {
            throw TenantRuleError(
                .invalidValue, "expected a percent from 0 to 100 with at most three decimals (30, 2.9), found \(text)")
        }
        self.thousandths = value
    }

    /// What the store keeps of `milliunits` (negative for money given back: the store returns its share), rounded
    /// toward zero.
    public func of(_ milliunits: Int64) -> Int64 { milliunits.share(thousandthsOfPercent: thousandths) }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
