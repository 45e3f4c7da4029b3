import CivilCalendar
import Crypto
import JOSE
import OutboundHTTP
@testable import SigningKeys
import Synchronization
import TestSupport
import Testing

/// A JWKS server whose key set and Cache-Control the test changes.
private final class KeyServer: Sendable {
    let server: ScriptedHTTPServer
    private final class Published: Sendable {
        let state: Mutex<(keys: [String: RSA.PublicKey], cacheControl: String?, status: Int)>
        init(_ keys: [String: RSA.PublicKey], _ cacheControl: String?) { state = Mutex((keys, cacheControl, 200)) }
    }

    private let published: Published

    init(_ keys: [String: RSA.PublicKey], cacheControl: String? = "public, max-age=19800, must-revalidate, no-transform") throws {
        let published = Published(keys, cacheControl)
        self.published = published
        server = try ScriptedHTTPServer { _ in
            let (keys, cacheControl, status) = published.state.withLock { $0 }
            guard status == 200 else { return .status(status) }
            let headers = [("Content-Type", "application/json; charset=UTF-8")] + (cacheControl.map { [("Cache-Control", $0)] } ?? [])
            return .status(200, String(decoding: JSONWebKeySet(keys: keys).jsonRepresentation, as: UTF8.self), headers: headers)
        }
    }

    func publish(_ keys: [String: RSA.PublicKey]) { published.state.withLock { $0.keys = keys } }
    func answer(_ status: Int) { published.state.withLock { $0.status = status } }
    var fetches: Int { server.requests.count }

    func keys(clock: ManualClock, retry: RetryPolicy = .once) throws -> PublishedKeySet {
        PublishedKeySet(
            url: OutboundURL(server.baseURL + "/oauth2/v3/certs")!,
            http: try OutboundHTTPClient(configuration: .init(attemptTimeout: .seconds(5), retry: retry)),
            target: .googleSigningKeys, clock: { clock.milliseconds })
    }
}

/// Signing keys from a scripted JWKS URL (Google's, in shape): cached for its max-age, fetched again once for a `kid` not
/// seen, and never hammered for forged ones.
@Suite struct PublishedKeySetTests {
    static let first = keyPair().publicKey
    static let second = keyPair().publicKey

    private static func keyPair() -> RSA.PrivateKey {
        do {
            return try RSA.PrivateKey()
        } catch {
            fatalError("RSA.PrivateKey(): \(error)")
        }
    }

    @Test func theSetIsFetchedOnceAndCached() async throws {
        let server = try KeyServer(["k1": Self.first, "k2": Self.second])
        let keys = try server.keys(clock: ManualClock())
        #expect(try await keys.key(id: "k1").get() == Self.first)
        #expect(try await keys.key(id: "k2").get() == Self.second)
        #expect(try await keys.key(id: "k1").get() == Self.first)
        #expect(server.fetches == 1)
        #expect(server.server.requests.first?.target == "/oauth2/v3/certs")
        #expect(server.server.requests.first?.headers["accept"] == "application/json")
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let server = try KeyServer(["k1": Self.first])
        let keys = try server.keys(clock: ManualClock())
        let found = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 { group.addTask { (try? await keys.key(id: "k1").get()) == Self.first } }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(found == 20)
        #expect(server.fetches == 1)
    }

    /// Google unreachable: keys it published still verify for a day past their cache lifetime, then no more.
    @Test func staleKeysServeForADayWhileGoogleCannotBeAsked() async throws {
        let server = try KeyServer(["k1": Self.first], cacheControl: "max-age=100")
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        server.answer(503)
        clock.advance(seconds: 100 + Seconds.perDay - 1)
        #expect(try await keys.key(id: "k1").get() == Self.first)
        clock.advance(seconds: 2)
        guard case .failure(let error) = await keys.key(id: "k1") else {
            Issue.record("a key past its day of grace verified")
            return
        }
        #expect(error.code == .unavailable)
    }

    /// Each caller during an outage is answered at once: stale keys while their day lasts, `.unavailable` for a `kid`
    /// not held, and Google asked again only after a wait doubling from a second to a minute.
    @Test func duringAnOutageGoogleIsAskedAfterAGrowingWaitNotOncePerCaller() async throws {
        let server = try KeyServer(["k1": Self.first], cacheControl: "max-age=100")
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        server.answer(503)
        clock.advance(seconds: 101)
        var fetches = 1
        for wait in [1, 2, 4, 8, 16, 32, 60, 60] {
            #expect(try await keys.key(id: "k1").get() == Self.first)
            fetches += 1
            #expect(server.fetches == fetches, "one fetch when the wait is over")
            for _ in 0..<3 {
                clock.advance(milliseconds: Int64(wait) * 1000 / 4)
                #expect(keys.fresh(containing: "k1") != nil, "a stale key is served without waiting")
                #expect(try await keys.key(id: "k1").get() == Self.first)
                await #expect(throws: PublishedKeySetError(.unavailable, "")) { try await keys.key(id: "k2").get() }
            }
            #expect(server.fetches == fetches, "no fetch within \(wait) s of the last failure")
            clock.advance(milliseconds: Int64(wait) * 1000 / 4)
        }
        // Google back: the next fetch succeeds, and the waits start again from a second after a later failure.
        server.publish(["k1": Self.first, "k2": Self.second])
        server.answer(200)
        #expect(try await keys.key(id: "k2").get() == Self.second)
        server.answer(503)
        clock.advance(seconds: 101)
        _ = try await keys.key(id: "k1").get()
        let afterFailure = server.fetches
        clock.advance(seconds: 1)
        _ = try await keys.key(id: "k1").get()
        #expect(server.fetches == afterFailure + 1)
    }

    @Test func cacheControlMaxAgeIsHonoured() async throws {
        let server = try KeyServer(["k1": Self.first], cacheControl: "public, max-age=100, must-revalidate")
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        clock.advance(seconds: 99, milliseconds: 999)
        _ = try await keys.key(id: "k1").get()
        #expect(server.fetches == 1)
        clock.advance(milliseconds: 1)
        // Stale: fetched again, and Google's rotation is seen.
        server.publish(["k1": Self.second])
        #expect(try await keys.key(id: "k1").get() == Self.second)
        #expect(server.fetches == 2)
    }

    @Test func withoutMaxAgeTheSetIsKeptAnHourAndNeverMoreThanADay() async throws {
        let clock = ManualClock()
        let plain = try KeyServer(["k1": Self.first], cacheControl: nil)
        let keys = try plain.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        clock.advance(seconds: Seconds.perHour - 1)
        _ = try await keys.key(id: "k1").get()
        #expect(plain.fetches == 1)
        clock.advance(seconds: 1)
        _ = try await keys.key(id: "k1").get()
        #expect(plain.fetches == 2)

        for maxAge in ["31536000", "9223372036854775807"] {
            let forever = try KeyServer(["k1": Self.first], cacheControl: "max-age=" + maxAge)
            let capped = try forever.keys(clock: clock)
            _ = try await capped.key(id: "k1").get()
            clock.advance(seconds: Seconds.perDay - 1)
            _ = try await capped.key(id: "k1").get()
            #expect(forever.fetches == 1, "max-age=\(maxAge)")
            clock.advance(seconds: 1)
            _ = try await capped.key(id: "k1").get()
            #expect(forever.fetches == 2, "max-age=\(maxAge)")
        }
    }

    @Test func maxAgeIsReadFromAnyCacheControlValue() {
        #expect(PublishedKeySet.maxAge("public, max-age=19800, must-revalidate, no-transform") == 19800)
        #expect(PublishedKeySet.maxAge("MAX-AGE=5") == 5)
        #expect(PublishedKeySet.maxAge("max-age=0") == 0)
        for value in [nil, "", "no-cache", "max-age", "max-age=", "max-age=-1", "max-age=soon", "s-maxage=60"] {
            #expect(PublishedKeySet.maxAge(value) == nil, "\(value ?? "nil")")
        }
    }

    @Test func anUnknownKidIsFetchedForExactlyOnceThenRefused() async throws {
        let server = try KeyServer(["k1": Self.first])
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        clock.advance(seconds: 2)
        // Google rotated in a new key: the fetch for it finds it.
        server.publish(["k1": Self.first, "k2": Self.second])
        #expect(try await keys.key(id: "k2").get() == Self.second)
        #expect(server.fetches == 2)
        clock.advance(seconds: 2)
        let missing = await keys.key(id: "forged")
        #expect(server.fetches == 3)
        guard case .failure(let error) = missing else {
            Issue.record("a kid Google does not publish was found")
            return
        }
        #expect(error.code == .notFound)
    }

    @Test func theSameUnknownKidWithinAMinuteIsRefusedWithoutAskingGoogle() async throws {
        let server = try KeyServer(["k1": Self.first])
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        clock.advance(seconds: 2)
        await #expect(throws: PublishedKeySetError(.notFound, "")) { try await keys.key(id: "forged").get() }
        #expect(server.fetches == 2)
        for _ in 0..<5 {
            clock.advance(seconds: 10)
            _ = await keys.key(id: "forged")
        }
        #expect(server.fetches == 2)
        clock.advance(seconds: 10)
        _ = await keys.key(id: "forged")
        #expect(server.fetches == 3, "a minute later Google is asked again")
    }

    @Test func unknownKidsWithinASecondOfAFetchAreRefusedWithoutAskingGoogle() async throws {
        let server = try KeyServer(["k1": Self.first])
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        for number in 0..<10 {
            clock.advance(milliseconds: 50)
            _ = await keys.key(id: "forged-\(number)")
        }
        #expect(server.fetches == 1)
    }

    @Test func kidsFoundUnknownStayRefusedWhenAnotherKidMakesAFetch() async throws {
        let server = try KeyServer(["k1": Self.first])
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        _ = try await keys.key(id: "k1").get()
        // Forged kids taking turns, each more than a second after the last fetch: each is fetched for once a minute.
        for round in 0..<3 {
            for kid in ["forged-a", "forged-b"] {
                clock.advance(seconds: 2)
                _ = await keys.key(id: kid)
            }
            #expect(server.fetches == 3, "round \(round)")
        }
    }

    @Test func aFailedFetchIsUnavailableNotARefusalOfTheKid() async throws {
        let server = try KeyServer(["k1": Self.first])
        server.answer(503)
        let clock = ManualClock()
        let keys = try server.keys(clock: clock)
        await #expect(throws: PublishedKeySetError(.unavailable, "")) { try await keys.key(id: "k1").get() }
        // Once Google answers again, the key is found (the failure was not remembered as an unknown kid).
        server.answer(200)
        clock.advance(seconds: 1)
        #expect(try await keys.key(id: "k1").get() == Self.first)

        let unreachable = try KeyServer(["k1": Self.first])
        unreachable.server.stop()
        await #expect(throws: PublishedKeySetError(.unavailable, "")) { try await unreachable.keys(clock: ManualClock()).key(id: "k1").get() }
    }

    @Test func somethingThatIsNotAJWKSIsABadResponse() async throws {
        let server = try ScriptedHTTPServer { _ in .status(200, #"{"keys": [{"kty": "RSA", "kid": "k1"}]}"#) }
        let keys = PublishedKeySet(
            url: OutboundURL(server.baseURL + "/certs")!, http: try OutboundHTTPClient(configuration: .init(retry: .once)),
            target: .googleSigningKeys, clock: { ManualClock().milliseconds })
        await #expect(throws: PublishedKeySetError(.badResponse, "")) { try await keys.key(id: "k1").get() }
    }

    @Test func aFixedSetIsNeverFetched() async throws {
        let keys = PublishedKeySet(fixed: JSONWebKeySet(keys: ["k1": Self.first]))
        #expect(try await keys.key(id: "k1").get() == Self.first)
        await #expect(throws: PublishedKeySetError(.notFound, "")) { try await keys.key(id: "k2").get() }
    }
}
