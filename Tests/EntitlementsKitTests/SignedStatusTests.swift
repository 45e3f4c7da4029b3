import Crypto
import EntitlementClient
import EntitlementDomain
import EntitlementServices
import EntitlementsKit
import EntitlementsKitGRPC
import EntitlementsProto
import Foundation
import Synchronization
import Testing
import TestSupport

/// The SDK with the tenant's status keys pinned, against the real server signing status: what verifies is
/// published and cached in its signed form; forged, altered, another user's or expired statuses are ignored and
/// logged; the cached one stands `offline` while the server cannot be reached, until its validity ends.
@Suite struct SignedStatusTests {
    /// Tenant A of `server` signing status with `keys` (the first signs), valid offline for `hours`.
    static func sign(_ server: EntitlementTestServer, with keys: [(String, P256.PrivateKey)], hours: Int64 = 72) throws {
        let a = server.tenantA
        let tenant = try Tenant(
            id: a.id, publicKeyHashes: [APIKey.hashString(a.publicKey)!], secretKeyHashes: [APIKey.hashString(a.secretKey)!],
            entitlements: EntitlementTestServer.entitlements, products: EntitlementTestServer.products,
            signedStatus: StatusSigningSettings(
                keys: keys.map { StatusSigningSettings.Key(kid: $0.0, privateKey: $0.1) }, offlineValiditySeconds: hours * 3_600))
        server.tenants.replace(with: try TenantDirectory(tenants: [tenant, server.tenantB.tenant]))
    }

    /// A JWKS of the public halves of `keys`, as the server publishes it.
    static func jwks(_ keys: [(String, P256.PrivateKey)], tenant: String = "tenant-a") throws -> StatusKeys {
        let entries = keys.map { kid, key in
            let point = key.publicKey.x963Representation
            return #"{"kty":"EC","crv":"P-256","kid":"\#(kid)","x":"\#(Self.base64url(Array(point[1..<33])))","y":"\#(Self.base64url(Array(point[33...])))"}"#
        }
        return try StatusKeys(tenant: tenant, jwks: Data(#"{"keys":[\#(entries.joined(separator: ","))]}"#.utf8))
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A status signed by the test itself, as the server would sign it.
    static func signed(_ claims: String, kid: String, key: P256.PrivateKey) throws -> String {
        let input = base64url(Array(#"{"alg":"ES256","kid":"\#(kid)","typ":"JWT"}"#.utf8)) + "." + base64url(Array(claims.utf8))
        return input + "." + base64url(try key.signature(for: Array(input.utf8)))
    }

    /// Log lines, to check what was reported.
    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var log: EntitlementsLog { EntitlementsLog(minimumLevel: .debug) { _, line in self.lines.withLock { $0.append(line) } } }
    }

    static func admin(_ server: EntitlementTestServer) throws -> EntitlementClient {
        try EntitlementClient(
            configuration: server.clientConfiguration, apiKey: server.tenantA.secretKey, defaultTimeout: TransportKind.timeout)
    }

    @Test(arguments: TransportKind.allCases)
    func aVerifiedStatusIsPublishedFromItsClaimsAndCachedSigned(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let keys = [("k1", try P256.PrivateKey())]
        try Self.sign(server, with: keys, hours: 5)
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        _ = try await Self.admin(server).grantEntitlement(appUserID: user, entitlementID: "pro", duration: .seconds(3600))
        let entitlements = Entitlements(
            configuration: .init(transport: try kind.make(server), cache: cache, statusKeys: try Self.jwks(keys)))
        let updates = await UpdateRecorder(entitlements)
        await entitlements.start()

        let verified = try await updates.first { $0.snapshot.origin == .server && $0.snapshot.status.isActive("pro") }
        let validUntil = try #require(verified.snapshot.validUntil)
        #expect(abs(validUntil.timeIntervalSinceNow - 5 * 3_600) < 120)
        let cached = try #require(cache.loadStatus(appUserID: user))
        #expect(cached.signedStatus?.isEmpty == false && cached.version == verified.snapshot.version)
        // The next launch takes the cached signed form, verified again.
        let relaunched = Entitlements(
            configuration: .init(transport: try kind.make(server), cache: cache, statusKeys: try Self.jwks(keys)))
        let relaunchedStatus = await relaunched.current
        #expect(relaunchedStatus.origin == .cache && relaunchedStatus.status.isActive("pro"))
        // A live change arrives signed and is taken.
        _ = try await Self.admin(server).grantEntitlement(appUserID: user, entitlementID: "plus", duration: .seconds(3600))
        try await updates.first { $0.snapshot.status.isActive("plus") && $0.snapshot.version > verified.snapshot.version }
    }

    /// What an SDK pinning `pinned` for `pinnedTenant` (by default a key the server does not sign with: a forger's, of
    /// the same kid, for tenant A) makes of tenant A's pro customer's status when the server signs with `serverKeys`
    /// (or not at all): the status it shows, what it cached and its log.
    static func refreshed(
        serverKeys: [(String, P256.PrivateKey)]?, pinned: [(String, P256.PrivateKey)]? = nil, pinnedTenant: String = "tenant-a"
    ) async throws -> (status: EntitlementsKit.SubscriptionStatus, cached: StatusSnapshot?, log: [String]) {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        if let serverKeys { try Self.sign(server, with: serverKeys) }
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        _ = try await Self.admin(server).grantEntitlement(appUserID: user, entitlementID: "pro")
        let lines = LogLines()
        let entitlements = Entitlements(
            configuration: .init(
                transport: try TransportKind.grpc.make(server), cache: cache, log: lines.log,
                statusKeys: try Self.jwks(try pinned ?? [("k1", P256.PrivateKey())], tenant: pinnedTenant)))
        try await entitlements.refresh()
        let status = await entitlements.current.status
        return (status, cache.loadStatus(appUserID: user), lines.all)
    }

    @Test func aStatusSignedWithAKeyTheAppDoesNotPinIsIgnoredAndLogged() async throws {
        let seen = try await Self.refreshed(serverKeys: [("k1", try P256.PrivateKey())])
        #expect(seen.status == .unknown && seen.cached == nil)
        #expect(seen.log.contains { $0.contains("does not verify") })
    }

    /// An operator signing two tenants' statuses with one key: tenant A's "pro" customer does not unlock tenant B's
    /// app for a user of the same ID.
    @Test func aStatusSignedForAnotherTenantIsIgnoredAndLogged() async throws {
        let keys = [("shared", try P256.PrivateKey())]
        let seen = try await Self.refreshed(serverKeys: keys, pinned: keys, pinnedTenant: "tenant-b")
        #expect(seen.status == .unknown && seen.cached == nil)
        #expect(seen.log.contains { $0.contains("signed for tenant tenant-a, not this app's") })
    }

    @Test func anUnsignedStatusIsIgnoredWhenKeysArePinned() async throws {
        let seen = try await Self.refreshed(serverKeys: nil)
        #expect(seen.status == .unknown && seen.cached == nil)
        #expect(seen.log.contains { $0.contains("carries no signed_status") })
    }

    @Test func anAlteredCachedStatusIsDroppedAtLaunch() async throws {
        let key = try P256.PrivateKey()
        let user = "kit-" + UUID().uuidString
        let now = Int64(Date().timeIntervalSince1970)
        let claims = #"{"tenant":"tenant-a","sub":"\#(user)","version":3,"status":{"state":"inactive","entitlements":[]},"iat":\#(now),"exp":\#(now + 3600)}"#
        let genuine = try Self.signed(claims, kid: "k1", key: key)
        // The same signature over claims that now grant "pro".
        let parts = genuine.split(separator: ".")
        let forgedClaims = claims.replacingOccurrences(
            of: #""state":"inactive","entitlements":[]"#,
            with: #""state":"active","entitlements":[{"id":"pro","source":"grant","product_id":"","expires_at":null}]"#)
        let altered = "\(parts[0]).\(Self.base64url(Array(forgedClaims.utf8))).\(parts[2])"
        for (token, expected) in [(genuine, SubscriptionStatus.inactive), (altered, .unknown)] {
            let cache = MemoryStatusCache()
            try cache.saveIdentity(CachedIdentity(appUserID: user))
            try cache.saveStatus(
                StatusSnapshot(
                    appUserID: user, status: .active([Entitlement(id: "pro", source: .grant, productID: "", expiresAt: nil)]),
                    version: 3, origin: .server, receivedAt: Date(), signedStatus: token, validUntil: nil))
            let entitlements = Entitlements(
                configuration: .init(transport: ScriptedTransport(), cache: cache, statusKeys: try Self.jwks([("k1", key)])))
            // The snapshot's own fields are never trusted: only the verified claims.
            #expect(await entitlements.current.status == expected)
        }
    }

    @Test func whileTheServerIsUnreachableTheCachedStatusIsOfflineUntilItsValidityEnds() async throws {
        let key = try P256.PrivateKey()
        let user = "kit-" + UUID().uuidString
        // The SDK's time moves only when the test moves it: a loaded machine cannot make the checks late.
        let clock = ManualClock(milliseconds: Int64(Date().timeIntervalSince1970) * 1000)
        let now = clock.milliseconds / 1000
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let soon = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(now + 25)))
        func claims(exp: Int64, expiresAt: String) -> String {
            #"{"tenant":"tenant-a","sub":"\#(user)","version":7,"status":{"state":"active","entitlements":[{"id":"pro","source":"app_store","product_id":"p","expires_at":null,"will_renew":true},{"id":"plus","source":"grant","product_id":"","expires_at":"\#(expiresAt)"},{"id":"premium","source":"grant","product_id":"","expires_at":"\#(soon)"}]},"iat":\#(now - 60),"exp":\#(exp)}"#
        }
        // Nothing listens on port 1.
        let closed = GRPCWebTransport(baseURL: URL(string: "http://127.0.0.1:1")!, publicKey: "pk_x", timeout: .seconds(5))
        // Valid for 30 more seconds; "plus" expired long ago, "premium" ends in 25.
        let cache = MemoryStatusCache()
        try cache.saveIdentity(CachedIdentity(appUserID: user))
        try cache.saveStatus(
            StatusSnapshot(
                appUserID: user, status: .inactive, version: 7, origin: .server, receivedAt: Date(),
                signedStatus: try Self.signed(claims(exp: now + 30, expiresAt: "2020-01-01T00:00:00.000Z"), kid: "k1", key: key)))
        let entitlements = Entitlements(
            configuration: .init(
                transport: closed, cache: cache, clock: clock.entitlementsClock, statusKeys: try Self.jwks([("k1", key)])))
        let updates = await UpdateRecorder(entitlements)
        await entitlements.start()
        let offline = try await updates.first { $0.snapshot.origin == StatusSnapshot.Origin.offline }
        #expect(offline.snapshot.status.entitlementIDs == ["pro", "premium"] && offline.snapshot.version == 7)
        // Offline, an entitlement still ends when it says, with no server to tell.
        clock.advance(seconds: 26)
        try await updates.first(within: 60) {
            $0.snapshot.origin == StatusSnapshot.Origin.offline && $0.snapshot.status.entitlementIDs == ["pro"]
        }
        clock.advance(seconds: 5)
        try await updates.first(within: 60) { $0.snapshot.status == .unknown && $0.snapshot.version == 0 }
        #expect(await entitlements.current.status == .unknown)

        // Past its validity already at launch: unknown from the start, never the cached "active".
        let stale = MemoryStatusCache()
        try stale.saveIdentity(CachedIdentity(appUserID: user))
        try stale.saveStatus(
            StatusSnapshot(
                appUserID: user, status: .inactive, version: 7, origin: .server, receivedAt: Date(),
                signedStatus: try Self.signed(claims(exp: now - 1, expiresAt: "2030-01-01T00:00:00.000Z"), kid: "k1", key: key)))
        let late = Entitlements(
            configuration: .init(
                transport: closed, cache: stale, clock: clock.entitlementsClock, statusKeys: try Self.jwks([("k1", key)])))
        #expect(await late.current.status == .unknown)
    }

    @Test func anOlderSignedStatusReplayedIsIgnoredButOneSignedLaterIsTaken() async throws {
        let key = try P256.PrivateKey()
        let now = Int64(Date().timeIntervalSince1970)
        func customer(version: UInt64, active: [String], signedAt: Int64) throws -> CustomerStatus {
            let entitlements = active.map { #"{"id":"\#($0)","source":"grant","product_id":"","expires_at":null}"# }
            let claims = #"{"tenant":"tenant-a","sub":"u","version":\#(version),"status":{"state":"\#(active.isEmpty ? "inactive" : "active")","entitlements":[\#(entitlements.joined(separator: ","))]},"iat":\#(signedAt),"exp":\#(signedAt + 3600)}"#
            var status = ScriptedTransport.customer(version: version, active: active)
            status.signedStatus = try Self.signed(claims, kid: "k1", key: key)
            return status
        }
        // The device holds version 8 (refunded: nothing active), signed 10 s ago.
        let cache = MemoryStatusCache()
        try cache.saveIdentity(CachedIdentity(appUserID: "u"))
        try cache.saveStatus(
            StatusSnapshot(
                appUserID: "u", status: .inactive, version: 8, origin: .server, receivedAt: Date(),
                signedStatus: try customer(version: 8, active: [], signedAt: now - 10).signedStatus))
        let transport = ScriptedTransport()
        // A proxy replays version 7, genuinely signed before it, when "pro" was active.
        transport.state.withLock { $0.status = try! customer(version: 7, active: ["pro"], signedAt: now - 100) }
        let lines = LogLines()
        let entitlements = Entitlements(
            configuration: .init(transport: transport, cache: cache, log: lines.log, statusKeys: try Self.jwks([("k1", key)])))
        try await entitlements.refresh()
        let held = await entitlements.current
        #expect(held.version == 8 && held.status == .inactive && held.origin == .cache)
        #expect(lines.all.contains { $0.contains("replayed") })
        // A server whose database went back signs its lower version anew: taken.
        transport.state.withLock { $0.status = try! customer(version: 7, active: ["pro"], signedAt: now) }
        try await entitlements.refresh()
        let taken = await entitlements.current
        #expect(taken.version == 7 && taken.status.isActive("pro"))
    }

    @Test func aRotatedKeyVerifiesWhenTheAppPinsBoth() async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let (old, new) = (("2026-12", try P256.PrivateKey()), ("2027-06", try P256.PrivateKey()))
        try Self.sign(server, with: [old, new])
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        let admin = try Self.admin(server)
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "pro")
        let entitlements = Entitlements(
            configuration: .init(
                transport: try TransportKind.grpc.make(server), cache: cache, statusKeys: try Self.jwks([old, new])))
        try await entitlements.refresh()
        #expect(await entitlements.current.status.isActive("pro"))
        // The new key signs from now on.
        try Self.sign(server, with: [new, old])
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "plus")
        try await entitlements.refresh()
        #expect(await entitlements.current.status.isActive("plus"))
        #expect(cache.loadStatus(appUserID: user)?.signedStatus?.isEmpty == false)
    }
}
