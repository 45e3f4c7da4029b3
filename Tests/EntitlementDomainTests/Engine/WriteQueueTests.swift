import Dispatch
import Testing

@testable import EntitlementDomain

/// Writes that queue up while the write thread is busy share the next commit, and still behave one by one.
@Suite struct WriteQueueTests {
    /// Holds the write thread until `release()`, so that writes submitted meanwhile wait for one group.
    struct HeldWriteThread {
        private let gate = DispatchSemaphore(value: 0)
        private let task: Task<Void, any Error>

        init(_ engine: CustomerEngine) async {
            let gate = self.gate
            let (started, starting) = AsyncStream<Void>.makeStream()
            task = Task {
                try await engine.core.writes.run { () throws(DomainError) in
                    starting.finish()
                    gate.wait()
                }
            }
            for await _ in started {}
        }

        func release() async throws {
            gate.signal()
            try await task.value
        }
    }

    static func waitUntil(_ engine: CustomerEngine, queues count: Int) async throws {
        while engine.core.writes.waitingCount < count { try await Task.sleep(for: .milliseconds(1)) }
    }

    @Test func writesQueuedTogetherShareOneCommitAndAFailingOneFailsAlone() async throws {
        let harness = try EngineHarness()
        try await harness.grant("alice", "pro", idempotencyKey: "first")
        let commitsBefore = harness.commits
        let held = await HeldWriteThread(harness.engine)

        let grants = (0..<20).map { index in
            Task { try await harness.grant("alice", index.isMultiple(of: 2) ? "pro" : "plus") }
        }
        try await Self.waitUntil(harness.engine, queues: 20)
        // Reuses an idempotency key for another entitlement: refused inside its transaction.
        let reused = Task { try await harness.grant("alice", "plus", idempotencyKey: "first") }
        try await Self.waitUntil(harness.engine, queues: 21)
        try await held.release()

        for grant in grants { _ = try await grant.value }
        await #expect(throws: DomainError.self) { try await reused.value }
        #expect(harness.commits == commitsBefore + 1, "21 writes, one commit")

        // Each grant is its own event with its own version, gap-free after the first grant's (created v1, grant v2).
        let versions = try harness.eventRecords(customerID: 1).map(\.version).sorted()
        #expect(versions == Array(1...22))
        #expect(try await harness.state("alice").version == 22)
    }

    @Test func aHeldLaneHoldsUpOnlyItsOwnCustomersWrites() async throws {
        let harness = try EngineHarness(writeLanes: 2)
        let writes = harness.engine.core.writes
        func lane(_ appUserID: String) -> Int { writes.lane(for: WriteOrder.customer(EngineHarness.tenantID, appUserID: appUserID)) }
        let users = (0..<64).map { "user-\($0)" }
        let onFirst = try #require(users.first { lane($0) == 0 })
        let onSecond = try #require(users.first { lane($0) == 1 })
        let held = await HeldWriteThread(harness.engine)  // the first lane's thread

        let waiting = Task { try await harness.grant(onFirst, "pro") }
        try await Self.waitUntil(harness.engine, queues: 1)
        _ = try await harness.grant(onSecond, "pro")
        #expect(writes.waitingCount == 1, "the first lane's write still waits")
        try await held.release()
        _ = try await waiting.value
        #expect(try await harness.state(onFirst).status.activeIDs == ["pro"])
    }

    @Test func eachWriteOfAGroupIsPushedInOrderAfterTheCommit() async throws {
        let harness = try EngineHarness()
        try await harness.grant("alice", "pro")
        let subscription = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: 1)
        defer { subscription.cancel() }
        let held = await HeldWriteThread(harness.engine)
        let grants = (0..<5).map { _ in Task { try await harness.grant("alice", "plus") } }
        try await Self.waitUntil(harness.engine, queues: 5)
        try await held.release()
        for grant in grants { _ = try await grant.value }
        var delivered: [UInt64] = []
        while delivered.count < 5 { delivered.append(try await subscription.next(within: 5).state.version) }
        #expect(delivered == [3, 4, 5, 6, 7])
    }
}
