import Dispatch
import Synchronization

/// The writes a group commit gave back because a row they need was locked by another transaction
/// (``StorageError/Code/contended``): each runs again alone, in a transaction of its own that waits for the lock up to
/// the database's lock timeout, on threads of its own, so the groups behind it are not held up by another instance's
/// lock (a frozen instance, a long manual `SELECT … FOR UPDATE`).
///
/// One customer's order needs nothing more: its versions are assigned under its row lock, so they commit in order
/// whichever thread commits them; the cache never goes back to an older version, and a stream given a later version
/// first fills the gap from the event log.
final class ContendedWrites: Sendable {
    /// Writes running alone at once: each holds a thread and a database connection while it waits for its lock.
    static let maximumRunning = 4

    private let repository: any CustomerRepository
    private let clock: any DomainClock
    /// Writes not started yet, oldest first, and how many threads are running them.
    private let state = Mutex<(waiting: [GroupedWrite], running: Int)>(([], 0))

    init(repository: any CustomerRepository, clock: any DomainClock) {
        self.repository = repository
        self.clock = clock
    }

    /// Runs `write` alone as soon as a thread is free, and answers it after its commit (or with why it failed).
    func submit(_ write: GroupedWrite) {
        let starts = state.withLock { state in
            state.waiting.append(write)
            guard state.running < Self.maximumRunning else { return false }
            state.running += 1
            return true
        }
        if starts { DispatchQueue.global().async { self.runWaiting() } }
    }

    private func runWaiting() {
        while let write = state.withLock({ state -> GroupedWrite? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }) {
            let now = clock.now()
            do {
                try repository.write { transaction in try write.perform(transaction, now) }
                write.complete(nil, now)
            } catch {
                write.complete(DomainError(storageFailure: error), now)
            }
        }
    }
}
