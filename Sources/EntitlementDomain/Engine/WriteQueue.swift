import Synchronization

/// Runs database writes off Swift's cooperative threads, in groups that share one durable commit, on one lane or
/// several (``WriteLane``).
///
/// A write that names the customer it is for (`orderedBy`) always goes to that customer's lane, so one customer's
/// writes on this instance commit, publish and push in the order they were submitted; the others are spread over
/// the lanes. Where only one transaction writes at a time (SQLite) there is one lane; on PostgreSQL several lanes let
/// writes to different customers commit at once, each lane's group on a connection of its own, while the database's
/// row locks keep each customer's versions in order whichever lane writes them. A write that found a row locked by
/// another transaction leaves its group at once and runs alone (``ContendedWrites``), so no lock held elsewhere, nor
/// a customer written on two lanes at once, holds up the writes to other customers.
final class WriteQueue: Sendable {
    private let lanes: [WriteLane]
    /// Spreads the writes that name no customer.
    private let nextLane = Atomic<Int>(0)

    init(repository: any CustomerRepository, clock: any DomainClock, maximumGroupSize: Int, lanes count: Int = 1) {
        precondition(maximumGroupSize >= 1, "a group holds at least one write")
        precondition(count >= 1, "writes need at least one lane")
        let contended = ContendedWrites(repository: repository, clock: clock)
        lanes = (0..<count).map { index in
            WriteLane(
                index: index, repository: repository, clock: clock, maximumGroupSize: maximumGroupSize,
                contended: contended)
        }
    }

    /// Runs `body` on the first lane's thread, between its groups and outside any transaction.
    func run<Value: Sendable>(_ body: @escaping @Sendable () throws(DomainError) -> Value) async throws(DomainError)
        -> Value
    {
        try await lanes[0].run(body)
    }

    /// How many writes wait for their lane's next group.
    var waitingCount: Int { lanes.reduce(0) { $0 + $1.waitingCount } }

    /// Puts `write` in the next group of `key`'s lane (any lane when nil).
    func submit(_ write: GroupedWrite, orderedBy key: String?) {
        let lane = key.map(lane(for:))
            ?? Int(UInt(bitPattern: nextLane.wrappingAdd(1, ordering: .relaxed).oldValue) % UInt(lanes.count))
        lanes[lane].submit(write)
    }

    /// The lane of the writes ordered by `key`.
    func lane(for key: String) -> Int {
        lanes.count == 1 ? 0 : Int(UInt(bitPattern: key.hashValue) % UInt(lanes.count))
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
    /// Runs after the write committed (nil) or with why it did not: on the write thread, or on the thread that ran it
    /// alone (``ContendedWrites``).
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

/// What a write's body produced, kept from the transaction to its answer. One thread at a time touches it: the body
/// sets it inside the group (or the transaction it ran in alone), and the answer after the commit reads it.
final class WriteOutput<Value>: @unchecked Sendable {
    var value: Value?
}
