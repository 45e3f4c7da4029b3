import EntitlementDomain
import Foundation
import Glibc
import Synchronization
import Testing

/// Two writes to one customer in quick succession: what the engine remembers and pushes must follow commit order.
///
/// Regression: writes commit one at a time on the write queue, but each caller used to refresh the cache and
/// publish to the hub after its own commit, back on its own task; when the older commit's caller got there later (a
/// busy thread, a preemption) the newer state was overwritten by the older one, and SyncStatus answered with it
/// until the next write. These tests make the older commit's publishing late on purpose: the change observer blocks
/// for a moment on the first write's first change, while the second write is submitted from another thread.
@Suite struct CustomerEngineConcurrencyTests {
    /// Runs a grant that creates `alice` (two changes: created v1, grant v2) whose publishing is held up, and a
    /// second grant (v3) that commits and publishes in the meantime. Each grant runs on a thread of its own, so the
    /// hold-up blocks no thread of the shared pool and the second grant never waits for one.
    static func overtakenPublish() async throws -> (state: CustomerState, delivered: [UInt64]) {
        let holding = Atomic<Bool>(false)
        let harness = try EngineHarness { _, update in
            guard update.state.version == 1, update.reason == "Created by GrantEntitlement." else { return }
            holding.store(true, ordering: .sequentiallyConsistent)
            usleep(300_000)
        }
        // alice will be the repository's first customer.
        let subscription = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: 1)
        defer { subscription.cancel() }

        let first = Task(executorPreference: ThreadExecutor("first grant")) { try await harness.grant("alice", "pro") }
        while !holding.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(1)) }
        let second = Task(executorPreference: ThreadExecutor("second grant")) {
            try await harness.grant("alice", "plus")
        }
        _ = try await second.value
        _ = try await first.value

        var delivered: [UInt64] = []
        while delivered.count < 3 { delivered.append(try await subscription.next(within: 5).state.version) }
        return (try await harness.state("alice"), delivered)
    }

    @Test func syncStatusCacheKeepsTheNewestCommitWhenAnOlderCommitPublishesLate() async throws {
        let (state, _) = try await Self.overtakenPublish()
        #expect(state.version == 3, "the cache holds v\(state.version); the repository is at v3")
        #expect(state.status.activeIDs == ["plus", "pro"])
    }

    @Test func streamsReceiveUpdatesInCommitOrderWhenAnOlderCommitPublishesLate() async throws {
        let (_, delivered) = try await Self.overtakenPublish()
        #expect(delivered == [1, 2, 3])
    }
}

/// Runs a task's jobs on a thread of its own, outside both the cooperative pool and libdispatch's worker pool, so a
/// job that blocks it starves nothing else.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// The thread lives as long as the process (a test makes a couple).
    init(_ name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
