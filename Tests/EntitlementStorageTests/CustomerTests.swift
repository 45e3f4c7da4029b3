import EntitlementDomain
import Testing

@testable import EntitlementStorage

@Suite("Customers, aliases and tenants")
struct CustomerTests {
    @Test func createsAndResolvesCustomers() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let created = try repository.write { try $0.customer("t", "$anon:1", anonymous: true, at: 5_000) }
        #expect(created.version == 0)
        #expect(created.isAnonymous)
        #expect(created.nextChangeAt == nil)
        #expect(created.createdAt == time(5_000))

        let byID = try #require(try repository.snapshot(tenantID: "t", appUserID: "$anon:1"))
        #expect(byID.customer == created)
        #expect(byID.aliases.isEmpty)
        #expect(byID.grants.isEmpty)
        #expect(try repository.snapshot(tenantID: "t", customerID: created.id) == byID)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "nobody") == nil)
        #expect(try repository.snapshot(tenantID: "t", customerID: created.id + 1000) == nil)

        // The transaction sees its own writes.
        try repository.write { transaction throws in
            let second = try transaction.customer("t", "bob")
            #expect(try transaction.snapshot(tenantID: "t", appUserID: "bob")?.customer == second)
            #expect(try transaction.snapshot(tenantID: "t", customerID: second.id)?.customer == second)
        }
    }

    @Test func creatingAnIDThatAlreadyResolvesIsAConflict() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (anonymous, identified) = try repository.write { transaction throws in
            (try transaction.customer("t", "$anon:1", anonymous: true), try transaction.customer("t", "alice"))
        }
        try repository.write { try $0.merge(tenantID: "t", from: anonymous.id, into: identified.id) }
        expectStorageError(.conflict) { try repository.write { try $0.customer("t", "alice") } }
        // An alias resolves too, so it cannot become a new customer.
        expectStorageError(.conflict) { try repository.write { try $0.customer("t", "$anon:1", anonymous: true) } }
    }

    @Test func tenantsAreIsolated() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (a, b) = try repository.write { transaction throws in
            (try transaction.customer("tenant-a", "alice"), try transaction.customer("tenant-b", "alice"))
        }
        #expect(a.id != b.id)
        try repository.write { transaction throws in
            try transaction.insertGrant(makeGrant("g-a", tenant: "tenant-a", customer: a.id, idempotencyKey: "k"))
            // The same idempotency key in another tenant is another grant.
            try transaction.insertGrant(makeGrant("g-b", tenant: "tenant-b", customer: b.id, idempotencyKey: "k"))
            try transaction.appendEvent(makeEvent(tenant: "tenant-a", customer: a.id, version: 1), nextChangeAt: nil)
        }
        #expect(try repository.snapshot(tenantID: "tenant-a", appUserID: "alice")?.customer.id == a.id)
        #expect(try repository.snapshot(tenantID: "tenant-b", appUserID: "alice")?.customer.id == b.id)
        #expect(try repository.snapshot(tenantID: "tenant-a", appUserID: "alice")?.grants.map(\.grantID) == ["g-a"])
        #expect(try repository.snapshot(tenantID: "tenant-b", appUserID: "alice")?.grants.map(\.grantID) == ["g-b"])

        // No read crosses tenants, whatever IDs are sent.
        #expect(try repository.snapshot(tenantID: "tenant-b", customerID: a.id) == nil)
        #expect(try repository.snapshot(tenantID: "tenant-c", appUserID: "alice") == nil)
        #expect(try repository.grant(tenantID: "tenant-b", grantID: "g-a") == nil)
        #expect(try repository.events(tenantID: "tenant-b", customerID: a.id, beforeVersion: nil, limit: 10).isEmpty)
        #expect(try repository.events(tenantID: "tenant-b", customerID: a.id, afterVersion: 0, limit: 10).isEmpty)
        #expect(try repository.events(tenantID: "tenant-a", customerID: a.id, beforeVersion: nil, limit: 10).count == 1)
        try repository.write { transaction throws in
            #expect(try transaction.grant(tenantID: "tenant-b", grantID: "g-a") == nil)
            #expect(try transaction.grant(tenantID: "tenant-a", idempotencyKey: "k")?.grantID == "g-a")
            #expect(try transaction.grant(tenantID: "tenant-b", idempotencyKey: "k")?.grantID == "g-b")
            #expect(try transaction.snapshot(tenantID: "tenant-b", customerID: a.id) == nil)
        }

        // Nor does any write.
        expectStorageError(.conflict) {
            try repository.write { try $0.insertGrant(makeGrant("g-x", tenant: "tenant-b", customer: a.id)) }
        }
        expectStorageError(.conflict) {
            try repository.write {
                try $0.appendEvent(makeEvent(tenant: "tenant-b", customer: a.id, version: 2), nextChangeAt: nil)
            }
        }
        expectStorageError(.conflict) { try repository.write { try $0.merge(tenantID: "tenant-a", from: b.id, into: a.id) } }
        expectStorageError(.conflict) {
            try repository.write {
                try $0.setCanonicalID(tenantID: "tenant-b", customerID: a.id, appUserID: "mallory", isAnonymous: false)
            }
        }
        expectStorageError(.conflict) {
            var moved = makeGrant("g-a", tenant: "tenant-b", customer: b.id)
            moved.reason = "hijack"
            try repository.write { try $0.updateGrant(moved) }
        }
        #expect(try repository.grant(tenantID: "tenant-a", grantID: "g-a")?.reason == "support")
    }

    @Test func mergeMovesIDsAndGrantsAndLeavesAHusk() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (anonymous, identified) = try repository.write { transaction throws in
            let anonymous = try transaction.customer("t", "$anon:1", anonymous: true, at: 1_000)
            try transaction.setCanonicalID(
                tenantID: "t", customerID: anonymous.id, appUserID: "$anon:2", isAnonymous: true)
            try transaction.insertGrant(makeGrant("g-anon", tenant: "t", customer: anonymous.id, expiresAt: 9_000))
            try transaction.appendEvent(makeEvent(tenant: "t", customer: anonymous.id, version: 1), nextChangeAt: time(9_000))
            let identified = try transaction.customer("t", "alice", at: 2_000)
            try transaction.insertGrant(makeGrant("g-alice", tenant: "t", customer: identified.id))
            return (anonymous, identified)
        }
        try repository.write { try $0.merge(tenantID: "t", from: anonymous.id, into: identified.id) }

        for id in ["alice", "$anon:1", "$anon:2"] {
            let snapshot = try #require(try repository.snapshot(tenantID: "t", appUserID: id))
            #expect(snapshot.customer.id == identified.id)
            #expect(snapshot.customer.appUserID == "alice")
            #expect(!snapshot.customer.isAnonymous)
            #expect(snapshot.aliases.sorted() == ["$anon:1", "$anon:2"])
            #expect(Set(snapshot.grants.map(\.grantID)) == ["g-alice", "g-anon"])
            #expect(snapshot.grants.allSatisfy { $0.customerID == identified.id })
            #expect(snapshot.customer.nextChangeAt == time(9_000))
        }
        #expect(try repository.grant(tenantID: "t", grantID: "g-anon")?.customerID == identified.id)

        // The husk keeps its row and its history, and owns nothing.
        let husk = try #require(try repository.snapshot(tenantID: "t", customerID: anonymous.id))
        #expect(husk.customer.appUserID == "$anon:2")
        #expect(husk.customer.isAnonymous)
        #expect(husk.customer.version == 1)
        #expect(husk.customer.nextChangeAt == nil)
        #expect(husk.aliases.isEmpty)
        #expect(husk.grants.isEmpty)
        #expect(try repository.events(tenantID: "t", customerID: anonymous.id, beforeVersion: nil, limit: 10).count == 1)
        #expect(try repository.customersDue(at: time(10_000), limit: 10).map(\.customerID) == [identified.id])

        expectStorageError(.conflict) {
            try repository.write { try $0.merge(tenantID: "t", from: identified.id, into: identified.id) }
        }
        expectStorageError(.conflict) { try repository.write { try $0.merge(tenantID: "t", from: 12345, into: identified.id) } }
    }

    @Test func mergingAnonymousCustomersKeepsTheTargetAnonymous() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let target = try repository.write { transaction throws in
            let source = try transaction.customer("t", "$anon:a", anonymous: true)
            let target = try transaction.customer("t", "$anon:b", anonymous: true)
            try transaction.merge(tenantID: "t", from: source.id, into: target.id)
            return target
        }
        let snapshot = try #require(try repository.snapshot(tenantID: "t", appUserID: "$anon:a"))
        #expect(snapshot.customer.id == target.id)
        #expect(snapshot.customer.isAnonymous)
        #expect(snapshot.aliases == ["$anon:a"])
    }

    @Test func aliasesAreOldestFirst() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let target = try repository.write { transaction throws in
            let target = try transaction.customer("t", "$anon:target", anonymous: true, at: 3_000)
            for (index, id) in ["$anon:c", "$anon:a", "$anon:b"].enumerated() {
                let source = try transaction.customer("t", id, anonymous: true, at: Int64(1_000 + index))
                try transaction.merge(tenantID: "t", from: source.id, into: target.id)
            }
            return target
        }
        #expect(
            try repository.snapshot(tenantID: "t", customerID: target.id)?.aliases == ["$anon:c", "$anon:a", "$anon:b"])
    }

    @Test func setCanonicalIDRenamesAndKeepsTheOldIDAsAnAlias() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (anonymous, other) = try repository.write { transaction throws in
            (try transaction.customer("t", "$anon:1", anonymous: true), try transaction.customer("t", "bob"))
        }
        try repository.write {
            try $0.setCanonicalID(tenantID: "t", customerID: anonymous.id, appUserID: "alice", isAnonymous: false)
        }
        let renamed = try #require(try repository.snapshot(tenantID: "t", appUserID: "$anon:1"))
        #expect(renamed.customer.id == anonymous.id)
        #expect(renamed.customer.appUserID == "alice")
        #expect(!renamed.customer.isAnonymous)
        #expect(renamed.customer.createdAt == anonymous.createdAt)
        #expect(renamed.aliases == ["$anon:1"])
        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice") == renamed)

        // An ID of another customer cannot be taken.
        expectStorageError(.conflict) {
            try repository.write {
                try $0.setCanonicalID(tenantID: "t", customerID: anonymous.id, appUserID: "bob", isAnonymous: false)
            }
        }
        #expect(try repository.snapshot(tenantID: "t", appUserID: "bob")?.customer.id == other.id)

        // An existing alias can become canonical again; nothing is duplicated.
        try repository.write {
            try $0.setCanonicalID(tenantID: "t", customerID: anonymous.id, appUserID: "$anon:1", isAnonymous: true)
        }
        let back = try #require(try repository.snapshot(tenantID: "t", customerID: anonymous.id))
        #expect(back.customer.appUserID == "$anon:1")
        #expect(back.customer.isAnonymous)
        #expect(back.aliases == ["alice"])
    }
}
