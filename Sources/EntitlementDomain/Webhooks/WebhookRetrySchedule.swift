import CivilCalendar
/// When a failed webhook delivery is tried again: the delays after each failed attempt, with jitter, and the point
/// at which the delivery is given up (dead-lettered, and a `webhook.exhausted` notice logged).
///
/// The default is the Standard Webhooks example: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the
/// failures before, so the tenth and last attempt comes about 75 h 35 min after the first: an endpoint down for
/// three days still gets every event. Tests configure a compressed schedule.
public struct WebhookRetrySchedule: Sendable, Hashable {
    public static let standardDelays: [Int64] = [
        5 * Milliseconds.perSecond, 5 * Milliseconds.perMinute, 30 * Milliseconds.perMinute, 2 * Milliseconds.perHour,
        5 * Milliseconds.perHour, 10 * Milliseconds.perHour, 14 * Milliseconds.perHour, 20 * Milliseconds.perHour,
        Milliseconds.perDay,
    ]
    /// The longest a `Retry-After` may push an attempt back.
    public static let maxRetryAfterMilliseconds = Milliseconds.perDay

    /// Milliseconds to wait after the first, second, ... failure; an attempt after the last is not made.
    public let delays: [Int64]
    /// Each delay is moved by up to this fraction either way, so endpoints that failed together are not all tried
    /// again at the same instant.
    public let jitter: Double

    public init(delays: [Int64] = standardDelays, jitter: Double = 0.1) {
        self.delays = delays.map { max(0, $0) }
        self.jitter = min(max(jitter, 0), 0.5)
    }

    /// A schedule written as delays separated by commas, each a whole number and a unit (`ms`, `s`, `m`, `h`,
    /// `d`): the default is `5s,5m,30m,2h,5h,10h,14h,20h,24h`. At most 30 delays of at most 7 days; nil otherwise.
    public init?(parsing text: String, jitter: Double = 0.1) {
        var delays: [Int64] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.filter { $0 != " " }
            let digits = item.prefix { $0.isASCII && $0.isNumber }
            let unit = String(item.dropFirst(digits.count))
            let scale: Int64? =
                switch unit {
                case "ms": 1
                case "s": Milliseconds.perSecond
                case "m": Milliseconds.perMinute
                case "h": Milliseconds.perHour
                case "d": Milliseconds.perDay
                default: nil
                }
            guard !digits.isEmpty, digits.count <= 9, let scale, let value = Int64(digits), value * scale <= 7 * Milliseconds.perDay
            else { return nil }
            delays.append(value * scale)
        }
        guard (1...30).contains(delays.count) else { return nil }
        self.init(delays: delays, jitter: jitter)
    }

    /// Attempts made before a delivery is given up.
    public var maxAttempts: Int { delays.count + 1 }

    /// When to try again after the `attempts`-th failure at `now`; nil when that was the last attempt. A
    /// `Retry-After` (429, 503) is honoured: never sooner than it says.
    public func nextAttempt(afterAttempts attempts: Int, at now: UnixTime, retryAfterSeconds: Int64?, random: Double)
        -> UnixTime?
    {
        guard attempts >= 1, attempts <= delays.count else { return nil }
        let base = Double(delays[attempts - 1])
        var delay = Int64(base + base * jitter * (random * 2 - 1))
        if let retryAfterSeconds {
            let asked = min(max(0, retryAfterSeconds), Self.maxRetryAfterMilliseconds / 1000) * 1000
            delay = max(delay, asked)
        }
        return UnixTime(milliseconds: now.milliseconds + max(0, delay))
    }
}

