import CivilCalendar
public import Crypto
import Foundation
import HTTP1
public import JOSE
public import OutboundHTTP
import Synchronization

/// A JSON Web Key Set published at a URL (Google's token signing keys at https://www.googleapis.com/oauth2/v3/certs, a
/// tenant backend's user-token keys), by `kid`: kept for the time its `Cache-Control: max-age` allows, fetched again
/// at once for a `kid` not seen (publishers rotate keys). A `kid` still unknown after that is refused without asking
/// again for a minute, and fetches are a second apart at least, so forged `kid`s cannot make us hammer the publisher.
/// While the publisher cannot be reached, the keys it published last keep verifying for a day, and it is asked again
/// after a wait that doubles with each failure (up to a minute), so callers are not held by one failing fetch each.
/// Or a fixed set (a key file).
public final class PublishedKeySet: Sendable {
    static let minimumRefetchInterval: Int64 = 1_000
    static let unknownKeyMemory = Milliseconds.perMinute
    static let defaultLifetime = Milliseconds.perHour
    static let staleKeyGrace = Milliseconds.perDay
    static let longestRetryWait = Milliseconds.perMinute

    private struct Cached {
        var keys: JSONWebKeySet
        var fetchedAt: Int64
        var expiresAt: Int64
        /// `kid`s asked for and not in the set fetched after they were asked for, with when.
        var unknown: [String: Int64] = [:]

        func servesStale(_ id: String, at now: Int64) -> Bool {
            keys.has(id) && now - expiresAt < PublishedKeySet.staleKeyGrace
        }
    }

    /// The fetches failed in a row since the last that succeeded: no other before `retryAt`.
    private struct Failures {
        var error: PublishedKeySetError
        var count: Int
        var retryAt: Int64
    }

    private struct State {
        var cached: Cached?
        var failures: Failures?
    }

    /// Where the set is fetched from, and the outbound metrics' label for the fetches; nil for a fixed set.
    private let publisher: (url: OutboundURL, http: OutboundHTTPClient, target: OutboundTarget)?
    private let clock: @Sendable () -> Int64
    private let state: Mutex<State>
    /// One fetch at a time; others wait for its keys.
    private let fetching = Mutex<Task<PublishedKeySetError?, Never>?>(nil)

    /// Keys fetched from `url`.
    public init(url: OutboundURL, http: OutboundHTTPClient, target: OutboundTarget, clock: @escaping @Sendable () -> Int64) {
        publisher = (url, http, target)
        self.clock = clock
        state = Mutex(State())
    }

    /// A fixed set of keys (a JWKS file's), never refreshed.
    public init(fixed keys: JSONWebKeySet) {
        publisher = nil
        clock = { 0 }
        state = Mutex(State(cached: Cached(keys: keys, fetchedAt: 0, expiresAt: .max)))
    }

    /// The RS256 key with this `kid` (``keySet(containing:)``).
    public func key(id: String) async -> Result<RSA.PublicKey, PublishedKeySetError> {
        await keySet(containing: id).flatMap { set in
            set.keys[id].map { .success($0) } ?? .failure(PublishedKeySetError(.notFound, "the key with kid '\(id)' is not an RS256 key"))
        }
    }

    /// Whether the set is fetched from a URL (and may hold a `kid` it lacks now once fetched again), not fixed.
    public var isFetched: Bool { publisher != nil }

    /// The set when it holds a key with this `kid` and may be used without waiting: fresh, or stale while the
    /// publisher is failing and not to be asked yet. nil when ``keySet(containing:)`` must be asked (and may fetch).
    public func fresh(containing id: String) -> JSONWebKeySet? {
        let now = clock()
        return state.withLock { state in
            guard let cached = state.cached, cached.keys.has(id) else { return nil }
            if cached.expiresAt > now { return cached.keys }
            if let failures = state.failures, now < failures.retryAt, cached.servesStale(id, at: now) { return cached.keys }
            return nil
        }
    }

    /// The set, holding a key with this `kid`: fetched again when it is stale or lacks the `kid`. `.notFound` when the
    /// publisher has no such key; `.unavailable` or `.badResponse` when the set could not be fetched.
    public func keySet(containing id: String) async -> Result<JSONWebKeySet, PublishedKeySetError> {
        if let keys = fresh(containing: id) { return .success(keys) }
        guard let source = publisher?.url else {
            return .failure(PublishedKeySetError(.notFound, "no signing key has kid '\(id)'"))
        }
        let now = clock()
        let notFound = PublishedKeySetError(.notFound, "the key set at \(source) has no key with kid '\(id)'")
        let known = state.withLock { $0 }
        if let failures = known.failures, now < failures.retryAt { return .failure(failures.error) }
        if let cached = known.cached, cached.expiresAt > now,
            now - cached.fetchedAt < Self.minimumRefetchInterval
                || cached.unknown[id].map({ now - $0 < Self.unknownKeyMemory }) ?? false
        {
            return .failure(notFound)
        }
        let error = await refresh()
        let keys: JSONWebKeySet? = state.withLock { state in
            guard var cached = state.cached else { return nil }
            if cached.keys.has(id), error == nil || cached.servesStale(id, at: now) { return cached.keys }
            if error == nil, cached.unknown.count < 1000 {
                cached.unknown[id] = now
                state.cached = cached
            }
            return nil
        }
        if let keys { return .success(keys) }
        return .failure(error ?? notFound)
    }

    /// Fetches the set once, however many callers ask at the same time; the error when it failed.
    private func refresh() async -> PublishedKeySetError? {
        let task = fetching.withLock { current in
            if let current { return current }
            let task = Task { () -> PublishedKeySetError? in
                let startedAt = self.clock()
                do throws(PublishedKeySetError) {
                    var fetched = try await self.fetch()
                    self.state.withLock { state in
                        // A kid found unknown stays refused for its minute across fetches: otherwise forged kids
                        // taking turns would each make a fetch (one a second) instead of one a minute each.
                        if let unknown = state.cached?.unknown {
                            fetched.unknown = unknown.filter {
                                !fetched.keys.has($0.key) && fetched.fetchedAt - $0.value < Self.unknownKeyMemory
                            }
                        }
                        state = State(cached: fetched)
                    }
                    return nil
                } catch {
                    self.state.withLock { state in
                        let count = (state.failures?.count ?? 0) + 1
                        // 1 s, 2 s, 4 s … a minute after this fetch began; the shift stays far below overflow.
                        let wait = min(Self.minimumRefetchInterval << min(count - 1, 16), Self.longestRetryWait)
                        state.failures = Failures(error: error, count: count, retryAt: startedAt + wait)
                    }
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

    private func fetch() async throws(PublishedKeySetError) -> Cached {
        guard let (source, http, target) = publisher else { throw PublishedKeySetError(.unavailable, "no JWKS URL") }
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await http.send("GET", source, headers: ["Accept": "application/json"], for: target)
        } catch {
            throw PublishedKeySetError(.unavailable, "cannot fetch the signing keys at \(source): \(error.message)")
        }
        guard answer.response.status == 200 else {
            throw PublishedKeySetError(.unavailable, "the signing keys at \(source) answered \(answer.response.status)")
        }
        let keys: JSONWebKeySet
        do {
            keys = try JSONWebKeySet(json: answer.response.body)
        } catch {
            http.answerUnreadable(target)
            throw PublishedKeySetError(.badResponse, "the signing keys at \(source) are not a JWKS: \(error.message)")
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
