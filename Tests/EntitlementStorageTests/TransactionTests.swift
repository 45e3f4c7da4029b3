import EntitlementDomain
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import EntitlementStorage

@Suite("Write transactions, durability and concurrency")
struct TransactionTests {
    @Test func aThrownErrorRollsBackEverything() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let existing = try repository.write { try $0.customer("t", "alice") }
        #expect(throws: Boom.self) {
            try repository.write { transaction throws in
                let created = try transaction.customer("t", "bob")
                try transaction.insertGrant(makeGrant("g-1", tenant: "t", customer: created.id, expiresAt: 10))
                try transaction.insertGrant(makeGrant("g-2", tenant: "t", customer: existing.id, idempotencyKey: "k"))
                try transaction.appendEvent(makeEvent(tenant: "t", customer: existing.id, version: 1), nextChangeAt: time(10))
                try transaction.setCanonicalID(
                    tenantID: "t", customerID: existing.id, appUserID: "alice-2", isAnonymous: false)
                try transaction.merge(tenantID: "t", from: created.id, into: existing.id)
                throw Boom()
            }
        }
        #expect(try repository.snapshot(tenantID: "t", appUserID: "bob") == nil)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice-2") == nil)
        #expect(try repository.grant(tenantID: "t", grantID: "g-1") == nil)
        #expect(try repository.grant(tenantID: "t", grantID: "g-2") == nil)
        #expect(try repository.events(tenantID: "t", customerID: existing.id, afterVersion: 0, limit: 10).isEmpty)
        #expect(try repository.nextChangeAt() == nil)
        let alice = try #require(try repository.snapshot(tenantID: "t", appUserID: "alice"))
        #expect(alice == CustomerSnapshot(customer: existing, aliases: [], grants: []))
        try repository.write { transaction throws in #expect(try transaction.grant(tenantID: "t", idempotencyKey: "k") == nil) }

        // A storage error inside the body rolls back the writes before it too, and the repository stays usable.
        expectStorageError(.conflict) {
            try repository.write { transaction throws in
                try transaction.customer("t", "carol")
                try transaction.customer("t", "alice")
            }
        }
        #expect(try repository.snapshot(tenantID: "t", appUserID: "carol") == nil)
        let value = try repository.write { transaction in try transaction.customer("t", "carol").appUserID }
        #expect(value == "carol")
    }

    @Test func aCaughtStorageErrorDoesNotAbortTheTransaction() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        try repository.write { transaction throws in
            try transaction.customer("t", "alice")
            #expect(throws: StorageError.self) { try transaction.customer("t", "alice") }
            try transaction.customer("t", "bob")
        }
        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice") != nil)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "bob") != nil)
    }

    @Test func acknowledgedWritesSurviveCloseAndReopen() throws {
        let database = try TemporaryDatabase()
        var repository: SQLRepository? = try database.open(synchronous: .full)
        let customer = try repository!.write { transaction throws in
            let customer = try transaction.customer("t", "alice")
            try transaction.insertGrant(makeGrant("g-1", tenant: "t", customer: customer.id, expiresAt: 9_000))
            try transaction.appendEvent(makeEvent(tenant: "t", customer: customer.id, version: 1), nextChangeAt: time(9_000))
            return customer
        }
        let before = try repository!.snapshot(tenantID: "t", customerID: customer.id)
        repository = nil

        let reopened = try database.open(synchronous: .full)
        let after = try #require(try reopened.snapshot(tenantID: "t", appUserID: "alice"))
        #expect(after == before)
        #expect(after.grants.map(\.grantID) == ["g-1"])
        #expect(try reopened.events(tenantID: "t", customerID: customer.id, beforeVersion: nil, limit: 5).count == 1)
        #expect(try reopened.nextChangeAt() == time(9_000))
    }

    @Test func readsCompleteWhileAWriteIsHeldOpen() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { try $0.customer("t", "alice") }
        let timeline = Timeline()
        let writeHeld = DispatchSemaphore(value: 0)
        let releaseWrite = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                try repository.write { transaction throws in
                    let bob = try transaction.customer("t", "bob")
                    try transaction.appendEvent(makeEvent(tenant: "t", customer: alice.id, version: 1), nextChangeAt: nil)
                    try transaction.insertGrant(makeGrant("g-1", tenant: "t", customer: bob.id))
                    writeHeld.signal()
                    releaseWrite.wait()
                    timeline.record("write released")
                }
                timeline.record("write committed")
            } catch {
                timeline.record("write failed: \(error)")
            }
            writeDone.signal()
        }
        try #require(writeHeld.wait(timeout: .now() + 30) == .success)

        let readDone = DispatchSemaphore(value: 0)
        let seen = Mutex<(alice: CustomerSnapshot?, bob: CustomerSnapshot?, grant: GrantRecord?, events: Int)?>(nil)
        Thread.detachNewThread {
            let result = try? (
                alice: repository.snapshot(tenantID: "t", appUserID: "alice"),
                bob: repository.snapshot(tenantID: "t", appUserID: "bob"),
                grant: repository.grant(tenantID: "t", grantID: "g-1"),
                events: repository.events(tenantID: "t", customerID: alice.id, beforeVersion: nil, limit: 10).count
            )
            seen.withLock { $0 = result }
            timeline.record("read finished")
            readDone.signal()
        }
        // The write is still open here: the read must finish without it.
        let readFinishedWhileWriteHeld = readDone.wait(timeout: .now() + 10) == .success
        releaseWrite.signal()
        #expect(writeDone.wait(timeout: .now() + 30) == .success)
        #expect(readFinishedWhileWriteHeld)
        #expect(timeline.all == ["read finished", "write released", "write committed"])

        // It saw the last committed state, none of the open transaction.
        let result = try #require(seen.withLock { $0 })
        #expect(result.alice?.customer.version == 0)
        #expect(result.bob == nil)
        #expect(result.grant == nil)
        #expect(result.events == 0)

        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice")?.customer.version == 1)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "bob")?.grants.count == 1)
    }

    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite takes writes one at a time; PostgreSQL runs them together"))
    func writesAreSerialized() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let timeline = Timeline()
        let firstHeld = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? repository.write { transaction throws in
                timeline.record("first began")
                try transaction.customer("t", "first")
                firstHeld.signal()
                releaseFirst.wait()
                timeline.record("first ending")
            }
            done.signal()
        }
        try #require(firstHeld.wait(timeout: .now() + 30) == .success)
        Thread.detachNewThread {
            try? repository.write { transaction throws in
                timeline.record("second began")
                // It runs after the first committed, so it sees the first's customer.
                #expect(try transaction.snapshot(tenantID: "t", appUserID: "first") != nil)
                try transaction.customer("t", "second")
            }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(timeline.all == ["first began"])
        releaseFirst.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(timeline.all == ["first began", "first ending", "second began"])
        #expect(try repository.snapshot(tenantID: "t", appUserID: "second") != nil)
    }

    @Test(arguments: [0, 2])
    func concurrentReadsFromManyTasksSeeConsistentSnapshots(readConnections: Int) async throws {
        let database = try TemporaryDatabase()
        let repository = try database.open(readConnections: readConnections)
        let customers = try repository.write { transaction throws in
            try (0..<8).map { try transaction.customer("t", "user-\($0)") }
        }
        // A writer keeps adding one grant and one event per transaction while the readers run: a consistent
        // snapshot always has exactly as many grants as its version.
        let writes = 60
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for round in 1...writes {
                let customer = customers[round % customers.count]
                try? repository.write { transaction throws in
                    let current = try #require(try transaction.snapshot(tenantID: "t", customerID: customer.id))
                    try transaction.insertGrant(makeGrant("g-\(round)", tenant: "t", customer: customer.id))
                    try transaction.appendEvent(
                        makeEvent(tenant: "t", customer: customer.id, version: current.customer.version + 1),
                        nextChangeAt: nil)
                }
            }
            writerDone.signal()
        }
        let inconsistencies = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<24 {
                group.addTask {
                    var bad = 0
                    for read in 0..<100 {
                        let customer = customers[(task + read) % customers.count]
                        let snapshot = try #require(
                            try read.isMultiple(of: 2)
                                ? repository.snapshot(tenantID: "t", appUserID: customer.appUserID)
                                : repository.snapshot(tenantID: "t", customerID: customer.id))
                        if snapshot.grants.count != Int(snapshot.customer.version) { bad += 1 }
                        _ = try repository.events(tenantID: "t", customerID: customer.id, beforeVersion: nil, limit: 5)
                    }
                    return bad
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(inconsistencies == 0)
        #expect(writerDone.wait(timeout: .now() + 60) == .success)
        let total = try customers.map { try repository.snapshot(tenantID: "t", customerID: $0.id)!.grants.count }
        #expect(total.reduce(0, +) == writes)
    }

    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite's single writer connection checks this"))
    func writeInsideWriteIsAProgrammerError() async throws {
        let result = try #require(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let database = try TemporaryDatabase()
                let repository = try database.open()
                try repository.write { _ in try repository.write { _ in } }
            })
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("called inside write(_:)"))
    }

    @Test func aTransactionCannotOutliveItsWrite() async throws {
        let result = try #require(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let database = try TemporaryDatabase()
                let repository = try database.open()
                let escaped = try repository.write { $0 }
                _ = try escaped.snapshot(tenantID: "t", appUserID: "alice")
            })
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("used after its write(_:) returned"))
    }
}

@Suite("Background work on SQLite")
struct SQLiteWorkLockTests {
    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite's one process"))
    func oneProcessHoldsAllBackgroundWork() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        #expect(try repository.holdsWorkLock(tenantID: "t", name: "poll"))
        #expect(try repository.holdsWorkLock(tenantID: "t", name: "poll"))
    }
}
