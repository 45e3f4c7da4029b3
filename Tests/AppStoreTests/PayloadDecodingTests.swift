import AppStore
import Testing

@Suite struct PayloadDecodingTests {
    @Test func fractionalMillisecondsAreTruncatedAndUnknownEnumValuesKept() throws {
        let json = """
            {"transactionId":"1","purchaseDate":1697679936049.7297,"expiresDate":1700358336049,"signedDate":1.5,
             "revocationDate":null,"type":"Lifetime Pass","inAppOwnershipType":"BORROWED","offerType":9,
             "revocationReason":7,"transactionReason":"GIFT","environment":"Staging","offerDiscountType":"BOGO",
             "price":4990,"isUpgraded":false,"unknownField":{"nested":[1,2]}}
            """
        let transaction = try JWSTransaction(jsonPayload: Array(json.utf8))
        #expect(transaction.purchaseDate == 1_697_679_936_049)
        #expect(transaction.expiresDate == 1_700_358_336_049)
        #expect(transaction.signedDate == 1)
        #expect(transaction.revocationDate == nil)
        #expect(transaction.originalPurchaseDate == nil)
        #expect(transaction.type?.rawValue == "Lifetime Pass")
        #expect(transaction.type?.known == nil)
        #expect(transaction.inAppOwnershipType?.rawValue == "BORROWED")
        #expect(transaction.offerType?.rawValue == 9)
        #expect(transaction.revocationReason?.rawValue == 7)
        #expect(transaction.transactionReason?.rawValue == "GIFT")
        #expect(transaction.environment?.rawValue == "Staging")
        #expect(transaction.offerDiscountType?.rawValue == "BOGO")
        #expect(transaction.isUpgraded == false)
    }

    @Test func knownEnumValuesMapToTheirCases() throws {
        let json = """
            {"type":"Auto-Renewable Subscription","inAppOwnershipType":"FAMILY_SHARED","offerType":4,
             "environment":"Sandbox","revocationType":"REFUND_PRORATED"}
            """
        let transaction = try JWSTransaction(jsonPayload: Array(json.utf8))
        #expect(transaction.type?.known == .autoRenewableSubscription)
        #expect(transaction.inAppOwnershipType?.known == .familyShared)
        #expect(transaction.offerType?.known == .winBackOffer)
        #expect(transaction.environment?.known == .sandbox)
        #expect(transaction.revocationType?.known == .refundProrated)
    }

    @Test func notificationsDecodeEveryBranchAndUnknownTypes() throws {
        let json = """
            {"notificationType":"BRAND_NEW_TYPE","subtype":"SOMETHING","notificationUUID":"u","version":"2.0",
             "signedDate":1700000000000.9,"data":{"appAppleId":1,"bundleId":"b","environment":"Sandbox","status":9,
             "signedTransactionInfo":"x.y.z","consumptionRequestReason":"NEW_REASON"},
             "summary":{"requestIdentifier":"r","succeededCount":3,"storefrontCountryCodes":["USA"]},
             "externalPurchaseToken":{"externalPurchaseId":"SANDBOX_1","tokenCreationDate":1.9},
             "appData":{"bundleId":"b","signedAppTransactionInfo":"a.b.c"}}
            """
        let notification = try NotificationPayload(jsonPayload: Array(json.utf8))
        #expect(notification.notificationType?.rawValue == "BRAND_NEW_TYPE")
        #expect(notification.notificationType?.known == nil)
        #expect(notification.subtype?.rawValue == "SOMETHING")
        #expect(notification.signedDate == 1_700_000_000_000)
        #expect(notification.data?.status?.rawValue == 9)
        #expect(notification.data?.consumptionRequestReason?.rawValue == "NEW_REASON")
        #expect(notification.summary?.succeededCount == 3)
        #expect(notification.externalPurchaseToken?.tokenCreationDate == 1)
        #expect(notification.appData?.signedAppTransactionInfo == "a.b.c")
        let known = try NotificationPayload(
            jsonPayload: Array(#"{"notificationType":"DID_CHANGE_RENEWAL_STATUS","subtype":"AUTO_RENEW_DISABLED"}"#.utf8))
        #expect(known.notificationType?.known == .didChangeRenewalStatus)
        #expect(known.subtype?.known == .autoRenewDisabled)
    }

    @Test func renewalInfoAndAppTransactionDecode() throws {
        let renewal = try JWSRenewalInfo(jsonPayload: Array("""
            {"autoRenewStatus":0,"expirationIntent":42,"priceIncreaseStatus":1,"gracePeriodExpiresDate":1.0e3,
             "renewalDate":1700358336049.7297,"isInBillingRetryPeriod":true,"eligibleWinBackOfferIds":["a"]}
            """.utf8))
        #expect(renewal.autoRenewStatus?.known == .off)
        #expect(renewal.expirationIntent?.rawValue == 42)
        #expect(renewal.expirationIntent?.known == nil)
        #expect(renewal.priceIncreaseStatus?.known == .customerConsentedOrWasNotifiedWithoutNeedingConsent)
        #expect(renewal.gracePeriodExpiresDate == 1000)
        #expect(renewal.renewalDate == 1_700_358_336_049)
        #expect(renewal.isInBillingRetryPeriod == true)
        let app = try AppTransaction(jsonPayload: Array("""
            {"receiptType":"Xcode","receiptCreationDate":1697680122257.447,"originalPurchaseDate":-62135769600000,
             "appAppleId":5,"originalPlatform":"watchOS"}
            """.utf8))
        #expect(app.receiptType?.known == .xcode)
        #expect(app.receiptCreationDate == 1_697_680_122_257)
        #expect(app.effectiveDate == 1_697_680_122_257)
        #expect(app.originalPurchaseDate == -62_135_769_600_000)
        #expect(app.originalPlatform?.rawValue == "watchOS")
    }

    @Test(arguments: [
        (#"[1,2]"#, ""),
        (#"{"purchaseDate":"yesterday"}"#, "purchaseDate"),
        (#"{"purchaseDate":1e300}"#, "purchaseDate"),
        (#"{"bundleId":7}"#, "bundleId"),
        (#"{"quantity":true}"#, "quantity"),
        ("not json", ""),
    ])
    func wrongTypesAreMalformedNamingTheField(json: String, field: String) {
        let error = #expect(throws: AppStoreVerificationError.self) { try JWSTransaction(jsonPayload: Array(json.utf8)) }
        #expect(error?.code == .malformedToken)
        #expect(field.isEmpty || error?.message.contains(field) == true, "\(error?.message ?? "")")
    }
}
