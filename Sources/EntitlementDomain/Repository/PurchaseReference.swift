/// Another store ID that names a purchase, kept so that later data found by it reaches the purchase: a Stripe checkout
/// session, customer, invoice or payment intent for the subscription or one-time payment it paid. A checkout may also
/// name the buyer before the purchase's own data arrives; that buyer owns the purchase when it does.
public struct PurchaseReference: Sendable, Hashable {
    public var store: Store
    /// The other ID (`cs_…`, `cus_…`, `in_…`, `pi_…`).
    public var referenceID: String
    /// The purchase it names.
    public var originalTransactionID: String
    /// The app user the store's data names as the buyer; empty when it names none.
    public var appUserID: String

    public init(store: Store, referenceID: String, originalTransactionID: String, appUserID: String = "") {
        self.store = store
        self.referenceID = referenceID
        self.originalTransactionID = originalTransactionID
        self.appUserID = appUserID
    }
}

/// A refund or dispute that named a payment no held purchase is known by yet (Stripe's events arrive in any order): it
/// revokes the purchase the payment turns out to have paid for, once that arrives, and is used up then.
public struct PendingRevocation: Sendable, Hashable {
    public var store: Store
    /// The payment's ID (`pi_…`, or a legacy charge's invoice).
    public var referenceID: String
    public var revokedAt: UnixTime
    public var reason: String

    public init(store: Store, referenceID: String, revokedAt: UnixTime, reason: String) {
        self.store = store
        self.referenceID = referenceID
        self.revokedAt = revokedAt
        self.reason = reason
    }
}

/// A single-use code that attaches a purchase nobody owns (an anonymous web checkout) to the user who presents it.
/// Only its SHA-256 is kept: the code itself is shown once, to the tenant's backend that asked for it.
public struct RedemptionCodeRecord: Sendable, Hashable {
    public var tenantID: String
    /// Lower-case hex SHA-256 of the code.
    public var codeHash: String
    public var store: Store
    public var originalTransactionID: String
    public var createdAt: UnixTime
    public var expiresAt: UnixTime
    /// When it was redeemed, and by whom (the app user ID as presented).
    public var usedAt: UnixTime?
    public var usedBy: String
    /// When a newer code for the same purchase replaced it unused.
    public var replacedAt: UnixTime?

    public init(
        tenantID: String, codeHash: String, store: Store, originalTransactionID: String, createdAt: UnixTime,
        expiresAt: UnixTime, usedAt: UnixTime? = nil, usedBy: String = "", replacedAt: UnixTime? = nil
    ) {
        self.tenantID = tenantID
        self.codeHash = codeHash
        self.store = store
        self.originalTransactionID = originalTransactionID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.usedBy = usedBy
        self.replacedAt = replacedAt
    }
}
