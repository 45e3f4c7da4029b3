/// One purchase in a store (a subscription's whole chain of renewals, a non-consumable, a consumable...) as last
/// verified, keyed by tenant, store and `originalTransactionID`, whichever store sold it: each store's
/// interpretation turns its verified data into this, and status reads only this.
///
/// Which of two versions of a purchase is current is the domain's decision (``PurchaseVersions``); storage keeps what
/// it is given.
public struct StorePurchase: Hashable, Sendable {
    public var tenantID: String
    public var store: Store
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
    public var environment: PurchaseEnvironment
    public var purchasedAt: UnixTime
    public var originalPurchaseAt: UnixTime?
    /// nil: never expires (non-consumables, consumables).
    public var expiresAt: UnixTime?
    public var revokedAt: UnixTime?
    /// Raw revocation reason; empty when not revoked.
    public var revocationReason: String
    public var ownership: PurchaseOwnership
    /// Auto-renew is on, as the store last said (a revoked purchase renews nothing, whatever this says).
    public var willRenew: Bool
    /// Where billing stands, as of ``renewalStateAsOf``: what it means for access is ``PurchaseAccess``'s answer.
    public var renewal: RenewalState
    /// The purchase's `appAccountToken` (a UUID string), empty when none.
    public var appAccountToken: String
    /// Raw offer type, empty when none.
    public var offerType: String
    /// The product a subscription renews to when that differs from `productID` (a downgrade or crossgrade that
    /// takes effect at the next renewal); empty otherwise.
    public var renewalProductID: String
    /// The user upgraded from this purchase to a higher product: it grants nothing (Apple's `isUpgraded`).
    public var isUpgraded: Bool
    /// When the renewal state (`willRenew`, `renewalProductID`, ``renewal``) was true: the store's renewal info's
    /// signature date, or, for a purchase seen without one, its purchase date.
    public var renewalStateAsOf: UnixTime
    /// When access began, where that is before `purchasedAt`: a renewal that continues a period that granted up to
    /// its start, or a purchase the store dated a little ahead of the server's clock, counted from when it was
    /// applied (``PurchaseVersions``). nil: from `purchasedAt`.
    public var accessFrom: UnixTime?
    /// The store ID of the purchase that replaced this one (Google Play's `linkedPurchaseToken` on an upgrade,
    /// downgrade or resubscription): a superseded purchase grants nothing. Empty when not superseded.
    public var supersededBy: String
    /// The store ID of the purchase this one replaces (Google Play's `linkedPurchaseToken`): that one is superseded by
    /// this one. Empty when it replaces nothing.
    public var replaces: String
    /// What the store waits for from the server (Google Play's acknowledgement).
    public var acknowledgement: PurchaseAcknowledgement
    /// Where the newest data applied came from.
    public var origin: PurchaseOrigin
    /// The store's ordering clock of the newest data applied (Apple's `signedDate`): a version signed earlier never
    /// replaces this one.
    public var signedAt: UnixTime
    public var updatedAt: UnixTime
    /// What the buyer paid for the newest transaction, where the store says (Apple's `price` and `currency`, Google's
    /// order total or a base-price period's recurring price, Stripe's amounts); nil when it does not.
    public var price: PurchasePrice?
    /// The rest of what the revenue ledger records of the newest transaction, where the store says.
    public var sale: PurchaseSale?

    public init(
        tenantID: String, store: Store, originalTransactionID: String, transactionID: String, customerID: Int64?,
        productID: String, productType: String, entitlementIDs: [String], environment: PurchaseEnvironment,
        purchasedAt: UnixTime, originalPurchaseAt: UnixTime?, expiresAt: UnixTime?, revokedAt: UnixTime?,
        revocationReason: String, ownership: PurchaseOwnership, willRenew: Bool, renewal: RenewalState = .paid,
        appAccountToken: String, offerType: String, signedAt: UnixTime, updatedAt: UnixTime,
        renewalProductID: String = "", isUpgraded: Bool = false, renewalStateAsOf: UnixTime? = nil,
        accessFrom: UnixTime? = nil, supersededBy: String = "", origin: PurchaseOrigin = .device, replaces: String = "",
        acknowledgement: PurchaseAcknowledgement = .notRequired, price: PurchasePrice? = nil,
        sale: PurchaseSale? = nil
    ) {
        self.price = price
        self.sale = sale
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
        self.renewal = renewal
        self.appAccountToken = appAccountToken
        self.offerType = offerType
        self.renewalProductID = renewalProductID
        self.isUpgraded = isUpgraded
        self.renewalStateAsOf = renewalStateAsOf ?? purchasedAt
        self.accessFrom = accessFrom
        self.supersededBy = supersededBy
        self.origin = origin
        self.replaces = replaces
        self.acknowledgement = acknowledgement
        self.signedAt = signedAt
        self.updatedAt = updatedAt
    }

    /// The purchase taken back at `time` for `reason` (a refund, a void), no longer renewing, as `origin` learned it;
    /// nil when it is revoked already.
    public func revoked(at time: UnixTime, reason: String, origin: PurchaseOrigin) -> StorePurchase? {
        guard revokedAt == nil else { return nil }
        var revoked = self
        revoked.revokedAt = time
        revoked.revocationReason = reason
        revoked.willRenew = false
        revoked.origin = origin
        return revoked
    }
}

/// An amount the store charged: thousandths of the currency's unit (Apple's own unit; `9990` in `USD` is $9.99)
/// and the ISO 4217 code in capitals.
public struct PurchasePrice: Hashable, Sendable {
    public var milliunits: Int64
    public var currency: String

    public init(milliunits: Int64, currency: String) {
        self.milliunits = milliunits
        self.currency = currency.uppercased()
    }
}
