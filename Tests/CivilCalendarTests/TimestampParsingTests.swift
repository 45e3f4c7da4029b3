import CivilCalendar
import Testing

@Suite struct RFC3339ParsingTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", Int64(0)),
        ("2026-12-01T10:00:00Z", Int64(1_796_119_200_000)),
        ("2026-12-01T10:00:00.5Z", Int64(1_796_119_200_500)),
        ("2026-12-01T10:00:00.123456789Z", Int64(1_796_119_200_123)),
        ("2026-12-01T12:00:00+02:00", Int64(1_796_119_200_000)),
        ("2026-12-01T09:30:00-00:30", Int64(1_796_119_200_000)),
        ("2024-02-29t10:00:00z", Int64(1_709_200_800_000)),
        ("2016-12-31T23:59:60Z", Int64(1_483_228_799_000)),
    ])
    func accepts(_ text: String, _ expected: Int64) {
        #expect(CivilCalendar.milliseconds(fromRFC3339: text) == expected)
    }

    @Test(arguments: [
        "", "2026-12-01", "2026-12-01T10:00:00", "2026-12-01 10:00:00Z", "2026-13-01T10:00:00Z",
        "2026-02-29T10:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T10:00:00.Z", "2026-12-01T10:00:00Zjunk",
        "2026-12-01T10:00:00+2:00", "+2026-12-01T10:00:00Z", "2026-12-01T10:00:00+0200",
    ])
    func refuses(_ text: String) {
        #expect(CivilCalendar.milliseconds(fromRFC3339: text) == nil)
    }

    @Test func agreesWithTheFormatter() {
        for seconds: Int64 in [0, 951_782_400, 1_796_119_200, 4_102_444_799] {
            #expect(CivilCalendar.milliseconds(fromRFC3339: CivilCalendar.iso8601(seconds: seconds)) == seconds * 1000)
        }
    }
}

@Suite struct HTTPDateParsingTests {
    @Test func readsIMFFixdate() {
        #expect(CivilCalendar.seconds(fromHTTPDate: "Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(CivilCalendar.seconds(fromHTTPDate: "Tue, 01 Dec 2026 10:00:00 GMT") == 1_796_119_200)
    }

    @Test(arguments: [
        "", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
    ])
    func refusesOtherForms(_ text: String) {
        #expect(CivilCalendar.seconds(fromHTTPDate: text) == nil)
    }
}
