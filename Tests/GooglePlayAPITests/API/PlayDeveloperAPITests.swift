import Foundation
import GooglePlay
import GooglePlayAPI
import OutboundHTTP
import TestSupport
import Testing

/// The Play Developer API calls against a scripted Google: Google's paths, the access token attached and renewed
/// once when refused, Google's error answers by name.
@Suite struct PlayDeveloperAPITests {
    static let prefix = "/androidpublisher/v3/applications/com.example.app"
    static let subscriptionJSON = """
        {"kind":"androidpublisher#subscriptionPurchaseV2","subscriptionState":"SUBSCRIPTION_STATE_ACTIVE",
         "lineItems":[{"productId":"premium","expiryTime":"2026-07-15T09:30:00.123456789Z"}]}
        """

    @Test func eachCallUsesGooglesPathAndTheAccessToken() async throws {
        let google = try ScriptedGoogle(api: { request in
            switch request.method {
            case "GET" where request.target.contains("subscriptionsv2"): .status(200, Self.subscriptionJSON)
            case "GET" where request.target.contains("voidedpurchases"): .status(200, "{}")
            case "GET": .status(200, #"{"purchaseState":0,"productId":"lifetime"}"#)
            default: .status(204)
            }
        })
        let (api, _) = try google.api()
        let subscription = try await api.subscription(token: "tok.en-1")
        #expect(subscription.subscriptionState?.known == .active)
        let product = try await api.product(productID: "lifetime", token: "tok.en-2")
        #expect(product.state == .purchased)
        try await api.acknowledgeSubscription(subscriptionID: "premium", token: "tok.en-1")
        try await api.acknowledgeProduct(productID: "lifetime", token: "tok.en-2")
        let voided = try await api.voidedPurchases(startTime: 1_000, endTime: 2_000, pageToken: "page 2")
        #expect(voided.voidedPurchases == nil)
        _ = try await api.voidedPurchases(startTime: 1_000)

        let requests = google.apiRequests
        #expect(requests.map(\.method) == ["GET", "GET", "POST", "POST", "GET", "GET"])
        let paths: [String] = [
            "/purchases/subscriptionsv2/tokens/tok.en-1",
            "/purchases/products/lifetime/tokens/tok.en-2",
            "/purchases/subscriptions/premium/tokens/tok.en-1:acknowledge",
            "/purchases/products/lifetime/tokens/tok.en-2:acknowledge",
            "/purchases/voidedpurchases?startTime=1000&type=1&maxResults=1000&endTime=2000&token=page%202",
            "/purchases/voidedpurchases?startTime=1000&type=1&maxResults=1000",
        ]
        #expect(requests.map(\.target) == paths.map { Self.prefix + $0 })
        #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer ya29.token-1" })
        #expect(requests.allSatisfy { $0.headers["accept"] == "application/json" })
        #expect(requests[2].body == Array("{}".utf8) && requests[2].headers["content-type"] == "application/json")
        #expect(requests[0].headers["content-type"] == nil && requests[0].body.isEmpty)
        #expect(google.tokenRequests.count == 1, "one token for every call")
    }

    @Test func aTokenCannotWalkThePath() async throws {
        let google = try ScriptedGoogle(api: { _ in .status(200, Self.subscriptionJSON) })
        let (api, _) = try google.api()
        _ = try await api.subscription(token: "a/../../b?c#d")
        #expect(google.apiRequests.last?.target == Self.prefix + "/purchases/subscriptionsv2/tokens/a%2F..%2F..%2Fb%3Fc%23d")
        // A token that is a dot segment would name the parent path: refused before anything is sent.
        for token in ["..", ".", ""] {
            await #expect(throws: GooglePlayAPIError(.invalidRequest, ""), "\(token)") { try await api.subscription(token: token) }
            await #expect(throws: GooglePlayAPIError(.invalidRequest, ""), "\(token)") {
                try await api.product(productID: token, token: "t")
            }
        }
        #expect(google.apiRequests.count == 1)
    }

    @Test func aRefusedAccessTokenIsRenewedOnceAndTheCallRetried() async throws {
        let script = ReplyScript([
            ScriptedGoogle.error(401, "Request had invalid authentication credentials.", reason: "authError", status: "UNAUTHENTICATED"),
            .status(200, Self.subscriptionJSON),
        ])
        let google = try ScriptedGoogle(api: { _ in script.next() })
        let (api, credentials) = try google.api()
        #expect(try await api.subscription(token: "t").lineItems?.first?.productId == "premium")
        #expect(google.apiRequests.map { $0.headers["authorization"] } == ["Bearer ya29.token-1", "Bearer ya29.token-2"])
        #expect(credentials.exchangeCount == 2)
    }

    @Test func aSecondRefusalIsPermissionDeniedWithWhatToCheck() async throws {
        let google = try ScriptedGoogle(api: { _ in
            ScriptedGoogle.error(
                401, "The current user has insufficient permissions to perform the requested operation.",
                reason: "permissionDenied", status: "UNAUTHENTICATED")
        })
        let (api, credentials) = try google.api()
        do {
            _ = try await api.subscription(token: "t")
            Issue.record("a refused call succeeded")
        } catch {
            #expect(error.code == .permissionDenied && error.status == 401)
            #expect(error.message.contains("insufficient permissions") && error.message.contains("(permissionDenied)"))
            #expect(error.message.contains("24 to 48 hours") && error.message.contains("View financial data"))
        }
        #expect(google.apiRequests.count == 2, "the first try and one with a new token")
        #expect(credentials.exchangeCount == 2)
    }

    @Test func forbiddenIsPermissionDeniedWithoutANewToken() async throws {
        let google = try ScriptedGoogle(api: { _ in
            ScriptedGoogle.error(403, "Request had insufficient authentication scopes.", reason: "insufficientPermissions", status: "PERMISSION_DENIED")
        })
        let (api, _) = try google.api()
        await #expect(throws: GooglePlayAPIError(.permissionDenied, "")) { try await api.subscription(token: "t") }
        #expect(google.apiRequests.count == 1)
    }

    @Test func anUnknownOrLongExpiredPurchaseIsNotFound() async throws {
        for status in [404, 410] {
            let google = try ScriptedGoogle(api: { _ in
                ScriptedGoogle.error(status, "The subscription purchase is no longer available for query because it has been expired for too long.", reason: "subscriptionPurchaseNoLongerAvailable", status: "NOT_FOUND")
            })
            let (api, _) = try google.api()
            do {
                _ = try await api.subscription(token: "t")
                Issue.record("\(status) gave a purchase")
            } catch {
                #expect(error.code == .notFound && error.status == status)
                #expect(error.message.contains("(subscriptionPurchaseNoLongerAvailable)"))
            }
        }
    }

    @Test func aServerErrorIsRetriedByTheOutboundClient() async throws {
        let script = ReplyScript([.status(500, "oops"), .status(200, Self.subscriptionJSON)])
        let google = try ScriptedGoogle(api: { _ in script.next() })
        let (api, _) = try google.api()
        #expect(try await api.subscription(token: "t").subscriptionState?.known == .active)
        #expect(google.apiRequests.count == 2)
        #expect(google.tokenRequests.count == 1, "a 500 is not a refused token")

        let down = try ScriptedGoogle(api: { _ in ScriptedGoogle.error(503, "The service is currently unavailable.", reason: "backendError", status: "UNAVAILABLE") })
        let (downAPI, _) = try down.api()
        do {
            _ = try await downAPI.subscription(token: "t")
            Issue.record("503 gave a purchase")
        } catch {
            #expect(error.code == .unavailable && error.status == 503)
            #expect(error.message.contains("The service is currently unavailable. (backendError)"))
        }
    }

    @Test func aBadRequestIsGooglesRefusalSummarised() async throws {
        let google = try ScriptedGoogle(api: { _ in ScriptedGoogle.error(400, "Invalid Value", reason: "invalid", status: "INVALID_ARGUMENT") })
        let (api, _) = try google.api()
        do {
            try await api.acknowledgeSubscription(subscriptionID: "premium", token: "t")
            Issue.record("400 acknowledged")
        } catch {
            #expect(error.code == .invalidRequest && error.status == 400)
            #expect(error.message.contains("purchases.subscriptions.acknowledge") && error.message.contains("Google said: Invalid Value (invalid)"))
        }
    }

    @Test func anAnswerThatIsNotGooglesShapeIsABadResponse() async throws {
        for body in ["<html>502</html>", #"{"subscriptionState": 7}"#, ""] {
            let google = try ScriptedGoogle(api: { _ in .status(200, body) })
            let (api, _) = try google.api()
            await #expect(throws: GooglePlayAPIError(.badResponse, ""), "\(body)") { try await api.subscription(token: "t") }
        }
    }

    @Test func anUnreachableGoogleIsUnavailable() async throws {
        let google = try ScriptedGoogle(api: { _ in .close })
        let (api, _) = try google.api(http: try OutboundHTTPClient(configuration: .init(retry: .once)))
        await #expect(throws: GooglePlayAPIError(.unavailable, "")) { try await api.subscription(token: "t") }
    }
}
