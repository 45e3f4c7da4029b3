import CivilCalendar
import Crypto
import Foundation
import GooglePlayAPI
import OutboundHTTP
import TestSupport
import Testing

/// OAuth access tokens for a service account against a scripted token endpoint: the assertion as Google requires
/// it (checked by PyJWT), one exchange however many callers wait, renewal a minute before expiry.
@Suite struct AccessTokenSourceTests {
    @Test func theAssertionIsTheJWTGoogleRequiresAsPyJWTReadsIt() async throws {
        let google = try ScriptedGoogle()
        // PyJWT checks iat and exp against the real clock.
        let clock = ManualClock(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let credentials = try google.credentials(clock: clock)
        #expect(try await credentials.token() == "ya29.token-1")
        let request = try #require(google.tokenRequests.first)
        #expect(request.method == "POST")
        #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
        let form = ScriptedGoogle.form(request.body)
        #expect(Set(form.keys) == ["grant_type", "assertion"])
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer")
        let assertion = try #require(form["assertion"])

        let pyjwt = try PyJWTGoogle()
        defer { pyjwt.removeFiles() }
        let decoded = try await pyjwt.verifyAssertion(assertion, key: GoogleKeys.serviceAccount.publicKey, audience: google.tokenURI)
        #expect(decoded.header == ["alg": "RS256", "typ": "JWT", "kid": ScriptedGoogle.keyID])
        let issuedAt = clock.milliseconds / 1000
        #expect(
            decoded.claims == [
                "iss": .string(ScriptedGoogle.email), "scope": .string("https://www.googleapis.com/auth/androidpublisher"),
                "aud": .string(google.tokenURI), "iat": .number(issuedAt), "exp": .number(issuedAt + Seconds.perHour),
            ])
        // Signed by the service account's key, and no other.
        await #expect(throws: PythonHelper.Failure.self) {
            try await pyjwt.verifyAssertion(assertion, key: GoogleKeys.stranger.publicKey, audience: google.tokenURI)
        }
    }

    @Test func twentyConcurrentCallersShareOneExchange() async throws {
        let google = try ScriptedGoogle(tokenDelay: .milliseconds(300))
        let credentials = try google.credentials()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await credentials.token() } }
            var tokens: [String] = []
            for try await token in group { tokens.append(token) }
            return tokens
        }
        #expect(tokens.count == 20 && Set(tokens) == ["ya29.token-1"])
        #expect(credentials.exchangeCount == 1)
        #expect(google.tokenRequests.count == 1)
        // Later callers get it from the cache.
        #expect(try await credentials.token() == "ya29.token-1")
        #expect(google.tokenRequests.count == 1)
    }

    @Test func theTokenIsRenewedAMinuteBeforeItExpires() async throws {
        let google = try ScriptedGoogle(token: { number in ScriptedGoogle.granted("ya29.token-\(number)", expiresIn: Int(Seconds.perHour)) })
        let clock = ManualClock()
        let credentials = try google.credentials(clock: clock)
        #expect(try await credentials.token() == "ya29.token-1")
        clock.advance(seconds: Seconds.perHour - Seconds.perMinute, milliseconds: -1)
        #expect(try await credentials.token() == "ya29.token-1")
        clock.advance(milliseconds: 1)
        #expect(try await credentials.token() == "ya29.token-2")
        #expect(credentials.exchangeCount == 2)
        clock.advance(seconds: 60)
        #expect(try await credentials.token() == "ya29.token-2")
    }

    @Test func aLifetimeLongerThanADayIsKeptADay() async throws {
        let google = try ScriptedGoogle(token: { number in ScriptedGoogle.granted("ya29.token-\(number)", expiresIn: Int.max) })
        let clock = ManualClock()
        let credentials = try google.credentials(clock: clock)
        #expect(try await credentials.token() == "ya29.token-1")
        clock.advance(seconds: Seconds.perDay - Seconds.perMinute, milliseconds: -1)
        #expect(try await credentials.token() == "ya29.token-1")
        clock.advance(milliseconds: 1)
        #expect(try await credentials.token() == "ya29.token-2")
    }

    @Test func anInvalidatedTokenIsExchangedAgain() async throws {
        let google = try ScriptedGoogle()
        let credentials = try google.credentials()
        #expect(try await credentials.token() == "ya29.token-1")
        credentials.invalidate()
        #expect(try await credentials.token() == "ya29.token-2")
        #expect(try await credentials.token() == "ya29.token-2")
        #expect(credentials.exchangeCount == 2)
    }

    @Test func aRefusedAssertionIsAConfigurationErrorInGooglesWords() async throws {
        let google = try ScriptedGoogle(token: { _ in
            .status(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#, headers: [("Content-Type", "application/json")])
        })
        let credentials = try google.credentials()
        do {
            _ = try await credentials.token()
            Issue.record("a refused assertion gave a token")
        } catch {
            #expect(error.code == .configuration && error.status == 400)
            #expect(error.message.contains("invalid_grant (Invalid JWT Signature.)"))
            #expect(error.message.contains(ScriptedGoogle.email))
        }
        // Not cached: the next call asks again (the key may have been fixed).
        _ = try? await credentials.token()
        #expect(google.tokenRequests.count == 2)
    }

    @Test func aServerErrorIsRetriedByTheOutboundClientThenReportedAsUnavailable() async throws {
        let script = ReplyScript([.status(500), ScriptedGoogle.granted("ya29.after-retry")])
        let google = try ScriptedGoogle(token: { _ in script.next() })
        #expect(try await google.credentials().token() == "ya29.after-retry")
        #expect(google.tokenRequests.count == 2)

        let down = try ScriptedGoogle(token: { _ in .status(503, "busy") })
        await #expect(throws: GooglePlayAPIError(.unavailable, "")) { try await down.credentials().token() }
        #expect(down.tokenRequests.count == 3, "the outbound client's three attempts")
    }

    @Test func anAnswerWithoutATokenIsABadResponse() async throws {
        for body in [#"{"token_type":"Bearer"}"#, #"{"access_token":"","expires_in":3599}"#, #"{"access_token":"t","expires_in":0}"#, "<html>"] {
            let google = try ScriptedGoogle(token: { _ in .status(200, body) })
            await #expect(throws: GooglePlayAPIError(.badResponse, ""), "\(body)") { try await google.credentials().token() }
        }
    }

    @Test func anUnreachableTokenEndpointIsUnavailable() async throws {
        let google = try ScriptedGoogle()
        google.server.stop()
        await #expect(throws: GooglePlayAPIError(.unavailable, "")) {
            try await google.credentials(http: try OutboundHTTPClient(configuration: .init(retry: .once))).token()
        }
    }

    @Test func aTokenURIThatIsNotHTTPIsAConfigurationError() throws {
        let key = try ServiceAccountKey(json: ScriptedGoogle.keyFile(tokenURI: "file:///etc/passwd"))
        #expect(throws: GooglePlayAPIError(.configuration, "")) {
            try AccessTokenSource(key: key, http: try ScriptedGoogle.http())
        }
    }
}
