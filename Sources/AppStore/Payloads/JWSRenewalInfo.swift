/// A decoded signed renewal info (Apple's `JWSRenewalInfoDecodedPayload`); field names are Apple's, all optional.
///
/// https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload
public struct JWSRenewalInfo: SignedPayload, Hashable {
    public static let payloadName = "renewal info"

    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    public var autoRenewStatus: OpenEnum<AutoRenewStatus>?
    public var isInBillingRetryPeriod: Bool?
    public var priceIncreaseStatus: OpenEnum<PriceIncreaseStatus>?
    @Milliseconds public var gracePeriodExpiresDate: Int64?
    public var expirationIntent: OpenEnum<ExpirationIntent>?
    public var offerType: OpenEnum<OfferType>?
    public var offerIdentifier: String?
    public var offerDiscountType: OpenEnum<OfferDiscountType>?
    public var offerPeriod: String?
    @Milliseconds public var signedDate: Int64?
    public var environment: OpenEnum<AppStoreEnvironment>?
    @Milliseconds public var recentSubscriptionStartDate: Int64?
    @Milliseconds public var renewalDate: Int64?
    public var currency: String?
    /// In milli-units of `currency`.
    public var renewalPrice: Int64?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?

    public var effectiveDate: Int64? { signedDate }
    public var claimedEnvironment: String? { environment?.rawValue }
}
