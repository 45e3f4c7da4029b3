import Dispatch
import Synchronization

/// One thread of database writes, in groups that share one durable commit.
///
/// A durable commit waits for the disk; doing that on Swift's cooperative threads would stall every task, so callers
/// await here instead. The writes that arrive while a group commits wait together and go in the next one, in one
/// transaction (``CustomerRepository/writeGroup(_:)``): a burst of notifications costs one disk wait per group
/// rather than per write. Each write still runs in its own savepoint, so one that fails fails alone, and each is
/// answered only after its group's commit, in the order the group ran them; a write the group gave back because
/// another transaction holds a row it needs runs alone (``ContendedWrites``).
final class WriteLane: Sendable {
    /// The most writes in one group: bounds how long the first of them waits for the commit.
    private let maximumGroupSize: Int
    private let queue: DispatchQueue
    private let repository: any CustomerRepository
    private let clock: any DomainClock
    private let contended: ContendedWrites
    /// Writes waiting for the next group, and whether a group is scheduled on the queue to take them.
    private let waiting = Mutex<(writes: [GroupedWrite], scheduled: Bool)>(([], false))

    init(
        index: Int, repository: any CustomerRepository, clock: any DomainClock, maximumGroupSize: Int,
        contended: ContendedWrites
    ) {
        queue = DispatchQueue(label: "entitlementd.database-writes.\(index)")
        self.repository = repository
        self.clock = clock
        self.maximumGroupSize = maximumGroupSize
        self.contended = contended
    }

    /// Runs `body` on the lane's thread, between groups and outside any transaction.
    func run<Value: Sendable>(_ body: @escaping @Sendable () throws(DomainError) -> Value) async throws(DomainError)
        -> Value
    {
        let outcome: Result<Value, DomainError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(DomainError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try outcome.get()
    }

    /// How many writes wait for the next group.
    var waitingCount: Int { waiting.withLock { $0.writes.count } }

    /// Puts `write` in the next group.
    func submit(_ write: GroupedWrite) {
        let schedules = waiting.withLock { waiting in
            waiting.writes.append(write)
            defer { waiting.scheduled = true }
            return !waiting.scheduled
        }
        if schedules { queue.async { self.commitNextGroup() } }
    }

    /// Commits the writes waiting now (up to `maximumGroupSize`), then answers each. A group still waiting after
    /// that is scheduled behind whatever `run(_:)` queued meanwhile, so neither starves the other.
    private func commitNextGroup() {
        let group = waiting.withLock { waiting in
            let count = min(waiting.writes.count, maximumGroupSize)
            defer { waiting.writes.removeFirst(count) }
            return Array(waiting.writes.prefix(count))
        }
        let now = clock.now()
        let failures: [(any Error)?]
        do {
            failures = try repository.writeGroup(group.map { write in { transaction in try write.perform(transaction, now) } })
        } catch {
            failures = Array(repeating: error, count: group.count)
        }
        for (write, failure) in zip(group, failures) {
            if let failure = failure as? StorageError, failure.code == .contended {
                contended.submit(write)
            } else {
                write.complete(failure.map(DomainError.init(storageFailure:)), now)
            }
        }
        let more = waiting.withLock { waiting in
            waiting.scheduled = !waiting.writes.isEmpty
            return waiting.scheduled
        }
        if more { queue.async { self.commitNextGroup() } }
    }
}
