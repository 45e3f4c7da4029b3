/// A decoded signed transaction (Apple's `JWSTransactionDecodedPayload`); field names are Apple's, every field optional.
///
/// https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
public struct JWSTransaction: SignedPayload, Hashable {
    public static let payloadName = "transaction"

    public var originalTransactionId: String?
    public var transactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    @Milliseconds public var purchaseDate: Int64?
    @Milliseconds public var originalPurchaseDate: Int64?
    @Milliseconds public var expiresDate: Int64?
    public var quantity: Int?
    public var type: OpenEnum<ProductType>?
    public var appAccountToken: String?
    public var inAppOwnershipType: OpenEnum<InAppOwnershipType>?
    @Milliseconds public var signedDate: Int64?
    public var revocationReason: OpenEnum<RevocationReason>?
    @Milliseconds public var revocationDate: Int64?
    public var revocationType: OpenEnum<RevocationType>?
    public var revocationPercentage: Int?
    public var isUpgraded: Bool?
    public var offerType: OpenEnum<OfferType>?
    public var offerIdentifier: String?
    public var environment: OpenEnum<AppStoreEnvironment>?
    public var storefront: String?
    public var storefrontId: String?
    public var transactionReason: OpenEnum<TransactionReason>?
    public var currency: String?
    /// In milli-units of `currency`.
    public var price: Int64?
    public var offerDiscountType: OpenEnum<OfferDiscountType>?
    public var appTransactionId: String?
    /// ISO 8601 duration of the offer, e.g. `P1M`.
    public var offerPeriod: String?

    public var effectiveDate: Int64? { signedDate }
    public var claimedEnvironment: String? { environment?.rawValue }
}
