import Dispatch
import Synchronization

/// Runs database writes on a thread of their own, in groups that share one durable commit.
///
/// A durable commit waits for the disk; doing that on Swift's cooperative threads would stall every task, so callers
/// await here instead. The writes that arrive while a group commits wait together and go in the next one, in one
/// transaction (``CustomerRepository/writeGroup(_:)``): a burst of notifications costs one disk wait per group
/// rather than per write. Each write still runs in its own savepoint, so one that fails fails alone, and each is
/// answered only after its group's commit, in the order the group ran them.
final class WriteQueue: Sendable {
    /// The most writes in one group: bounds how long the first of them waits for the commit.
    let maximumGroupSize: Int
    private let queue = DispatchQueue(label: "entitlementd.database-writes")
    private let repository: any CustomerRepository
    private let clock: any DomainClock
    /// Writes waiting for the next group, and whether a group is scheduled on the queue to take them.
    private let waiting = Mutex<(writes: [GroupedWrite], scheduled: Bool)>(([], false))

    init(repository: any CustomerRepository, clock: any DomainClock, maximumGroupSize: Int) {
        precondition(maximumGroupSize >= 1, "a group holds at least one write")
        self.repository = repository
        self.clock = clock
        self.maximumGroupSize = maximumGroupSize
    }

    /// Runs `body` on the write thread, between groups and outside any transaction.
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
            write.complete(failure.map(DomainError.init(storageFailure:)), now)
        }
        let more = waiting.withLock { waiting in
            waiting.scheduled = !waiting.writes.isEmpty
            return waiting.scheduled
        }
        if more { queue.async { self.commitNextGroup() } }
    }
}

public enum WriteQueueDefaults {
    /// Large enough that a burst's commits stop dominating; small enough that the first write of a group does not
    /// wait long for the rest (a group's writes take well under a millisecond each).
    public static let maximumGroupSize = 64
}

/// One write waiting for its group: what it does inside the transaction, and how it is answered after the commit.
struct GroupedWrite: Sendable {
    /// Runs inside the group's transaction, in a savepoint of its own; may run again (``CustomerRepository``).
    let perform: @Sendable (any StorageTransaction, UnixTime) throws -> Void
    /// Runs on the write thread after the group committed (nil) or with why this write did not.
    let complete: @Sendable (DomainError?, UnixTime) -> Void
}

extension DomainError {
    /// What a write's caller sees for a failure inside a storage transaction.
    init(storageFailure error: any Error) {
        switch error {
        case let error as DomainError: self = error
        case let error as StorageError: self = DomainError(error)
        default: self = .storageFailed("Unexpected storage failure: \(error)")
        }
    }
}

/// What a write's body produced, kept from the transaction to its answer. Only the write thread touches it: the
/// body sets it inside the group, and the answer after the commit reads it.
final class WriteOutput<Value>: @unchecked Sendable {
    var value: Value?
}
