import CivilCalendar
import Crypto
import EntitlementClient
import EntitlementsProto
import Encodings
import Foundation
import HTTP1
import PosixIO
import JOSE

/// End-to-end Google Play rates through a running server whose tenant asks a local fake of Google (Scripts/benchmark
/// starts it and creates the subscriptions `bench-play-<n>` there): `Purchase` RPCs, and Real-time Developer
/// Notifications with their push tokens. Both wait on the fake, so the fake's own rate for the same call is measured
/// too (`fake-rate`): the ratio says how much of the time is ours.
enum PlayBench {
    static let productID = "pro_monthly"

    static func token(_ index: Int) -> String { "bench-play-\(index)" }

    /// `play-purchase-rate`: COUNT `Purchase` calls with Play tokens (user bench-android-n presents token n),
    /// CONCURRENCY in flight over up to four connections.
    static func purchaseRate(address: ListenAddress, publicKey: String, count: Int, concurrency: Int) async throws {
        try await RPCRates.run(address: address, publicKey: publicKey, count: count, concurrency: concurrency) {
            client, index in
            var request = PurchaseRequest()
            request.appUserID = "bench-android-\(index)"
            request.purchase = .playStore(PlayStorePurchase(productID: productID, purchaseToken: token(index)))
            let response: PurchaseResponse = try await client.unary(EntitlementClient.Methods.purchase, request)
            if response.result?.active != true { throw BenchError(description: "the purchase grants nothing") }
        }
    }

    /// `play-notify-rate`: COUNT SUBSCRIPTION_RENEWED notifications for tokens 0 ..< COUNT, each with its own push
    /// token signed (up front) by the key in KEY_PEM under KID, POSTed over CONCURRENCY keep-alive connections.
    /// Every answer must be 200: the server verified the token, fetched the subscription and committed.
    static func notifyRate(
        address: ListenAddress, tenant: String, audience: String, email: String, keyPath: String, kid: String,
        package: String, count: Int, concurrency: Int
    ) async throws {
        let key = try RSA.PrivateKey(pemRepresentation: String(contentsOfFile: keyPath, encoding: .utf8))
        let now = Int64(Date().timeIntervalSince1970)
        let header = Array(#"{"alg":"RS256","kid":"\#(kid)","typ":"JWT"}"#.utf8)
        let requests: [HTTPClientRequest] = try (0..<count).map { index in
            let claims = try BenchJSON.bytes([
                "iss": "https://accounts.google.com", "aud": audience, "email": email, "email_verified": true,
                "iat": now, "exp": now + Seconds.perHour, "sub": "100000000000000000000",
            ])
            let pushToken = try JWSSigning.sign(headerJSON: header, payload: claims, key: key)
            let notification = try BenchJSON.bytes([
                "version": "1.0", "packageName": package, "eventTimeMillis": String(now * 1000),
                "subscriptionNotification": ["version": "1.0", "notificationType": 2, "purchaseToken": token(index)],
            ])
            let envelope = try BenchJSON.bytes([
                "message": ["data": Base64.encode(notification, padded: true), "messageId": "bench-\(index)-\(now)"],
                "subscription": "projects/bench/subscriptions/rtdn",
            ])
            return HTTPClientRequest(
                method: "POST", scheme: .http, host: address.host, port: address.port,
                target: "/v1/google/notifications/\(tenant)",
                headers: ["Content-Type": "application/json", "Authorization": "Bearer \(pushToken)"],
                body: envelope)
        }
        print(try await HTTPRates.run(requests, concurrency: concurrency, expecting: [200], what: "notifications") + " (all 200)")
    }

    /// `fake-rate`: COUNT `subscriptionsv2.get` calls straight to the fake (API_BASE is the tenant's `api_base_url`),
    /// with an access token the fake granted, CONCURRENCY in flight: what the fake alone can answer.
    static func fakeRate(apiBase: String, accessToken: String, package: String, count: Int, concurrency: Int) async throws {
        guard let url = URLComponents(string: apiBase), let host = url.host, let port = url.port else {
            fail("API_BASE must be http://HOST:PORT/PATH")
        }
        let requests = (0..<count).map { index in
            HTTPClientRequest(
                method: "GET", scheme: .http, host: host, port: port,
                target: url.path + "/\(package)/purchases/subscriptionsv2/tokens/\(token(index))",
                headers: ["Authorization": "Bearer \(accessToken)", "Accept": "application/json"])
        }
        print(try await HTTPRates.run(requests, concurrency: concurrency, expecting: [200], what: "subscription reads"))
    }
}
