public import Encodings

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
    /// Milliseconds since 1970 UTC.
    public var signedDate: Int64?
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
public struct NotificationData: Sendable, Hashable {
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
public struct NotificationSummary: Sendable, Hashable {
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
public struct ExternalPurchaseToken: Sendable, Hashable {
    /// Starts with `SANDBOX` for sandbox tokens; that is how Apple's libraries tell the environment.
    public var externalPurchaseId: String?
    /// Milliseconds since 1970 UTC.
    public var tokenCreationDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?

    /// Sandbox when `externalPurchaseId` starts with `SANDBOX`, else Production (the token has no environment field).
    public var environment: AppStoreEnvironment {
        externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production
    }
}

/// `appData`: app-level notifications.
public struct NotificationAppData: Sendable, Hashable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: OpenEnum<AppStoreEnvironment>?
    /// A JWS: verify with ``SignedDataVerifier/verifyAppTransaction(_:)``.
    public var signedAppTransactionInfo: String?
}

extension NotificationPayload {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = NotificationPayload()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "notificationType" {
                value.notificationType = try reader.optionalEnum()
            } else if key == "subtype" {
                value.subtype = try reader.optionalEnum()
            } else if key == "notificationUUID" {
                value.notificationUUID = try reader.optionalString()
            } else if key == "version" {
                value.version = try reader.optionalString()
            } else if key == "signedDate" {
                value.signedDate = try reader.optionalMilliseconds()
            } else if key == "data" {
                value.data = try reader.readOptional(NotificationData.init(json:))
            } else if key == "summary" {
                value.summary = try reader.readOptional(NotificationSummary.init(json:))
            } else if key == "externalPurchaseToken" {
                value.externalPurchaseToken = try reader.readOptional(ExternalPurchaseToken.init(json:))
            } else if key == "appData" {
                value.appData = try reader.readOptional(NotificationAppData.init(json:))
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}

extension NotificationData {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = NotificationData()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "appAppleId" {
                value.appAppleId = try reader.optionalInt64()
            } else if key == "bundleId" {
                value.bundleId = try reader.optionalString()
            } else if key == "bundleVersion" {
                value.bundleVersion = try reader.optionalString()
            } else if key == "environment" {
                value.environment = try reader.optionalEnum()
            } else if key == "signedTransactionInfo" {
                value.signedTransactionInfo = try reader.optionalString()
            } else if key == "signedRenewalInfo" {
                value.signedRenewalInfo = try reader.optionalString()
            } else if key == "status" {
                value.status = try reader.optionalEnum()
            } else if key == "consumptionRequestReason" {
                value.consumptionRequestReason = try reader.optionalEnum()
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}

extension NotificationSummary {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = NotificationSummary()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "environment" {
                value.environment = try reader.optionalEnum()
            } else if key == "appAppleId" {
                value.appAppleId = try reader.optionalInt64()
            } else if key == "bundleId" {
                value.bundleId = try reader.optionalString()
            } else if key == "productId" {
                value.productId = try reader.optionalString()
            } else if key == "requestIdentifier" {
                value.requestIdentifier = try reader.optionalString()
            } else if key == "storefrontCountryCodes" {
                value.storefrontCountryCodes = try reader.optionalStrings()
            } else if key == "succeededCount" {
                value.succeededCount = try reader.optionalInt64()
            } else if key == "failedCount" {
                value.failedCount = try reader.optionalInt64()
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}

extension ExternalPurchaseToken {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = ExternalPurchaseToken()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "externalPurchaseId" {
                value.externalPurchaseId = try reader.optionalString()
            } else if key == "tokenCreationDate" {
                value.tokenCreationDate = try reader.optionalMilliseconds()
            } else if key == "appAppleId" {
                value.appAppleId = try reader.optionalInt64()
            } else if key == "bundleId" {
                value.bundleId = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}

extension NotificationAppData {
    /// Reads the JSON object; members it does not know are skipped.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var value = NotificationAppData()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "appAppleId" {
                value.appAppleId = try reader.optionalInt64()
            } else if key == "bundleId" {
                value.bundleId = try reader.optionalString()
            } else if key == "environment" {
                value.environment = try reader.optionalEnum()
            } else if key == "signedAppTransactionInfo" {
                value.signedAppTransactionInfo = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        self = value
    }
}
