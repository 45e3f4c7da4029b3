public import Crypto
import Encodings
import Foundation

/// Payloads shaped like Apple's, to sign with ``LocalSigningCA`` (development tools and tests).
///
/// Each builder returns a JSON object as a dictionary, so callers can add, change or remove fields before
/// ``json(_:)``; `signedDate` defaults to now. Dates are milliseconds since 1970.
public enum LocalPayloads {
    public typealias Object = [String: any Sendable]

    public static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A signed transaction's payload. `transactionID` defaults to `originalTransactionID`; `purchaseDate` to now.
    public static func transaction(
        bundleID: String, productID: String, originalTransactionID: String, transactionID: String? = nil,
        environment: AppStoreEnvironment = .sandbox, type: ProductType = .autoRenewableSubscription,
        purchaseDate: Int64? = nil, expiresDate: Int64? = nil, appAccountToken: String? = nil,
        ownership: InAppOwnershipType = .purchased, subscriptionGroupIdentifier: String? = nil,
        revocationDate: Int64? = nil, isUpgraded: Bool = false, signedDate: Int64? = nil, promotionalOfferID: String? = nil
    ) -> Object {
        let now = nowMilliseconds()
        let transactionID = transactionID ?? originalTransactionID
        var object: Object = [
            "transactionId": transactionID, "originalTransactionId": originalTransactionID, "bundleId": bundleID,
            "productId": productID, "purchaseDate": purchaseDate ?? now, "originalPurchaseDate": purchaseDate ?? now,
            "quantity": 1, "type": type.rawValue, "inAppOwnershipType": ownership.rawValue,
            "signedDate": signedDate ?? now, "environment": environment.rawValue, "storefront": "USA",
            "storefrontId": "143441", "transactionReason": transactionID == originalTransactionID ? "PURCHASE" : "RENEWAL",
            "currency": "USD", "price": 4990,
        ]
        if type == .autoRenewableSubscription {
            object["webOrderLineItemId"] = transactionID
            object["subscriptionGroupIdentifier"] = subscriptionGroupIdentifier ?? "local.group"
        }
        object["expiresDate"] = expiresDate
        object["appAccountToken"] = appAccountToken
        if isUpgraded { object["isUpgraded"] = true }
        if let promotionalOfferID {
            object["offerType"] = 2
            object["offerIdentifier"] = promotionalOfferID
        }
        if let revocationDate {
            object["revocationDate"] = revocationDate
            object["revocationReason"] = 0
        }
        return object
    }

    /// A signed renewal info's payload. `autoRenewProductID` defaults to `productID`.
    public static func renewalInfo(
        originalTransactionID: String, productID: String, autoRenewProductID: String? = nil, autoRenew: Bool = true,
        environment: AppStoreEnvironment = .sandbox, renewalDate: Int64? = nil, gracePeriodExpiresDate: Int64? = nil,
        isInBillingRetryPeriod: Bool? = nil, expirationIntent: ExpirationIntent? = nil, signedDate: Int64? = nil
    ) -> Object {
        let now = nowMilliseconds()
        var object: Object = [
            "originalTransactionId": originalTransactionID, "productId": productID,
            "autoRenewProductId": autoRenewProductID ?? productID, "autoRenewStatus": autoRenew ? 1 : 0,
            "signedDate": signedDate ?? now, "environment": environment.rawValue, "recentSubscriptionStartDate": now,
        ]
        object["renewalDate"] = renewalDate
        object["gracePeriodExpiresDate"] = gracePeriodExpiresDate
        object["isInBillingRetryPeriod"] = isInBillingRetryPeriod
        object["expirationIntent"] = expirationIntent?.rawValue
        return object
    }

    /// An App Store Server Notification V2 payload with `data`. `type` and `subtype` are raw so unknown values can be
    /// produced; `notificationUUID` defaults to a fresh UUID.
    public static func notification(
        type: String, subtype: String? = nil, bundleID: String, appAppleID: Int64? = nil,
        environment: AppStoreEnvironment = .sandbox, signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil, status: SubscriptionStatus? = nil, notificationUUID: String? = nil,
        signedDate: Int64? = nil
    ) -> Object {
        var data: Object = ["bundleId": bundleID, "bundleVersion": "1", "environment": environment.rawValue]
        data["appAppleId"] = appAppleID
        data["signedTransactionInfo"] = signedTransactionInfo
        data["signedRenewalInfo"] = signedRenewalInfo
        data["status"] = status?.rawValue
        var object: Object = [
            "notificationType": type, "notificationUUID": notificationUUID ?? UUID().uuidString.lowercased(),
            "version": "2.0", "signedDate": signedDate ?? nowMilliseconds(), "data": data,
        ]
        object["subtype"] = subtype
        return object
    }

    /// A signed app transaction's payload; the environment is in `receiptType`, the date in `receiptCreationDate`.
    public static func appTransaction(
        bundleID: String, appAppleID: Int64? = nil, environment: AppStoreEnvironment = .sandbox,
        applicationVersion: String = "1", receiptCreationDate: Int64? = nil
    ) -> Object {
        let now = nowMilliseconds()
        var object: Object = [
            "bundleId": bundleID, "receiptType": environment.rawValue, "applicationVersion": applicationVersion,
            "originalApplicationVersion": applicationVersion, "receiptCreationDate": receiptCreationDate ?? now,
            "requestDate": now, "originalPurchaseDate": receiptCreationDate ?? now,
            "appTransactionId": UUID().uuidString.lowercased(), "originalPlatform": "iOS",
        ]
        object["appAppleId"] = appAppleID
        return object
    }

    /// The object as compact JSON with sorted keys.
    public static func json(_ object: Object) -> [UInt8] {
        guard let json = JSONValue(sortingKeysOf: object) else {
            preconditionFailure("LocalPayloads.json: not a JSON object: \(object)")
        }
        return Array(json.text.utf8)
    }
}

extension LocalSigningCA {
    /// Signs a payload built with ``LocalPayloads``.
    public func sign(_ object: LocalPayloads.Object) throws(CryptoError) -> String {
        try sign(payload: LocalPayloads.json(object))
    }
}
