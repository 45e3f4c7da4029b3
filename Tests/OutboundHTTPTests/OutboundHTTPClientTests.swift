import HTTP1
import Metrics
import OutboundHTTP
import Synchronization
import TestSupport
import Testing

/// The outbound client against a scripted loopback server: what is retried, what is not, how connections are kept.
@Suite(.serialized) struct OutboundHTTPClientTests {
    private static let fast = RetryPolicy(
        maxAttempts: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(40), maxRetryAfter: .seconds(2))

    private func client(timeout: Duration = .seconds(5), trusting: String? = nil) throws -> OutboundHTTPClient {
        try OutboundHTTPClient(
            configuration: .init(trustedCertificatesPath: trusting, attemptTimeout: timeout, retry: Self.fast))
    }

    /// Answers the scripted replies in order, the last one for every later request.
    private func server(_ replies: [ScriptedHTTPServer.Reply]) throws -> ScriptedHTTPServer {
        let next = Atomic<Int>(0)
        return try ScriptedHTTPServer { _ in
            let index = next.add(1, ordering: .relaxed).oldValue
            return replies[min(index, replies.count - 1)]
        }
    }

    @Test func sendsTheRequestAsGivenAndReusesTheConnection() async throws {
        let server = try server([.status(200, "{\"a\":1}", headers: [("Content-Type", "application/json")])])
        let client = try client()
        let url = try #require(OutboundURL(server.baseURL + "/api/v3"))
        for _ in 0..<3 {
            let answer = try await client.send(
                "POST", url.appending(["tokens", "a/b c", "x:acknowledge"], query: [("t", "1 2")]),
                headers: ["Authorization": "Bearer t"], body: Array("{}".utf8), for: .webhook)
            #expect(answer.response.status == 200)
            #expect(answer.response.body == Array("{\"a\":1}".utf8))
            #expect(answer.attempts == 1)
        }
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/api/v3/tokens/a%2Fb%20c/x:acknowledge?t=1%202")
        #expect(request.headers["authorization"] == "Bearer t")
        #expect(request.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(request.headers["content-length"] == "2")
        #expect(request.headers["user-agent"]?.hasPrefix("entitlementd") == true)
        #expect(server.connectionCount == 1)
    }

    @Test func retries5xxThenReturnsTheSuccess() async throws {
        let server = try server([.status(500), .status(503), .status(200, "ok")])
        let client = try client()
        let answer = try await client.send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .stripeAPI)
        #expect(answer.response.status == 200)
        #expect(answer.attempts == 3)
        // Every attempt is counted for its target: two 5xx, one 2xx, two of them retries.
        let metrics = client.metrics
        #expect(metrics.attempts.value(try #require(metrics.attempts.index("stripe_api", "5xx"))) == 2)
        #expect(metrics.attempts.value(try #require(metrics.attempts.index("stripe_api", "2xx"))) == 1)
        #expect(metrics.attempts.value(try #require(metrics.attempts.index("webhook", "2xx"))) == 0)
        #expect(metrics.retries.value(try #require(metrics.retries.index("stripe_api"))) == 2)
    }

    @Test func returnsTheLast5xxWhenAttemptsRunOut() async throws {
        let server = try server([.status(502)])
        let answer = try await client().send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .webhook)
        #expect(answer.response.status == 502)
        #expect(answer.attempts == 3)
        #expect(server.requests.count == 3)
    }

    @Test func honoursRetryAfterOn429() async throws {
        let server = try server([.status(429, headers: [("Retry-After", "1")]), .status(200)])
        let started = ContinuousClock.now
        let answer = try await client().send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .webhook)
        #expect(answer.response.status == 200)
        #expect(answer.attempts == 2)
        // The wait is the server's second, not the policy's milliseconds.
        #expect(started.duration(to: .now) >= .milliseconds(950))
    }

    @Test func aRetryAfterBeyondTheLimitIsNotWaitedFor() async throws {
        let server = try server([.status(429, headers: [("Retry-After", "3600")]), .status(200)])
        let answer = try await client().send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .webhook)
        #expect(answer.response.status == 429)
        #expect(answer.attempts == 1)
    }

    @Test(arguments: [400, 401, 403, 404, 409, 410, 501])
    func otherStatusesAreNotRetried(status: Int) async throws {
        let server = try server([.status(status), .status(200)])
        let answer = try await client().send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .webhook)
        #expect(answer.response.status == status)
        #expect(server.requests.count == 1)
    }

    @Test func aConnectionClosedMidResponseIsRetriedOnANewConnection() async throws {
        let server = try server([.bytesThenClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort".utf8)), .status(200, "whole")])
        let answer = try await client().send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .webhook)
        #expect(answer.response.body == Array("whole".utf8))
        #expect(server.connectionCount == 2)
    }

    @Test func anUnreachableHostFailsAfterEveryAttempt() async throws {
        let server = try server([.status(200)])
        let url = try #require(OutboundURL(server.baseURL + "/x"))
        server.stop()
        let client = try client()
        do throws(OutboundHTTPError) {
            _ = try await client.send("GET", url, for: .webhook)
            Issue.record("a stopped server answered")
        } catch {
            #expect(error.code == .unreachable)
            #expect(error.attempts == 3)
            #expect(error.message.contains("connection refused"))
        }
    }

    @Test func aStalledServerTimesOutEachAttempt() async throws {
        let server = try server([.stall(.seconds(5))])
        let started = ContinuousClock.now
        await #expect(throws: OutboundHTTPError(code: .timedOut, attempts: 0, message: "")) {
            try await client(timeout: .milliseconds(200)).send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .webhook)
        }
        #expect(server.requests.count == 3)
        #expect(started.duration(to: .now) < .seconds(4))
    }

    @Test func garbageIsABadResponseAndNotRetried() async throws {
        let server = try server([.bytesThenClose(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8))])
        await #expect(throws: OutboundHTTPError(code: .badResponse, attempts: 0, message: "")) {
            try await client().send("GET", try #require(OutboundURL(server.baseURL + "/x")), for: .webhook)
        }
        #expect(server.requests.count == 1)
    }

    @Test func aHeaderWithALineBreakIsNeverSent() async throws {
        let server = try server([.status(200)])
        await #expect(throws: OutboundHTTPError(code: .invalidRequest, attempts: 0, message: "")) {
            try await client().send(
                "GET", try #require(OutboundURL(server.baseURL + "/x")), headers: ["X-Evil": "a\r\nInjected: 1"], for: .webhook)
        }
        #expect(server.requests.isEmpty)
    }

    @Test func cancellingTheTaskEndsTheRequest() async throws {
        let server = try server([.stall(.seconds(5))])
        let client = try client(timeout: .seconds(10))
        let url = try #require(OutboundURL(server.baseURL + "/x"))
        let task = Task { try await client.send("GET", url, for: .webhook) }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: OutboundHTTPError(code: .cancelled, attempts: 0, message: "")) { try await task.value }
    }
}
