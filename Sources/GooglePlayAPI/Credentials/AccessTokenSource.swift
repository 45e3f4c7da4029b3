import CivilCalendar
import Encodings
public import Foundation
import HTTP1
import Crypto
import JOSE
public import OutboundHTTP
import Synchronization

/// OAuth access tokens for one service account: a signed assertion (RS256 JWT) exchanged at the key's token
/// endpoint, the token kept until a minute before it expires and shared by every concurrent caller (one exchange at
/// a time, however many calls wait for it).
public final class AccessTokenSource: Sendable {
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// Google's own libraries refresh this long before the stated expiry.
    static let refreshMargin = Milliseconds.perMinute
    static let maxLifetimeSeconds = Seconds.perDay

    private struct Cached {
        var token: String
        var expiresAt: Int64
    }

    private enum State {
        case empty
        case valid(Cached)
        case fetching(Task<Cached, any Error>)
    }

    let key: ServiceAccountKey
    private let http: OutboundHTTPClient
    private let tokenURL: OutboundURL
    private let clock: @Sendable () -> Int64
    private let state = Mutex<State>(.empty)
    /// Assertions exchanged so far (for tests and the log).
    private let exchanges = Atomic<Int>(0)

    public init(
        key: ServiceAccountKey, http: OutboundHTTPClient,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) throws(GooglePlayAPIError) {
        guard let url = OutboundURL(key.tokenURI) else {
            throw GooglePlayAPIError(.configuration, "the token_uri of \(key.clientEmail) is not an http(s) URL")
        }
        self.key = key
        self.http = http
        self.tokenURL = url
        self.clock = clock
    }

    public var exchangeCount: Int { exchanges.load(ordering: .relaxed) }

    /// A token valid for at least a minute more.
    public func token() async throws(GooglePlayAPIError) -> String {
        let now = clock()
        let step: Step = state.withLock { state in
            switch state {
            case .valid(let cached) where cached.expiresAt - Self.refreshMargin > now:
                return .ready(cached.token)
            case .fetching(let task):
                return .wait(task)
            default:
                let task = Task { try await self.exchange() }
                state = .fetching(task)
                return .wait(task)
            }
        }
        guard case .wait(let task) = step else {
            guard case .ready(let token) = step else { preconditionFailure("a step is ready or waits") }
            return token
        }
        // Only this exchange's end is recorded: a waiter resuming late must not put back a token invalidated since,
        // nor drop an exchange started after it.
        do {
            let cached = try await task.value
            state.withLock { state in
                if case .fetching(let current) = state, current == task { state = .valid(cached) }
            }
            return cached.token
        } catch {
            state.withLock { state in
                if case .fetching(let current) = state, current == task { state = .empty }
            }
            throw error as? GooglePlayAPIError ?? GooglePlayAPIError(.unavailable, "\(error)")
        }
    }

    private enum Step {
        case ready(String)
        case wait(Task<Cached, any Error>)
    }

    /// Forgets the token (Google refused it): the next call exchanges a new assertion.
    public func invalidate() {
        state.withLock { state in
            if case .valid = state { state = .empty }
        }
    }

    /// The signed assertion Google's token endpoint takes (RFC 7523): RS256 with the key's ID, one hour at most.
    func assertion(issuedAt now: Int64) throws(GooglePlayAPIError) -> String {
        let seconds = now / 1000
        // Members in name order.
        let header = JSONValue.object([("alg", .string("RS256")), ("kid", .string(key.privateKeyID)), ("typ", .string("JWT"))])
        let claims = JSONValue.object([
            ("aud", .string(key.tokenURI)), ("exp", .number(String(seconds + Seconds.perHour))),
            ("iat", .number(String(seconds))), ("iss", .string(key.clientEmail)), ("scope", .string(Self.scope)),
        ])
        do {
            return try JWSSigning.sign(
                headerJSON: Array(header.text.utf8), payload: Array(claims.text.utf8), key: key.privateKey)
        } catch {
            throw GooglePlayAPIError(.configuration, "cannot sign the assertion for \(key.clientEmail): \(error.message)")
        }
    }

    private func exchange() async throws(GooglePlayAPIError) -> Cached {
        let issuedAt = clock()
        let form = "grant_type=" + OutboundURL.queryEncoded("urn:ietf:params:oauth:grant-type:jwt-bearer")
            + "&assertion=" + OutboundURL.queryEncoded(try assertion(issuedAt: issuedAt))
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await http.send(
                "POST", tokenURL, headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                body: Array(form.utf8), for: .googleOAuth)
        } catch {
            throw GooglePlayAPIError(.unavailable, "cannot reach Google's token endpoint \(tokenURL): \(error.message)")
        }
        exchanges.add(1, ordering: .relaxed)
        let response = answer.response
        guard response.status == 200 else {
            let said = GooglePlayAPIError.summary(ofErrorBody: response.body).map { ": \($0)" } ?? ""
            let code: GooglePlayAPIError.Code = RetryPolicy.isRetryable(status: response.status) ? .unavailable : .configuration
            throw GooglePlayAPIError(
                code, "Google's token endpoint refused the service account \(key.clientEmail) (\(response.status))\(said)",
                status: response.status)
        }
        let decoded = try? JSONReader.read(JSONValue.self, from: response.body)
        guard let token = decoded?["access_token"]?.string, !token.isEmpty,
            let lifetime = decoded?["expires_in"]?.int64, lifetime > 0
        else {
            http.answerUnreadable(.googleOAuth)
            throw GooglePlayAPIError(.badResponse, "Google's token endpoint answered without access_token and expires_in")
        }
        // Kept a day at most, whatever the endpoint says (Google's last an hour); an absurd expires_in cannot overflow.
        return Cached(token: token, expiresAt: issuedAt + min(lifetime, Self.maxLifetimeSeconds) * 1000)
    }
}
