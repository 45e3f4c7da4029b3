public import HTTP1
import Foundation
import PosixIO

/// The one way the server talks HTTP to the outside (Google's APIs now; Apple's, Stripe's and tenants' webhook
/// endpoints later): TLS verified against the system store or a configured CA file, connections reused, a timeout
/// per attempt, and the ``RetryPolicy`` for failures that may pass.
public final class OutboundHTTPClient: Sendable {
    public struct Configuration: Sendable {
        /// PEM file of trusted certificates for `https`; nil trusts the system store.
        public var trustedCertificatesPath: String?
        /// Each attempt's limit, connecting included.
        public var attemptTimeout: Duration
        public var retry: RetryPolicy
        public var maxResponseBodyBytes: Int

        public init(
            trustedCertificatesPath: String? = nil, attemptTimeout: Duration = .seconds(15),
            retry: RetryPolicy = RetryPolicy(), maxResponseBodyBytes: Int = 16 * 1024 * 1024
        ) {
            self.trustedCertificatesPath = trustedCertificatesPath
            self.attemptTimeout = attemptTimeout
            self.retry = retry
            self.maxResponseBodyBytes = maxResponseBodyBytes
        }
    }

    /// A response and how many attempts it took.
    public struct Answer: Sendable {
        public var response: HTTPClientResponse
        public var attempts: Int
    }

    public let configuration: Configuration
    /// Every attempt this client makes, by target and outcome.
    public let metrics = OutboundMetrics()
    private let client: HTTPClient

    public init(configuration: Configuration = Configuration()) throws(OutboundHTTPError) {
        self.configuration = configuration
        var http = HTTPClientConfiguration(trustedCertificatesPath: configuration.trustedCertificatesPath)
        http.maxResponseBodyBytes = configuration.maxResponseBodyBytes
        http.userAgent = "entitlementd/1 (+https://github.com/entitlementd)"
        do {
            client = try HTTPClient(configuration: http)
        } catch {
            throw OutboundHTTPError(
                code: .configuration, attempts: 0, message: "cannot set up outbound TLS: \(error.message)")
        }
    }

    /// Sends a request, retrying as `retry` (default: the configuration's) allows. Returns the last response, whatever
    /// its status (a 503 after the last attempt is still Google's answer, for the caller to report); throws only when
    /// no attempt got a response. Each attempt is counted for `target`.
    public func send(
        _ method: String, _ url: OutboundURL, headers: HTTPHeaders = [:], body: [UInt8] = [], retry: RetryPolicy? = nil,
        for target: OutboundTarget
    ) async throws(OutboundHTTPError) -> Answer {
        let policy = retry ?? configuration.retry
        let request = HTTPClientRequest(
            method: method, scheme: url.scheme, host: url.host, port: url.port, target: url.target, headers: headers,
            body: body)
        var random = SystemRandomNumberGenerator()
        var attempt = 0
        while true {
            attempt += 1
            let outcome: RetryPolicy.Outcome
            // The failure as the caller would get it, built once: its code is also the attempt's metric label.
            var failure: OutboundHTTPError?
            do throws(HTTPClientError) {
                let response = try await client.send(request, timeout: configuration.attemptTimeout)
                outcome = .response(response)
                metrics.attempted(target, attempt: attempt, .init(status: response.status))
            } catch {
                outcome = .failure(error)
                let described = OutboundHTTPError(error, attempts: attempt, url: url)
                failure = described
                metrics.attempted(target, attempt: attempt, .init(described.code))
            }
            let now = Int64(Date().timeIntervalSince1970)
            guard let wait = policy.delay(after: outcome, attempt: attempt, now: now, using: &random) else {
                if let failure { throw failure }
                guard case .response(let response) = outcome else { preconditionFailure("an outcome is a response or a failure") }
                return Answer(response: response, attempts: attempt)
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw OutboundHTTPError(code: .cancelled, attempts: attempt, message: "cancelled while waiting to retry \(url)")
            }
        }
    }

    /// Counts an answer to `target` whose body the caller could not read as the API documents it.
    public func answerUnreadable(_ target: OutboundTarget) {
        metrics.unreadable(target)
    }

    /// Closes every kept connection.
    public func shutdown() { client.shutdown() }
}
