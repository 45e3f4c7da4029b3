@testable import EntitlementDomain
import Synchronization
import Testing

@Suite struct TenantDirectoryTests {
    static let musicPublic = APIKey.generate(.publicKey)
    static let musicPublicOld = APIKey.generate(.publicKey)
    static let musicSecret = APIKey.generate(.secretKey)
    static let notesPublic = APIKey.generate(.publicKey)
    static let notesSecret = APIKey.generate(.secretKey)

    private static func hash(_ key: String) -> String { APIKey.hashString(key)! }

    private static func tenants() throws -> [Tenant] {
        [
            try Tenant(
                id: "music", publicKeyHashes: [hash(musicPublic), hash(musicPublicOld)],
                secretKeyHashes: [hash(musicSecret)], entitlements: ["pro"]),
            try Tenant(id: "notes", publicKeyHashes: [hash(notesPublic)], secretKeyHashes: [hash(notesSecret)]),
        ]
    }

    @Test func rightKeyGivesTenantAndKind() throws {
        let directory = try TenantDirectory(tenants: Self.tenants())
        for (key, tenant, kind) in [
            (Self.musicPublic, "music", APIKey.Kind.publicKey), (Self.musicPublicOld, "music", .publicKey),
            (Self.musicSecret, "music", .secretKey), (Self.notesPublic, "notes", .publicKey),
            (Self.notesSecret, "notes", .secretKey),
        ] {
            let result = try #require(directory.authenticate(bearer: key))
            #expect(result.tenant.id == tenant)
            #expect(result.key.kind == kind)
            #expect(result.key.scope == .write)
            #expect(result.key.name == String(Self.hash(key).prefix(kind.hashPrefix.count + 8)))
        }
    }

    @Test func wrongKeysAreUnknown() throws {
        let directory = try TenantDirectory(tenants: Self.tenants())
        #expect(directory.authenticate(bearer: APIKey.generate(.publicKey)) == nil)
        #expect(directory.authenticate(bearer: APIKey.generate(.secretKey)) == nil)
        #expect(directory.authenticate(bearer: "") == nil)
        #expect(directory.authenticate(bearer: "pk_") == nil)
        // The same random part with the other prefix is another key.
        #expect(directory.authenticate(bearer: "sk_" + Self.musicPublic.dropFirst(3)) == nil)
        // Without a prefix, or with "Bearer " still attached, nothing matches.
        #expect(directory.authenticate(bearer: String(Self.musicPublic.dropFirst(3))) == nil)
        #expect(directory.authenticate(bearer: "Bearer " + Self.musicPublic) == nil)
        #expect(directory.authenticate(bearer: Self.musicPublic + " ") == nil)
        #expect(directory.authenticate(bearer: "pk_" + String(repeating: "a", count: 300)) == nil)
        // A hash string is not a key.
        #expect(directory.authenticate(bearer: Self.hash(Self.musicPublic)) == nil)
    }

    @Test func eachTenantsKeysResolveToThatTenantOnly() throws {
        let directory = try TenantDirectory(tenants: Self.tenants())
        #expect(directory.authenticate(bearer: Self.notesPublic)?.tenant.id == "notes")
        #expect(directory.authenticate(bearer: Self.musicSecret)?.tenant.id == "music")
        #expect(directory.tenant(id: "notes")?.id == "notes")
        #expect(directory.tenant(id: "other") == nil)
    }

    @Test func aHashThatLiesAboutItsKindNeverAuthenticates() throws {
        // A pk_ key's digest relabelled as a secret hash: the load cannot tell, authentication must.
        let digestHex = String(Self.hash(Self.musicPublic).dropFirst("pk_sha256:".count))
        let tenant = try Tenant(id: "liar", secretKeyHashes: ["sk_sha256:" + digestHex])
        let directory = try TenantDirectory(tenants: [tenant])
        #expect(directory.authenticate(bearer: Self.musicPublic) == nil)
    }

    @Test func everyConfiguredHashIsComparedInConstantTimeWhateverMatches() throws {
        let comparisons = Counter()
        let tenants = try Self.tenants()
        let directory = try TenantDirectory(tenants: tenants) { lhs, rhs in
            comparisons.increment()
            return lhs == rhs
        }
        let totalKeys = tenants.reduce(0) { $0 + $1.publicKeys.count + $1.secretKeys.count }
        #expect(totalKeys == 5)
        for key in [Self.musicPublic, Self.notesSecret, APIKey.generate(.publicKey)] {
            comparisons.reset()
            _ = directory.authenticate(bearer: key)
            #expect(comparisons.value == totalKeys)
        }
        // Keys refused before hashing are compared with nothing.
        comparisons.reset()
        _ = directory.authenticate(bearer: "no-prefix")
        #expect(comparisons.value == 0)
    }

    @Test func duplicateTenantsAndKeysAreRefused() throws {
        let music = try Self.tenants()[0]
        #expect(throws: TenantRuleError.self) { try TenantDirectory(tenants: [music, music]) }
        do {
            _ = try TenantDirectory(tenants: [music, music])
        } catch {
            #expect(error.code == .duplicateTenant)
            #expect(error.path == "tenants[1].id")
        }
        let thief = try Tenant(id: "thief", secretKeyHashes: [Self.hash(Self.musicSecret)])
        do {
            _ = try TenantDirectory(tenants: [music, thief])
            Issue.record("expected duplicate_key_hash")
        } catch {
            #expect(error.code == .duplicateKeyHash)
            #expect(error.path == "tenants[1].secret_keys[0]")
            #expect(error.message.contains("tenants[0].secret_keys[0]"))
        }
    }

    @Test func authorizeMapsToUnauthenticatedAndPermissionDenied() throws {
        let directory = try TenantDirectory(tenants: Self.tenants())
        let admin: Set<APIKey.Kind> = [.secretKey]
        #expect(try directory.authorize(bearer: Self.musicSecret, allowed: admin, service: "AdminService").tenant.id == "music")
        for key in [nil, "", "pk_nope"] as [String?] {
            do {
                _ = try directory.authorize(bearer: key, allowed: admin, service: "AdminService")
                Issue.record("expected UNAUTHENTICATED")
            } catch {
                #expect(error.code == .unauthenticated)
            }
        }
        do {
            _ = try directory.authorize(bearer: Self.musicPublic, allowed: admin, service: "AdminService")
            Issue.record("expected PERMISSION_DENIED")
        } catch {
            #expect(error.code == .permissionDenied)
            #expect(error.message == "a public key (pk_...) may not call AdminService; use a secret key (sk_...)")
            #expect(!error.message.contains(Self.musicPublic))
        }
    }
}

/// Counts comparisons from any thread.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    func reset() { count.store(0, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
