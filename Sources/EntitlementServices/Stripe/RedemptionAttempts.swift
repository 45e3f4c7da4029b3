public import CivilCalendar
public import EntitlementDomain
public import RPCCore
import Synchronization

/// Failed redemption attempts, counted per app user ID and per client address within a tenant. Each key may fail a
/// few times freely; after that every failure doubles the wait before its next attempt, up to a cap, and an attempt
/// refused for waiting is not looked up (nor counted). A user ID that never failed, from an address that never
/// failed, is never refused: nobody else's failures can lock a buyer out.
///
/// A tenant-wide circuit breaker trips when the tenant sees a flood of failures; while it holds, any key that has
/// failed once waits, so an attacker with many addresses gets one guess per address, not a free allowance each. It
/// still never refuses a key pair without failures.
///
/// In memory, per instance, in bounded tables (``FailureTable``). The codes' 160 random bits are the defence (the
/// README works out why no rate these limits allow, nor the server's full rate, finds a code); the limits keep
/// guessing slow and noisy and the database out of it.
public final class RedemptionAttempts: Sendable {
    /// How one kind of key waits: after `failuresBeforeWaiting` failures it waits `firstWait`, and each failure after
    /// that doubles the wait, up to `maxWait`.
    public struct Backoff: Sendable, Equatable {
        public var failuresBeforeWaiting: Int
        public var firstWaitMilliseconds: Int64
        public var maxWaitMilliseconds: Int64

        public init(failuresBeforeWaiting: Int, firstWaitMilliseconds: Int64, maxWaitMilliseconds: Int64) {
            precondition(
                failuresBeforeWaiting >= 1 && firstWaitMilliseconds >= 1 && maxWaitMilliseconds >= firstWaitMilliseconds)
            self.failuresBeforeWaiting = failuresBeforeWaiting
            self.firstWaitMilliseconds = firstWaitMilliseconds
            self.maxWaitMilliseconds = maxWaitMilliseconds
        }

        /// The wait after `failures`, waiting from the `before`-th on (at least 1, so a key without failures never
        /// waits); nil for none.
        func wait(afterFailures failures: UInt32, before: Int) -> Int64? {
            let doublings = Int(failures) - max(before, 1)
            guard doublings >= 0 else { return nil }
            // Past 62 doublings any wait overflows; the cap is reached long before.
            guard doublings < 62 else { return maxWaitMilliseconds }
            let (wait, overflow) = firstWaitMilliseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
            return overflow ? maxWaitMilliseconds : min(wait, maxWaitMilliseconds)
        }
    }

    public struct Limits: Sendable {
        public var perUser: Backoff
        /// Per IPv4 address, or per IPv6 /64 (one site's network: a client there can change its own address at will).
        public var perAddress: Backoff
        /// A key's failures are forgotten this long after its last one.
        public var memoryMilliseconds: Int64
        /// Failures in one tenant within the current and the previous window that trip its breaker; it holds while
        /// they stay at or above it.
        public var breakerFailures: Int
        public var breakerWindowMilliseconds: Int64
        /// Records per generation, in the user and the address table each.
        public var tableGeneration: Int

        /// 5 failures per user ID and 20 per address before waiting; then 1 minute, doubling to an hour; forgotten
        /// after a day without failures; the breaker at 1,000 failures in the current and the previous 10-minute
        /// window; 49,152 records per generation (three quarters of 2^16, so a generation's dictionary keeps 65,536
        /// slots of 32 bytes: 2 MiB, 8 MiB for both generations of both tables).
        public init(
            perUser: Backoff = Backoff(
                failuresBeforeWaiting: 5, firstWaitMilliseconds: Milliseconds.perMinute,
                maxWaitMilliseconds: Milliseconds.perHour),
            perAddress: Backoff = Backoff(
                failuresBeforeWaiting: 20, firstWaitMilliseconds: Milliseconds.perMinute,
                maxWaitMilliseconds: Milliseconds.perHour),
            memoryMilliseconds: Int64 = Milliseconds.perDay, breakerFailures: Int = 1000,
            breakerWindowMilliseconds: Int64 = 10 * Milliseconds.perMinute, tableGeneration: Int = 49_152
        ) {
            precondition(
                memoryMilliseconds >= 1 && breakerFailures >= 1 && breakerWindowMilliseconds >= 1 && tableGeneration >= 1)
            self.perUser = perUser
            self.perAddress = perAddress
            self.memoryMilliseconds = memoryMilliseconds
            self.breakerFailures = breakerFailures
            self.breakerWindowMilliseconds = breakerWindowMilliseconds
            self.tableGeneration = tableGeneration
        }
    }

    /// Who attempts: an app user ID in a tenant, from a client address (nil when the call came from no IP address,
    /// in process: such callers share one address).
    public struct Caller: Sendable {
        public var tenantID: String
        public var appUserID: String
        public var address: IPAddress?

        public init(tenantID: String, appUserID: String, address: IPAddress?) {
            self.tenantID = tenantID
            self.appUserID = appUserID
            self.address = address
        }

        var userKey: FailureKey { FailureKey(tenantID: tenantID, Array(appUserID.utf8)) }

        var addressKey: FailureKey {
            guard let address else { return FailureKey(tenantID: tenantID, []) }
            let block = address.isIPv4 ? address : address.masked(toPrefix: 64)
            return FailureKey(tenantID: tenantID, block.bytes)
        }
    }

    /// Why an attempt is refused unchecked, and for how many more seconds (at least 1).
    public enum Refusal: Sendable, Equatable {
        case user(seconds: Int64)
        case address(seconds: Int64)

        public var message: String {
            switch self {
            case .user(let seconds):
                "Too many failed redemption attempts by this app user ID; try again in \(seconds) s."
            case .address(let seconds):
                "Too many failed redemption attempts from this network address; try again in \(seconds) s."
            }
        }
    }

    /// A tenant's failures in the current window of the breaker and the one before.
    private struct TenantFailures {
        var window: Int64
        var count: Int
        var previousCount: Int
    }

    /// Eviction from the bounded tables cannot be turned into a bypass that matters: it only ever forgets failures (a
    /// caller is then treated as more trustworthy, never refused for it), and an address's record is forgotten only
    /// after at least `tableGeneration` other addresses (IPv6 /64s) failed since its last failure. The tables are
    /// apart so that user IDs, which cost an attacker nothing to invent, cannot push addresses out. So only an
    /// attacker who already holds ~50,000 networks gains anything, and at most the server's full request rate, at
    /// which the README's arithmetic still finds no code.
    private struct State {
        var users: FailureTable
        var addresses: FailureTable
        /// One entry per tenant that ever failed: tenants come from the operator's tenants file, not from callers.
        var tenants: [String: TenantFailures] = [:]
    }

    let limits: Limits
    private let state: Mutex<State>

    public init(limits: Limits = Limits()) {
        self.limits = limits
        state = Mutex(
            State(
                users: FailureTable(generationCapacity: limits.tableGeneration),
                addresses: FailureTable(generationCapacity: limits.tableGeneration)))
    }

    /// nil when `caller` may try now.
    public func refusal(for caller: Caller, now: UnixTime) -> Refusal? {
        let userKey = caller.userKey, addressKey = caller.addressKey
        return state.withLock { state in
            let tripped = breakerHolds(state.tenants[caller.tenantID], now: now)
            let user = remaining(state.users[userKey], limits.perUser, tripped: tripped, now: now)
            let address = remaining(state.addresses[addressKey], limits.perAddress, tripped: tripped, now: now)
            switch (user, address) {
            case (nil, nil): return nil
            case (let user?, nil): return .user(seconds: Self.seconds(user))
            case (nil, let address?): return .address(seconds: Self.seconds(address))
            case (let user?, let address?):
                return user >= address ? .user(seconds: Self.seconds(user)) : .address(seconds: Self.seconds(address))
            }
        }
    }

    public func recordFailure(_ caller: Caller, now: UnixTime) {
        let userKey = caller.userKey, addressKey = caller.addressKey
        state.withLock { state in
            state.users.store(failed(state.users[userKey], now: now), for: userKey)
            state.addresses.store(failed(state.addresses[addressKey], now: now), for: addressKey)
            state.tenants[caller.tenantID] = counted(state.tenants[caller.tenantID], now: now)
        }
    }

    /// Records held in the user and the address table.
    var recordCounts: (users: Int, addresses: Int) {
        state.withLock { ($0.users.count, $0.addresses.count) }
    }

    /// Milliseconds until `record`'s key may try again; nil when it may now.
    private func remaining(_ record: FailureRecord?, _ backoff: Backoff, tripped: Bool, now: UnixTime) -> Int64? {
        guard let record = current(record, now: now),
            let wait = backoff.wait(afterFailures: record.failures, before: tripped ? 1 : backoff.failuresBeforeWaiting)
        else { return nil }
        // A clock that stepped back would make the distance longer than the wait itself: never say more than it.
        let (elapsed, overflow) = now.milliseconds.subtractingReportingOverflow(record.lastFailure)
        let left = overflow || elapsed < 0 ? wait : wait - min(elapsed, wait)
        return left > 0 ? left : nil
    }

    /// `record` unless its failures are forgotten by now.
    private func current(_ record: FailureRecord?, now: UnixTime) -> FailureRecord? {
        guard let record else { return nil }
        let (elapsed, overflow) = now.milliseconds.subtractingReportingOverflow(record.lastFailure)
        return !overflow && elapsed >= limits.memoryMilliseconds ? nil : record
    }

    private func failed(_ record: FailureRecord?, now: UnixTime) -> FailureRecord {
        let failures = current(record, now: now)?.failures ?? 0
        return FailureRecord(failures: failures == .max ? failures : failures + 1, lastFailure: now.milliseconds)
    }

    private func breakerHolds(_ failures: TenantFailures?, now: UnixTime) -> Bool {
        guard let failures else { return false }
        let window = now.milliseconds / limits.breakerWindowMilliseconds
        if window <= failures.window {
            // Both windows together: a flood that straddles their boundary counts whole. (No overflow: both counts
            // and the threshold are at least 0.)
            return failures.count >= limits.breakerFailures - failures.previousCount
        }
        // window > failures.window here, so adding 1 to the latter cannot overflow.
        return window == failures.window + 1 && failures.count >= limits.breakerFailures
    }

    private func counted(_ failures: TenantFailures?, now: UnixTime) -> TenantFailures {
        let window = now.milliseconds / limits.breakerWindowMilliseconds
        guard let failures else { return TenantFailures(window: window, count: 1, previousCount: 0) }
        if window <= failures.window {
            // The same window (or a clock that stepped back into an earlier one): count it there.
            return TenantFailures(
                window: failures.window, count: min(failures.count, Int.max - 1) + 1, previousCount: failures.previousCount)
        }
        return TenantFailures(
            window: window, count: 1, previousCount: window == failures.window + 1 ? failures.count : 0)
    }

    /// Whole seconds, rounded up: a client that waits that long is not refused again for the same failure.
    private static func seconds(_ milliseconds: Int64) -> Int64 {
        milliseconds / 1000 + (milliseconds % 1000 == 0 ? 0 : 1)
    }
}
