import Dispatch
import Synchronization

/// Reads customers the cache does not hold, on threads of their own, and caches what they find.
///
/// A read is a database round trip (a network one on PostgreSQL): on a connection's event-loop thread it would stall
/// every other connection of that loop, and on Swift's cooperative threads every task. Callers await here instead.
/// Callers asking for the same customer while its read is pending share it (one database read however many ask, as
/// when a restart storm brings back every stream of a customer at once), at most `inFlight` reads run at once, and
/// the customers waiting for a free one are at most `waiting`: beyond that a caller is answered `UNAVAILABLE` at once,
/// which clients retry, rather than queueing without bound while the database is slow. A caller whose call ends
/// meanwhile (its deadline, its client gone) is answered when its customer's read is done, as the others are: the
/// read is theirs too, and the statement timeout bounds it.
final class SnapshotReads: Sendable {
    private typealias Waiter = CheckedContinuation<Result<CachedCustomer?, DomainError>, Never>

    private struct State {
        /// The callers of each customer being read or waiting for a read.
        var waiters: [AppUserKey: [Waiter]] = [:]
        /// Customers waiting for a free read, oldest first from `head`.
        var queued: [AppUserKey] = []
        var head = 0
        var running = 0

        var queuedCount: Int { queued.count - head }

        mutating func takeQueued() -> AppUserKey? {
            guard head < queued.count else { return nil }
            defer {
                head += 1
                // The taken half is dropped once it outweighs the rest: amortized O(1) per customer.
                if head * 2 >= queued.count {
                    queued.removeFirst(head)
                    head = 0
                }
            }
            return queued[head]
        }
    }

    private let limits: SnapshotReadLimits
    private let repository: any CustomerReads
    private let cache: CustomerCache
    private let clock: any DomainClock
    private let state = Mutex(State())
    /// Concurrent, but never given more than `limits.inFlight` reads at once: each running read holds a thread.
    private let threads = DispatchQueue(label: "entitlementd.snapshot-reads", attributes: .concurrent)
    private let reads = Atomic<Int>(0)
    private let coalesced = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    init(limits: SnapshotReadLimits, repository: any CustomerReads, cache: CustomerCache, clock: any DomainClock) {
        self.limits = limits
        self.repository = repository
        self.cache = cache
        self.clock = clock
    }

    /// What the database holds for the customer (nil for an app user ID nobody has), cached unless a newer entry
    /// arrived while it was read.
    func entry(tenantID: String, appUserID: String) async throws(DomainError) -> CachedCustomer? {
        let key = AppUserKey(tenantID: tenantID, appUserID: appUserID)
        let outcome = await withCheckedContinuation { (waiter: Waiter) in
            enum Decision { case joined, start, queued, refused }
            let decision = state.withLock { state -> Decision in
                if state.waiters[key] != nil {
                    state.waiters[key]!.append(waiter)
                    return .joined
                }
                if state.running < limits.inFlight {
                    state.running += 1
                    state.waiters[key] = [waiter]
                    return .start
                }
                guard state.queuedCount < limits.waiting else { return .refused }
                state.waiters[key] = [waiter]
                state.queued.append(key)
                return .queued
            }
            switch decision {
            case .joined:
                coalesced.add(1, ordering: .relaxed)
            case .start:
                threads.async { self.read(startingWith: key) }
            case .queued:
                break
            case .refused:
                refused.add(1, ordering: .relaxed)
                let refusal = DomainError.storageUnavailable(
                    "\(limits.waiting) customers are waiting to be read from the database already; retry shortly.")
                waiter.resume(returning: .failure(refusal))
            }
        }
        return try outcome.get()
    }

    /// Reads `key`'s customer and answers its callers, then the customers queued meanwhile, one after another, until
    /// none waits: the thread keeps its place among the `inFlight` until then.
    private func read(startingWith first: AppUserKey) {
        var next: AppUserKey? = first
        while let key = next {
            let outcome = Result { () throws(DomainError) -> CachedCustomer? in
                let snapshot = try DomainError.reading { () throws(StorageError) in
                    try repository.snapshot(tenantID: key.tenantID, appUserID: key.appUserID)
                }
                guard let snapshot else { return nil }
                let entry = CachedCustomer(snapshot: snapshot, now: clock.now())
                cache.storeIfAbsent(entry, tenantID: key.tenantID)
                return entry
            }
            reads.add(1, ordering: .relaxed)
            let (waiters, following) = state.withLock { state in
                let waiters = state.waiters.removeValue(forKey: key) ?? []
                let following = state.takeQueued()
                if following == nil { state.running -= 1 }
                return (waiters, following)
            }
            for waiter in waiters { waiter.resume(returning: outcome) }
            next = following
        }
    }

    /// What the reads have done since the engine started, and what they are doing now.
    var counts: SnapshotReadCounts {
        let (inFlight, waiting) = state.withLock { ($0.running, $0.queuedCount) }
        return SnapshotReadCounts(
            reads: reads.load(ordering: .relaxed), coalesced: coalesced.load(ordering: .relaxed),
            refused: refused.load(ordering: .relaxed), inFlight: inFlight, waiting: waiting)
    }
}

/// How many cache misses one instance reads from the database at once, and how many more customers may wait.
public struct SnapshotReadLimits: Sendable {
    /// Reads running at once, each on a thread of its own (and, on PostgreSQL, a pooled connection).
    public var inFlight: Int
    /// Customers waiting for a free read; a caller beyond them is answered `UNAVAILABLE`.
    public var waiting: Int

    public init(inFlight: Int = 8, waiting: Int = 10_000) {
        precondition(inFlight >= 1 && waiting >= 0, "at least one read runs at once, and no fewer than none wait")
        self.inFlight = inFlight
        self.waiting = waiting
    }
}

/// What the cache-miss reads have done, for the metrics.
public struct SnapshotReadCounts: Sendable, Equatable {
    /// Customers read from the database for calls that missed the cache.
    public var reads: Int
    /// Calls that shared a read another call had begun for the same customer.
    public var coalesced: Int
    /// Calls answered `UNAVAILABLE` because too many customers were waiting to be read.
    public var refused: Int
    /// Reads running now.
    public var inFlight: Int
    /// Customers waiting now for a read to be free.
    public var waiting: Int
}
