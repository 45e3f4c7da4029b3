import EntitlementsKit
import Foundation
import Testing

@Suite struct StatusCacheTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("entitlementskit-\(UUID().uuidString)")
    }

    static let snapshot = StatusSnapshot(
        appUserID: "用户/../😀 a", status: .active([Entitlement(id: "pro", source: .appStore, productID: "monthly",
                                                              expiresAt: Date(timeIntervalSince1970: 1_800_000_000))]),
        version: 7, origin: .server, receivedAt: Date(timeIntervalSince1970: 1_790_000_000))

    @Test func aSavedStatusIsLoadedByANewCacheAsCached() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileStatusCache(directory: directory).saveStatus(Self.snapshot)
        // Another run of the app: a new cache over the same directory.
        let loaded = try #require(FileStatusCache(directory: directory).loadStatus(appUserID: Self.snapshot.appUserID))
        var expected = Self.snapshot
        expected.origin = .cache
        #expect(loaded == expected)
        #expect(FileStatusCache(directory: directory).loadStatus(appUserID: "someone-else") == nil)
        // One file, inside the directory, whatever the ID holds.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }

    @Test func theIdentityAndItsTokensSurviveARestart() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(FileStatusCache(directory: directory).loadIdentity() == nil)
        let identity = CachedIdentity(
            appUserID: "alice", appAccountTokens: ["alice": UUID(), "$anon:x": UUID()])
        try FileStatusCache(directory: directory).saveIdentity(identity)
        #expect(FileStatusCache(directory: directory).loadIdentity() == identity)
    }

    @Test func aDamagedFileIsAsGoodAsNone() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = FileStatusCache(directory: directory)
        try cache.saveStatus(Self.snapshot)
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first)
        try Data("{\"status\":".utf8).write(to: directory.appendingPathComponent(file))
        #expect(cache.loadStatus(appUserID: Self.snapshot.appUserID) == nil)
    }

    @Test func changesAreToldApartFromDetails() {
        let pro = Entitlement(id: "pro", source: .appStore, productID: "monthly", expiresAt: Date(timeIntervalSince1970: 1))
        var later = pro
        later.expiresAt = Date(timeIntervalSince1970: 2)
        func snapshot(_ status: SubscriptionStatus) -> StatusSnapshot {
            StatusSnapshot(appUserID: "u", status: status, version: 1, origin: .server, receivedAt: Date())
        }
        #expect(snapshot(.unknown).change(to: snapshot(.inactive)) == .entitlements)
        #expect(snapshot(.inactive).change(to: snapshot(.active([pro]))) == .entitlements)
        #expect(snapshot(.active([pro])).change(to: snapshot(.active([later]))) == .details)
        #expect(snapshot(.active([pro])).change(to: snapshot(.active([pro]))) == nil)
    }
}
