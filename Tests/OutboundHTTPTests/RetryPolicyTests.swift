import HTTP1
@testable import OutboundHTTP
import TestSupport
import Testing

@Suite struct RetryPolicyTests {
    private let policy = RetryPolicy(
        maxAttempts: 5, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), maxRetryAfter: .seconds(60))

    private func response(_ status: Int, _ headers: HTTPHeaders = [:]) -> RetryPolicy.Outcome {
        .response(HTTPClientResponse(status: status, headers: headers, body: []))
    }

    @Test func backoffDoublesWithJitterWithinBounds() {
        var random = SeededRandomNumberGenerator(seed: 7)
        for (attempt, step) in [(1, 100), (2, 200), (3, 400), (4, 800)] {
            let delay = policy.delay(after: response(503), attempt: attempt, now: 0, using: &random)!
            #expect(delay >= .milliseconds(step / 2) && delay <= .milliseconds(step))
        }
        #expect(policy.delay(after: response(503), attempt: 5, now: 0, using: &random) == nil)
        var capped = RetryPolicy(maxAttempts: 40, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1))
        capped.maxRetryAfter = .seconds(1)
        #expect(capped.delay(after: response(500), attempt: 39, now: 0, using: &random)! <= .seconds(1))
    }

    @Test func retryAfterInSecondsOrAsADate() {
        var random = SeededRandomNumberGenerator(seed: 1)
        #expect(policy.delay(after: response(429, ["Retry-After": "7"]), attempt: 1, now: 0, using: &random) == .seconds(7))
        let now: Int64 = 784_111_777 - 12
        #expect(
            policy.delay(after: response(503, ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]), attempt: 1, now: now, using: &random)
                == .seconds(12))
        #expect(
            policy.delay(after: response(503, ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]), attempt: 1, now: now + 100, using: &random)
                == .seconds(0))
        // Unreadable: the policy's own backoff.
        let fallback = policy.delay(after: response(503, ["Retry-After": "soon"]), attempt: 1, now: 0, using: &random)!
        #expect(fallback <= .milliseconds(100))
        #expect(policy.delay(after: response(429, ["Retry-After": "61"]), attempt: 1, now: 0, using: &random) == nil)
    }

    /// A webhook endpoint or a store may send any number: Int64's extremes and beyond are read without overflow.
    @Test func retryAfterAtTheExtremes() {
        var random = SeededRandomNumberGenerator(seed: 2)
        #expect(RetryPolicy.retryAfter(String(Int64.max), now: 0) == .seconds(Int64.max))
        #expect(RetryPolicy.retryAfter(String(Int64.max), now: Int64.max) == .seconds(Int64.max))
        #expect(RetryPolicy.retryAfter("99999999999999999999", now: 0) == nil)
        #expect(RetryPolicy.retryAfter("-1", now: 0) == nil)
        #expect(RetryPolicy.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: 0) == .seconds(253_402_300_799))
        #expect(policy.delay(after: response(503, ["Retry-After": String(Int64.max)]), attempt: 1, now: 0, using: &random) == nil)
    }

    @Test func onlyTransientFailuresAndRetryableStatusesAreRetried() {
        var random = SeededRandomNumberGenerator(seed: 3)
        for status in [429, 500, 502, 503, 504, 599] {
            #expect(policy.delay(after: response(status), attempt: 1, now: 0, using: &random) != nil)
        }
        for status in [200, 204, 301, 400, 401, 403, 404, 410, 501] {
            #expect(policy.delay(after: response(status), attempt: 1, now: 0, using: &random) == nil)
        }
        for code in [HTTPClientError.Code.connectFailed, .connectionClosed, .timedOut] {
            #expect(policy.delay(after: .failure(HTTPClientError(code, "")), attempt: 1, now: 0, using: &random) != nil)
        }
        for code in [HTTPClientError.Code.tlsFailed, .malformedResponse, .responseTooLarge, .invalidRequest, .cancelled] {
            #expect(policy.delay(after: .failure(HTTPClientError(code, "")), attempt: 1, now: 0, using: &random) == nil)
        }
    }

    /// An acknowledgement's policy: what may have reached the server unanswered is not sent again; a connection never
    /// made, and the server's own 5xx, still are.
    @Test func withoutResendingUnansweredOnlyFailedConnectionsAreRetried() {
        var random = SeededRandomNumberGenerator(seed: 4)
        var once = policy
        once.resendsUnanswered = false
        #expect(once.delay(after: .failure(HTTPClientError(.connectFailed, "")), attempt: 1, now: 0, using: &random) != nil)
        for code in [HTTPClientError.Code.connectionClosed, .timedOut] {
            #expect(once.delay(after: .failure(HTTPClientError(code, "")), attempt: 1, now: 0, using: &random) == nil)
        }
        #expect(once.delay(after: response(503), attempt: 1, now: 0, using: &random) != nil)
    }
}

@Suite struct OutboundURLTests {
    @Test func parsesWhatConfigurationsHold() throws {
        let google = try #require(OutboundURL("https://androidpublisher.googleapis.com/androidpublisher/v3/applications"))
        #expect(google.scheme == .https && google.port == 443 && google.host == "androidpublisher.googleapis.com")
        #expect(google.target == "/androidpublisher/v3/applications")
        let local = try #require(OutboundURL("http://127.0.0.1:8091"))
        #expect(local.port == 8091 && local.target == "/" && local.isLoopback)
        let v6 = try #require(OutboundURL("http://[::1]:99/x?y=1"))
        #expect(v6.host == "::1" && v6.port == 99 && v6.target == "/x?y=1" && v6.description == "http://[::1]:99/x?y=1")
        #expect(OutboundURL("HTTPS://Example.COM/Path")?.host == "example.com")
    }

    @Test(arguments: [
        "", "ftp://x", "https://", "https://user@host/", "https://host:0/", "https://host:70000/", "https://host/a b",
        "https://host/#frag", "https://ho st/", "https://host:port/", "https://[::1/",
    ])
    func refusesOthers(_ text: String) {
        #expect(OutboundURL(text) == nil)
    }

    @Test func appendsEncodedSegmentsAndQuery() throws {
        let base = try #require(OutboundURL("https://h/base/"))
        let url = base.appending(["com.app", "to/ken?", "x:acknowledge"], query: [("startTime", "1"), ("a&b", "=")])
        #expect(url.target == "/base/com.app/to%2Fken%3F/x:acknowledge?startTime=1&a%26b=%3D")
    }
}
