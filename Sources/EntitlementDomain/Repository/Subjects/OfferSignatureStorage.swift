/// The offer signatures the server made, for GetOfferEligibility's limits.
public protocol OfferSignatureReads: Sendable {
    /// The customer's signatures of `offerID` made at or after `since`.
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) throws(StorageError)
        -> Int
}

/// The offer signatures the server made (``OfferSignatureRecord``): what per-period limits count. A merge moves them
/// to the surviving customer; an erasure removes them.
public protocol OfferSignatureStorage {
    /// The customer's signatures of `offerID` made at or after `since`.
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) throws(StorageError)
        -> Int
    func recordOfferSignature(_ record: OfferSignatureRecord) throws(StorageError)
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

    public init(tenantID: String, customerID: Int64, offerID: String, productID: String, nonce: String, signedAt: UnixTime) {
        self.tenantID = tenantID
        self.customerID = customerID
        self.offerID = offerID
        self.productID = productID
        self.nonce = nonce
        self.signedAt = signedAt
    }
}
