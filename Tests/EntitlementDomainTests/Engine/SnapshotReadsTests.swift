import CivilCalendar
@testable import EntitlementDomain
import Foundation
import Testing

/// The harness's repository with its reads by app user ID counted and held until ``release()``: a read that waits on
/// the database, without timing.
private final class HeldReads: CustomerReads, @unchecked Sendable {
    private let base: any CustomerReads
    /// Guards everything below.
    private let condition = NSCondition()
    private var released = false
    private var readCount = 0
    private var insideCount = 0
    private var mostInsideCount = 0

    init(_ base: any CustomerReads) {
        self.base = base
    }

    /// Reads begun so far, and the most ever held at once.
    var reads: Int { locked { readCount } }
    var inside: Int { locked { insideCount } }
    var mostInside: Int { locked { mostInsideCount } }

    func release() {
        locked { released = true }
        condition.broadcast()
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        condition.lock()
        readCount += 1
        insideCount += 1
        mostInsideCount = max(mostInsideCount, insideCount)
        while !released { condition.wait() }
        insideCount -= 1
        condition.unlock()
        return try base.snapshot(tenantID: tenantID, appUserID: appUserID)
    }

    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        try base.snapshot(tenantID: tenantID, customerID: customerID)
    }

    func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        try base.events(tenantID: tenantID, customerID: customerID, beforeVersion: beforeVersion, limit: limit)
    }

    func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        try base.events(tenantID: tenantID, customerID: customerID, afterVersion: afterVersion, limit: limit)
    }

    func customersDue(at time: UnixTime, limit: Int) throws(StorageError) -> [(tenantID: String, customerID: Int64)] {
        try base.customersDue(at: time, limit: limit)
    }

    func nextChangeAt() throws(StorageError) -> UnixTime? {
        try base.nextChangeAt()
    }
}

/// Waits until `condition` holds, polling: what it waits for is held by ``HeldReads``, so it holds soon or never (a
/// read not shared, a limit not kept), and the test fails after 30 s rather than hang.
private func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<30_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("the condition never held", sourceLocation: sourceLocation)
    throw CancellationError()
}

/// Cache misses on the repository of ``EngineHarness`` (in memory, or SQLite / PostgreSQL with
/// `ENTITLEMENTD_TEST_DOMAIN_DATABASE=sql`): one read per customer however many ask, a bounded number at once.
@Suite struct SnapshotReadsTests {
    private static func reads(over held: HeldReads, _ harness: EngineHarness, inFlight: Int, waiting: Int)
        -> (SnapshotReads, CustomerCache)
    {
        let cache = CustomerCache()
        let limits = SnapshotReadLimits(inFlight: inFlight, waiting: waiting)
        return (SnapshotReads(limits: limits, repository: held, cache: cache, clock: harness.clock), cache)
    }

    @Test func concurrentMissesForOneCustomerMakeOneRead() async throws {
        let harness = try EngineHarness()
        _ = try await harness.grant("alice", "pro")
        let held = HeldReads(harness.repository)
        let (reads, cache) = Self.reads(over: held, harness, inFlight: 4, waiting: 10)
        let callers = 20
        try await withThrowingTaskGroup(of: CachedCustomer?.self) { group in
            for _ in 0..<callers {
                group.addTask { try await reads.entry(tenantID: harness.tenantID, appUserID: "alice") }
            }
            // Every caller has joined the one read, which is still held.
            try await eventually { reads.counts.coalesced == callers - 1 }
            #expect(held.reads == 1)
            held.release()
            var entries: [CachedCustomer] = []
            for try await entry in group { entries.append(try #require(entry)) }
            #expect(entries.count == callers)
            #expect(entries.allSatisfy { $0 === entries[0] }, "one read, one cache entry shared by every caller")
            #expect(entries[0].state(at: harness.now).status.activeIDs == ["pro"])
            #expect(cache.entry(tenantID: harness.tenantID, appUserID: "alice") === entries[0])
        }
        #expect(held.reads == 1)
        let counts = SnapshotReadCounts(reads: 1, coalesced: callers - 1, refused: 0, inFlight: 0, waiting: 0)
        #expect(reads.counts == counts)
    }

    @Test func readsBeyondTheLimitWaitAndBeyondTheQueueAreRefused() async throws {
        let harness = try EngineHarness()
        let held = HeldReads(harness.repository)
        let (reads, _) = Self.reads(over: held, harness, inFlight: 2, waiting: 1)
        let tenantID = harness.tenantID
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ["c0", "c1"] {
                group.addTask {
                    let entry = try await reads.entry(tenantID: tenantID, appUserID: id)
                    #expect(entry == nil)
                }
            }
            try await eventually { held.inside == 2 }
            group.addTask {
                let entry = try await reads.entry(tenantID: tenantID, appUserID: "c2")
                #expect(entry == nil)
            }
            try await eventually { reads.counts.waiting == 1 }
            #expect(reads.counts.inFlight == 2)
            // The queue is full: another customer is refused at once, while every read is still held.
            await #expect(throws: DomainError.storageUnavailable("")) {
                try await reads.entry(tenantID: tenantID, appUserID: "c3")
            }
            // A customer already being read is joined, full queue or not.
            group.addTask {
                let entry = try await reads.entry(tenantID: tenantID, appUserID: "c0")
                #expect(entry == nil)
            }
            try await eventually { reads.counts.coalesced == 1 }
            held.release()
            try await group.waitForAll()
        }
        #expect(held.mostInside == 2, "never more reads at once than the limit")
        #expect(held.reads == 3)
        #expect(reads.counts == SnapshotReadCounts(reads: 3, coalesced: 1, refused: 1, inFlight: 0, waiting: 0))
    }

    /// Through the engine: a miss is read and cached, so the next call is a hit with the same memo.
    @Test func aMissIsCachedForTheCallsAfterIt() async throws {
        let harness = try EngineHarness()
        _ = try await harness.grant("alice", "pro")
        let other = CustomerEngine(repository: harness.repository, clock: harness.clock)
        #expect(other.customers.cachedState(tenantID: harness.tenantID, appUserID: "alice") == nil)
        let (state, memo) = try await other.customers.memoizedState(tenantID: harness.tenantID, appUserID: "alice")
        #expect(state.status.activeIDs == ["pro"])
        let cached = try #require(other.customers.cachedState(tenantID: harness.tenantID, appUserID: "alice"))
        #expect(cached.state == state && cached.memo === memo)
        #expect(other.customers.snapshotReadCounts.reads == 1)
        #expect(try await other.customers.state(tenantID: harness.tenantID, appUserID: "nobody").customerID == nil)
        #expect(other.customers.snapshotReadCounts.reads == 2, "an unknown ID is read each time: nothing is cached")
    }
}
