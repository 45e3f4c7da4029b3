extension CivilCalendar {
    /// An RFC 3339 timestamp (`2026-12-01T10:00:00Z`, `…:00.123456789Z`, `…:00+02:00`): milliseconds since 1970,
    /// the fraction beyond milliseconds dropped; nil for anything else (lowercase `t`/`z` accepted, as RFC 3339 allows).
    public static func milliseconds(fromRFC3339 text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, is expected: Character...) -> Bool {
            index < bytes.count && expected.contains(Character(UnicodeScalar(bytes[index])))
        }
        guard let year = number(0..<4), byte(4, is: "-"), let month = number(5..<7), byte(7, is: "-"),
            let day = number(8..<10), byte(10, is: "T", "t"), let hour = number(11..<13), byte(13, is: ":"),
            let minute = number(14..<16), byte(16, is: ":"), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60,
            day <= daysIn(month: month, year: year)
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if byte(index, is: ".") {
            let start = index + 1
            index = start
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > start else { return nil }
            for position in start..<(start + 3) {
                millis = millis * 10 + (position < index ? Int64(bytes[position] - 0x30) : 0)
            }
        }
        var offsetSeconds: Int64 = 0
        if byte(index, is: "Z", "z") {
            index += 1
        } else if byte(index, is: "+", "-") {
            guard let hours = number((index + 1)..<(index + 3)), byte(index + 3, is: ":"),
                let minutes = number((index + 4)..<(index + 6)), hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = (hours * Seconds.perHour + minutes * Seconds.perMinute) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        // A leap second reads as the last second of its minute.
        let seconds = days(fromYear: year, month: month, day: day) * Seconds.perDay + hour * Seconds.perHour
            + minute * Seconds.perMinute
            + min(second, 59) - offsetSeconds
        return seconds * 1000 + millis
    }

    /// An HTTP date in the preferred IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7): seconds
    /// since 1970; nil for anything else (the obsolete forms are not sent by any server this talks to).
    public static func seconds(fromHTTPDate text: some StringProtocol) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekdays = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"]
        guard parts.count == 6, weekdays.contains(String(parts[0])), parts[1].count == 2, let day = Int64(parts[1]),
            let monthIndex = months.firstIndex(of: String(parts[2])), parts[3].count == 4, let year = Int64(parts[3]),
            parts[5] == "GMT"
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
            hour < 24, minute < 60, second <= 60, day >= 1, day <= daysIn(month: Int64(monthIndex + 1), year: year)
        else { return nil }
        return days(fromYear: year, month: Int64(monthIndex + 1), day: day) * Seconds.perDay + hour * Seconds.perHour
            + minute * Seconds.perMinute
            + min(second, 59)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
