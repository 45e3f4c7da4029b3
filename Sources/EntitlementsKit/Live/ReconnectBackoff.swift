/// How long to wait before reconnecting a status stream: exponential with full jitter (a random wait from zero to
/// the step, so many devices dropped together do not come back together), capped, and reset after a connection
/// that worked: one that delivered an event and stayed open `healthyAfter`, so a server or proxy that accepts and
/// drops at once is not called in a tight loop.
public struct ReconnectBackoff: Sendable, Hashable {
    public var initial: Duration
    public var maximum: Duration
    public var healthyAfter: Duration

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60), healthyAfter: Duration = .seconds(10)) {
        self.initial = initial
        self.maximum = maximum
        self.healthyAfter = healthyAfter
    }

    /// The step before reconnect number `attempt` (0 for the first): `initial * 2^attempt`, at most `maximum`.
    public func step(attempt: Int) -> Duration {
        var step = initial
        for _ in 0..<min(max(0, attempt), 62) where step < maximum { step *= 2 }
        return min(step, maximum)
    }

    /// Full jitter: a wait drawn uniformly from zero to `step`.
    public static func jitter(_ step: Duration, using random: inout some RandomNumberGenerator) -> Duration {
        .nanoseconds(Int64.random(in: 0...max(0, nanoseconds(step)), using: &random))
    }

    @Sendable public static func fullJitter(_ step: Duration) -> Duration {
        var random = SystemRandomNumberGenerator()
        return jitter(step, using: &random)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
