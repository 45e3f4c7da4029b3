/// Days since 1970-01-01 and proleptic Gregorian dates, by arithmetic (Howard Hinnant's `civil_from_days` and
/// `days_from_civil`): no time zone, no Foundation, cheap enough for every log line.
public enum CivilCalendar {
    /// The date `days` days after 1970-01-01 (before it when negative).
    @inlinable
    public static func date(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to `year`-`month`-`day` (month 1–12).
    @inlinable
    public static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds since 1970 split into whole days (rounded down, also before 1970) and the second of that day.
    @inlinable
    public static func split(seconds: Int64) -> (days: Int64, secondOfDay: Int64) {
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: Seconds.perDay)
        return secondOfDay < 0 ? (days - 1, secondOfDay + Seconds.perDay) : (days, secondOfDay)
    }

    /// The most bytes ``writeISO8601(seconds:fraction:digits:to:)`` writes (any `Int64` seconds, nine fraction digits).
    public static let iso8601MaximumLength = 40

    /// `YYYY-MM-DDThh:mm:ssZ` in UTC (RFC 3339, the ISO 8601 profile) for `seconds` since 1970, with `fraction` after
    /// a dot in exactly `digits` digits (1–9) when `digits` is not 0. The one ISO formatter of the project.
    public static func iso8601(seconds: Int64, fraction: Int64 = 0, digits: Int = 0) -> String {
        String(unsafeUninitializedCapacity: iso8601MaximumLength) { buffer in
            writeISO8601(seconds: seconds, fraction: fraction, digits: digits, to: buffer.baseAddress!)
        }
    }

    /// ``iso8601(seconds:fraction:digits:)`` written to `output`, which has room for ``iso8601MaximumLength`` bytes,
    /// for callers that build lines in their own memory (the logger, on every line); returns the bytes written.
    /// Years have at least four digits (more past 9999, a `-` before 0).
    @inlinable
    public static func writeISO8601(
        seconds: Int64, fraction: Int64 = 0, digits: Int = 0, to output: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let (days, secondOfDay) = split(seconds: seconds)
        let (year, month, day) = date(fromDays: days)
        var count = 0
        if year < 0 {
            output[0] = UInt8(ascii: "-")
            count = 1
        }
        count += writeDigits(year.magnitude, width: 4, to: output + count)
        writeTwoDigits(UInt64(month), after: "-", to: output + count)
        writeTwoDigits(UInt64(day), after: "-", to: output + count + 3)
        writeTwoDigits(UInt64(secondOfDay / Seconds.perHour), after: "T", to: output + count + 6)
        writeTwoDigits(UInt64(secondOfDay / Seconds.perMinute % 60), after: ":", to: output + count + 9)
        writeTwoDigits(UInt64(secondOfDay % 60), after: ":", to: output + count + 12)
        count += 15
        if digits > 0 {
            output[count] = UInt8(ascii: ".")
            count += 1 + writeDigits(UInt64(fraction.magnitude), width: digits, to: output + count + 1)
        }
        output[count] = UInt8(ascii: "Z")
        return count + 1
    }

    /// `separator` and `value` (below 100) as two digits: the fixed-width fields of a timestamp, written on every log
    /// line without ``writeDigits(_:width:to:)``'s loops.
    @inlinable @inline(__always)
    static func writeTwoDigits(_ value: UInt64, after separator: Unicode.Scalar, to output: UnsafeMutablePointer<UInt8>) {
        output[0] = UInt8(ascii: separator)
        output[1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
        output[2] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
    }

    /// `value` in decimal, zero-padded to `width` digits; returns the bytes written.
    @inlinable
    static func writeDigits(_ value: UInt64, width: Int, to output: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 1
        var rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        length = max(length, width)
        rest = value
        for index in stride(from: length - 1, through: 0, by: -1) {
            output[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return length
    }

    /// Rounded toward minus infinity, for any `value` (negating `Int64.min` would overflow).
    @inlinable
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
