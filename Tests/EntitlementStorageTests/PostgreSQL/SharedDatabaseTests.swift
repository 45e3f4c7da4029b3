import Dispatch
import EntitlementDomain
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import EntitlementStorage

/// Two repositories (two instances' pools) on one PostgreSQL schema, writing at the same moment.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, "ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL"))
struct SharedDatabaseTests {
    static func twoInstances() throws -> (PostgresRepository, PostgresRepository) {
        let conninfo = try TestDatabase.postgresDatabase(for: "shared-" + UUID().uuidString)
        return (try PostgresRepository(conninfo: conninfo), try PostgresRepository(conninfo: conninfo))
    }

    /// Runs `body(0)` … `body(count - 1)` on threads released together.
    static func together(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                body(index)
                done.leave()
            }
        }
        for _ in 0..<count { start.signal() }
        done.wait()
    }

    @Test func oneNotificationDeliveredToBothIsProcessedByOne() throws {
        let (a, b) = try Self.twoInstances()
        let claimed = Mutex<[Bool]>([])
        Self.together(8) { index in
            let repository = index.isMultiple(of: 2) ? a : b
            let first = try? repository.write { transaction in
                try transaction.markNotificationProcessed(tenantID: "t", notificationID: "apple-1", at: time(1_000))
            }
            claimed.withLock { $0.append(first ?? false) }
        }
        #expect(claimed.withLock { $0.filter { $0 }.count } == 1)
        #expect(try a.isNotificationProcessed(tenantID: "t", notificationID: "apple-1"))
    }

    @Test func concurrentWritersBumpOneCustomerWithoutGapsOrLostEvents() throws {
        let (a, b) = try Self.twoInstances()
        let customer = try a.write { try $0.customer("t", "alice") }
        let failures = Mutex<[String]>([])
        Self.together(6) { index in
            let repository = index.isMultiple(of: 2) ? a : b
            for round in 0..<20 {
                do {
                    try repository.write { transaction in
                        let current = try #require(try transaction.snapshot(tenantID: "t", customerID: customer.id))
                        try transaction.insertGrant(makeGrant("g-\(index)-\(round)", tenant: "t", customer: customer.id))
                        try transaction.appendEvent(
                            makeEvent(tenant: "t", customer: customer.id, version: current.customer.version + 1),
                            nextChangeAt: nil)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let events = try b.events(tenantID: "t", customerID: customer.id, afterVersion: 0, limit: 500)
        #expect(events.map(\.version) == Array(1...120))
        #expect(try b.snapshot(tenantID: "t", customerID: customer.id)?.grants.count == 120)
    }

    @Test func bothInstancesCreatingOneNewCustomerMakeOne() throws {
        let (a, b) = try Self.twoInstances()
        let ids = Mutex<Set<Int64>>([])
        Self.together(6) { index in
            let repository = index.isMultiple(of: 2) ? a : b
            // What Identify does: the customer if it exists, created otherwise; the loser of the race runs again.
            let id = try? repository.write { transaction in
                if let existing = try transaction.snapshot(tenantID: "t", appUserID: "bob") { return existing.customer.id }
                return try transaction.customer("t", "bob").id
            }
            if let id { ids.withLock { _ = $0.insert(id) } }
        }
        #expect(ids.withLock { $0.count } == 1)
    }
}

extension SharedDatabaseTests {
    @Test func backgroundWorkIsHeldByOneInstanceUntilItEnds() throws {
        let conninfo = try TestDatabase.postgresDatabase(for: "locks-" + UUID().uuidString)
        var first: PostgresRepository? = try PostgresRepository(conninfo: conninfo)
        let second = try PostgresRepository(conninfo: conninfo)
        #expect(try first?.holdsWorkLock(tenantID: "t", name: "poll") == true)
        #expect(try first?.holdsWorkLock(tenantID: "t", name: "poll") == true)  // still its own
        #expect(try !second.holdsWorkLock(tenantID: "t", name: "poll"))
        // Other work, or the same work of another tenant, is free.
        #expect(try second.holdsWorkLock(tenantID: "u", name: "poll"))
        #expect(try second.holdsWorkLock(tenantID: "t", name: "acknowledgements"))
        // The holder ends (its session with it): the work passes on as soon as the server has closed that session.
        first = nil
        var passedOn = false
        for _ in 0..<200 where !passedOn {
            passedOn = try second.holdsWorkLock(tenantID: "t", name: "poll")
            if !passedOn { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(passedOn)
    }

    @Test func instancesAskingTogetherLeaveOneHolder() throws {
        let conninfo = try TestDatabase.postgresDatabase(for: "locks-" + UUID().uuidString)
        let repositories = try (0..<4).map { _ in try PostgresRepository(conninfo: conninfo) }
        let holders = Mutex<Int>(0)
        Self.together(8) { index in
            if (try? repositories[index % 4].holdsWorkLock(tenantID: "t", name: "reconcile")) == true {
                holders.withLock { $0 += 1 }
            }
        }
        // Two asks per repository: the holder's both say yes, the others' both no.
        #expect(holders.withLock { $0 } == 2)
    }
}

extension SharedDatabaseTests {
    /// What a frozen instance does to the others: a session holds a customer's row lock inside an open transaction.
    @Test func aGroupGivesBackAWriteWhoseRowIsLockedElsewhereAndCommitsTheRest() throws {
        let conninfo = try TestDatabase.postgresDatabase(for: "contended-" + UUID().uuidString)
        let repository = try PostgresRepository(
            conninfo: conninfo, options: .init(sessionTimeouts: PostgresSessionTimeouts(lockMilliseconds: 500)))
        let (locked, free) = try repository.write { (try $0.customer("t", "locked"), try $0.customer("t", "free")) }
        let holder = try PostgresConnection(conninfo: conninfo)
        try holder.execute("BEGIN")
        try holder.query("SELECT id FROM customers WHERE id = $1 FOR UPDATE", [String(locked.id)])

        func grant(_ customer: CustomerRecord, _ grantID: String) -> (any StorageTransaction) throws -> Void {
            { transaction in
                _ = try transaction.snapshot(tenantID: "t", customerID: customer.id)  // locks the row, as writes do
                try transaction.insertGrant(makeGrant(grantID, tenant: "t", customer: customer.id))
            }
        }
        let failures = try repository.writeGroup([grant(locked, "g-locked"), grant(free, "g-free")])
        #expect((failures[0] as? StorageError)?.code == .contended)
        #expect(failures[1] == nil)
        #expect(try repository.snapshot(tenantID: "t", customerID: free.id)?.grants.map(\.grantID) == ["g-free"])
        // Alone, it waits for the lock up to the lock timeout, and then fails unavailable with nothing applied.
        #expect(throws: StorageError.unavailable("")) { try repository.write(grant(locked, "g-locked")) }
        #expect(try repository.snapshot(tenantID: "t", customerID: locked.id)?.grants == [])
        try holder.execute("COMMIT")
        try repository.write(grant(locked, "g-locked"))
        #expect(try repository.snapshot(tenantID: "t", customerID: locked.id)?.grants.map(\.grantID) == ["g-locked"])
    }
}
