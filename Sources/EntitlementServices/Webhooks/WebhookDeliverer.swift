import BoundedText
public import EntitlementDomain
import HTTP1
public import OutboundHTTP
public import StandardWebhooks

/// What one delivery attempt to a tenant's endpoint came to.
public struct WebhookAttempt: Sendable, Hashable {
    /// The endpoint's HTTP status; nil when no answer came (unreachable, timed out, TLS refused).
    public var status: Int?
    /// Why it failed, bounded and without secrets; empty on a 2xx.
    public var error: String
    /// The endpoint's `Retry-After`, in seconds, when it gave one.
    public var retryAfterSeconds: Int64?
    public var milliseconds: Int64

    /// Any 2xx, as Standard Webhooks defines success (a redirect is a failure: it is not followed).
    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }
}

/// Sends one signed delivery to a tenant's endpoint, the Standard Webhooks way: `webhook-id` (the same on every
/// attempt of one message), `webhook-timestamp` (this attempt's), `webhook-signature` with one `v1` entry per
/// secret of the endpoint, the JSON body as given. One attempt, within the outbound client's attempt timeout (15 s
/// by default): retrying is the caller's schedule.
public struct WebhookDeliverer: Sendable {
    static let maxErrorBytes = 300

    let http: OutboundHTTPClient
    let now: @Sendable () -> UnixTime

    public init(http: OutboundHTTPClient, now: @escaping @Sendable () -> UnixTime) {
        self.http = http
        self.now = now
    }

    public func attempt(_ body: [UInt8], id: WebhookMessageID, to endpoint: WebhookEndpoint) async -> WebhookAttempt {
        let started = now()
        func finished(status: Int?, error: String, retryAfter: Int64? = nil) -> WebhookAttempt {
            WebhookAttempt(
                status: status, error: error.truncated(toUTF8Bytes: Self.maxErrorBytes), retryAfterSeconds: retryAfter,
                milliseconds: now().milliseconds - started.milliseconds)
        }
        guard let url = OutboundURL(endpoint.url) else {
            return finished(status: nil, error: "the endpoint's URL is not one this server can call")
        }
        var secrets: [WebhookSecret] = []
        for text in endpoint.secrets {
            guard let secret = try? WebhookSecret(text) else {
                return finished(status: nil, error: "a secret of the endpoint is not a Standard Webhooks secret")
            }
            secrets.append(secret)
        }
        let timestamp = started.milliseconds / 1000
        let headers: HTTPHeaders = [
            "Content-Type": "application/json",
            WebhookSignature.idHeader: id.text,
            WebhookSignature.timestampHeader: String(timestamp),
            WebhookSignature.signatureHeader: WebhookSignature.sign(id: id, timestamp: timestamp, body: body, secrets: secrets),
        ]
        do throws(OutboundHTTPError) {
            let answer = try await http.send("POST", url, headers: headers, body: body, retry: .once, for: .webhook)
            let response = answer.response
            let retryAfter = response.headers["retry-after"].flatMap {
                RetryPolicy.retryAfter($0, now: timestamp).map { Int64($0.components.seconds) }
            }
            if (200..<300).contains(response.status) { return finished(status: response.status, error: "") }
            let said = String(decoding: response.body.prefix(200), as: UTF8.self)
            return finished(status: response.status, error: "HTTP \(response.status): \(said)", retryAfter: retryAfter)
        } catch {
            return finished(status: nil, error: error.description)
        }
    }
}
