import CivilCalendar
import EntitlementDomain
import Encodings
import Foundation
import GooglePlay
import TestSupport
import Testing

/// Every Google Play rule of ``PlayStoreInterpretation``, one at a time, on answers as Google's JSON spells them.
@Suite struct PlayStoreInterpretationTests {
    static let day = Milliseconds.perDay
    /// When Google answered: 2026-06-15T00:00:00Z.
    static let fetched: Int64 = 1_781_481_600_000
    static let started = fetched - 10 * day
    static let expires = fetched + 20 * day
    static let token = "token-new.AO-J1Ox"

    let tenant: Tenant
    let settings: PlayStoreSettings

    init() throws {
        let settings = Self.settings()
        tenant = try Tenant(
            id: "shop", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!],
            products: [
                "premium": ["pro"], "premium:family": ["pro", "family"], "storage-addon": ["storage"],
                "lifetime": ["lifetime"],
            ],
            playStore: settings)
        self.settings = try #require(tenant.playStore)
    }

    /// A key file the tenant's rules accept; the interpretation never reads it.
    static let files = try! PlayStoreTestFiles()

    static func settings(environments: Set<PlayEnvironmentName> = [.production, .test]) -> PlayStoreSettings {
        PlayStoreSettings(
            packageName: "com.example.app", serviceAccountKeyPath: files.keyFilePath, environments: environments,
            products: [
                "premium": .subscription, "storage-addon": .subscription, "lifetime": .nonConsumable, "coins": .consumable,
            ])
    }

    // MARK: Google's answers

    static func time(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// A `SubscriptionPurchaseV2` of one `premium` monthly line item, active until `expires`; `fields` replace the
    /// resource's, `item` the line item's (NSNull removes one).
    static func subscription(_ fields: [String: Any] = [:], item: [String: Any] = [:], items: [[String: Any]]? = nil)
        throws -> SubscriptionPurchaseV2
    {
        var line: [String: Any] = [
            "productId": "premium", "expiryTime": time(expires), "autoRenewingPlan": ["autoRenewEnabled": true],
            "offerDetails": ["basePlanId": "monthly"], "latestSuccessfulOrderId": "GPA.1234-5678-9012-34567..1",
        ]
        for (key, value) in item { line[key] = value is NSNull ? nil : value }
        var object: [String: Any] = [
            "kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "US", "startTime": time(started),
            "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "latestOrderId": "GPA.1234-5678-9012-34567..1",
            "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED", "lineItems": items ?? [line],
        ]
        for (key, value) in fields { object[key] = value is NSNull ? nil : value }
        return try JSONReader.read(SubscriptionPurchaseV2.self, from: Array(#require(JSONValue(sortingKeysOf: object)).text.utf8))
    }

    static func product(_ fields: [String: Any] = [:]) throws -> ProductPurchase {
        var object: [String: Any] = [
            "kind": "androidpublisher#productPurchase", "purchaseTimeMillis": String(started), "purchaseState": 0,
            "consumptionState": 0, "orderId": "GPA.3398-1234-5678-90123", "acknowledgementState": 1,
            "productId": "lifetime", "quantity": 1, "regionCode": "US",
        ]
        for (key, value) in fields { object[key] = value is NSNull ? nil : value }
        return try JSONReader.read(ProductPurchase.self, from: Array(#require(JSONValue(sortingKeysOf: object)).text.utf8))
    }

    func purchase(
        _ data: SubscriptionPurchaseV2, productID: String? = "premium", notification: SubscriptionNotificationType? = nil,
        notifiedAt: Int64? = nil, settings: PlayStoreSettings? = nil
    ) throws(DomainError) -> StorePurchase {
        let facts = PlayStoreInterpretation.SubscriptionFacts(
            token: Self.token, purchase: data, fetchedAt: UnixTime(milliseconds: Self.fetched), notification: notification,
            notifiedAt: notifiedAt.map(UnixTime.init(milliseconds:)))
        return try PlayStoreInterpretation.purchase(
            fromSubscription: facts, productID: productID, tenant: tenant, settings: settings ?? self.settings)
    }

    func product(_ data: ProductPurchase, productID: String = "lifetime", settings: PlayStoreSettings? = nil)
        throws(DomainError) -> StorePurchase
    {
        try PlayStoreInterpretation.purchase(
            fromProduct: data, token: Self.token, productID: productID, fetchedAt: UnixTime(milliseconds: Self.fetched),
            tenant: tenant, settings: settings ?? self.settings, origin: .device)
    }

    /// What `purchase` gives at `milliseconds` (the fetch time by default).
    func active(_ purchase: StorePurchase, at milliseconds: Int64 = fetched) -> Set<String> {
        StatusCalculator.status(of: EntitlementCandidate.candidates(of: purchase), at: UnixTime(milliseconds: milliseconds))
            .activeIDs
    }

    // MARK: Subscription states

    @Test func anActiveSubscriptionGrantsUntilItsLineItemsExpiry() throws {
        let purchase = try purchase(Self.subscription())
        #expect(purchase.store == .playStore && purchase.environment == .production && purchase.ownership == .purchased)
        #expect(purchase.originalTransactionID == Self.token && purchase.transactionID == "GPA.1234-5678-9012-34567..1")
        #expect(purchase.productID == "premium" && purchase.productType == "subscription")
        #expect(purchase.purchasedAt.milliseconds == Self.started && purchase.originalPurchaseAt?.milliseconds == Self.started)
        #expect(purchase.expiresAt?.milliseconds == Self.expires)
        #expect(purchase.willRenew && purchase.renewal == .paid)
        #expect(purchase.signedAt.milliseconds == Self.fetched && purchase.renewalStateAsOf.milliseconds == Self.fetched)
        #expect(purchase.revokedAt == nil && purchase.replaces.isEmpty)
        #expect(active(purchase) == ["pro"])
        #expect(active(purchase, at: Self.expires - 1) == ["pro"])
        #expect(active(purchase, at: Self.expires).isEmpty)
    }

    @Test func inGracePeriodGrantsUntilTheExpiryAndSaysBillingIsBeingRetried() throws {
        let purchase = try purchase(Self.subscription(["subscriptionState": "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"]))
        #expect(purchase.renewal == .grace(until: UnixTime(milliseconds: Self.expires)))
        #expect(purchase.expiresAt?.milliseconds == Self.expires && purchase.willRenew)
        #expect(active(purchase) == ["pro"])
        #expect(active(purchase, at: Self.expires).isEmpty)
    }

    @Test func canceledBeforeItsExpiryGrantsUntilThenAndDoesNotRenew() throws {
        let purchase = try purchase(
            Self.subscription(
                [
                    "subscriptionState": "SUBSCRIPTION_STATE_CANCELED",
                    "canceledStateContext": ["userInitiatedCancellation": ["cancelTime": Self.time(Self.fetched - Self.day)]],
                ],
                item: ["autoRenewingPlan": ["autoRenewEnabled": false]]))
        #expect(!purchase.willRenew)
        #expect(purchase.expiresAt?.milliseconds == Self.expires)
        #expect(active(purchase) == ["pro"])
        #expect(active(purchase, at: Self.expires).isEmpty)
    }

    @Test(arguments: [
        "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_EXPIRED", "SUBSCRIPTION_STATE_PENDING",
        "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED",
    ])
    func statesThatGiveNoAccessGrantNothingNowEvenWithAFutureExpiry(state: String) throws {
        let purchase = try purchase(Self.subscription(["subscriptionState": state]))
        #expect(purchase.renewal.isHeld, "Google says it gives nothing now")
        #expect(purchase.expiresAt?.milliseconds == Self.expires, "the dates stay Google's")
        #expect(active(purchase).isEmpty)
        // Only a subscription on hold may still renew (billing is retried); the others will not.
        #expect(purchase.willRenew == (state == "SUBSCRIPTION_STATE_ON_HOLD"))
        #expect(purchase.renewal == .held(billingRetry: state == "SUBSCRIPTION_STATE_ON_HOLD"))
    }

    @Test func aPendingSubscriptionWithoutAnExpiryYetGrantsNothing() throws {
        for state in ["SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"] {
            let purchase = try purchase(
                Self.subscription(
                    ["subscriptionState": state, "acknowledgementState": "ACKNOWLEDGEMENT_STATE_PENDING"],
                    item: ["expiryTime": NSNull()]))
            #expect(purchase.renewal.isHeld && purchase.expiresAt == nil)
            #expect(active(purchase).isEmpty && !purchase.willRenew)
            #expect(purchase.acknowledgement == .notRequired, "nothing is paid yet")
        }
    }

    @Test func aPausedSubscriptionGrantsNothingUntilItResumes() throws {
        let resumes = Self.fetched + 5 * Self.day
        let purchase = try purchase(
            Self.subscription([
                "subscriptionState": "SUBSCRIPTION_STATE_PAUSED", "pausedStateContext": ["autoResumeTime": Self.time(resumes)],
            ]))
        #expect(purchase.renewal == .paused(resumesAt: UnixTime(milliseconds: resumes)))
        #expect(purchase.expiresAt?.milliseconds == Self.expires)
        #expect(active(purchase).isEmpty)
        #expect(active(purchase, at: resumes - 1).isEmpty)
        #expect(active(purchase, at: resumes) == ["pro"])
    }

    @Test func aPausedSubscriptionWithNoResumeTimeGrantsNothing() throws {
        let purchase = try purchase(Self.subscription(["subscriptionState": "SUBSCRIPTION_STATE_PAUSED"]))
        #expect(purchase.renewal == .held(billingRetry: false))
        #expect(purchase.expiresAt?.milliseconds == Self.expires)
        #expect(active(purchase).isEmpty)
    }

    @Test func aStateThisServerDoesNotKnowIsRefused() throws {
        #expect(throws: DomainError.malformedPayload("")) {
            try purchase(Self.subscription(["subscriptionState": "SUBSCRIPTION_STATE_SOMETHING_NEW"]))
        }
        #expect(throws: DomainError.malformedPayload("")) {
            try purchase(Self.subscription(["subscriptionState": NSNull()]))
        }
    }

    @Test func aSubscriptionWithoutLineItemsOrAnExpiryIsRefused() throws {
        #expect(throws: DomainError.malformedPayload("")) { try purchase(Self.subscription(items: [])) }
        #expect(throws: DomainError.malformedPayload("")) { try purchase(Self.subscription(item: ["productId": NSNull()])) }
        #expect(throws: DomainError.malformedPayload("")) { try purchase(Self.subscription(item: ["expiryTime": NSNull()])) }
        #expect(throws: DomainError.malformedPayload("")) { try purchase(Self.subscription(item: ["expiryTime": "soon"])) }
    }

    @Test func aRevokedNotificationEndsAccessWhenGoogleSentIt() throws {
        let notified = Self.fetched - Milliseconds.perMinute
        let purchase = try purchase(
            Self.subscription(["subscriptionState": "SUBSCRIPTION_STATE_EXPIRED"]), productID: nil, notification: .revoked,
            notifiedAt: notified)
        #expect(purchase.revokedAt?.milliseconds == notified && purchase.revocationReason == "REVOKED")
        #expect(!purchase.willRenew && purchase.origin == .notification)
        #expect(active(purchase, at: notified).isEmpty)
    }

    @Test func whereTheDataCameFromIsRecorded() throws {
        #expect(try purchase(Self.subscription()).origin == .storeAPI)
        #expect(try purchase(Self.subscription(), productID: nil, notification: .renewed).origin == .notification)
    }

    // MARK: Environments

    @Test func aTestPurchaseIsSandboxAndAProductionOnlyAppRefusesIt() throws {
        let test = try Self.subscription(["testPurchase": [String: Any]()])
        #expect(try purchase(test).environment == .sandbox)
        #expect(throws: DomainError.tenantMisconfigured("")) {
            try purchase(test, settings: Self.settings(environments: [.production]))
        }
        #expect(throws: DomainError.tenantMisconfigured("")) {
            try purchase(Self.subscription(), settings: Self.settings(environments: [.test]))
        }
        #expect(try purchase(test, settings: Self.settings(environments: [.test])).environment == .sandbox)
    }

    @Test func aLicenseTestersOneTimePurchaseIsSandbox() throws {
        #expect(try product(Self.product(["purchaseType": 0])).environment == .sandbox)
        #expect(try product(Self.product()).environment == .production)
        #expect(try product(Self.product(["purchaseType": 1])).environment == .production, "a promo code is a real purchase")
        #expect(throws: DomainError.tenantMisconfigured("")) {
            try product(Self.product(["purchaseType": 0]), settings: Self.settings(environments: [.production]))
        }
        #expect(throws: DomainError.tenantMisconfigured("")) {
            try product(Self.product(), settings: Self.settings(environments: [.test]))
        }
    }

    // MARK: Products and entitlements

    @Test func aBasePlansOwnMappingWinsOverTheProducts() throws {
        let family = try purchase(Self.subscription(item: ["offerDetails": ["basePlanId": "family", "offerId": "trial"]]))
        #expect(family.entitlementIDs == ["pro", "family"])
        #expect(family.offerType == "trial")
        // A base plan without a mapping of its own gets the product's.
        #expect(try purchase(Self.subscription(item: ["offerDetails": ["basePlanId": "yearly"]])).entitlementIDs == ["pro"])
        #expect(try purchase(Self.subscription(item: ["offerDetails": NSNull()])).entitlementIDs == ["pro"])
    }

    @Test func severalLineItemsGiveEveryItemsEntitlementsUntilTheLatestExpiry() throws {
        let later = Self.expires + 7 * Self.day
        let purchase = try purchase(
            Self.subscription(items: [
                [
                    "productId": "premium", "expiryTime": Self.time(Self.expires), "offerDetails": ["basePlanId": "family"],
                    "autoRenewingPlan": ["autoRenewEnabled": true], "latestSuccessfulOrderId": "GPA.1..0",
                ],
                ["productId": "storage-addon", "expiryTime": Self.time(later), "prepaidPlan": [String: Any]()],
            ]))
        #expect(purchase.entitlementIDs == ["pro", "family", "storage"])
        #expect(purchase.expiresAt?.milliseconds == later)
        #expect(purchase.productID == "premium" && purchase.transactionID == "GPA.1..0")
        #expect(active(purchase) == ["pro", "family", "storage"])
    }

    @Test func theProductTheDeviceNamedMustBeAmongTheLineItems() throws {
        let bundle = try Self.subscription(items: [
            ["productId": "premium", "expiryTime": Self.time(Self.expires)],
            ["productId": "storage-addon", "expiryTime": Self.time(Self.expires)],
        ])
        #expect(try purchase(bundle, productID: "storage-addon").productID == "premium")
        #expect(throws: DomainError.notApplicable("")) { try purchase(bundle, productID: "lifetime") }
        // A notification names no product: any line items do.
        #expect(try purchase(bundle, productID: nil).entitlementIDs == ["pro", "storage"])
    }

    @Test func aSubscriptionConfiguredAsAOneTimeProductIsRefused() throws {
        #expect(throws: DomainError.tenantMisconfigured("")) {
            try purchase(Self.subscription(item: ["productId": "lifetime"]), productID: nil)
        }
    }

    @Test func aSubscriptionMappingToNothingIsRecordedGrantingNothing() throws {
        let purchase = try purchase(Self.subscription(item: ["productId": "unmapped"]), productID: nil)
        #expect(purchase.entitlementIDs.isEmpty && active(purchase).isEmpty)
    }

    // MARK: What the purchase says besides its state

    @Test func aLinkedPurchaseTokenIsThePurchaseThisOneReplaces() throws {
        #expect(try purchase(Self.subscription(["linkedPurchaseToken": "token-old"])).replaces == "token-old")
        #expect(try purchase(Self.subscription()).replaces == "")
    }

    @Test func anUpgradeStillAwaitingPaymentReplacesNothingYet() throws {
        // The old subscription goes on until the new one is paid for, and after it if the payment is canceled.
        for state in ["SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"] {
            let linked: [String: Any] = ["subscriptionState": state, "linkedPurchaseToken": "token-old"]
            #expect(try purchase(Self.subscription(linked)).replaces == "", "\(state)")
            #expect(try purchase(Self.subscription(linked, item: ["expiryTime": NSNull()])).replaces == "", "\(state)")
        }
        for state in ["SUBSCRIPTION_STATE_ACTIVE", "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_EXPIRED"] {
            let linked: [String: Any] = ["subscriptionState": state, "linkedPurchaseToken": "token-old"]
            #expect(try purchase(Self.subscription(linked)).replaces == "token-old", "\(state)")
        }
    }

    @Test func anUnacknowledgedPurchaseIsOwedAnAcknowledgementOnlyOncePaidFor() throws {
        let paid = [
            "SUBSCRIPTION_STATE_ACTIVE", "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_CANCELED",
            "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_PAUSED",
        ]
        let unpaid = ["SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED", "SUBSCRIPTION_STATE_EXPIRED"]
        for state in paid + unpaid {
            let purchase = try purchase(
                Self.subscription(["subscriptionState": state, "acknowledgementState": "ACKNOWLEDGEMENT_STATE_PENDING"]))
            if paid.contains(state) {
                #expect(purchase.acknowledgement == .pending(at: UnixTime(milliseconds: Self.fetched)), "\(state)")
            } else {
                #expect(purchase.acknowledgement == .notRequired, "\(state)")
            }
        }
        #expect(try purchase(Self.subscription()).acknowledgement == PurchaseAcknowledgement(state: .acknowledged))
        #expect(
            try purchase(Self.subscription(["acknowledgementState": "ACKNOWLEDGEMENT_STATE_UNSPECIFIED"])).acknowledgement
                == .notRequired)
    }

    @Test func theObfuscatedAccountIDIsTheAppAccountToken() throws {
        let account = "0f8fad5b-d9cb-469f-a165-70867728950e"
        let bound = try purchase(
            Self.subscription([
                "externalAccountIdentifiers": ["obfuscatedExternalAccountId": account, "obfuscatedExternalProfileId": "p"]
            ]))
        #expect(bound.appAccountToken == account)
        #expect(try purchase(Self.subscription()).appAccountToken == "")
        #expect(try product(Self.product(["obfuscatedExternalAccountId": account])).appAccountToken == account)
    }

    @Test func theOrderIDIsTheLatestSuccessfulOrdersElseTheDeprecatedOneElseTheToken() throws {
        #expect(
            try purchase(Self.subscription(["latestOrderId": "GPA.old"], item: ["latestSuccessfulOrderId": "GPA.new"]))
                .transactionID == "GPA.new")
        #expect(
            try purchase(Self.subscription(["latestOrderId": "GPA.old"], item: ["latestSuccessfulOrderId": NSNull()]))
                .transactionID == "GPA.old")
        #expect(
            try purchase(Self.subscription(["latestOrderId": NSNull()], item: ["latestSuccessfulOrderId": NSNull()]))
                .transactionID == Self.token)
    }

    @Test func theOwnerOfAnEarlierPurchaseComesFromTheOutOfAppContext() throws {
        let resubscribed = try Self.subscription([
            "outOfAppPurchaseContext": [
                "expiredPurchaseToken": "token-expired",
                "expiredExternalAccountIdentifiers": ["obfuscatedExternalAccountId": "account-1"],
            ]
        ])
        let previous = try #require(PlayStoreInterpretation.previousPurchase(of: resubscribed))
        #expect(previous.token == "token-expired" && previous.accountID == "account-1")
        let tokenOnly = try Self.subscription(["outOfAppPurchaseContext": ["expiredPurchaseToken": "token-expired"]])
        #expect(PlayStoreInterpretation.previousPurchase(of: tokenOnly).map { [$0.token, $0.accountID] } == ["token-expired", ""])
        #expect(PlayStoreInterpretation.previousPurchase(of: try Self.subscription()) == nil)
        #expect(
            PlayStoreInterpretation.previousPurchase(of: try Self.subscription(["outOfAppPurchaseContext": [String: Any]()]))
                == nil)
    }

    @Test func googlesOwnAnswersInterpretAsTheyRead() throws {
        func fixture(_ name: String) throws -> SubscriptionPurchaseV2 {
            try JSONReader.read(SubscriptionPurchaseV2.self, from: Array(RepositoryFiles.google(name)))
        }
        let active = try purchase(fixture("subscription-v2-active.json"))
        #expect(active.expiresAt?.milliseconds == 1_784_107_800_123 && active.purchasedAt.milliseconds == 1_778_837_398_000)
        #expect(active.transactionID == "GPA.3312-4418-0915-52337..2" && active.offerType == "intro-week")
        #expect(active.appAccountToken == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(active.acknowledgement.state == .pending && active.environment == .production && active.willRenew)
        let upgrade = try purchase(fixture("subscription-v2-upgrade.json"))
        #expect(upgrade.environment == .sandbox && upgrade.replaces == "old-token.AO-J1OxBasic")
        #expect(upgrade.renewal.inGracePeriod && upgrade.entitlementIDs == ["pro", "storage"])
        #expect(upgrade.expiresAt?.milliseconds == 1_785_535_200_500)
        let canceled = try purchase(fixture("subscription-v2-canceled.json"))
        #expect(!canceled.willRenew && canceled.transactionID == "GPA.5555-6666-7777-88888..4")
        #expect(throws: DomainError.malformedPayload("")) { try purchase(fixture("subscription-v2-unknown-state.json")) }
    }

    // MARK: One-time products

    @Test func aPurchasedNonConsumableGrantsForLife() throws {
        let purchase = try product(Self.product())
        #expect(purchase.productType == "non_consumable" && purchase.entitlementIDs == ["lifetime"])
        #expect(purchase.expiresAt == nil && purchase.revokedAt == nil && !purchase.willRenew)
        #expect(purchase.transactionID == "GPA.3398-1234-5678-90123" && purchase.purchasedAt.milliseconds == Self.started)
        #expect(purchase.acknowledgement.state == .acknowledged && purchase.origin == .device)
        #expect(active(purchase) == ["lifetime"])
        #expect(active(purchase, at: Self.fetched + 3650 * Self.day) == ["lifetime"])
    }

    @Test func aConsumableIsRecordedWithNoEntitlements() throws {
        let purchase = try product(Self.product(["productId": "coins", "acknowledgementState": 0]), productID: "coins")
        #expect(purchase.productType == "consumable" && purchase.entitlementIDs.isEmpty)
        #expect(active(purchase).isEmpty)
        #expect(purchase.acknowledgement == .pending(at: UnixTime(milliseconds: Self.fetched)))
    }

    @Test func aPendingOneTimePurchaseGrantsNothingAndOwesNoAcknowledgement() throws {
        let purchase = try product(Self.product(["purchaseState": 2, "acknowledgementState": 0]))
        #expect(purchase.renewal.isHeld && purchase.expiresAt == nil)
        #expect(active(purchase).isEmpty)
        #expect(purchase.acknowledgement == .notRequired)
    }

    @Test func aCanceledOneTimePurchaseIsRevoked() throws {
        let purchase = try product(Self.product(["purchaseState": 1, "acknowledgementState": 0]))
        #expect(purchase.revokedAt?.milliseconds == Self.fetched && purchase.revocationReason == "CANCELED")
        #expect(active(purchase).isEmpty)
        #expect(purchase.acknowledgement == .notRequired)
    }

    @Test func anUnacknowledgedOneTimePurchaseIsOwedAnAcknowledgement() throws {
        #expect(
            try product(Self.product(["acknowledgementState": 0])).acknowledgement
                == .pending(at: UnixTime(milliseconds: Self.fetched)))
    }

    @Test func aOneTimeProductMustBeConfiguredAsOneAndBeTheOneGoogleNames() throws {
        #expect(throws: DomainError.unmappedProduct("")) { try product(Self.product(), productID: "unknown") }
        #expect(throws: DomainError.tenantMisconfigured("")) { try product(Self.product(), productID: "premium") }
        #expect(throws: DomainError.notApplicable("")) {
            try product(Self.product(["productId": "coins"]), productID: "lifetime")
        }
        #expect(throws: DomainError.malformedPayload("")) { try product(Self.product(["purchaseState": 9])) }
        #expect(throws: DomainError.malformedPayload("")) { try product(Self.product(["purchaseState": NSNull()])) }
        // Google leaves productId out of some answers: the product asked for stands.
        #expect(try product(Self.product(["productId": NSNull()])).productID == "lifetime")
    }

    /// Google's times are checked before they are used: a decimal past the year 9999 (up to Int64's 19 digits) and
    /// an RFC 3339 time an offset pushes before the year 1 are refused naming the field.
    @Test func aTimeOutsideWhatTheAPICarriesIsRefusedNamingItsField() throws {
        for millis in ["9223372036854775807", "253402300800000"] {
            let error = #expect(throws: DomainError.self) { try product(Self.product(["purchaseTimeMillis": millis])) }
            #expect(error?.message.hasPrefix("purchaseTimeMillis is \(millis) ms since 1970, outside") == true)
        }
        #expect(try product(Self.product(["purchaseTimeMillis": "253402300799999"])).purchasedAt.milliseconds == 253_402_300_799_999)
        let early = #expect(throws: DomainError.self) {
            try purchase(Self.subscription(item: ["expiryTime": "0001-01-01T00:00:00+01:00"]))
        }
        #expect(early?.message.hasPrefix("lineItems[].expiryTime is") == true)
        let start = #expect(throws: DomainError.self) {
            try purchase(Self.subscription(["startTime": "0001-01-01T00:00:00+23:59"]))
        }
        #expect(start?.message.hasPrefix("startTime is") == true)
    }

    @Test func aNonConsumableMappingToNoEntitlementIsRefused() throws {
        var settings = Self.settings()
        settings.products["unmapped-lifetime"] = .nonConsumable
        #expect(throws: DomainError.unmappedProduct("")) {
            try product(Self.product(["productId": "unmapped-lifetime"]), productID: "unmapped-lifetime", settings: settings)
        }
    }

    // MARK: Voided purchases

    func stored(transactionID: String, productType: PlayProductType = .subscription) throws -> StorePurchase {
        var record = productType == .subscription
            ? try purchase(Self.subscription(item: ["latestSuccessfulOrderId": transactionID]))
            : try product(Self.product(["orderId": transactionID]))
        record.customerID = 7
        return record
    }

    @Test func voidingTheCurrentOrderRevokesTheSubscription() throws {
        let stored = try stored(transactionID: "GPA.1234..3")
        let voidedAt = UnixTime(milliseconds: Self.fetched + 1_000)
        let revoked = try #require(
            PlayStoreInterpretation.revoking(stored, orderID: "GPA.1234..3", voidedAt: voidedAt, reason: "VOIDED_FRAUD"))
        #expect(revoked.revokedAt == voidedAt && revoked.revocationReason == "VOIDED_FRAUD")
        #expect(!revoked.willRenew && revoked.origin == .storeAPI && revoked.customerID == 7)
        #expect(active(revoked, at: voidedAt.milliseconds).isEmpty)
        // Nothing to revoke twice.
        #expect(PlayStoreInterpretation.revoking(revoked, orderID: "GPA.1234..3", voidedAt: voidedAt, reason: "x") == nil)
    }

    @Test func voidingTheFirstOrderRevokesTheSubscription() throws {
        let stored = try stored(transactionID: "GPA.1234..3")
        #expect(
            PlayStoreInterpretation.revoking(
                stored, orderID: "GPA.1234", voidedAt: UnixTime(milliseconds: Self.fetched), reason: "VOIDED")?.revokedAt
                != nil)
    }

    @Test func voidingAnEarlierRenewalsOrderLeavesTheCurrentPeriodAlone() throws {
        let stored = try stored(transactionID: "GPA.1234..3")
        for order in ["GPA.1234..2", "GPA.1234..0", "GPA.9999", "GPA.1234..33"] {
            #expect(
                PlayStoreInterpretation.revoking(
                    stored, orderID: order, voidedAt: UnixTime(milliseconds: Self.fetched), reason: "VOIDED") == nil,
                "\(order)")
        }
    }

    @Test func voidingWithoutAnOrderOrOfAOneTimeProductRevokes() throws {
        let subscription = try stored(transactionID: "GPA.1234..3")
        let now = UnixTime(milliseconds: Self.fetched)
        #expect(PlayStoreInterpretation.revoking(subscription, orderID: nil, voidedAt: now, reason: "VOIDED") != nil)
        #expect(PlayStoreInterpretation.revoking(subscription, orderID: "", voidedAt: now, reason: "VOIDED") != nil)
        let lifetime = try stored(transactionID: "GPA.3398", productType: .nonConsumable)
        #expect(PlayStoreInterpretation.revoking(lifetime, orderID: "GPA.other", voidedAt: now, reason: "VOIDED") != nil)
    }
}
