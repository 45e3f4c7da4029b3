import Encodings
import Foundation
import GooglePlay
import TestSupport
import Testing

/// `purchases.subscriptionsv2.get` answers as Google's API reference spells them: every field this service reads,
/// Google's fields it does not read (and ones Google adds later) ignored, enum values it does not know kept raw.
@Suite struct SubscriptionPurchaseV2Tests {
    static func fixture(_ name: String) throws -> SubscriptionPurchaseV2 {
        try JSONReader.read(SubscriptionPurchaseV2.self, from: Array(RepositoryFiles.google(name)))
    }

    @Test func anActiveSubscriptionDecodesEveryFieldReadAndIgnoresTheRest() throws {
        let purchase = try Self.fixture("subscription-v2-active.json")
        #expect(purchase.kind == "androidpublisher#subscriptionPurchaseV2")
        #expect(purchase.regionCode == "DE")
        #expect(purchase.subscriptionState == OpenString(.active))
        #expect(purchase.subscriptionState?.known == .active)
        #expect(purchase.acknowledgementState?.known == .pending)
        #expect(purchase.latestOrderId == "GPA.3312-4418-0915-52337..2")
        #expect(purchase.linkedPurchaseToken == nil && purchase.testPurchase == nil)
        #expect(purchase.outOfAppPurchaseContext == nil && purchase.pausedStateContext == nil)
        #expect(purchase.externalAccountIdentifiers?.obfuscatedExternalAccountId == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(purchase.externalAccountIdentifiers?.obfuscatedExternalProfileId == "profile-1")
        let item = try #require(purchase.lineItems?.first)
        #expect(purchase.lineItems?.count == 1)
        #expect(item.productId == "premium")
        #expect(item.expiryTime == "2026-07-15T09:30:00.123456789Z")
        #expect(item.autoRenewingPlan?.autoRenewEnabled == true)
        #expect(item.prepaidPlan == nil)
        #expect(item.offerDetails?.basePlanId == "monthly" && item.offerDetails?.offerId == "intro-week")
        #expect(item.latestSuccessfulOrderId == "GPA.3312-4418-0915-52337..2")
    }

    @Test func timesWithNanosecondsAreReadToTheMillisecond() throws {
        let purchase = try Self.fixture("subscription-v2-active.json")
        // 2026-07-15T09:30:00.123456789Z: the digits past the millisecond are dropped, not rounded.
        #expect(GooglePlayTime.milliseconds(rfc3339: purchase.lineItems?.first?.expiryTime) == 1_784_107_800_123)
        #expect(GooglePlayTime.milliseconds(rfc3339: purchase.startTime) == 1_778_837_398_000)
    }

    @Test func aBundleUpgradeHasSeveralLineItemsAPrepaidPlanALinkedTokenAndAnOutOfAppContext() throws {
        let purchase = try Self.fixture("subscription-v2-upgrade.json")
        #expect(purchase.subscriptionState?.known == .inGracePeriod)
        #expect(purchase.linkedPurchaseToken == "old-token.AO-J1OxBasic")
        #expect(purchase.testPurchase != nil)
        #expect(purchase.acknowledgementState?.known == .acknowledged)
        let items = try #require(purchase.lineItems)
        #expect(items.map(\.productId) == ["premium", "storage-addon"])
        #expect(items[0].prepaidPlan == nil && items[1].prepaidPlan != nil)
        #expect(items[1].autoRenewingPlan == nil)
        #expect(items[1].offerDetails?.basePlanId == "prepaid-month" && items[1].offerDetails?.offerId == nil)
        // An offset other than Z is applied: 00:00:00.5 at +02:00 is 22:00:00.500 the day before in UTC.
        #expect(GooglePlayTime.milliseconds(rfc3339: items[1].expiryTime) == 1_785_535_200_500)
        let context = try #require(purchase.outOfAppPurchaseContext)
        #expect(context.expiredPurchaseToken == "expired-token.AO-J1OyExpired")
        #expect(context.expiredExternalAccountIdentifiers?.obfuscatedExternalAccountId == "5b6d3f0e-2a8c-4f3e-9e27-1f3a4c5d6e7f")
    }

    @Test func aCanceledSubscriptionSaysWhoCanceledIt() throws {
        let purchase = try Self.fixture("subscription-v2-canceled.json")
        #expect(purchase.subscriptionState?.known == .canceled)
        let context = try #require(purchase.canceledStateContext)
        #expect(context.userInitiatedCancellation != nil)
        #expect(context.systemInitiatedCancellation == nil && context.developerInitiatedCancellation == nil)
        #expect(context.replacementCancellation == nil)
        #expect(purchase.lineItems?.first?.autoRenewingPlan?.autoRenewEnabled == false)
    }

    @Test func aPausedSubscriptionCarriesItsResumeTime() throws {
        let purchase = try Self.fixture("subscription-v2-paused.json")
        #expect(purchase.subscriptionState?.known == .paused)
        #expect(purchase.pausedStateContext?.autoResumeTime == "2026-07-01T00:00:00.999999Z")
        #expect(GooglePlayTime.milliseconds(rfc3339: purchase.pausedStateContext?.autoResumeTime) == 1_782_864_000_999)
    }

    @Test func enumValuesThisBuildDoesNotKnowAreKeptRaw() throws {
        let purchase = try Self.fixture("subscription-v2-unknown-state.json")
        #expect(purchase.subscriptionState?.rawValue == "SUBSCRIPTION_STATE_SOMETHING_NEW")
        #expect(purchase.subscriptionState?.known == nil)
        #expect(purchase.acknowledgementState?.rawValue == "ACKNOWLEDGEMENT_STATE_FUTURE")
        #expect(purchase.acknowledgementState?.known == nil)
        #expect(purchase.canceledStateContext?.replacementCancellation != nil)
    }

    @Test func everyDocumentedStateIsKnown() {
        let documented = [
            "SUBSCRIPTION_STATE_UNSPECIFIED", "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_ACTIVE",
            "SUBSCRIPTION_STATE_PAUSED", "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_ON_HOLD",
            "SUBSCRIPTION_STATE_CANCELED", "SUBSCRIPTION_STATE_EXPIRED", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED",
        ]
        #expect(SubscriptionState.allCases.map(\.rawValue) == documented)
        #expect(
            AcknowledgementState.allCases.map(\.rawValue)
                == ["ACKNOWLEDGEMENT_STATE_UNSPECIFIED", "ACKNOWLEDGEMENT_STATE_PENDING", "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"])
    }

    @Test func anObjectWhosePresenceIsTheInformationMayHoldAnything() throws {
        let json = #"{"testPurchase": {"whatever": [1, {"x": null}]}, "lineItems": [{"prepaidPlan": {}}]}"#
        let purchase = try JSONReader.read(SubscriptionPurchaseV2.self, from: Array(json.utf8))
        #expect(purchase.testPurchase != nil)
        #expect(purchase.lineItems?.first?.prepaidPlan != nil)
        // Not an object: refused rather than read as present.
        #expect(throws: JSONReadError.self) {
            try JSONReader.read(SubscriptionPurchaseV2.self, from: Array(#"{"testPurchase": true}"#.utf8))
        }
    }

    @Test func aFieldOfTheWrongTypeFailsTheDecode() {
        for json in [
            #"{"subscriptionState": 3}"#, #"{"lineItems": {"productId": "premium"}}"#,
            #"{"lineItems": [{"autoRenewingPlan": {"autoRenewEnabled": "yes"}}]}"#,
        ] {
            #expect(throws: JSONReadError.self, "\(json)") {
                try JSONReader.read(SubscriptionPurchaseV2.self, from: Array(json.utf8))
            }
        }
    }
}
