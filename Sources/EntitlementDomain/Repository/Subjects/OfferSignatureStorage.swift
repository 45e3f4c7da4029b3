/// The offer signatures the server made: GetOfferEligibility's limits, GetCustomer's list, the metrics' totals.
public protocol OfferSignatureReads: Sendable {
    /// The customer's signatures of `offerID` made at or after `since`.
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) throws(StorageError)
        -> Int
    /// The customer's newest `limit` signatures, newest first.
    func offerSignatures(tenantID: String, customerID: Int64, limit: Int) throws(StorageError) -> [OfferSignatureRecord]
    /// Signatures and redemptions per tenant and offer, since the first.
    func offerTotals() throws(StorageError) -> [OfferTotal]
}

/// The offer signatures the server made (``OfferSignatureRecord``): what per-period limits count. A merge moves them
/// to the surviving customer; an erasure removes them (the totals stay: they name nobody).
public protocol OfferSignatureStorage {
    /// The customer's signatures of `offerID` made at or after `since`.
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) throws(StorageError)
        -> Int
    func recordOfferSignature(_ record: OfferSignatureRecord) throws(StorageError)
    /// Marks the customer's newest unredeemed signature of the offer and product made no later than the redemption's
    /// `signedNoLaterThan` as redeemed by the transaction, unless a signature names that transaction already; true
    /// when it marked one.
    func linkOfferRedemption(_ redemption: OfferRedemption) throws(StorageError) -> Bool
}

/// One signature made for a customer: a promotional offer's (its identifier in `offerID`) or an introductory offer
/// eligibility JWS (`offerID` empty).
public struct OfferSignatureRecord: Sendable, Hashable {
    public var tenantID: String
    public var customerID: Int64
    public var offerID: String
    public var productID: String
    /// The signature's nonce, a lowercase UUID: each one is redeemed once.
    public var nonce: String
    public var signedAt: UnixTime
    /// The App Store transaction that redeemed the offer; empty until one did.
    public var redeemedTransactionID = ""
    public var redeemedAt: UnixTime?

    public init(tenantID: String, customerID: Int64, offerID: String, productID: String, nonce: String, signedAt: UnixTime) {
        self.tenantID = tenantID
        self.customerID = customerID
        self.offerID = offerID
        self.productID = productID
        self.nonce = nonce
        self.signedAt = signedAt
    }
}

/// A transaction sold under a promotional offer, to link to the signature that let the customer redeem it.
public struct OfferRedemption: Sendable, Hashable {
    public var tenantID: String
    public var customerID: Int64
    public var offerID: String
    public var productID: String
    public var transactionID: String
    /// Signatures made later than this are not the one redeemed (the transaction's date, with the clocks' skew).
    public var signedNoLaterThan: UnixTime
    public var redeemedAt: UnixTime

    public init(
        tenantID: String, customerID: Int64, offerID: String, productID: String, transactionID: String,
        signedNoLaterThan: UnixTime, redeemedAt: UnixTime
    ) {
        self.tenantID = tenantID
        self.customerID = customerID
        self.offerID = offerID
        self.productID = productID
        self.transactionID = transactionID
        self.signedNoLaterThan = signedNoLaterThan
        self.redeemedAt = redeemedAt
    }
}

/// How many signatures of one offer the server made for a tenant, and how many were redeemed (`offerID` empty:
/// introductory offer eligibility signatures, never redeemed as such).
public struct OfferTotal: Sendable, Hashable {
    public var tenantID: String
    public var offerID: String
    public var signed: Int64
    public var redeemed: Int64

    public init(tenantID: String, offerID: String, signed: Int64, redeemed: Int64) {
        self.tenantID = tenantID
        self.offerID = offerID
        self.signed = signed
        self.redeemed = redeemed
    }
}
