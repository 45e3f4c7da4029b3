public import Encodings

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
    /// Milliseconds since 1970 UTC.
    public var purchaseDate: Int64?
    /// Milliseconds since 1970 UTC.
    public var originalPurchaseDate: Int64?
    /// Milliseconds since 1970 UTC.
    public var expiresDate: Int64?
    public var quantity: Int?
    public var type: OpenEnum<ProductType>?
    public var appAccountToken: String?
    public var inAppOwnershipType: OpenEnum<InAppOwnershipType>?
    /// Milliseconds since 1970 UTC.
    public var signedDate: Int64?
    public var revocationReason: OpenEnum<RevocationReason>?
    /// Milliseconds since 1970 UTC.
    public var revocationDate: Int64?
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

extension JWSTransaction {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = JWSTransaction()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "originalTransactionId" {
                value.originalTransactionId = try reader.optionalString()
            } else if key == "transactionId" {
                value.transactionId = try reader.optionalString()
            } else if key == "webOrderLineItemId" {
                value.webOrderLineItemId = try reader.optionalString()
            } else if key == "bundleId" {
                value.bundleId = try reader.optionalString()
            } else if key == "productId" {
                value.productId = try reader.optionalString()
            } else if key == "subscriptionGroupIdentifier" {
                value.subscriptionGroupIdentifier = try reader.optionalString()
            } else if key == "purchaseDate" {
                value.purchaseDate = try reader.optionalMilliseconds()
            } else if key == "originalPurchaseDate" {
                value.originalPurchaseDate = try reader.optionalMilliseconds()
            } else if key == "expiresDate" {
                value.expiresDate = try reader.optionalMilliseconds()
            } else if key == "quantity" {
                value.quantity = try reader.optionalInt()
            } else if key == "type" {
                value.type = try reader.optionalEnum()
            } else if key == "appAccountToken" {
                value.appAccountToken = try reader.optionalString()
            } else if key == "inAppOwnershipType" {
                value.inAppOwnershipType = try reader.optionalEnum()
            } else if key == "signedDate" {
                value.signedDate = try reader.optionalMilliseconds()
            } else if key == "revocationReason" {
                value.revocationReason = try reader.optionalEnum()
            } else if key == "revocationDate" {
                value.revocationDate = try reader.optionalMilliseconds()
            } else if key == "revocationType" {
                value.revocationType = try reader.optionalEnum()
            } else if key == "revocationPercentage" {
                value.revocationPercentage = try reader.optionalInt()
            } else if key == "isUpgraded" {
                value.isUpgraded = try reader.optionalBool()
            } else if key == "offerType" {
                value.offerType = try reader.optionalEnum()
            } else if key == "offerIdentifier" {
                value.offerIdentifier = try reader.optionalString()
            } else if key == "environment" {
                value.environment = try reader.optionalEnum()
            } else if key == "storefront" {
                value.storefront = try reader.optionalString()
            } else if key == "storefrontId" {
                value.storefrontId = try reader.optionalString()
            } else if key == "transactionReason" {
                value.transactionReason = try reader.optionalEnum()
            } else if key == "currency" {
                value.currency = try reader.optionalString()
            } else if key == "price" {
                value.price = try reader.optionalInt64()
            } else if key == "offerDiscountType" {
                value.offerDiscountType = try reader.optionalEnum()
            } else if key == "appTransactionId" {
                value.appTransactionId = try reader.optionalString()
            } else if key == "offerPeriod" {
                value.offerPeriod = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}
