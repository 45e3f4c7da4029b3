/// A decoded App Store Server Notification V2 (`signedPayload`, Apple's `ResponseBodyV2DecodedPayload`).
///
/// Exactly one of `data`, `summary`, `externalPurchaseToken` and `appData` is normally present. The signed transaction
/// and renewal info inside `data` are NOT verified with the notification: verify each with ``SignedDataVerifier``.
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct NotificationPayload: SignedPayload, Hashable {
    public static let payloadName = "notification"

    public var notificationType: OpenEnum<NotificationType>?
    public var subtype: OpenEnum<NotificationSubtype>?
    public var notificationUUID: String?
    public var version: String?
    @Milliseconds public var signedDate: Int64?
    public var data: NotificationData?
    public var summary: NotificationSummary?
    public var externalPurchaseToken: ExternalPurchaseToken?
    public var appData: NotificationAppData?

    public var effectiveDate: Int64? { signedDate }
    public var claimedEnvironment: String? {
        data?.environment?.rawValue ?? summary?.environment?.rawValue ?? externalPurchaseToken?.environment.rawValue
            ?? appData?.environment?.rawValue
    }
}

/// `data`: the app and, for subscription events, the signed transaction and renewal info.
public struct NotificationData: Sendable, Hashable, Decodable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var environment: OpenEnum<AppStoreEnvironment>?
    /// A JWS: verify with ``SignedDataVerifier/verifyTransaction(_:)``.
    public var signedTransactionInfo: String?
    /// A JWS: verify with ``SignedDataVerifier/verifyRenewalInfo(_:)``.
    public var signedRenewalInfo: String?
    public var status: OpenEnum<SubscriptionStatus>?
    public var consumptionRequestReason: OpenEnum<ConsumptionRequestReason>?
}

/// `summary`: the outcome of a renewal-date extension request (`RENEWAL_EXTENSION` / `SUMMARY`).
public struct NotificationSummary: Sendable, Hashable, Decodable {
    public var environment: OpenEnum<AppStoreEnvironment>?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var requestIdentifier: String?
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int64?
    public var failedCount: Int64?
}

/// `externalPurchaseToken`: an External Purchase token report.
public struct ExternalPurchaseToken: Sendable, Hashable, Decodable {
    /// Starts with `SANDBOX` for sandbox tokens; that is how Apple's libraries tell the environment.
    public var externalPurchaseId: String?
    @Milliseconds public var tokenCreationDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?

    /// Sandbox when `externalPurchaseId` starts with `SANDBOX`, else Production (the token has no environment field).
    public var environment: AppStoreEnvironment {
        externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production
    }
}

/// `appData`: app-level notifications.
public struct NotificationAppData: Sendable, Hashable, Decodable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: OpenEnum<AppStoreEnvironment>?
    /// A JWS: verify with ``SignedDataVerifier/verifyAppTransaction(_:)``.
    public var signedAppTransactionInfo: String?
}
