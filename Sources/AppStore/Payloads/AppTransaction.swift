public import Encodings

/// A decoded signed app transaction (Apple's `AppTransaction`); field names are Apple's, all optional.
///
/// https://developer.apple.com/documentation/storekit/apptransaction
public struct AppTransaction: SignedPayload, Hashable {
    public static let payloadName = "app transaction"

    /// The environment (Apple names it `receiptType` here).
    public var receiptType: OpenEnum<AppStoreEnvironment>?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int64?
    /// Milliseconds since 1970 UTC.
    public var receiptCreationDate: Int64?
    /// Milliseconds since 1970 UTC.
    public var originalPurchaseDate: Int64?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    /// Milliseconds since 1970 UTC.
    public var preorderDate: Int64?
    public var appTransactionId: String?
    public var originalPlatform: OpenEnum<PurchasePlatform>?
    /// Milliseconds since 1970 UTC.
    public var signedDate: Int64?

    /// Apple's libraries take `signedDate` when present, else `receiptCreationDate`.
    public var effectiveDate: Int64? { signedDate ?? receiptCreationDate }
    public var claimedEnvironment: String? { receiptType?.rawValue }
}

/// `originalPlatform`.
public enum PurchasePlatform: String, Sendable, Hashable, CaseIterable {
    case iOS
    case macOS
    case tvOS
    case visionOS
}

extension AppTransaction {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = AppTransaction()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "receiptType" {
                value.receiptType = try reader.optionalEnum()
            } else if key == "appAppleId" {
                value.appAppleId = try reader.optionalInt64()
            } else if key == "bundleId" {
                value.bundleId = try reader.optionalString()
            } else if key == "applicationVersion" {
                value.applicationVersion = try reader.optionalString()
            } else if key == "versionExternalIdentifier" {
                value.versionExternalIdentifier = try reader.optionalInt64()
            } else if key == "receiptCreationDate" {
                value.receiptCreationDate = try reader.optionalMilliseconds()
            } else if key == "originalPurchaseDate" {
                value.originalPurchaseDate = try reader.optionalMilliseconds()
            } else if key == "originalApplicationVersion" {
                value.originalApplicationVersion = try reader.optionalString()
            } else if key == "deviceVerification" {
                value.deviceVerification = try reader.optionalString()
            } else if key == "deviceVerificationNonce" {
                value.deviceVerificationNonce = try reader.optionalString()
            } else if key == "preorderDate" {
                value.preorderDate = try reader.optionalMilliseconds()
            } else if key == "appTransactionId" {
                value.appTransactionId = try reader.optionalString()
            } else if key == "originalPlatform" {
                value.originalPlatform = try reader.optionalEnum()
            } else if key == "signedDate" {
                value.signedDate = try reader.optionalMilliseconds()
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}
