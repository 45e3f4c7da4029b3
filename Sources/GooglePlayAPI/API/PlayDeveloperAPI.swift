public import OutboundHTTP
import HTTP1
import Encodings
public import GooglePlay

/// The Google Play Developer API calls this service makes, for one app: typed answers, Google's errors by name,
/// the service account's token attached (and renewed once when Google refuses it as expired).
public final class PlayDeveloperAPI: Sendable {
    /// Google's; tests point it at a local fake.
    public static let defaultBaseURL = "https://androidpublisher.googleapis.com/androidpublisher/v3/applications"

    public let packageName: String
    private let baseURL: OutboundURL
    private let http: OutboundHTTPClient
    private let credentials: AccessTokenSource

    public init(packageName: String, baseURL: OutboundURL, http: OutboundHTTPClient, credentials: AccessTokenSource) {
        self.packageName = packageName
        self.baseURL = baseURL
        self.http = http
        self.credentials = credentials
    }

    /// `purchases.subscriptionsv2.get`.
    public func subscription(token: String) async throws(GooglePlayAPIError) -> SubscriptionPurchaseV2 {
        try decode(
            try await call("GET", ["purchases", "subscriptionsv2", "tokens", token], what: "purchases.subscriptionsv2.get"),
            as: SubscriptionPurchaseV2.self, what: "a SubscriptionPurchaseV2")
    }

    /// `purchases.products.get`.
    public func product(productID: String, token: String) async throws(GooglePlayAPIError) -> ProductPurchase {
        try decode(
            try await call("GET", ["purchases", "products", productID, "tokens", token], what: "purchases.products.get"),
            as: ProductPurchase.self, what: "a ProductPurchase")
    }

    /// `orders.get`: what Google charged for one order (needs the "View financial data" permission).
    public func order(id orderID: String) async throws(GooglePlayAPIError) -> PlayOrder {
        try decode(try await call("GET", ["orders", orderID], what: "orders.get"), as: PlayOrder.self, what: "an Order")
    }

    /// `purchases.subscriptions.acknowledge` (Google keeps the v1 path for it).
    public func acknowledgeSubscription(subscriptionID: String, token: String) async throws(GooglePlayAPIError) {
        _ = try await call(
            "POST", ["purchases", "subscriptions", subscriptionID, "tokens", token + ":acknowledge"],
            body: Array("{}".utf8), what: "purchases.subscriptions.acknowledge", retry: acknowledgementRetry)
    }

    /// `purchases.products.acknowledge`.
    public func acknowledgeProduct(productID: String, token: String) async throws(GooglePlayAPIError) {
        _ = try await call(
            "POST", ["purchases", "products", productID, "tokens", token + ":acknowledge"], body: Array("{}".utf8),
            what: "purchases.products.acknowledge", retry: acknowledgementRetry)
    }

    /// One page of `purchases.voidedpurchases.list`, subscriptions included (`type=1`).
    public func voidedPurchases(startTime: Int64, endTime: Int64? = nil, pageToken: String? = nil, maxResults: Int = 1000)
        async throws(GooglePlayAPIError) -> VoidedPurchaseList
    {
        var query = [("startTime", String(startTime)), ("type", "1"), ("maxResults", String(maxResults))]
        if let endTime { query.append(("endTime", String(endTime))) }
        if let pageToken { query.append(("token", pageToken)) }
        return try decode(
            try await call("GET", ["purchases", "voidedpurchases"], query: query, what: "purchases.voidedpurchases.list"),
            as: VoidedPurchaseList.self, what: "a VoidedPurchasesListResponse")
    }

    /// An acknowledgement that timed out may have been taken: it is not sent again here, since its caller asks Google
    /// about the purchase before its next attempt.
    private var acknowledgementRetry: RetryPolicy {
        var policy = http.configuration.retry
        policy.resendsUnanswered = false
        return policy
    }

    private func call(
        _ method: String, _ segments: [String], query: [(String, String)] = [], body: [UInt8] = [], what: String,
        retry: RetryPolicy? = nil
    ) async throws(GooglePlayAPIError) -> [UInt8] {
        // A segment is percent-encoded (a `/` cannot walk the path), but an empty one or a dot segment still names
        // another resource once the URL is normalised: `tokens/..` is `subscriptionsv2`. No token or ID is one.
        if let bad = segments.first(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            throw GooglePlayAPIError(
                .invalidRequest, "\(bad.isEmpty ? "an empty" : "a dot-segment") token or product ID cannot be sent to Google for \(what)")
        }
        let url = baseURL.appending([packageName] + segments, query: query)
        var renewed = false
        while true {
            let token = try await credentials.token()
            var headers: HTTPHeaders = ["Authorization": "Bearer \(token)", "Accept": "application/json"]
            if !body.isEmpty { headers.add(name: "Content-Type", value: "application/json") }
            let answer: OutboundHTTPClient.Answer
            do {
                answer = try await http.send(method, url, headers: headers, body: body, retry: retry, for: .googlePlayAPI)
            } catch {
                throw GooglePlayAPIError(.unavailable, "cannot reach Google for \(what): \(error.message)")
            }
            let status = answer.response.status
            if (200..<300).contains(status) { return answer.response.body }
            // An access token Google no longer takes (revoked, clock skew): one fresh token, then Google's answer.
            if status == 401, !renewed {
                renewed = true
                credentials.invalidate()
                continue
            }
            throw GooglePlayAPIError.answer(status: status, body: answer.response.body, call: what)
        }
    }

    private func decode<Value: JSONReadable>(_ body: [UInt8], as _: Value.Type, what: String) throws(GooglePlayAPIError) -> Value {
        do {
            return try JSONReader.read(Value.self, from: body)
        } catch {
            http.answerUnreadable(.googlePlayAPI)
            throw GooglePlayAPIError(.badResponse, "Google's answer is not \(what): \(error)".prefix(400).description)
        }
    }
}
