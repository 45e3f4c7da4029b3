import Glibc

/// Where the domain gets "now": status is a function of records and the current time.
public protocol DomainClock: Sendable {
    func now() -> UnixTime
}

/// The wall clock, in milliseconds.
public struct SystemClock: DomainClock {
    public init() {}

    public func now() -> UnixTime {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UnixTime(milliseconds: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}
