import CivilCalendar
import Crypto
import EntitlementDomain
@testable import EntitlementServices
import Foundation
import JOSE
import TestSupport
import Testing

/// Real-time Developer Notifications pushed by Pub/Sub: the push token first, then Google's answer for the token
/// applied once per message; 5xx only when a redelivery may succeed.
@Suite struct PlayStoreNotificationsTests {
    static var purchased: [String: Any] {
        ["subscriptionNotification": ["version": "1.0", "notificationType": 4, "purchaseToken": "token-1", "subscriptionId": "premium"]]
    }

    @Test func aSubscriptionNotificationFetchesThePurchaseAndAppliesItOnce() async throws {
        let play = try PlayServices()
        let token = try await play.engine.customers.identify(tenantID: PlayServices.tenantID, appUserID: "alice", anonymousID: nil)
            .appAccountToken
        play.answers.set(
            "/purchases/subscriptionsv2/tokens/token-1",
            play.subscription(["externalAccountIdentifiers": ["obfuscatedExternalAccountId": token]]))
        let notifications = play.notifications()
        let reply = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: PlayServices.push(Self.purchased))
        #expect(reply.status == 200 && reply.message == "SUBSCRIPTION_PURCHASED: applied to alice")
        #expect(try await play.state("alice").status.activeIDs == ["pro"])
        let again = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: PlayServices.push(Self.purchased))
        #expect(again.status == 200 && again.message.hasSuffix("already processed"))
        // The subscription and its order (what Google charged), once.
        #expect(play.google.apiRequests.count == 2, "a redelivered message ID is answered before Google is asked again")
    }

    @Test func aPushWithoutAGoodTokenIsRefusedBeforeGoogleIsAsked() async throws {
        let play = try PlayServices()
        let notifications = play.notifications()
        let body = PlayServices.push(Self.purchased)
        let cases: [(String?, Int)] = [
            (nil, 401), ("Bearer not.a.jwt", 401), (try play.pushAuthorization(key: ScriptedGoogle.serviceAccountKey), 401),
            (try play.pushAuthorization(audience: "https://elsewhere.example.com/push"), 403),
            (try play.pushAuthorization(email: "someone@example.iam.gserviceaccount.com"), 403),
        ]
        for (authorization, status) in cases {
            let reply = await notifications.receive(tenantID: PlayServices.tenantID, authorization: authorization, body: body)
            #expect(reply.status == status, "\(reply.message)")
        }
        #expect(play.google.server.requests.isEmpty)
    }

    @Test func aJWKSFileRewrittenUnderTheSamePathIsReadAgainAtTheNextReload() async throws {
        let play = try PlayServices()
        let notifications = play.notifications()
        // An empty body: past the push token it is refused as no notification (400), before it, 401.
        func status(signedBy key: RSA.PrivateKey) async throws -> Int {
            await notifications.receive(
                tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(key: key), body: Array("{}".utf8)
            ).status
        }
        #expect(try await status(signedBy: PlayServices.pushKey) == 400)
        let rotated = ScriptedGoogle.serviceAccountKey
        try Data(JSONWebKeySet(keys: ["push-1": rotated.publicKey]).jsonRepresentation)
            .write(to: play.directory.appendingPathComponent("jwks.json"))
        #expect(try await status(signedBy: rotated) == 401, "the file is read at a reload, not at every push")
        play.tenants.replace(with: play.tenants.directory)
        #expect(try await status(signedBy: rotated) == 400)
        #expect(try await status(signedBy: PlayServices.pushKey) == 401)
    }

    @Test func keysThatCannotBeFetchedMakePubSubRedeliver() async throws {
        let keys = try ScriptedHTTPServer { _ in .status(503) }
        let play = try PlayServices(jwksURL: keys.baseURL + "/oauth2/v3/certs")
        let reply = await play.notifications().receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: PlayServices.push(Self.purchased))
        #expect(reply.status == 503)
    }

    @Test func aPushThatIsNotForThisTenantOrNotARealTimeNotificationIsRefused() async throws {
        let play = try PlayServices()
        let notifications = play.notifications()
        let authorization = try play.pushAuthorization()
        let other = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: authorization,
            body: PlayServices.push(Self.purchased, package: "com.example.other"))
        #expect(other.status == 400)
        for body in [Array("{}".utf8), Array("not json".utf8), Array(#"{"message":{"messageId":"1","data":"%%%"}}"#.utf8)] {
            let reply = await notifications.receive(tenantID: PlayServices.tenantID, authorization: authorization, body: body)
            #expect(reply.status == 400, "\(reply.message)")
        }
        let empty = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: authorization, body: PlayServices.push(["somethingNew": [String: Any]()]))
        // A kind Google adds later: redelivering it would meet the same answer, so it is acknowledged, not applied.
        #expect(empty.status == 200 && empty.message.hasPrefix("not applied"))
        let huge = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: authorization, body: [UInt8](repeating: 0x20, count: 64 * 1024 + 1))
        #expect(huge.status == 413)
        let unknown = await notifications.receive(tenantID: "nobody", authorization: authorization, body: PlayServices.push(Self.purchased))
        #expect(unknown.status == 404)
        #expect(play.google.server.requests.isEmpty)
    }

    @Test func aTokenGoogleDoesNotConfirmIsAcknowledgedAndNotApplied() async throws {
        let play = try PlayServices()
        play.answers.set(
            "/purchases/subscriptionsv2/tokens/token-1", ScriptedGoogle.error(400, "Invalid Value", reason: "invalid", status: "INVALID_ARGUMENT"))
        let reply = await play.notifications().receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: PlayServices.push(Self.purchased))
        #expect(reply.status == 200 && reply.message.hasPrefix("not applied"))
        #expect(try play.purchase("token-1") == nil)
    }

    @Test func googleUnavailableMakesPubSubRedeliverAndTheRedeliveryApplies() async throws {
        let play = try PlayServices()
        play.answers.set("/purchases/subscriptionsv2/tokens/token-1", .status(503))
        let notifications = play.notifications()
        let first = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: PlayServices.push(Self.purchased))
        #expect(first.status == 503)
        play.answers.set("/purchases/subscriptionsv2/tokens/token-1", play.subscription())
        let redelivered = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: PlayServices.push(Self.purchased))
        #expect(redelivered.status == 200 && redelivered.message == "SUBSCRIPTION_PURCHASED: recorded")
        #expect(try play.purchase("token-1") != nil)
    }

    /// A subscription's void is confirmed by Google's voided purchases (the push's token is not bound to its body),
    /// not by its state: listed, it revokes at once, from Google's void time, while Google still shows it ACTIVE.
    @Test func aVoidedSubscriptionGooglesListShowsIsRevokedWhileGoogleStillShowsItActive() async throws {
        let play = try PlayServices()
        try await play.stored("token-1", owed: false)
        play.answers.set("/purchases/subscriptionsv2/tokens/token-1", play.subscription())
        play.answers.set("/purchases/voidedpurchases", Self.listing(("token-1", "GPA.1234-5678-9012-34567", play.now.milliseconds - 2_000)))
        let reply = await play.notifications().receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(),
            body: PlayServices.push(Self.voided, messageID: "2002", eventTime: play.now.milliseconds - 1_000))
        #expect(reply.status == 200 && reply.message == "VOIDED_PURCHASE: applied to alice")
        #expect(try await play.state("alice").status.activeIDs.isEmpty)
        let revoked = try #require(try play.purchase("token-1"))
        #expect(revoked.revokedAt?.milliseconds == play.now.milliseconds - 2_000 && revoked.revocationReason == "VOIDED")
        // From a little before the notification's time (Google lists a void once it has seen it) to Google's now.
        let since = play.now.milliseconds - 1_000 - 10 * Milliseconds.perMinute
        #expect(play.google.apiRequests.map(\.target) == [
            PlayServices.path("/purchases/voidedpurchases?startTime=\(since)&type=1&maxResults=1000"),
            PlayServices.path("/purchases/subscriptionsv2/tokens/token-1"),
            // Asked again though the order is stored: its refund is Google's to state.
            PlayServices.path("/orders/GPA.1234-5678-9012-34567"),
        ])
    }

    /// A void Google's list does not show (another order of the token, another token) is not applied: retried while
    /// Google may still list it (10 minutes after the notification), so the redelivery revokes once it does;
    /// acknowledged unapplied after that, as a replayed or forged push would be.
    @Test func aVoidedSubscriptionGooglesListDoesNotShowIsRetriedThenAcknowledged() async throws {
        let play = try PlayServices()
        try await play.stored("token-1", owed: false)
        play.answers.set("/purchases/subscriptionsv2/tokens/token-1", play.subscription())
        let others = Self.listing(
            ("token-1", "GPA.1234-5678-9012-34567..0", play.now.milliseconds - 2_000),
            ("token-2", "GPA.1234-5678-9012-34567", play.now.milliseconds - 2_000))
        play.answers.set("/purchases/voidedpurchases", others)
        let notifications = play.notifications()
        let fresh = PlayServices.push(Self.voided, messageID: "2003", eventTime: play.now.milliseconds - 1_000)
        let first = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: fresh)
        #expect(first.status == 503 && first.message.contains("do not list"), "\(first.message)")
        #expect(try play.purchase("token-1")?.revokedAt == nil)
        play.answers.set("/purchases/voidedpurchases", Self.listing(("token-1", "GPA.1234-5678-9012-34567", play.now.milliseconds)))
        let redelivered = await notifications.receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: fresh)
        #expect(redelivered.status == 200 && redelivered.message == "VOIDED_PURCHASE: applied to alice")

        try await play.stored("token-3", by: "bob", owed: false)
        play.answers.set("/purchases/voidedpurchases", others)
        let old = PlayServices.push(
            ["voidedPurchaseNotification": ["purchaseToken": "token-3", "orderId": "GPA.1234-5678-9012-34567", "productType": 1]],
            messageID: "2004", eventTime: play.now.milliseconds - 10 * Milliseconds.perMinute)
        let late = await notifications.receive(tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: old)
        #expect(late.status == 200 && late.message.hasPrefix("not applied") && late.message.contains("do not list"), "\(late.message)")
        #expect(try await play.state("bob").status.activeIDs == ["pro"])
        #expect(try play.purchase("token-3")?.revokedAt == nil)
    }

    /// The list failing or refusing the query is no answer about the void: Pub/Sub keeps the notification.
    @Test func aVoidedSubscriptionIsKeptWhenGooglesListFails() async throws {
        let play = try PlayServices()
        try await play.stored("token-1", owed: false)
        let notifications = play.notifications()
        let body = PlayServices.push(Self.voided, messageID: "2005", eventTime: play.now.milliseconds - Milliseconds.perHour)
        for failure in [
            ScriptedHTTPServer.Reply.status(503),
            ScriptedGoogle.error(400, "Invalid Value", reason: "invalid", status: "INVALID_ARGUMENT"),
            ScriptedGoogle.error(401, "The current user has insufficient permissions", reason: "permissionDenied", status: "PERMISSION_DENIED"),
        ] {
            play.answers.set("/purchases/voidedpurchases", failure)
            let reply = await notifications.receive(tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(), body: body)
            #expect(reply.status == 503, "\(reply.message)")
        }
        #expect(try play.purchase("token-1")?.revokedAt == nil)
    }

    /// A `VoidedPurchasesListResponse` page listing `(token, orderId, voidedTimeMillis)`s.
    static func listing(_ entries: (String, String, Int64)...) -> ScriptedHTTPServer.Reply {
        let items = entries.map { token, order, voided in
            #"{"kind":"androidpublisher#voidedPurchase","purchaseToken":"\#(token)","orderId":"\#(order)","voidedTimeMillis":"\#(voided)","voidedSource":0,"voidedReason":1}"#
        }
        return .status(200, #"{"voidedPurchases":[\#(items.joined(separator: ","))]}"#)
    }

    nonisolated(unsafe) static let voided: [String: Any] = [
        "voidedPurchaseNotification": ["purchaseToken": "token-1", "orderId": "GPA.1234-5678-9012-34567", "productType": 1, "refundType": 1]
    ]

    @Test func aTestNotificationIsRecorded() async throws {
        let play = try PlayServices()
        let reply = await play.notifications().receive(
            tenantID: PlayServices.tenantID, authorization: try play.pushAuthorization(),
            body: PlayServices.push(["testNotification": ["version": "1.0"]]))
        #expect(reply.status == 200 && reply.message == "TEST_NOTIFICATION: recorded")
    }
}
