/// The money side of a purchase's newest transaction as its store reported it: what the revenue ledger records
/// beside the price. Nil on a ``StorePurchase`` whose store said nothing of it (records from before the ledger).
public struct PurchaseSale: Hashable, Sendable {
    public var kind: SaleKind
    public var offer: OfferKind
    /// The store's identifier of that offer, where it names one (Apple's `offerIdentifier`, Google's
    /// `offerDetails.offerId`); empty otherwise.
    public var offerID: String
    /// ISO 3166-1 alpha-2 in capitals (Apple's alpha-3 storefront converted; a code ISO 3166-1 does not list, such as
    /// Apple's Kosovo storefront, kept as the store gave it, in capitals), empty when the store did not say.
    public var country: String
    /// What the store gave back when it revoked the transaction, in thousandths of the price's currency (Apple's
    /// `revocationPercentage` of the price); nil while not refunded, or when the revocation moved no money (a
    /// Family Sharing member losing access).
    public var refundedMilliunits: Int64?
    /// When the period this payment bought began, where that is not the purchase date (a Google Play subscription's
    /// purchase date is its first order's, and each renewal is an order of its own); nil: the purchase date.
    public var periodStart: UnixTime?
    /// The tax within the price, in thousandths of its currency, where the store reports it (Google's orders).
    public var taxMilliunits: Int64?
    /// What the store reports the developer receives of the price (Google's `developerRevenueInBuyerCurrency`: its
    /// fee and the taxes it remits deducted), in thousandths of the same currency; nil where the store does not say
    /// and the ledger estimates it from the tenant's commission rates.
    public var reportedProceedsMilliunits: Int64?

    public init(
        kind: SaleKind, offer: OfferKind, offerID: String = "", country: String, refundedMilliunits: Int64? = nil,
        periodStart: UnixTime? = nil, taxMilliunits: Int64? = nil, reportedProceedsMilliunits: Int64? = nil
    ) {
        self.kind = kind
        self.offer = offer
        self.offerID = offerID
        self.country = country
        self.refundedMilliunits = refundedMilliunits
        self.periodStart = periodStart
        self.taxMilliunits = taxMilliunits
        self.reportedProceedsMilliunits = reportedProceedsMilliunits
    }
}

/// What the store charged for.
public enum SaleKind: Sendable, Hashable, CaseIterable {
    /// Anything but an auto-renewable subscription: a non-consumable, a consumable, a non-renewing subscription.
    case oneTime
    /// A subscription period the buyer chose: the first, an upgrade, a resubscription.
    case subscriptionPurchase
    /// A subscription period the store renewed.
    case subscriptionRenewal
}

/// The offer a transaction was sold under.
public enum OfferKind: Sendable, Hashable, CaseIterable {
    case none
    /// An introductory offer at no charge.
    case freeTrial
    /// An introductory offer at a price (pay as you go, pay up front).
    case introductory
    case promotional
    /// A code the buyer redeemed (App Store offer codes).
    case offerCode
    /// An offer to a lapsed subscriber.
    case winBack
}
