import CivilCalendar
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ISO8601Tests {
    @Test func knownInstants() {
        #expect(CivilCalendar.iso8601(seconds: 0) == "1970-01-01T00:00:00Z")
        #expect(CivilCalendar.iso8601(seconds: -1) == "1969-12-31T23:59:59Z")
        #expect(CivilCalendar.iso8601(seconds: 951_782_400) == "2000-02-29T00:00:00Z")
        #expect(CivilCalendar.iso8601(seconds: 253_402_300_799) == "9999-12-31T23:59:59Z")
        #expect(CivilCalendar.iso8601(seconds: -62_135_596_800) == "0001-01-01T00:00:00Z")
        #expect(CivilCalendar.iso8601(seconds: 253_402_300_800) == "10000-01-01T00:00:00Z", "more digits past 9999")
        #expect(CivilCalendar.iso8601(seconds: 1_700_000_000, fraction: 5, digits: 3) == "2023-11-14T22:13:20.005Z")
        #expect(CivilCalendar.iso8601(seconds: 1_700_000_000, fraction: 1, digits: 9) == "2023-11-14T22:13:20.000000001Z")
    }

    /// Against the C library's `gmtime_r` across a few centuries.
    @Test func matchesGmtime() {
        var seconds: Int64 = -5_000_000_000
        while seconds < 10_000_000_000 {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            func pad(_ value: Int32, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            let expected = "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
                + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))Z"
            #expect(CivilCalendar.iso8601(seconds: seconds) == expected)
            seconds += 86_400 * 37 + 3_671
        }
    }

    /// Every `Int64` is formatted (a time from outside may hold any), the extremes included, without a trap.
    @Test func longestTextFits() {
        for seconds in [Int64.max, Int64.min, Int64.min + 1, Int64.max / 2, Int64.min / 2] {
            let text = CivilCalendar.iso8601(seconds: seconds, fraction: 999_999_999, digits: 9)
            #expect(text.utf8.count <= CivilCalendar.iso8601MaximumLength, "\(text)")
        }
    }

    @Test(arguments: [
        (Int64(0), Int64(0), Int64(0)),
        (-1, -1, 86_399),
        (86_399, 0, 86_399),
        (-86_400, -1, 0),
        (-86_401, -2, 86_399),
        (Int64.max, 106_751_991_167_300, 55_807),
        (Int64.min, -106_751_991_167_301, 30_592),
    ])
    func splitRoundsDaysDown(seconds: Int64, days: Int64, secondOfDay: Int64) {
        #expect(CivilCalendar.split(seconds: seconds) == (days, secondOfDay))
    }
}
