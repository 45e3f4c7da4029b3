import EntitlementDomain
import Testing
import TestSupport

@testable import EntitlementStorage

@Suite("Grants and events")
struct GrantAndEventTests {
    @Test func insertsUpdatesAndFindsGrants() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let customer = try repository.write { try $0.customer("t", "alice") }
        let lifetime = makeGrant("g-2", tenant: "t", customer: customer.id, entitlement: "lifetime")
        let keyed = makeGrant("g-1", tenant: "t", customer: customer.id, expiresAt: 5_000, idempotencyKey: "key-1")
        let third = GrantRecord(
            grantID: "g-0", tenantID: "t", customerID: customer.id, entitlementID: "pro", startsAt: time(0),
            expiresAt: nil, revokedAt: time(7), reason: "", revocationReason: "refund", idempotencyKey: nil)
        try repository.write { transaction throws in
            for grant in [lifetime, keyed, third] {
                try transaction.insertGrant(grant)
            }
        }
        #expect(try repository.grant(tenantID: "t", grantID: "g-1") == keyed)
        #expect(try repository.grant(tenantID: "t", grantID: "g-2") == lifetime)
        #expect(try repository.grant(tenantID: "t", grantID: "g-0") == third)
        #expect(try repository.grant(tenantID: "t", grantID: "missing") == nil)
        // Oldest first, whatever the IDs.
        #expect(try repository.snapshot(tenantID: "t", customerID: customer.id)?.grants == [lifetime, keyed, third])

        try repository.write { transaction throws in
            #expect(try transaction.grant(tenantID: "t", idempotencyKey: "key-1") == keyed)
            #expect(try transaction.grant(tenantID: "t", idempotencyKey: "key-2") == nil)
            #expect(try transaction.grant(tenantID: "t", grantID: "g-2") == lifetime)
        }

        var revoked = keyed
        revoked.revokedAt = time(3_000)
        revoked.revocationReason = "chargeback"
        revoked.expiresAt = nil
        try repository.write { try $0.updateGrant(revoked) }
        #expect(try repository.grant(tenantID: "t", grantID: "g-1") == revoked)
        #expect(try repository.snapshot(tenantID: "t", customerID: customer.id)?.grants == [lifetime, revoked, third])

        // Duplicates and unknown grants are conflicts.
        expectStorageError(.conflict) {
            try repository.write { try $0.insertGrant(makeGrant("g-1", tenant: "t", customer: customer.id)) }
        }
        expectStorageError(.conflict) {
            try repository.write {
                try $0.insertGrant(makeGrant("g-9", tenant: "t", customer: customer.id, idempotencyKey: "key-1"))
            }
        }
        expectStorageError(.conflict) {
            try repository.write { try $0.insertGrant(makeGrant("g-9", tenant: "t", customer: 999)) }
        }
        expectStorageError(.conflict) {
            try repository.write { try $0.updateGrant(makeGrant("g-9", tenant: "t", customer: customer.id)) }
        }
        #expect(try repository.grant(tenantID: "t", grantID: "g-9") == nil)
    }

    @Test func eventsPageNewestFirstAndResumeOldestFirst() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let customer = try repository.write { try $0.customer("t", "alice") }
        let other = try repository.write { try $0.customer("t", "bob") }
        try repository.write { transaction throws in
            for version in UInt64(1)...25 {
                try transaction.appendEvent(
                    makeEvent(tenant: "t", customer: customer.id, version: version, status: version == 3 ? [] : [1, 2, 3]),
                    nextChangeAt: nil)
            }
            try transaction.appendEvent(makeEvent(tenant: "t", customer: other.id, version: 1), nextChangeAt: nil)
        }
        func newest(before: UInt64?, limit: Int) throws -> [UInt64] {
            try repository.events(tenantID: "t", customerID: customer.id, beforeVersion: before, limit: limit).map(\.version)
        }
        func after(_ version: UInt64, limit: Int) throws -> [UInt64] {
            try repository.events(tenantID: "t", customerID: customer.id, afterVersion: version, limit: limit).map(\.version)
        }
        #expect(try newest(before: nil, limit: 10) == Array((16...25).reversed()))
        #expect(try newest(before: 16, limit: 10) == Array((6...15).reversed()))
        #expect(try newest(before: 6, limit: 10) == [5, 4, 3, 2, 1])
        #expect(try newest(before: 1, limit: 10) == [])
        #expect(try newest(before: .max, limit: 2) == [25, 24])
        #expect(try newest(before: nil, limit: 0) == [])
        #expect(try after(0, limit: 3) == [1, 2, 3])
        #expect(try after(20, limit: 10) == [21, 22, 23, 24, 25])
        #expect(try after(25, limit: 10) == [])
        #expect(try after(.max, limit: 10) == [])

        let stored = try repository.events(tenantID: "t", customerID: customer.id, afterVersion: 2, limit: 2)
        #expect(stored == [
            makeEvent(tenant: "t", customer: customer.id, version: 3, status: []),
            makeEvent(tenant: "t", customer: customer.id, version: 4, status: [1, 2, 3]),
        ])
        #expect(try repository.snapshot(tenantID: "t", customerID: customer.id)?.customer.version == 25)
        #expect(try repository.snapshot(tenantID: "t", customerID: other.id)?.customer.version == 1)
    }

    @Test func appendEventEnforcesTheNextVersion() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let customer = try repository.write { try $0.customer("t", "alice") }
        try repository.write {
            try $0.appendEvent(makeEvent(tenant: "t", customer: customer.id, version: 1), nextChangeAt: time(50))
        }
        for version: UInt64 in [0, 1, 3, .max] {
            expectStorageError(.conflict) {
                try repository.write {
                    try $0.appendEvent(makeEvent(tenant: "t", customer: customer.id, version: version), nextChangeAt: nil)
                }
            }
        }
        expectStorageError(.conflict) {
            try repository.write { try $0.appendEvent(makeEvent(tenant: "t", customer: 4242, version: 1), nextChangeAt: nil) }
        }
        let snapshot = try #require(try repository.snapshot(tenantID: "t", customerID: customer.id))
        #expect(snapshot.customer.version == 1)
        #expect(snapshot.customer.nextChangeAt == time(50))
        #expect(try repository.events(tenantID: "t", customerID: customer.id, afterVersion: 0, limit: 10).count == 1)

        try repository.write {
            try $0.appendEvent(makeEvent(tenant: "t", customer: customer.id, version: 2), nextChangeAt: nil)
        }
        let updated = try #require(try repository.snapshot(tenantID: "t", customerID: customer.id))
        #expect(updated.customer.version == 2)
        #expect(updated.customer.nextChangeAt == nil)
    }

    @Test func latestEventAndSetNextChangeAt() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (alice, bob) = try repository.write { transaction throws in
            (try transaction.customer("t", "alice"), try transaction.customer("t", "bob"))
        }
        try repository.write { transaction throws in
            #expect(try transaction.latestEvent(tenantID: "t", customerID: alice.id) == nil)
            for version in UInt64(1)...3 {
                try transaction.appendEvent(makeEvent(tenant: "t", customer: alice.id, version: version), nextChangeAt: nil)
            }
            try transaction.appendEvent(makeEvent(tenant: "t", customer: bob.id, version: 1), nextChangeAt: nil)
            let latest = try transaction.latestEvent(tenantID: "t", customerID: alice.id)
            #expect(latest == makeEvent(tenant: "t", customer: alice.id, version: 3))
            #expect(try transaction.latestEvent(tenantID: "other", customerID: alice.id) == nil)

            try transaction.setNextChangeAt(tenantID: "t", customerID: bob.id, at: time(700))
        }
        let snapshot = try #require(try repository.snapshot(tenantID: "t", customerID: bob.id))
        #expect(snapshot.customer.nextChangeAt == time(700))
        #expect(snapshot.customer.version == 1)
        #expect(try repository.nextChangeAt() == time(700))
        try repository.write { try $0.setNextChangeAt(tenantID: "t", customerID: bob.id, at: nil) }
        #expect(try repository.nextChangeAt() == nil)
        expectStorageError(.conflict) {
            try repository.write { try $0.setNextChangeAt(tenantID: "other", customerID: bob.id, at: time(1)) }
        }
    }
}

@Suite("Scheduling queries")
struct SchedulingTests {
    @Test func customersDueAndNextChangeAtFollowNextChangeTimes() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        #expect(try repository.nextChangeAt() == nil)
        #expect(try repository.customersDue(at: time(.max), limit: 10).isEmpty)

        let ids = try repository.write { transaction throws in
            var ids: [String: Int64] = [:]
            for (tenant, user, next) in [
                ("a", "late", Int64(300)), ("b", "early", 100), ("a", "middle", 200), ("b", "never", -1),
                ("a", "tie", 200),
            ] {
                let customer = try transaction.customer(tenant, user)
                ids[user] = customer.id
                try transaction.appendEvent(
                    makeEvent(tenant: tenant, customer: customer.id, version: 1),
                    nextChangeAt: next < 0 ? nil : time(next))
            }
            return ids
        }
        #expect(try repository.nextChangeAt() == time(100))
        let due = try repository.customersDue(at: time(200), limit: 10)
        #expect(due.map(\.customerID) == [ids["early"]!, ids["middle"]!, ids["tie"]!])
        #expect(due.map(\.tenantID) == ["b", "a", "a"])
        #expect(try repository.customersDue(at: time(99), limit: 10).isEmpty)
        #expect(try repository.customersDue(at: time(1_000), limit: 2).map(\.customerID) == [ids["early"]!, ids["middle"]!])
        #expect(try repository.customersDue(at: time(1_000), limit: 10).count == 4)
        #expect(try repository.customersDue(at: time(1_000), limit: 0).isEmpty)

        // Clearing the soonest moves the minimum.
        try repository.write {
            try $0.appendEvent(makeEvent(tenant: "b", customer: ids["early"]!, version: 2), nextChangeAt: nil)
        }
        #expect(try repository.nextChangeAt() == time(200))
        #expect(try repository.customersDue(at: time(200), limit: 10).map(\.customerID) == [ids["middle"]!, ids["tie"]!])
    }

    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite's query plans"))
    func schedulingQueriesUseTheNextChangeIndex() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        let raw = try database.rawConnection()
        func plan(_ sql: String, _ bindings: [SQLValue]) throws -> String {
            try raw.rows("EXPLAIN QUERY PLAN " + sql, bindings) { $0.string(3) }.joined(separator: "; ")
        }
        let due = try plan(StorageSQL.customersDueSQL, [.integer(0), .integer(10)])
        #expect(due.contains("customers_next_change_at"), "\(due)")
        #expect(!due.contains("TEMP B-TREE"), "\(due)")
        let minimum = try plan(StorageSQL.nextChangeAtSQL, [])
        #expect(minimum.contains("customers_next_change_at"), "\(minimum)")

        // The snapshot's per-customer reads are index lookups in the order they return.
        let aliases = try plan(StorageSQL.aliasesSQL, [.text("t"), .integer(1), .text("x")])
        #expect(aliases.contains("app_user_ids_customer") && !aliases.contains("TEMP B-TREE"), "\(aliases)")
        let grants = try plan(StorageSQL.customerGrantsSQL, [.text("t"), .integer(1)])
        #expect(grants.contains("grants_customer") && !grants.contains("TEMP B-TREE"), "\(grants)")
    }
}
