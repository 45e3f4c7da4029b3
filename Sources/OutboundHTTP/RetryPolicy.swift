public import HTTP1
import CivilCalendar
import Foundation

/// When an outbound request is tried again, and after how long: 5xx and 429 answers and transient connection
/// failures, at most `maxAttempts` times in all, with exponential backoff and jitter, or after the server's
/// `Retry-After` when it gives one. Nothing else is retried: a 4xx other than 429 says the request itself is wrong.
public struct RetryPolicy: Sendable, Hashable {
    public var maxAttempts: Int
    /// The wait before the second attempt; each later wait doubles, up to `maxBackoff`.
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    /// A `Retry-After` longer than this is not waited for: the answer goes back to the caller, whose own retry
    /// (a store's redelivery, the durable retry queue) comes later.
    public var maxRetryAfter: Duration
    /// Whether an attempt that may have reached the server unanswered (it timed out, or its connection closed) is
    /// sent again. Off for a request whose effect should happen once and whose caller checks before trying again (a
    /// Play acknowledgement: an instance frozen mid-request finds its attempt timed out when it resumes).
    public var resendsUnanswered = true

    public init(
        maxAttempts: Int = 4, initialBackoff: Duration = .milliseconds(250), maxBackoff: Duration = .seconds(8),
        maxRetryAfter: Duration = .seconds(30)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter
    }

    /// One attempt, no retries.
    public static let once = RetryPolicy(maxAttempts: 1)

    /// What an attempt ended with.
    public enum Outcome: Sendable {
        case response(HTTPClientResponse)
        case failure(HTTPClientError)
    }

    /// The wait before attempt `attempt + 1` after `outcome`, or nil when there is none to make. `now` (seconds since
    /// 1970) reads a `Retry-After` date.
    public func delay(
        after outcome: Outcome, attempt: Int, now: Int64, using random: inout some RandomNumberGenerator
    ) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        switch outcome {
        case .failure(let error):
            guard error.isTransient, resendsUnanswered || error.code == .connectFailed else { return nil }
        case .response(let response):
            guard Self.isRetryable(status: response.status) else { return nil }
            if let header = response.headers["retry-after"], let wait = Self.retryAfter(header, now: now) {
                return wait <= maxRetryAfter ? wait : nil
            }
        }
        return backoff(beforeAttempt: attempt + 1, using: &random)
    }

    /// 429 Too Many Requests and every 5xx but 501 Not Implemented (which no retry changes).
    public static func isRetryable(status: Int) -> Bool {
        status == 429 || (status >= 500 && status <= 599 && status != 501)
    }

    /// "Equal jitter": half the exponential step fixed, half random, so clients that failed together spread out
    /// without any of them retrying at once.
    func backoff(beforeAttempt attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let doublings = min(attempt - 2, 30)
        var step = initialBackoff
        for _ in 0..<max(0, doublings) where step < maxBackoff { step *= 2 }
        step = min(step, maxBackoff)
        let half = step / 2
        let jitterNanoseconds = Int64(Double(half.components.seconds) * 1e9 + Double(half.components.attoseconds) / 1e9)
        return half + .nanoseconds(Int64.random(in: 0...max(0, jitterNanoseconds), using: &random))
    }

    /// `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3); a date in the past means now.
    public static func retryAfter(_ value: String, now: Int64) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed), seconds >= 0, trimmed.allSatisfy(\.isNumber) { return .seconds(seconds) }
        guard let date = CivilCalendar.seconds(fromHTTPDate: trimmed) else { return nil }
        return .seconds(max(0, date - now))
    }
}
