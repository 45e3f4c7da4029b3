import CivilCalendar
/// Times from outside (a store's payload or answer) come in through these, so that nothing is scaled or added before
/// it is known to lie in ``UnixTime/representable``; inside it, a product by 1000 or a sum with a configured period
/// cannot overflow.
extension UnixTime {
    /// A store's time in milliseconds since 1970; INVALID_ARGUMENT naming `field` and the range when it lies outside
    /// ``representable``.
    public init(milliseconds: Int64, checking field: String) throws(DomainError) {
        self.init(milliseconds: milliseconds)
        guard Self.representable.contains(self) else {
            throw .malformedPayload(
                "\(field) is \(milliseconds) ms since 1970, outside 0001-01-01T00:00:00Z...9999-12-31T23:59:59.999Z "
                    + "(\(Self.representable.lowerBound.milliseconds)...\(Self.representable.upperBound.milliseconds) ms).")
        }
    }

    /// A store's time in whole seconds since 1970 (Stripe's), checked before it is scaled to milliseconds.
    public init(seconds: Int64, checking field: String) throws(DomainError) {
        let allowed = Self.representable.lowerBound.seconds...Self.representable.upperBound.seconds
        guard allowed.contains(seconds) else {
            throw .malformedPayload(
                "\(field) is \(seconds) s since 1970, outside 0001-01-01T00:00:00Z...9999-12-31T23:59:59Z "
                    + "(\(allowed.lowerBound)...\(allowed.upperBound) s).")
        }
        self.init(milliseconds: seconds * 1000)
    }

    /// ``init(milliseconds:checking:)`` of a field that may be absent (nil stays nil).
    public static func checked(milliseconds: Int64?, field: String) throws(DomainError) -> UnixTime? {
        guard let milliseconds else { return nil }
        return try UnixTime(milliseconds: milliseconds, checking: field)
    }

    /// ``init(seconds:checking:)`` of a field that may be absent (nil stays nil).
    public static func checked(seconds: Int64?, field: String) throws(DomainError) -> UnixTime? {
        guard let seconds else { return nil }
        return try UnixTime(seconds: seconds, checking: field)
    }

    /// `days` days later, held inside ``representable``: an expiry a configured period adds to a store's time may
    /// pass the year 9999, and is then the last time the API can carry.
    public func adding(days: Int) -> UnixTime {
        let (span, spanOverflow) = Int64(days).multipliedReportingOverflow(by: Milliseconds.perDay)
        let (sum, sumOverflow) = milliseconds.addingReportingOverflow(span)
        let (lowest, highest) = (Self.representable.lowerBound, Self.representable.upperBound)
        guard !spanOverflow, !sumOverflow else { return days < 0 ? lowest : highest }
        return min(max(UnixTime(milliseconds: sum), lowest), highest)
    }

    /// Whole seconds since 1970, rounded down (also before 1970), and the milliseconds past them (0...999): no step
    /// of it overflows, whatever `milliseconds` holds.
    public var seconds: Int64 { secondsAndMilliseconds.seconds }

    public var secondsAndMilliseconds: (seconds: Int64, milliseconds: Int64) {
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return remainder < 0 ? (quotient - 1, remainder + 1000) : (quotient, remainder)
    }
}
