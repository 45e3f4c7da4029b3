import Encodings
import HTTP1
public import OutboundHTTP
public import Stripe

/// Reads objects from Stripe's API (`GET /v1/...` with the tenant's secret or restricted key), so that an event is
/// applied as the object is now rather than as the event's snapshot showed it. The API version is pinned: the
/// objects' shapes are the ones the decoders read (both before and after 2025-03-31's moves, so an account's default
/// version would do too).
public final class StripeAPI: Sendable {
    public static let apiVersion = "2026-10-28.endive"

    private let baseURL: OutboundURL
    private let apiKey: String
    private let http: OutboundHTTPClient

    public init(baseURL: OutboundURL, apiKey: String, http: OutboundHTTPClient) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.http = http
    }

    public func subscription(_ id: String) async throws(StripeAPIError) -> StripeSubscription {
        try await object(["subscriptions", id], as: StripeSubscription.self, what: "a Subscription")
    }

    /// With its line items (what was bought), which Stripe leaves out unless asked.
    public func checkoutSession(_ id: String) async throws(StripeAPIError) -> StripeCheckoutSession {
        try await object(
            ["checkout", "sessions", id], query: [("expand[]", "line_items")], as: StripeCheckoutSession.self,
            what: "a Checkout Session")
    }

    public func invoice(_ id: String) async throws(StripeAPIError) -> StripeInvoice {
        try await object(["invoices", id], as: StripeInvoice.self, what: "an Invoice")
    }

    public func charge(_ id: String) async throws(StripeAPIError) -> StripeCharge {
        try await object(["charges", id], as: StripeCharge.self, what: "a Charge")
    }

    public func dispute(_ id: String) async throws(StripeAPIError) -> StripeDispute {
        try await object(["disputes", id], as: StripeDispute.self, what: "a Dispute")
    }

    private func object<Value: JSONReadable>(
        _ segments: [String], query: [(String, String)] = [], as _: Value.Type, what: String
    )
        async throws(StripeAPIError) -> Value
    {
        let call = "GET /v1/\(segments.joined(separator: "/"))"
        // IDs are percent-encoded as segments, but an empty or dot segment would still name another resource.
        guard let id = segments.last, !id.isEmpty, id != ".", id != ".." else {
            throw StripeAPIError(.invalidRequest, "an empty or dot-segment ID cannot be sent to Stripe for \(call)")
        }
        let headers: HTTPHeaders = [
            "Authorization": "Bearer \(apiKey)", "Stripe-Version": Self.apiVersion, "Accept": "application/json",
        ]
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await http.send(
                "GET", baseURL.appending(["v1"] + segments, query: query), headers: headers, for: .stripeAPI)
        } catch {
            throw StripeAPIError(.unavailable, "cannot reach Stripe for \(call): \(error.message)")
        }
        let status = answer.response.status
        guard (200..<300).contains(status) else {
            throw StripeAPIError.answer(status: status, body: answer.response.body, call: call)
        }
        do {
            return try JSONReader.read(Value.self, from: answer.response.body)
        } catch {
            http.answerUnreadable(.stripeAPI)
            throw StripeAPIError(.badResponse, "Stripe's answer to \(call) is not \(what): \(error)".prefix(400).description)
        }
    }
}
