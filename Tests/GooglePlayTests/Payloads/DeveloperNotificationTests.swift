import Encodings
import Foundation
import GooglePlay
import TestSupport
import Testing

/// Real-time Developer Notifications and the Pub/Sub push that carries them.
@Suite struct DeveloperNotificationTests {
    static func notification(_ json: String) throws -> DeveloperNotification {
        try JSONReader.read(DeveloperNotification.self, from: Array(json.utf8))
    }

    @Test func thePushEnvelopeCarriesTheNotificationInBase64() throws {
        let envelope = try JSONReader.read(PubSubPushEnvelope.self, from: Array(RepositoryFiles.google("pubsub-push.json")))
        #expect(envelope.subscription == "projects/myproject/subscriptions/play-rtdn")
        let message = try #require(envelope.message)
        #expect(message.messageId == "136969346945" && message.message_id == "136969346945")
        #expect(message.publishTime == "2026-06-15T08:45:45.678Z")
        #expect(message.attributes == ["origin": "play"])
        let data = try #require(message.data.flatMap { Base64.decode($0, padding: .optional) })
        let notification = try JSONReader.read(DeveloperNotification.self, from: data)
        #expect(notification.version == "1.0" && notification.packageName == "com.example.app")
        #expect(GooglePlayTime.milliseconds(decimal: notification.eventTimeMillis) == 1_781_512_345_678)
        let subscription = try #require(notification.subscriptionNotification)
        #expect(subscription.notificationType == 4 && subscription.purchaseToken == "token-a")
        #expect(subscription.subscriptionId == "premium")
        #expect(notification.oneTimeProductNotification == nil && notification.voidedPurchaseNotification == nil)
        #expect(notification.testNotification == nil)
    }

    @Test func eachKindOfNotificationDecodes() throws {
        let product = try Self.notification("""
            {"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1781512345678",
             "oneTimeProductNotification":{"version":"1.0","notificationType":2,"purchaseToken":"t","sku":"coins"}}
            """)
        #expect(product.oneTimeProductNotification?.notificationType == 2)
        #expect(product.oneTimeProductNotification?.sku == "coins")
        let voided = try Self.notification("""
            {"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1781512345678",
             "voidedPurchaseNotification":{"purchaseToken":"t","orderId":"GPA.1..2","productType":1,"refundType":2}}
            """)
        #expect(voided.voidedPurchaseNotification?.orderId == "GPA.1..2")
        #expect(voided.voidedPurchaseNotification?.productType == 1 && voided.voidedPurchaseNotification?.refundType == 2)
        let test = try Self.notification(#"{"version":"1.0","packageName":"com.example.app","testNotification":{"version":"1.0"}}"#)
        #expect(test.testNotification?.version == "1.0")
        // A kind Google adds later decodes to none of these, for the receiver to refuse.
        let future = try Self.notification(#"{"version":"1.0","packageName":"p","somethingNewNotification":{"a":1}}"#)
        #expect(future.subscriptionNotification == nil && future.testNotification == nil)
        #expect(future.kinds == ["somethingNewNotification"])
        // A member names the kind even when null: the receiver acknowledges it rather than refusing it as malformed.
        #expect(try Self.notification(#"{"packageName":"p","testNotification":null}"#).kinds == ["testNotification"])
        #expect(test.kinds == ["testNotification"] && product.kinds == ["oneTimeProductNotification"])
    }

    @Test func subscriptionNotificationTypesAreGooglesNumbersAndNames() {
        let numbers = SubscriptionNotificationType.allCases.map(\.rawValue)
        #expect(numbers == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 18, 19, 20, 22])
        #expect(SubscriptionNotificationType(rawValue: 14) == nil && SubscriptionNotificationType(rawValue: 21) == nil)
        #expect(SubscriptionNotificationType.revoked.name == "SUBSCRIPTION_REVOKED")
        #expect(SubscriptionNotificationType.pendingPurchaseCanceled.name == "SUBSCRIPTION_PENDING_PURCHASE_CANCELED")
        #expect(SubscriptionNotificationType.priceStepUpConsentUpdated.name == "SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED")
        #expect(Set(SubscriptionNotificationType.allCases.map(\.name)).count == numbers.count)
        #expect(SubscriptionNotificationType.allCases.allSatisfy { $0.name.hasPrefix("SUBSCRIPTION_") })
    }
}
