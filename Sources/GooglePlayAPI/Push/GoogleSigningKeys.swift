public import Crypto
import Foundation
import JOSE
public import OutboundHTTP
import Synchronization

/// The public keys Google signs its OIDC tokens with, by `kid`: fetched from a JWKS URL (Google's is
/// https://www.googleapis.com/oauth2/v3/certs) and kept for the time its `Cache-Control: max-age` allows, fetched
/// again at once for a `kid` not seen (Google rotates keys), but not more than once a minute, so a stream of forged
/// `kid`s cannot make us hammer Google. Or a fixed set (a key file, for tests).
public final class GoogleSigningKeys: Sendable {
    public static let defaultJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"
    static let minimumRefetchInterval: Int64 = 60_000
    static let defaultLifetime: Int64 = 3_600_000

    private struct Cached {
        var keys: [String: RSA.PublicKey]
        var fetchedAt: Int64
        var expiresAt: Int64
    }

    private let source: OutboundURL?
    private let http: OutboundHTTPClient?
    private let clock: @Sendable () -> Int64
    private let cache: Mutex<Cached?>
    /// One fetch at a time; others wait for its keys.
    private let fetching = Mutex<Task<Void, Never>?>(nil)

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
        if let cached, cached.keys[id] == nil, cached.expiresAt > now, now - cached.fetchedAt < Self.minimumRefetchInterval {
            return .failure(GooglePlayAPIError(.notFound, "Google publishes no signing key with kid '\(id)'"))
        }
        let error = await refresh()
        if let key = cache.withLock({ $0?.keys[id] }) { return .success(key) }
        return .failure(error ?? GooglePlayAPIError(.notFound, "Google publishes no signing key with kid '\(id)'"))
    }

    /// Fetches the set once, however many callers ask at the same time; the error when it failed.
    private func refresh() async -> GooglePlayAPIError? {
        let failure = Mutex<GooglePlayAPIError?>(nil)
        let task = fetching.withLock { current in
            if let current { return current }
            let task = Task {
                do throws(GooglePlayAPIError) {
                    let fetched = try await fetch()
                    cache.withLock { $0 = fetched }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            current = task
            return task
        }
        await task.value
        fetching.withLock { if $0 == task { $0 = nil } }
        return failure.withLock { $0 }
    }

    private func fetch() async throws(GooglePlayAPIError) -> Cached {
        guard let source, let http else { throw GooglePlayAPIError(.configuration, "no JWKS URL") }
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await http.send("GET", source, headers: ["Accept": "application/json"])
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
            throw GooglePlayAPIError(.badResponse, "Google's signing keys at \(source) are not a JWKS: \(error.message)")
        }
        let now = clock()
        let lifetime = Self.maxAge(answer.response.headers["cache-control"]).map { min($0 * 1000, 86_400_000) }
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
