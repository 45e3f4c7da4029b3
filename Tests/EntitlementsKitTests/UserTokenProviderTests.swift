import Crypto
import EntitlementClient
import EntitlementDomain
import EntitlementServices
import EntitlementsKit
import EntitlementsProto
import Foundation
import Synchronization
import Testing
import TestSupport

/// The SDK's user tokens against the real server with a tenant that requires them: the provider is asked when a token
/// is missing, near its expiry or refused; the stream the server ends at the token's expiry is reopened with a fresh
/// one and nothing is lost; no token reaches the log.
@Suite struct UserTokenProviderTests {
    static let secret = "a-user-token-secret-of-at-least-32-bytes"
    static let issuer = "https://auth.kit.example"

    /// Tenant A of `server` requiring HS256 user tokens.
    static func requireTokens(_ server: EntitlementTestServer) throws {
        let a = server.tenantA
        let tenant = try Tenant(
            id: a.id, publicKeyHashes: [APIKey.hashString(a.publicKey)!], secretKeyHashes: [APIKey.hashString(a.secretKey)!],
            entitlements: EntitlementTestServer.entitlements, products: EntitlementTestServer.products,
            userTokens: UserTokenSettings(
                mode: .required, issuer: issuer, maxLifetimeSeconds: 3_600, hs256Secrets: [Array(secret.utf8)],
                keySource: nil, allowsAnonymous: false))
        server.tenants.replace(with: try TenantDirectory(tenants: [tenant, server.tenantB.tenant]))
    }

    /// An HS256 token for `user` (the tenant's backend's job), valid for `seconds`.
    static func token(for user: String, seconds: Int64) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = #"{"sub":"\#(user)","aud":"tenant-a","iss":"\#(issuer)","iat":\#(now),"exp":\#(now + seconds)}"#
        let input = SignedStatusTests.base64url(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "."
            + SignedStatusTests.base64url(Array(claims.utf8))
        let mac = HMACSHA256.authenticationCode(for: Array(input.utf8), key: Array(secret.utf8))
        return input + "." + SignedStatusTests.base64url(mac)
    }

    /// A provider that counts its calls and answers what `make` gives for the call's number.
    final class CountingProvider: Sendable {
        private let count = Mutex(0)
        let issued = Mutex<[String]>([])
        var calls: Int { count.withLock { $0 } }

        func provider(_ make: @escaping @Sendable (Int) -> String) -> UserTokenProvider {
            UserTokenProvider { [self] _ in
                let number = count.withLock { count in
                    count += 1
                    return count
                }
                let token = make(number)
                issued.withLock { $0.append(token) }
                return token
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func callsCarryTheProvidersTokenAndARefusedOneIsReplacedOnce(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        try Self.requireTokens(server)
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        _ = try await SignedStatusTests.admin(server).grantEntitlement(appUserID: user, entitlementID: "pro")
        // Without a token the tenant refuses the call.
        let bare = Entitlements(configuration: .init(transport: try kind.make(server), cache: cache))
        await #expect(throws: EntitlementsError.self) { try await bare.refresh() }

        // The first token names another user: refused, and the provider is asked again.
        let counting = CountingProvider()
        let tokens = counting.provider { number in Self.token(for: number == 1 ? "someone-else" : user, seconds: 600) }
        let lines = SignedStatusTests.LogLines()
        let entitlements = Entitlements(
            configuration: .init(transport: try kind.make(server, userTokens: tokens), cache: cache, log: lines.log))
        try await entitlements.refresh()
        #expect(await entitlements.current.status.isActive("pro"))
        #expect(counting.calls == 2)
        // A token that is not near its expiry is reused.
        try await entitlements.refresh()
        #expect(counting.calls == 2)
        let issued = counting.issued.withLock { $0 }
        #expect(!lines.all.contains { line in issued.contains { line.contains($0) } })
    }

    @Test func aStreamEndedAtItsTokensExpiryIsReopenedWithAFreshTokenAndLosesNothing() async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        try Self.requireTokens(server)
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        let admin = try SignedStatusTests.admin(server)
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "pro")
        // Each token lasts 2 s (the server ends the stream 5 s after); the provider's margin would ask for a new one
        // at once, so the SDK fetches per call and the stream keeps the token it opened with.
        let counting = CountingProvider()
        let tokens = counting.provider { _ in Self.token(for: user, seconds: 2) }
        let transport = RecordingTransport(try TransportKind.grpc.make(server, userTokens: tokens))
        let entitlements = Entitlements(configuration: .init(transport: transport, cache: cache))
        let updates = await UpdateRecorder(entitlements)
        await entitlements.start()
        try await updates.first { $0.snapshot.origin == .server && $0.snapshot.status.isActive("pro") }
        try await eventually { transport.afterVersions.count >= 1 }
        try await eventually(within: 30) { transport.afterVersions.count >= 2 }
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "plus")
        try await updates.first { $0.snapshot.status.isActive("plus") }
        // The reopened stream resumed from the version the first one had reached.
        let afterVersions = transport.afterVersions
        #expect(afterVersions[1] >= afterVersions[0] && afterVersions[1] > 0)
    }
}
