/// One store purchase (a subscription's whole chain of renewals, a non-consumable, a consumable...) as last verified,
/// keyed by tenant, store and `originalTransactionID`.
///
/// Which of two versions of a purchase is current is the domain's decision; storage keeps what it is given.
public struct StorePurchase: Hashable, Sendable {
    /// Which store sold it (``StorePurchase/Store``).
    public enum Store {
        public static let appStore: Int32 = 1
        public static let playStore: Int32 = 2
        public static let web: Int32 = 3
    }

    public var tenantID: String
    /// `Store` raw value: 1 App Store, 2 Play, 3 web.
    public var store: Int32
    public var originalTransactionID: String
    /// The newest transaction ID applied (a renewal's, an upgrade's).
    public var transactionID: String
    /// nil: nobody owns it yet (a notification arrived before any device reported it); attached later.
    public var customerID: Int64?
    public var productID: String
    /// The store's raw product type (Apple: `Auto-Renewable Subscription`, `Non-Consumable`, ...).
    public var productType: String
    /// The tenant's mapping of `productID` when the record was applied.
    public var entitlementIDs: [String]
    /// The store's raw environment (`Production`, `Sandbox`, `Xcode`, `LocalTesting`).
    public var environment: String
    public var purchasedAt: UnixTime
    public var originalPurchaseAt: UnixTime?
    /// nil: never expires (non-consumables, consumables).
    public var expiresAt: UnixTime?
    public var revokedAt: UnixTime?
    /// Raw revocation reason; empty when not revoked.
    public var revocationReason: String
    /// `PURCHASED` or `FAMILY_SHARED` (raw).
    public var ownership: String
    /// Auto-renew is on, as the store last said (a revoked purchase renews nothing, whatever this says).
    public var willRenew: Bool
    public var inGracePeriod: Bool
    public var inBillingRetry: Bool
    public var gracePeriodExpiresAt: UnixTime?
    /// The purchase's `appAccountToken` (a UUID string), empty when none.
    public var appAccountToken: String
    /// Raw offer type, empty when none.
    public var offerType: String
    /// The product a subscription renews to when that differs from `productID` (a downgrade or crossgrade that
    /// takes effect at the next renewal); empty otherwise.
    public var renewalProductID: String
    /// The user upgraded from this transaction to a higher product: it grants nothing (Apple's `isUpgraded`).
    public var isUpgraded: Bool
    /// When the renewal state (`willRenew`, `renewalProductID`, grace period, billing retry) was true: the store's
    /// renewal info's signature date, or, for a transaction seen without one, its purchase date.
    public var renewalStateAsOf: UnixTime
    /// The `signedDate` of the newest data applied: a record signed earlier never replaces this one.
    public var signedAt: UnixTime
    public var updatedAt: UnixTime

    public init(
        tenantID: String, store: Int32, originalTransactionID: String, transactionID: String, customerID: Int64?,
        productID: String, productType: String, entitlementIDs: [String], environment: String,
        purchasedAt: UnixTime, originalPurchaseAt: UnixTime?, expiresAt: UnixTime?, revokedAt: UnixTime?,
        revocationReason: String, ownership: String, willRenew: Bool, inGracePeriod: Bool, inBillingRetry: Bool,
        gracePeriodExpiresAt: UnixTime?, appAccountToken: String, offerType: String, signedAt: UnixTime,
        updatedAt: UnixTime, renewalProductID: String = "", isUpgraded: Bool = false, renewalStateAsOf: UnixTime? = nil
    ) {
        self.tenantID = tenantID
        self.store = store
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.customerID = customerID
        self.productID = productID
        self.productType = productType
        self.entitlementIDs = entitlementIDs
        self.environment = environment
        self.purchasedAt = purchasedAt
        self.originalPurchaseAt = originalPurchaseAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.revocationReason = revocationReason
        self.ownership = ownership
        self.willRenew = willRenew
        self.inGracePeriod = inGracePeriod
        self.inBillingRetry = inBillingRetry
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
        self.appAccountToken = appAccountToken
        self.offerType = offerType
        self.renewalProductID = renewalProductID
        self.isUpgraded = isUpgraded
        self.renewalStateAsOf = renewalStateAsOf ?? purchasedAt
        self.signedAt = signedAt
        self.updatedAt = updatedAt
    }
}
