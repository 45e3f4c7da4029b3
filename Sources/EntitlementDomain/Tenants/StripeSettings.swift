import CivilCalendar
/// A Stripe mode a tenant may accept: an event's `livemode` true is `live`, false is `test`.
public enum StripeEnvironmentName: String, Sendable, Hashable, CaseIterable {
    /// Real payments (`livemode: true`).
    case live = "live"
    /// Test-mode and sandbox payments (`livemode: false`).
    case test = "test"

    /// The environment of an event or object whose `livemode` is `livemode`.
    public init(livemode: Bool) {
        self = livemode ? .live : .test
    }
}

/// A tenant's `stripe` configuration: how its web purchases' webhooks are authenticated, which Stripe modes it
/// accepts, which Stripe prices and products give which of the tenant's products, how long a past-due subscription
/// and an anonymous purchase's redemption code last, and how it reaches Stripe's API. Plain values only; the server
/// builds the webhook verifier and the API client from them.
///
///     "stripe": {
///       "webhook_secrets": ["whsec_..."],              // required, 1–5, each "whsec_" + at least 16 of [A-Za-z0-9];
///                                                      // several while rolling the endpoint's secret
///       "signature_tolerance_seconds": 300,            // optional, 1–86400, default 300
///       "environments": ["live", "test"],              // required: livemode true = "live", false = "test"
///       "prices": {"price_pro_monthly": "pro_monthly_web"},  // optional: Stripe price ID → tenant product ID
///       "products": {"prod_pro": "pro_monthly_web"},   // optional: Stripe product ID → tenant product ID; at least
///                                                      // one of prices/products is non-empty; every target is in
///                                                      // the tenant's "products" (which gives the entitlements)
///       "past_due_grace_days": 3,                      // optional, 0–60, default 0: days a past_due subscription
///                                                      // still grants (in_billing_retry)
///       "redemption_code_days": 7,                     // optional, 1–90, default 7: how long an anonymous web
///                                                      // purchase's redemption code is valid
///       "transfer_policy": "transfer",                 // optional, as app_store's
///       "api_key_file": "stripe-api-key.txt",          // optional; relative to the tenants file; one "sk_live_…",
///                                                      // "sk_test_…", "rk_live_…" or "rk_test_…" key, at most 1 KiB;
///                                                      // when set, every event is applied by re-fetching its object
///       "api_base_url": "https://api.stripe.com"       // optional; https://, or http:// to a loopback host only
///     }
///
/// A purchase's tenant product is its price's entry in `prices`, else its Stripe product's entry in `products`
/// (``tenantProduct(forPrice:product:)``); the tenant's `products` then gives the entitlements. Webhook secrets are
/// kept as given (they are the HMAC keys) and never appear in ``description`` or in errors; the API key stays in its
/// file, read by the server when it builds the client. The rules are in StripeSettings+Rules.swift, shared by the
/// tenants file reader and
/// ``Tenant/init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:appStore:playStore:stripe:browser:webhooks:commissions:exchangeRates:attributes:privacy:retention:)``.
public struct StripeSettings: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let defaultAPIBaseURL = "https://api.stripe.com"
    /// stripe-python's `Webhook.DEFAULT_TOLERANCE`.
    public static let defaultSignatureToleranceSeconds = 300
    public static let defaultRedemptionCodeDays = 7
    public static let webhookSecretCountRange: ClosedRange<Int> = 1...5
    public static let signatureToleranceSecondsRange: ClosedRange<Int> = 1...Int(Seconds.perDay)
    public static let pastDueGraceDaysRange: ClosedRange<Int> = 0...60
    public static let redemptionCodeDaysRange: ClosedRange<Int> = 1...90

    /// The endpoint's signing secrets (`whsec_…`), whole: a signature made with any of them is accepted.
    public var webhookSecrets: [String]
    /// How old a signature's `t=` may be, in seconds.
    public var signatureToleranceSeconds: Int
    /// Never empty.
    public var environments: Set<StripeEnvironmentName>
    /// Stripe price ID → tenant product ID.
    public var prices: [String: String]
    /// Stripe product ID → tenant product ID.
    public var products: [String: String]
    /// Days a `past_due` subscription still grants after its period ends.
    public var pastDueGraceDays: Int
    /// Days an anonymous purchase's redemption code stays valid.
    public var redemptionCodeDays: Int
    public var transferPolicy: TransferPolicy
    /// Absolute path of the file holding the Stripe API key; nil: events are applied from their own data.
    public var apiKeyPath: String?
    public var apiBaseURL: String

    public init(
        webhookSecrets: [String], signatureToleranceSeconds: Int = Self.defaultSignatureToleranceSeconds,
        environments: Set<StripeEnvironmentName>, prices: [String: String] = [:], products: [String: String] = [:],
        pastDueGraceDays: Int = 0, redemptionCodeDays: Int = Self.defaultRedemptionCodeDays,
        transferPolicy: TransferPolicy = .transfer, apiKeyPath: String? = nil, apiBaseURL: String = Self.defaultAPIBaseURL
    ) {
        self.webhookSecrets = webhookSecrets
        self.signatureToleranceSeconds = signatureToleranceSeconds
        self.environments = environments
        self.prices = prices
        self.products = products
        self.pastDueGraceDays = pastDueGraceDays
        self.redemptionCodeDays = redemptionCodeDays
        self.transferPolicy = transferPolicy
        self.apiKeyPath = apiKeyPath
        self.apiBaseURL = apiBaseURL
    }

    /// The tenant product a Stripe price (of Stripe product `productID`) stands for: the price's own mapping first,
    /// then its product's; nil when neither is mapped.
    public func tenantProduct(forPrice priceID: String, product productID: String?) -> String? {
        if let mapped = prices[priceID] { return mapped }
        if let productID, let mapped = products[productID] { return mapped }
        return nil
    }

    /// Every field but the webhook secrets, which are only counted.
    public var description: String {
        "StripeSettings(webhookSecrets: \(webhookSecrets.count) redacted, signatureToleranceSeconds: "
            + "\(signatureToleranceSeconds), environments: \(environments.map(\.rawValue).sorted()), prices: "
            + "\(prices.sorted { $0.key < $1.key }), products: \(products.sorted { $0.key < $1.key }), "
            + "pastDueGraceDays: \(pastDueGraceDays), redemptionCodeDays: \(redemptionCodeDays), transferPolicy: "
            + "\(transferPolicy.rawValue), apiKeyPath: \(apiKeyPath.map { "\"\($0)\"" } ?? "nil"), apiBaseURL: "
            + "\"\(apiBaseURL)\")"
    }

    public var debugDescription: String { description }
}
