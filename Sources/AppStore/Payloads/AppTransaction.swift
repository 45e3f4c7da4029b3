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
    @Milliseconds public var receiptCreationDate: Int64?
    @Milliseconds public var originalPurchaseDate: Int64?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    @Milliseconds public var preorderDate: Int64?
    public var appTransactionId: String?
    public var originalPlatform: OpenEnum<PurchasePlatform>?
    @Milliseconds public var signedDate: Int64?

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
