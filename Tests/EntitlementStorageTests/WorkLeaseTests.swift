import EntitlementDomain
import Testing
import TestSupport

@testable import EntitlementStorage

@Suite("Leases on background work")
struct WorkLeaseTests {
    static func claim(_ store: SQLRepository, _ holder: String, at now: Int64, for duration: Int64 = 1_000,
                      tenant: String = "t", name: String = "poll") throws -> Bool {
        try store.write { transaction in
            try transaction.claimWorkLease(
                tenantID: tenant, name: name, holder: holder, now: time(now), until: time(now + duration))
        }
    }

    @Test func oneHolderAtATimeUntilItsLeaseRunsOut() throws {
        let database = try TemporaryDatabase()
        let store = try database.open()
        #expect(try Self.claim(store, "a", at: 1_000))
        #expect(try !Self.claim(store, "b", at: 1_500))
        // The holder renews; the other gets it once the lease has run out.
        #expect(try Self.claim(store, "a", at: 1_900))
        #expect(try !Self.claim(store, "b", at: 2_800))
        #expect(try Self.claim(store, "b", at: 2_900))
        #expect(try !Self.claim(store, "a", at: 3_000))
    }

    @Test func leasesAreKeptPerTenantAndName() throws {
        let database = try TemporaryDatabase()
        let store = try database.open()
        #expect(try Self.claim(store, "a", at: 1_000))
        #expect(try Self.claim(store, "b", at: 1_000, tenant: "u"))
        #expect(try Self.claim(store, "b", at: 1_000, name: "other"))
        #expect(try !Self.claim(store, "b", at: 1_000))
    }
}
