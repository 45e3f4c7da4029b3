public import Encodings

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
    /// Milliseconds since 1970 UTC.
    public var gracePeriodExpiresDate: Int64?
    public var expirationIntent: OpenEnum<ExpirationIntent>?
    public var offerType: OpenEnum<OfferType>?
    public var offerIdentifier: String?
    public var offerDiscountType: OpenEnum<OfferDiscountType>?
    public var offerPeriod: String?
    /// Milliseconds since 1970 UTC.
    public var signedDate: Int64?
    public var environment: OpenEnum<AppStoreEnvironment>?
    /// Milliseconds since 1970 UTC.
    public var recentSubscriptionStartDate: Int64?
    /// Milliseconds since 1970 UTC.
    public var renewalDate: Int64?
    public var currency: String?
    /// In milli-units of `currency`.
    public var renewalPrice: Int64?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?

    public var effectiveDate: Int64? { signedDate }
    public var claimedEnvironment: String? { environment?.rawValue }
}

extension JWSRenewalInfo {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = JWSRenewalInfo()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "originalTransactionId" {
                value.originalTransactionId = try reader.optionalString()
            } else if key == "autoRenewProductId" {
                value.autoRenewProductId = try reader.optionalString()
            } else if key == "productId" {
                value.productId = try reader.optionalString()
            } else if key == "autoRenewStatus" {
                value.autoRenewStatus = try reader.optionalEnum()
            } else if key == "isInBillingRetryPeriod" {
                value.isInBillingRetryPeriod = try reader.optionalBool()
            } else if key == "priceIncreaseStatus" {
                value.priceIncreaseStatus = try reader.optionalEnum()
            } else if key == "gracePeriodExpiresDate" {
                value.gracePeriodExpiresDate = try reader.optionalMilliseconds()
            } else if key == "expirationIntent" {
                value.expirationIntent = try reader.optionalEnum()
            } else if key == "offerType" {
                value.offerType = try reader.optionalEnum()
            } else if key == "offerIdentifier" {
                value.offerIdentifier = try reader.optionalString()
            } else if key == "offerDiscountType" {
                value.offerDiscountType = try reader.optionalEnum()
            } else if key == "offerPeriod" {
                value.offerPeriod = try reader.optionalString()
            } else if key == "signedDate" {
                value.signedDate = try reader.optionalMilliseconds()
            } else if key == "environment" {
                value.environment = try reader.optionalEnum()
            } else if key == "recentSubscriptionStartDate" {
                value.recentSubscriptionStartDate = try reader.optionalMilliseconds()
            } else if key == "renewalDate" {
                value.renewalDate = try reader.optionalMilliseconds()
            } else if key == "currency" {
                value.currency = try reader.optionalString()
            } else if key == "renewalPrice" {
                value.renewalPrice = try reader.optionalInt64()
            } else if key == "eligibleWinBackOfferIds" {
                value.eligibleWinBackOfferIds = try reader.optionalStrings()
            } else if key == "appAccountToken" {
                value.appAccountToken = try reader.optionalString()
            } else if key == "appTransactionId" {
                value.appTransactionId = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}
