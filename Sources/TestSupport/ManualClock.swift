public import EntitlementDomain
public import EntitlementStorage
import Synchronization

/// A ``DomainClock`` that only moves when a test moves it, for engine tests that cross expiries without sleeping.
public final class ManualClock: DomainClock {
    private let current: Mutex<UnixTime>

    public init(_ start: UnixTime = UnixTime(milliseconds: 1_700_000_000_000)) {
        current = Mutex(start)
    }

    public func now() -> UnixTime { current.withLock { $0 } }

    public func set(_ time: UnixTime) {
        current.withLock { $0 = time }
    }

    /// Moves the clock forward (or back, for a negative value) and returns the new reading.
    @discardableResult
    public func advance(milliseconds: Int64) -> UnixTime {
        current.withLock { now in
            now = UnixTime(milliseconds: now.milliseconds + milliseconds)
            return now
        }
    }
}
