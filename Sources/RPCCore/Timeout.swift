import CivilCalendar
/// The `grpc-timeout` header: 1–8 ASCII digits and a unit (`H M S m u n`).
public enum GRPCTimeout {
    /// Parses a header value; nil when malformed (the call is then rejected, not run without a deadline).
    public static func parse(_ value: some StringProtocol) -> Duration? {
        let utf8 = Array(value.utf8)
        guard utf8.count >= 2, utf8.count <= 9, let unit = utf8.last else { return nil }
        var amount: Int64 = 0
        for byte in utf8.dropLast() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            amount = amount * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        switch unit {
        case UInt8(ascii: "H"): return .seconds(amount * Seconds.perHour)
        case UInt8(ascii: "M"): return .seconds(amount * Seconds.perMinute)
        case UInt8(ascii: "S"): return .seconds(amount)
        case UInt8(ascii: "m"): return .milliseconds(amount)
        case UInt8(ascii: "u"): return .microseconds(amount)
        case UInt8(ascii: "n"): return .nanoseconds(amount)
        default: return nil
        }
    }

    /// Encodes a timeout in the finest unit whose amount fits in 8 digits, rounding up so a deadline never shrinks.
    /// A deadline already past encodes as `0n`; one too far to express is capped at 99,999,999 hours.
    public static func encode(_ duration: Duration) -> String {
        guard duration > .zero else { return "0n" }
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int128(seconds) * 1_000_000_000 + Int128((attoseconds + 999_999_999) / 1_000_000_000)
        let units: [(Int128, String)] = [
            (1, "n"), (1_000, "u"), (1_000_000, "m"), (1_000_000_000, "S"), (60_000_000_000, "M"),
            (3_600_000_000_000, "H"),
        ]
        for (divisor, unit) in units {
            let amount = (nanoseconds + divisor - 1) / divisor
            if amount <= 99_999_999 { return "\(amount)\(unit)" }
        }
        return "99999999H"
    }
}
