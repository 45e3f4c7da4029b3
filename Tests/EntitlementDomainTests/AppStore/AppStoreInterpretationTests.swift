import AppStore
import CivilCalendar
import EntitlementDomain
import Foundation
import TestSupport
import Testing

/// Every App Store rule of ``AppStoreInterpretation``, one at a time, on payloads as Apple's JSON spells them.
@Suite struct AppStoreInterpretationTests {
    static let day = Milliseconds.perDay
    static let purchased: Int64 = 1_760_000_000_000
    static let expires = purchased + 30 * day

    let tenant: Tenant
    let settings: AppStoreSettings

    init() throws {
        let settings = AppStoreSettings(
            bundleID: "com.example.app", environments: [.sandbox],
            rootCertificatePaths: [RepositoryFiles.path("Config/AppleRootCA-G3.cer")], gracePeriodDays: 6,
            products: [
                "monthly": AppStoreProduct(type: .autoRenewable), "pass": AppStoreProduct(type: .nonRenewing, durationDays: 7),
                "lifetime": AppStoreProduct(type: .nonConsumable), "coins": AppStoreProduct(type: .consumable),
            ])
        tenant = try Tenant(
            id: "shop", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!],
            products: ["monthly": ["pro"], "pass": ["pro"], "lifetime": ["premium"], "unmapped-kind": ["pro"]],
            appStore: settings)
        self.settings = try #require(tenant.appStore)
    }

    // MARK: Payloads

    static func transaction(_ fields: [String: Any] = [:]) throws -> JWSTransaction {
        var object: [String: Any] = [
            "originalTransactionId": "1000", "transactionId": "1002", "productId": "monthly",
            "type": "Auto-Renewable Subscription", "environment": "Sandbox", "bundleId": "com.example.app",
            "purchaseDate": purchased, "originalPurchaseDate": purchased - 30 * day, "expiresDate": expires,
            "signedDate": purchased + 1_000, "inAppOwnershipType": "PURCHASED",
        ]
        for (key, value) in fields { object[key] = value is NSNull ? nil : value }
        return try JWSTransaction(jsonPayload: Array(JSONSerialization.data(withJSONObject: object)))
    }

    static func renewal(_ fields: [String: Any] = [:]) throws -> JWSRenewalInfo {
        var object: [String: Any] = [
            "originalTransactionId": "1000", "autoRenewProductId": "monthly", "productId": "monthly",
            "autoRenewStatus": 1, "signedDate": purchased + 2_000, "environment": "Sandbox",
        ]
        for (key, value) in fields { object[key] = value is NSNull ? nil : value }
        return try JWSRenewalInfo(jsonPayload: Array(JSONSerialization.data(withJSONObject: object)))
    }

    static func notification(_ type: String, _ subtype: String? = nil) throws -> NotificationPayload {
        var object: [String: Any] = ["notificationType": type, "notificationUUID": UUID().uuidString, "signedDate": purchased]
        if let subtype { object["subtype"] = subtype }
        return try NotificationPayload(jsonPayload: Array(JSONSerialization.data(withJSONObject: object)))
    }

    func purchase(_ fields: [String: Any] = [:], unmapped: Bool = false) throws -> StorePurchase {
        try AppStoreInterpretation.purchase(
            from: Self.transaction(fields), tenant: tenant, settings: settings, unmappedGrantsNothing: unmapped)
    }

    func notified(_ type: String, _ subtype: String? = nil, transaction: [String: Any] = [:], renewal: [String: Any]? = [:])
        throws -> StorePurchase
    {
        try AppStoreInterpretation.purchase(
            from: Self.transaction(transaction), renewal: renewal.map { try Self.renewal($0) },
            notification: Self.notification(type, subtype), tenant: tenant, settings: settings)
    }

    // MARK: A verified transaction

    @Test func anAutoRenewableSubscriptionLastsUntilItsExpiry() throws {
        let purchase = try purchase()
        #expect(purchase.store == .appStore && purchase.environment == .sandbox && purchase.ownership == .purchased)
        #expect(purchase.originalTransactionID == "1000" && purchase.transactionID == "1002")
        #expect(purchase.entitlementIDs == ["pro"] && purchase.willRenew)
        #expect(purchase.purchasedAt.milliseconds == Self.purchased && purchase.expiresAt?.milliseconds == Self.expires)
        #expect(purchase.signedAt.milliseconds == Self.purchased + 1_000 && purchase.origin == .device)
        #expect(purchase.customerID == nil)
    }

    @Test func aNonRenewingProductLastsItsConfiguredDays() throws {
        let pass = try purchase(["productId": "pass", "type": "Non-Renewing Subscription", "expiresDate": NSNull()])
        #expect(pass.expiresAt?.milliseconds == Self.purchased + 7 * Self.day)
        #expect(!pass.willRenew)
    }

    @Test func aNonConsumableIsForLifeAndAConsumableGrantsNothing() throws {
        let lifetime = try purchase(["productId": "lifetime", "type": "Non-Consumable", "expiresDate": NSNull()])
        #expect(lifetime.expiresAt == nil && lifetime.entitlementIDs == ["premium"])
        let coins = try purchase(["productId": "coins", "type": "Consumable", "expiresDate": NSNull()])
        #expect(coins.entitlementIDs.isEmpty)
    }

    @Test func familySharingUpgradesAndRevocationsAreKept() throws {
        #expect(try purchase(["inAppOwnershipType": "FAMILY_SHARED"]).ownership == .familyShared)
        #expect(try purchase(["isUpgraded": true]).isUpgraded)
        let refunded = try purchase(["revocationDate": Self.purchased + Self.day, "revocationReason": 1])
        #expect(refunded.revokedAt?.milliseconds == Self.purchased + Self.day && refunded.revocationReason == "1")
    }

    @Test func eachEnvironmentMapsToItsOwn() throws {
        let pairs: [(String, PurchaseEnvironment)] = [
            ("Production", .production), ("Sandbox", .sandbox), ("Xcode", .xcode), ("LocalTesting", .localTesting),
        ]
        for (raw, environment) in pairs { #expect(try purchase(["environment": raw]).environment == environment) }
        #expect(throws: DomainError.malformedPayload("")) { try purchase(["environment": "Staging"]) }
    }

    @Test func aProductTheTenantCannotPlaceIsRefusedUnlessANotificationSaysSo() throws {
        // Not in the tenant's products at all: refused from a device, stored granting nothing from Apple.
        #expect(throws: DomainError.unmappedProduct("")) { try purchase(["productId": "other"]) }
        #expect(try purchase(["productId": "other"], unmapped: true).entitlementIDs.isEmpty)
        // Mapped, but not in the App Store products and without a type in the payload.
        #expect(throws: DomainError.unmappedProduct("")) { try purchase(["productId": "unmapped-kind", "type": NSNull()]) }
    }

    @Test func requiredFieldsMustBeThere() throws {
        for field in ["originalTransactionId", "productId", "purchaseDate", "signedDate"] {
            #expect(throws: DomainError.malformedPayload(""), "\(field)") { try purchase([field: NSNull()]) }
        }
    }

    /// Apple's dates are checked before any arithmetic: outside what the API carries, each is refused naming its
    /// field, the extremes of Int64 included; the last representable millisecond is still a date.
    @Test(arguments: ["purchaseDate", "originalPurchaseDate", "expiresDate", "signedDate", "revocationDate"])
    func aDateOutsideWhatTheAPICarriesIsRefusedNamingItsField(field: String) throws {
        for value in [Int64.max, Int64.min, Int64.max / 1000 + 1, 253_402_300_800_000, -62_135_596_800_001] {
            let error = #expect(throws: DomainError.self) { try purchase([field: value]) }
            #expect(error?.code == .malformedPayload)
            #expect(error?.message.hasPrefix("\(field) is \(value) ms since 1970, outside") == true, "\(value)")
        }
        #expect(try purchase([field: 253_402_300_799_999]).store == .appStore)
    }

    /// A configured period added to a date at the end of the range stops at the last time the API carries.
    @Test func aPeriodAddedAtTheEndOfTheRangeStopsAtItsLastMillisecond() throws {
        let last: Int64 = 253_402_300_799_999
        let pass = try purchase([
            "productId": "pass", "type": "Non-Renewing Subscription", "expiresDate": NSNull(), "purchaseDate": last,
        ])
        #expect(pass.expiresAt?.milliseconds == last)
        let grace = try notified("DID_FAIL_TO_RENEW", "GRACE_PERIOD", transaction: ["expiresDate": last])
        #expect(grace.renewal == .grace(until: UnixTime(milliseconds: last)))
    }

    @Test(arguments: ["signedDate", "gracePeriodExpiresDate"])
    func aRenewalDateOutsideWhatTheAPICarriesIsRefusedNamingItsField(field: String) {
        let error = #expect(throws: DomainError.self) {
            try notified("DID_FAIL_TO_RENEW", "GRACE_PERIOD", renewal: [field: Int64.min])
        }
        #expect(error?.message.hasPrefix("signedRenewalInfo.\(field) is \(Int64.min) ms since 1970") == true)
    }

    // MARK: Notifications

    @Test func aNotificationsPurchaseComesFromTheNotification() throws {
        #expect(try notified("DID_RENEW").origin == .notification)
    }

    @Test func renewalInfoSetsIntentionsAsOfItsSignature() throws {
        let renewing = try notified("DID_RENEW")
        // The renewal product as Apple names it; PurchaseVersions clears it when it is the current product.
        #expect(renewing.willRenew && renewing.renewalProductID == "monthly")
        #expect(renewing.renewalStateAsOf.milliseconds == Self.purchased + 2_000)
        let off = try notified("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", renewal: ["autoRenewStatus": 0])
        #expect(!off.willRenew)
        let downgrade = try notified("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", renewal: ["autoRenewProductId": "basic"])
        #expect(downgrade.renewalProductID == "basic" && downgrade.productID == "monthly")
        // Without renewal info the period itself speaks: a renewal means auto-renew was on, as of its purchase.
        let bare = try notified("DID_RENEW", renewal: nil)
        #expect(bare.renewalStateAsOf == bare.purchasedAt && bare.willRenew)
    }

    @Test func aGracePeriodWithApplesDateLastsUntilIt() throws {
        let graceEnd = Self.expires + 3 * Self.day
        let grace = try notified(
            "DID_FAIL_TO_RENEW", "GRACE_PERIOD",
            renewal: ["gracePeriodExpiresDate": graceEnd, "isInBillingRetryPeriod": true])
        #expect(grace.renewal == .grace(until: UnixTime(milliseconds: graceEnd)))
    }

    @Test func aGracePeriodWithoutApplesDateUsesTheTenantsGraceDays() throws {
        let grace = try notified("DID_FAIL_TO_RENEW", "GRACE_PERIOD")
        #expect(grace.renewal == .grace(until: UnixTime(milliseconds: Self.expires + 6 * Self.day)))
    }

    @Test func aFailedRenewalWithoutGraceIsBillingRetryOnly() throws {
        let retry = try notified("DID_FAIL_TO_RENEW", renewal: ["isInBillingRetryPeriod": true])
        #expect(retry.renewal == .billingRetry)
    }

    @Test func graceEndsWithGracePeriodExpiredOrExpired() throws {
        let graceEnd = Self.expires + 3 * Self.day
        for (type, subtype) in [("GRACE_PERIOD_EXPIRED", nil), ("EXPIRED", "BILLING_RETRY"), ("EXPIRED", "VOLUNTARY")] {
            let ended = try notified(type, subtype, renewal: ["gracePeriodExpiresDate": graceEnd])
            #expect(ended.renewal == .paid, "\(type)/\(subtype ?? "")")
        }
    }

    @Test func otherTypesAreInGraceOnlyWhileApplesGraceDateIsBeyondTheExpiry() throws {
        let inGrace = try notified("DID_RENEW", renewal: ["gracePeriodExpiresDate": Self.expires + Self.day])
        #expect(inGrace.renewal == .grace(until: UnixTime(milliseconds: Self.expires + Self.day)))
        let stale = try notified("DID_RENEW", renewal: ["gracePeriodExpiresDate": Self.expires - Self.day])
        #expect(stale.renewal == .paid)
    }

    @Test func informationalTypesChangeNothing() {
        for type in ["PRICE_INCREASE", "REFUND_DECLINED", "CONSUMPTION_REQUEST", "TEST", "RENEWAL_EXTENSION"] {
            #expect(AppStoreInterpretation.isInformational(type), "\(type)")
        }
        for type in ["DID_RENEW", "REFUND", "REVOKE", "EXPIRED", "RENEWAL_EXTENDED", "REFUND_REVERSED", "SUBSCRIBED"] {
            #expect(!AppStoreInterpretation.isInformational(type), "\(type)")
        }
    }

    // MARK: Apple's subscription status (App Store Server API)

    func status(_ code: Int, renewal: [String: Any]? = [:]) throws -> StorePurchase {
        try AppStoreInterpretation.purchase(
            from: Self.transaction(), renewal: renewal.map { try Self.renewal($0) }, subscriptionStatus: code,
            tenant: tenant, settings: settings)
    }

    @Test func aStatusSaysTheBillingStateAndTheRenewalInfoTheIntentions() throws {
        let active = try status(1)
        #expect(active.willRenew && active.renewal == .paid && active.origin == .storeAPI)
        #expect(active.renewalStateAsOf == UnixTime(milliseconds: Self.purchased + 2_000))
        let retrying = try status(3, renewal: ["isInBillingRetryPeriod": true])
        #expect(retrying.renewal == .billingRetry)
        let grace = try status(4, renewal: ["gracePeriodExpiresDate": Self.expires + Self.day, "autoRenewStatus": 0])
        #expect(grace.renewal == .grace(until: UnixTime(milliseconds: Self.expires + Self.day)) && !grace.willRenew)
        let downgrade = try status(1, renewal: ["autoRenewProductId": "basic"])
        #expect(downgrade.renewalProductID == "basic")
        // Without renewal info, grace without Apple's date uses the tenant's window.
        let bare = try status(4, renewal: nil)
        #expect(bare.renewal == .grace(until: UnixTime(milliseconds: Self.expires + 6 * Self.day)))
    }
}
