/// One money movement a store reported, as the revenue ledger keeps it: written in the transaction that applies the
/// purchase data it comes from, once (a redelivery or a restore of the same data finds its key taken), and never
/// edited: a store taking money back is a ``MovementKind/refund`` entry of its own.
public struct LedgerEntry: Hashable, Sendable {
    public var tenantID: String
    public var store: Store
    /// The store's ID of the transaction that moved the money (a renewal's own ID); with ``MovementKind/direction``,
    /// the entry's key.
    public var transactionID: String
    public var kind: MovementKind
    public var originalTransactionID: String
    /// The purchase's owner when the entry was written; nil while nobody owned it.
    public var customerID: Int64?
    public var productID: String
    public var entitlementIDs: [String]
    public var environment: PurchaseEnvironment
    /// ISO 3166-1 alpha-2, empty when the store did not say.
    public var country: String
    public var offer: OfferKind
    /// The period the payment bought: from the transaction's purchase date to its expiry (nil: never expires).
    public var periodStart: UnixTime
    public var periodEnd: UnixTime?
    /// What the buyer paid, negative for money given back.
    public var amount: PurchasePrice
    /// The tax within `amount` (with its sign), where the store reports it.
    public var taxMilliunits: Int64?
    /// What of `amount` the tenant keeps, in thousandths of the same currency: the store's own figure where it
    /// reports one, else an estimate (tax, where known, and the store's commission at the tenant's rates
    /// (``Commissions``) deducted).
    public var proceedsMilliunits: Int64
    /// When it happened: the purchase date, or the revocation date of a refund.
    public var occurredAt: UnixTime

    public init(
        tenantID: String, store: Store, transactionID: String, kind: MovementKind, originalTransactionID: String,
        customerID: Int64?, productID: String, entitlementIDs: [String], environment: PurchaseEnvironment,
        country: String, offer: OfferKind, periodStart: UnixTime, periodEnd: UnixTime?, amount: PurchasePrice,
        taxMilliunits: Int64? = nil, proceedsMilliunits: Int64, occurredAt: UnixTime
    ) {
        self.tenantID = tenantID
        self.store = store
        self.transactionID = transactionID
        self.kind = kind
        self.originalTransactionID = originalTransactionID
        self.customerID = customerID
        self.productID = productID
        self.entitlementIDs = entitlementIDs
        self.environment = environment
        self.country = country
        self.offer = offer
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.amount = amount
        self.taxMilliunits = taxMilliunits
        self.proceedsMilliunits = proceedsMilliunits
        self.occurredAt = occurredAt
    }
}

/// What a ledger entry records.
public enum MovementKind: Sendable, Hashable, CaseIterable {
    /// A subscription's first paid period.
    case purchase
    /// A paid period after a paid one.
    case renewal
    /// A free trial began (an entry of no amount, so trials can be counted and converted).
    case trialStart
    /// The first paid period after a free trial.
    case trialConversion
    /// A purchase within a subscription that already had one: an upgrade or crossgrade taking effect now, or a
    /// resubscription.
    case productChange
    /// Anything that is not a subscription: a non-consumable, a consumable, a non-renewing subscription.
    case oneTime
    /// Money the store gave back (its amount negative).
    case refund
    /// Money the buyer's bank took back through a dispute (a Stripe dispute lost, a Play chargeback): negative.
    case chargeback
    /// A refund the store took back (Apple's `REFUND_REVERSED`): the refunded amount, positive again.
    case refundReversal

    /// Which way the money went, each at most once per transaction: the entry's key with the transaction ID.
    public var direction: MovementDirection {
        switch self {
        case .refund, .chargeback: .refund
        case .refundReversal: .refundReversal
        case .purchase, .renewal, .trialStart, .trialConversion, .productChange, .oneTime: .payment
        }
    }
}

/// A transaction's payment, its refund, and that refund's reversal.
public enum MovementDirection: Sendable, Hashable, CaseIterable {
    case payment
    case refund
    case refundReversal
}
