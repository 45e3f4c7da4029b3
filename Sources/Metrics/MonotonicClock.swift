import Glibc

/// Nanoseconds on the monotonic clock, as a plain integer: a struct holding a `ContinuousClock.Instant` (a type of
/// the standard library, whose layout is not known at compile time) is copied through runtime type information on
/// every move, and a call's metrics move with it several times.
public enum MonotonicClock {
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Nanoseconds since `start` (an earlier ``nanoseconds()``).
    public static func nanoseconds(since start: UInt64) -> UInt64 {
        let now = nanoseconds()
        return now >= start ? now - start : 0
    }
}
