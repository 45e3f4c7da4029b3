/// A Google Play environment a tenant may accept: real purchases, or license testers' test purchases.
public enum PlayEnvironmentName: String, Sendable, Hashable, CaseIterable {
    case production = "production"
    /// Purchases by license testers (`testPurchase` on subscriptions, `purchaseType` 0 on products).
    case test = "test"
}

/// What a Google Play product is, which decides the API that looks it up and how long a purchase grants.
public enum PlayProductType: String, Sendable, Hashable, CaseIterable {
    /// Looked up with `purchases.subscriptionsv2`; grants until the line item's expiry.
    case subscription = "subscription"
    /// A one-time product bought once; grants for life.
    case nonConsumable = "non_consumable"
    /// A one-time product bought again and again; recorded, grants nothing.
    case consumable = "consumable"
}

/// How a tenant verifies the Pub/Sub push requests that carry its Real-time Developer Notifications.
public struct PlayNotificationSettings: Sendable, Hashable {
    /// Google's published OIDC signing keys.
    public static let defaultJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"

    /// Where the push token's signing keys come from (Google's JWKS URL by default; tests point it at a fake).
    public typealias SigningKeys = SigningKeySource

    /// The push token's `aud`: the audience set on the push subscription (by default its endpoint URL).
    public var audience: String
    /// The push token's `email`: the service account the push subscription authenticates as.
    public var pushServiceAccount: String
    public var signingKeys: SigningKeys
    /// False only when the configuration says so explicitly (the server warns at startup): pushes are then
    /// accepted without a token.
    public var verifiesPushTokens: Bool

    public init(
        audience: String, pushServiceAccount: String, signingKeys: SigningKeys = .url(Self.defaultJWKSURL),
        verifiesPushTokens: Bool = true
    ) {
        self.audience = audience
        self.pushServiceAccount = pushServiceAccount
        self.signingKeys = signingKeys
        self.verifiesPushTokens = verifiesPushTokens
    }
}

/// A tenant's `play_store` configuration: which app's purchases it accepts, how it reaches Google's API, from which
/// environments, how its products behave, and how its notifications are authenticated. Plain values only; the server
/// builds the API client from them.
///
///     "play_store": {
///       "package_name": "com.example.app",                          // required
///       "service_account_key_file": "play-service-account.json",    // required; relative to the tenants file
///       "environments": ["production", "test"],                     // required
///       "transfer_policy": "transfer",                              // optional, as app_store's
///       "products": {"premium": {"type": "subscription"}},          // required for every product purchased
///       "api_base_url": "https://androidpublisher.googleapis.com/androidpublisher/v3/applications",  // optional
///                                                                   // https://, or http:// to a loopback host only
///       "voided_purchases_poll_minutes": 60,                        // optional; 0–1440, default 60; 0 turns the poll off
///       "notifications": {                                          // optional; without it RTDN pushes are refused
///         "audience": "https://entitlements.example.com/v1/google/notifications/example",
///         "push_service_account": "rtdn-push@example.iam.gserviceaccount.com",
///         "jwks_url": "https://www.googleapis.com/oauth2/v3/certs", // optional; or "jwks_file"
///         "verify_push_tokens": true                                // optional; false must be explicit
///       }
///     }
///
/// Entitlements come from the tenant's `products`: a subscription's base plan may map on its own as
/// `"<productId>:<basePlanId>"`, which wins over `"<productId>"`. Relative file paths are resolved against the
/// tenants file's directory. The rules are in PlayStoreSettings+Rules.swift, shared by the tenants file reader and
/// ``Tenant/init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:appStore:playStore:stripe:browser:webhooks:commissions:exchangeRates:attributes:privacy:retention:)``.
public struct PlayStoreSettings: Sendable, Hashable {
    public static let defaultAPIBaseURL = "https://androidpublisher.googleapis.com/androidpublisher/v3/applications"
    public static let voidedPurchasesPollMinutesRange: ClosedRange<Int> = 0...1440

    /// The app's package name; purchases and notifications of any other app are refused.
    public var packageName: String
    /// Absolute path of the service-account JSON key file.
    public var serviceAccountKeyPath: String
    /// Never empty.
    public var environments: Set<PlayEnvironmentName>
    public var transferPolicy: TransferPolicy
    /// Play product ID → its kind.
    public var products: [String: PlayProductType]
    public var apiBaseURL: String
    /// Minutes between `voidedpurchases.list` polls; 0: no poll.
    public var voidedPurchasesPollMinutes: Int
    /// nil: the tenant takes no notifications.
    public var notifications: PlayNotificationSettings?

    public init(
        packageName: String, serviceAccountKeyPath: String, environments: Set<PlayEnvironmentName>,
        transferPolicy: TransferPolicy = .transfer, products: [String: PlayProductType] = [:],
        apiBaseURL: String = Self.defaultAPIBaseURL, voidedPurchasesPollMinutes: Int = 60,
        notifications: PlayNotificationSettings? = nil
    ) {
        self.packageName = packageName
        self.serviceAccountKeyPath = serviceAccountKeyPath
        self.environments = environments
        self.transferPolicy = transferPolicy
        self.products = products
        self.apiBaseURL = apiBaseURL
        self.voidedPurchasesPollMinutes = voidedPurchasesPollMinutes
        self.notifications = notifications
    }
}
