public import EntitlementDomain
import Synchronization

/// The tests' clock: it moves only when the test moves it, so expiries, leases and backoff are tested without
/// waiting. The domain reads it as its ``DomainClock``, the API clients as milliseconds since 1970
/// (`clock: { clock.milliseconds }`).
public final class ManualClock: DomainClock {
    /// 2026-06-15T00:00:00Z, unless a test starts elsewhere.
    public static let start: Int64 = 1_781_481_600_000

    private let current: Mutex<UnixTime>

    public init(milliseconds: Int64 = ManualClock.start) {
        current = Mutex(UnixTime(milliseconds: milliseconds))
    }

    public func now() -> UnixTime { current.withLock { $0 } }

    /// ``now()`` in milliseconds since 1970.
    public var milliseconds: Int64 { now().milliseconds }

    public func set(_ time: UnixTime) { current.withLock { $0 = time } }

    /// Moves the time on (back, for negative amounts) and returns the new time.
    @discardableResult
    public func advance(seconds: Int64 = 0, milliseconds: Int64 = 0) -> UnixTime {
        current.withLock { now in
            now = UnixTime(milliseconds: now.milliseconds + seconds * 1000 + milliseconds)
            return now
        }
    }
}
