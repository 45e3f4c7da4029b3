import Synchronization

/// What the read path needs of one customer, built from a snapshot after every write that touches it.
final class CachedCustomer: Sendable {
    let customerID: Int64
    let appUserID: String
    let allAppUserIDs: [String]
    let version: UInt64
    let candidates: [EntitlementCandidate]
    /// Status as computed when the entry was built, valid until its `nextChangeAt`.
    let status: ComputedStatus
    /// What the API layer derives from `status` while it is valid.
    let memo = StateMemo()

    init(snapshot: CustomerSnapshot, now: UnixTime) {
        customerID = snapshot.customer.id
        appUserID = snapshot.customer.appUserID
        allAppUserIDs = [snapshot.customer.appUserID] + snapshot.aliases
        version = snapshot.customer.version
        candidates = snapshot.candidates
        status = StatusCalculator.status(of: candidates, at: now)
    }

    /// The state at `now`: the cached status while it is still valid, recomputed from the records after that.
    func state(at now: UnixTime) -> CustomerState {
        memoizedState(at: now).state
    }

    /// The state at `now`, with the memo for it while it is the cached one (nil once it had to be recomputed).
    func memoizedState(at now: UnixTime) -> (state: CustomerState, memo: StateMemo?) {
        if let changeAt = status.nextChangeAt, now >= changeAt {
            let current = StatusCalculator.status(of: candidates, at: now)
            return (CustomerState(customerID: customerID, appUserID: appUserID, version: version, status: current), nil)
        }
        return (CustomerState(customerID: customerID, appUserID: appUserID, version: version, status: status), memo)
    }
}

/// Customers by tenant and app user ID (aliases included), so SyncStatus needs no database round-trip.
///
/// Sharded so that readers on different cores rarely meet on one lock. Entries are replaced after each committed
/// write, this instance's or (through ``Customers/applyCommittedElsewhere(_:)``) another's.
final class CustomerCache: Sendable {
    private final class Shard: Sendable {
        let entries = Mutex<[AppUserKey: CachedCustomer]>([:])
    }

    private let shards: [Shard]
    /// Customers erased while this instance ran: a read that began before the erasure must not bring one back.
    /// Database IDs are never reused, and erasures are few.
    private let erased = Mutex<Set<Int64>>([])

    init(shardCount: Int = 64) {
        shards = (0..<shardCount).map { _ in Shard() }
    }

    private func shard(_ key: AppUserKey) -> Shard {
        shards[Int(UInt(bitPattern: key.hash) % UInt(shards.count))]
    }

    func entry(tenantID: String, appUserID: String) -> CachedCustomer? {
        let key = AppUserKey(tenantID: tenantID, appUserID: appUserID)
        return shard(key).entries.withLock { $0[key] }
    }

    /// Makes `entry` the answer for every ID of the customer: what the write path does after each commit, and a
    /// change another instance committed. Never replaces a newer version of the same customer.
    func store(_ entry: CachedCustomer, tenantID: String) {
        for appUserID in entry.allAppUserIDs {
            let key = AppUserKey(tenantID: tenantID, appUserID: appUserID)
            shard(key).entries.withLock { entries in
                if let held = entries[key], held.customerID == entry.customerID, held.version > entry.version { return }
                makeRoom(in: &entries)
                entries[key] = entry
            }
        }
    }

    /// What a read that missed the cache found, kept only where no newer entry arrived meanwhile: a write that
    /// committed after this read began has already stored its own, fresher entry, which must win.
    func storeIfAbsent(_ entry: CachedCustomer, tenantID: String) {
        guard !erased.withLock({ $0.contains(entry.customerID) }) else { return }
        for appUserID in entry.allAppUserIDs {
            let key = AppUserKey(tenantID: tenantID, appUserID: appUserID)
            shard(key).entries.withLock { entries in
                guard entries[key] == nil else { return }
                makeRoom(in: &entries)
                entries[key] = entry
            }
        }
    }

    /// Forgets erased customers under every ID they had (every entry when the IDs are not known), and keeps them from
    /// coming back.
    func remove(tenantID: String, customerIDs: [Int64], appUserIDs: [String]?) {
        erased.withLock { $0.formUnion(customerIDs) }
        func isErased(_ key: AppUserKey, _ entry: CachedCustomer) -> Bool {
            key.tenantID == tenantID && customerIDs.contains(entry.customerID)
        }
        guard let appUserIDs else {
            for shard in shards { shard.entries.withLock { $0 = $0.filter { !isErased($0.key, $0.value) } } }
            return
        }
        for appUserID in appUserIDs {
            let key = AppUserKey(tenantID: tenantID, appUserID: appUserID)
            shard(key).entries.withLock { entries in
                if let held = entries[key], isErased(key, held) { entries[key] = nil }
            }
        }
    }

    /// Entries per shard before the shard starts over: the cache is a cache, any customer can be read again.
    private let shardCapacity = 32 * 1024

    private func makeRoom(in entries: inout [AppUserKey: CachedCustomer]) {
        if entries.count >= shardCapacity { entries.removeAll(keepingCapacity: true) }
    }
}
