import CivilCalendar
public import Crypto
import Foundation
import HTTP1
import JOSE
public import OutboundHTTP
import Synchronization

/// The public keys Google signs its OIDC tokens with, by `kid`: fetched from a JWKS URL (Google's is
/// https://www.googleapis.com/oauth2/v3/certs) and kept for the time its `Cache-Control: max-age` allows, fetched
/// again at once for a `kid` not seen (Google rotates keys). A `kid` still unknown after that is refused without
/// asking again for a minute, and fetches are a second apart at least, so forged `kid`s cannot make us hammer Google.
/// Or a fixed set (a key file).
public final class GoogleSigningKeys: Sendable {
    public static let defaultJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"
    static let minimumRefetchInterval: Int64 = 1_000
    static let unknownKeyMemory = Milliseconds.perMinute
    static let defaultLifetime = Milliseconds.perHour
    static let staleKeyGrace = Milliseconds.perDay

    private struct Cached {
        var keys: [String: RSA.PublicKey]
        var fetchedAt: Int64
        var expiresAt: Int64
        /// `kid`s asked for and not in the set fetched after they were asked for, with when.
        var unknown: [String: Int64] = [:]
    }

    private let source: OutboundURL?
    private let http: OutboundHTTPClient?
    private let clock: @Sendable () -> Int64
    private let cache: Mutex<Cached?>
    /// One fetch at a time; others wait for its keys.
    private let fetching = Mutex<Task<GooglePlayAPIError?, Never>?>(nil)

    /// Keys fetched from `url`.
    public init(url: OutboundURL, http: OutboundHTTPClient, clock: @escaping @Sendable () -> Int64) {
        source = url
        self.http = http
        self.clock = clock
        cache = Mutex(nil)
    }

    /// A fixed set of keys (a JWKS file's), never refreshed.
    public init(fixed keys: [String: RSA.PublicKey]) {
        source = nil
        http = nil
        clock = { 0 }
        cache = Mutex(Cached(keys: keys, fetchedAt: 0, expiresAt: .max))
    }

    /// The key with this `kid`, fetching the set again when it is stale or lacks the `kid`; nil when Google has no
    /// such key (or cannot be asked). The error says why the set could not be fetched.
    public func key(id: String) async -> Result<RSA.PublicKey, GooglePlayAPIError> {
        let now = clock()
        let cached = cache.withLock { $0 }
        if let cached, cached.expiresAt > now, let key = cached.keys[id] { return .success(key) }
        guard source != nil else { return .failure(GooglePlayAPIError(.notFound, "no signing key has kid '\(id)'")) }
        if let cached, cached.expiresAt > now,
            now - cached.fetchedAt < Self.minimumRefetchInterval
                || cached.unknown[id].map({ now - $0 < Self.unknownKeyMemory }) ?? false
        {
            return .failure(GooglePlayAPIError(.notFound, "Google publishes no signing key with kid '\(id)'"))
        }
        let error = await refresh()
        let key: RSA.PublicKey? = cache.withLock { cached in
            // Google down: keys it published recently still verify, for a day past their cache lifetime.
            if let key = cached?.keys[id], error == nil || now - cached!.expiresAt < Self.staleKeyGrace { return key }
            if error == nil, cached != nil, cached!.unknown.count < 1000 { cached!.unknown[id] = now }
            return nil
        }
        if let key { return .success(key) }
        return .failure(error ?? GooglePlayAPIError(.notFound, "Google publishes no signing key with kid '\(id)'"))
    }

    /// Fetches the set once, however many callers ask at the same time; the error when it failed.
    private func refresh() async -> GooglePlayAPIError? {
        let task = fetching.withLock { current in
            if let current { return current }
            let task = Task { () -> GooglePlayAPIError? in
                do throws(GooglePlayAPIError) {
                    var fetched = try await self.fetch()
                    self.cache.withLock { cached in
                        // A kid found unknown stays refused for its minute across fetches: otherwise forged kids
                        // taking turns would each make a fetch (one a second) instead of one a minute each.
                        if let unknown = cached?.unknown {
                            fetched.unknown = unknown.filter {
                                fetched.keys[$0.key] == nil && fetched.fetchedAt - $0.value < Self.unknownKeyMemory
                            }
                        }
                        cached = fetched
                    }
                    return nil
                } catch {
                    return error
                }
            }
            current = task
            return task
        }
        let failure = await task.value
        fetching.withLock { if $0 == task { $0 = nil } }
        return failure
    }

    private func fetch() async throws(GooglePlayAPIError) -> Cached {
        guard let source, let http else { throw GooglePlayAPIError(.configuration, "no JWKS URL") }
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await http.send("GET", source, headers: ["Accept": "application/json"], for: .googleSigningKeys)
        } catch {
            throw GooglePlayAPIError(.unavailable, "cannot fetch Google's signing keys from \(source): \(error.message)")
        }
        guard answer.response.status == 200 else {
            throw GooglePlayAPIError(
                .unavailable, "Google's signing keys at \(source) answered \(answer.response.status)",
                status: answer.response.status)
        }
        let keys: [String: RSA.PublicKey]
        do {
            keys = try JSONWebKeySet(json: answer.response.body).keys
        } catch {
            http.answerUnreadable(.googleSigningKeys)
            throw GooglePlayAPIError(.badResponse, "Google's signing keys at \(source) are not a JWKS: \(error.message)")
        }
        let now = clock()
        // A day at most; capped before it is scaled, so no max-age overflows.
        let lifetime = Self.maxAge(answer.response.headers["cache-control"]).map { min($0, Seconds.perDay) * Milliseconds.perSecond }
            ?? Self.defaultLifetime
        return Cached(keys: keys, fetchedAt: now, expiresAt: now + lifetime)
    }

    /// `max-age=N` from a Cache-Control value.
    static func maxAge(_ value: String?) -> Int64? {
        guard let value else { return nil }
        for directive in value.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int64(parts[1]), seconds >= 0 {
                return seconds
            }
        }
        return nil
    }
}
