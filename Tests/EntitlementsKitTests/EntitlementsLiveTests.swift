import EntitlementClient
import EntitlementsKit
import EntitlementsProto
import Foundation
import Testing
import TestSupport

/// The SDK against the real server over loopback, over each transport.
@Suite struct EntitlementsLiveTests {
    static func admin(_ server: EntitlementTestServer) throws -> EntitlementClient {
        try EntitlementClient(
            configuration: server.clientConfiguration, apiKey: server.tenantA.secretKey, defaultTimeout: TransportKind.timeout)
    }

    /// A new user, and a cache that knows them already (as after an earlier run of the app).
    static func returningUser() throws -> (appUserID: String, cache: MemoryStatusCache) {
        let user = "kit-" + UUID().uuidString
        let cache = MemoryStatusCache()
        try cache.saveIdentity(CachedIdentity(appUserID: user))
        return (user, cache)
    }

    @Test(arguments: TransportKind.allCases)
    func theCachedStatusComesFirstThenTheServersThenGrantsRevokesAndExpiriesArePushed(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let admin = try Self.admin(server)
        let (user, cache) = try Self.returningUser()
        try cache.saveStatus(StatusSnapshot(appUserID: user, status: .inactive, version: 0, origin: .server, receivedAt: Date()))
        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server), cache: cache))
        let updates = await UpdateRecorder(entitlements)
        await entitlements.start()

        let first = try #require(updates.all.first)
        #expect(first.snapshot.origin == .cache && first.snapshot.status == .inactive && first.change == nil)
        try await updates.first { $0.snapshot.origin == .server && $0.snapshot.status == .inactive }

        let grant = try await admin.grantEntitlement(appUserID: user, entitlementID: "pro", duration: .seconds(3600))
        let granted = try await updates.first { $0.snapshot.status.isActive("pro") }
        #expect(granted.change == .entitlements && granted.snapshot.status.entitlements.first?.source == .grant)
        #expect(granted.snapshot.status.entitlements.first?.expiresAt != nil)
        #expect(cache.loadStatus(appUserID: user)?.version == granted.snapshot.version)

        _ = try await admin.revokeGrant(grantID: grant.grantID, reason: "test")
        let revoked = try await updates.first { $0.snapshot.version > granted.snapshot.version }
        #expect(revoked.change == .entitlements && revoked.snapshot.status == .inactive)

        // A grant that runs out: the server's expiry reaches the device with no call from it.
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "plus", duration: .seconds(2))
        let plus = try await updates.first { $0.snapshot.status.isActive("plus") }
        let expired = try await updates.first(within: 60) { $0.snapshot.version > plus.snapshot.version }
        #expect(expired.snapshot.status == .inactive && expired.change == .entitlements)
        #expect(await entitlements.streamsOpened == 1)
        // Versions only grow.
        let versions = updates.all.filter { $0.snapshot.origin == .server }.map(\.snapshot.version)
        #expect(versions == versions.sorted() && Set(versions).count == versions.count)
    }

    @Test(arguments: TransportKind.allCases)
    func aRestartedServerIsResumedFromTheLastVersionWithNothingLostOrRepeated(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let admin = try Self.admin(server)
        let (user, cache) = try Self.returningUser()
        let sleeps = GatedSleeps()
        let transport = RecordingTransport(try kind.make(server))
        let entitlements = Entitlements(configuration: .init(transport: transport, cache: cache, clock: sleeps.clock))
        let updates = await UpdateRecorder(entitlements)
        await entitlements.start()
        let pro = try await admin.grantEntitlement(appUserID: user, entitlementID: "pro")
        let before = try await updates.first { $0.snapshot.status.isActive("pro") }

        try await server.restart()
        // The stream dropped and the SDK waits to reconnect; meanwhile two changes are committed.
        try await eventually { !sleeps.waits.isEmpty }
        let admin2 = try Self.admin(server)
        _ = try await admin2.grantEntitlement(appUserID: user, entitlementID: "plus")
        _ = try await admin2.revokeGrant(grantID: pro.grantID)
        sleeps.open()

        let after = try await updates.first { $0.snapshot.status.isActive("plus") && !$0.snapshot.status.isActive("pro") }
        #expect(after.snapshot.version == before.snapshot.version + 2)
        #expect(transport.afterVersions.count >= 2)
        #expect(transport.afterVersions.contains(before.snapshot.version))
        // Each version once, in order: the resumed stream replayed what happened while it was down.
        let versions = updates.all.filter { $0.snapshot.origin == .server }.map(\.snapshot.version)
        #expect(versions == versions.sorted() && Set(versions).count == versions.count)
        #expect(versions.contains(before.snapshot.version + 1))
    }

    @Test(arguments: TransportKind.allCases)
    func identifyMergesTheAnonymousCustomerAndLogOutStartsAFreshOne(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let admin = try Self.admin(server)
        let cache = MemoryStatusCache()
        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server), cache: cache))
        let anonymous = await entitlements.appUserID
        #expect(AnonymousID.isAnonymous(anonymous) && UUID(uuidString: String(anonymous.dropFirst(6))) != nil)
        #expect(cache.loadIdentity()?.appUserID == anonymous)
        let updates = await UpdateRecorder(entitlements)
        await entitlements.start()
        #expect(await entitlements.appAccountToken != nil)
        _ = try await admin.grantEntitlement(appUserID: anonymous, entitlementID: "pro")
        try await updates.first { $0.snapshot.status.isActive("pro") }

        let account = "alice-" + UUID().uuidString
        let identified = try await entitlements.identify(account)
        #expect(identified.merged)
        #expect(await entitlements.appUserID == account && cache.loadIdentity()?.appUserID == account)
        #expect(await entitlements.current.status.isActive("pro"))
        let customer = try await admin.getCustomer(appUserID: account)
        #expect(customer.aliases.contains(anonymous))
        // The token the server gives the account, cached for StoreKit's appAccountToken.
        let token = try await admin.identify(appUserID: account).appAccountToken
        #expect(await entitlements.appAccountToken?.uuidString.lowercased() == token)
        // The stream now follows the account.
        _ = try await admin.grantEntitlement(appUserID: account, entitlementID: "plus")
        try await updates.first { $0.snapshot.appUserID == account && $0.snapshot.status.isActive("plus") }

        try await entitlements.logOut()
        let fresh = await entitlements.appUserID
        #expect(AnonymousID.isAnonymous(fresh) && fresh != anonymous)
        #expect(await entitlements.current.status == .inactive)
        #expect(await entitlements.appAccountToken != UUID(uuidString: token))
        _ = try await admin.grantEntitlement(appUserID: fresh, entitlementID: "plus")
        try await updates.first { $0.snapshot.appUserID == fresh && $0.snapshot.status.isActive("plus") }
    }

    @Test(arguments: TransportKind.allCases)
    func manyObserversShareOneStream(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let admin = try Self.admin(server)
        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server)))
        var recorders: [UpdateRecorder] = []
        for _ in 0..<20 { recorders.append(await UpdateRecorder(entitlements)) }
        await entitlements.start()
        _ = try await admin.grantEntitlement(appUserID: await entitlements.appUserID, entitlementID: "plus")
        for recorder in recorders { try await recorder.first { $0.snapshot.status.isActive("plus") } }
        #expect(await entitlements.streamsOpened == 1)
    }

    @Test(arguments: TransportKind.allCases)
    func statusAtLeastWaitsForTheStreamOrAsksTheServer(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let admin = try Self.admin(server)
        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server)))
        await entitlements.start()
        let user = await entitlements.appUserID
        // No stream open: it asks the server.
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "pro")
        let version = try #require(try await admin.getCustomer(appUserID: user).customer?.version)
        let caughtUp = try await entitlements.status(atLeast: version)
        #expect(caughtUp.version == version && caughtUp.status.isActive("pro"))
        // A stream open: it waits for the event.
        let updates = await UpdateRecorder(entitlements)
        try await updates.first { $0.snapshot.origin == .server }
        async let waited = entitlements.status(atLeast: version + 1, timeout: .seconds(60))
        try await Task.sleep(for: .milliseconds(100))  // let the wait begin before the change
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "plus")
        let next = try await waited
        #expect(next.version == version + 1 && next.status.isActive("plus"))
    }

    @Test func theCacheFileSurvivesARestartOfTheClient() async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let admin = try Self.admin(server)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }

        var first: Entitlements? = Entitlements(
            configuration: .init(transport: try TransportKind.grpc.make(server), cache: FileStatusCache(directory: directory)))
        let user = try #require(await first?.appUserID)
        await first?.start()
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "pro")
        let granted = try #require(try await first?.refresh())
        first = nil

        // The next run, offline: a server nobody listens on.
        let offline = GRPCWebTransport(baseURL: URL(string: "http://127.0.0.1:1")!, publicKey: server.tenantA.publicKey)
        let second = Entitlements(configuration: .init(transport: offline, cache: FileStatusCache(directory: directory)))
        #expect(await second.appUserID == user)
        let cached = await second.current
        #expect(cached.origin == .cache && cached.version == granted.version && cached.status.isActive("pro"))
        #expect(cached.age() >= 0 && cached.age() < 60)
        await #expect(throws: EntitlementsError.self) { try await second.refresh() }
        #expect(await second.current.origin == .cache)
    }

    @Test(arguments: TransportKind.allCases)
    func errorsCarryTheCodeTheServersMessageAndWhatToDo(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let wrongKey = Entitlements(configuration: .init(transport: try kind.make(server, publicKey: "pk_nope")))
        let error = try #require(await #expect(throws: EntitlementsError.self) { try await wrongKey.refresh() })
        #expect(error.code == .unauthenticated && error.recovery == .checkConfiguration && !error.message.isEmpty)
        #expect(!error.message.contains("pk_nope"))

        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server)))
        let redeem = try #require(await #expect(throws: EntitlementsError.self) {
            try await entitlements.redeemWebPurchase(code: "NOT-A-CODE")
        })
        #expect([.invalidArgument, .notFound, .failedPrecondition].contains(redeem.code) && redeem.recovery == .fixRequest)
    }
}
