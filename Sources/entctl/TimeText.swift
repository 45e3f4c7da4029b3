import CivilCalendar
import ProtobufWire

/// RFC 3339 timestamps and `30d`-style durations, without Foundation.
enum TimeText {
    /// `2025-01-31T12:00:00Z`, in UTC; `fractional` adds the nanoseconds as 3, 6 or 9 digits when they are not zero
    /// (the proto3 JSON form).
    static func rfc3339(_ timestamp: ProtoTimestamp, fractional: Bool = true) -> String {
        let nanos = Int64(timestamp.nanos)
        guard fractional, nanos > 0 else { return CivilCalendar.iso8601(seconds: timestamp.seconds) }
        let (fraction, digits): (Int64, Int) =
            nanos % 1_000_000 == 0 ? (nanos / 1_000_000, 3) : nanos % 1000 == 0 ? (nanos / 1000, 6) : (nanos, 9)
        return CivilCalendar.iso8601(seconds: timestamp.seconds, fraction: fraction, digits: digits)
    }

    /// Parses an RFC 3339 date-time: `2025-01-31T12:00:00Z`, `2025-01-31T14:00:00.250+02:00`. nil when malformed.
    static func parseRFC3339(_ text: String) -> ProtoTimestamp? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + digits] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += digits
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        var nanos: Int64 = 0
        if expect(".") {
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                if digits < 9 { nanos = nanos * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 9)..<9 { nanos *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if !expect("Zz") {
            guard index < bytes.count else { return nil }
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            guard expect("+-"), let offsetHours = number(2), expect(":"), let offsetMinutes = number(2),
                offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * Seconds.perHour + offsetMinutes * Seconds.perMinute)
        }
        guard index == bytes.count, year >= 1, (1...12).contains(month), day >= 1,
            day <= daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = CivilCalendar.days(fromYear: year, month: month, day: day) * Seconds.perDay + hour * Seconds.perHour
            + minute * Seconds.perMinute + second - offsetSeconds
        let timestamp = ProtoTimestamp(seconds: seconds, nanos: Int32(nanos))
        return timestamp.isValid ? timestamp : nil
    }

    /// Parses `30d`, `12h`, `90m`, `45s`, or several of them together (`1d12h`); nil unless positive and well formed.
    static func parseDuration(_ text: String) -> Duration? {
        var total: Int64 = 0
        var digits: Int64?
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                let (times10, overflow1) = (digits ?? 0).multipliedReportingOverflow(by: 10)
                let (next, overflow2) = times10.addingReportingOverflow(Int64(digit))
                guard !overflow1, !overflow2 else { return nil }
                digits = next
                continue
            }
            let unit: Int64
            switch character {
            case "d": unit = Seconds.perDay
            case "h": unit = Seconds.perHour
            case "m": unit = 60
            case "s": unit = 1
            default: return nil
            }
            guard let count = digits else { return nil }
            let (seconds, overflow1) = count.multipliedReportingOverflow(by: unit)
            let (sum, overflow2) = total.addingReportingOverflow(seconds)
            guard !overflow1, !overflow2 else { return nil }
            total = sum
            digits = nil
        }
        guard digits == nil, total > 0, total <= ProtoDuration.maxSeconds else { return nil }
        return .seconds(total)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
