import EntitlementDomain
import Testing

/// The checked entry of a store's times into the domain, at the edges of ``UnixTime/representable`` and of `Int64`.
@Suite struct UnixTimeRangeTests {
    static let first: Int64 = -62_135_596_800_000
    static let last: Int64 = 253_402_300_799_999

    @Test(arguments: [
        (Int64(0), true), (1, true), (-1, true), (first, true), (last, true), (first - 1, false), (last + 1, false),
        (Int64.max, false), (Int64.min, false), (Int64.max / 1000, false), (Int64.max / 1000 + 1, false),
    ])
    func milliseconds(value: Int64, accepted: Bool) {
        let checked = try? UnixTime(milliseconds: value, checking: "expiresDate")
        #expect(checked?.milliseconds == (accepted ? value : nil))
        if !accepted {
            let error = #expect(throws: DomainError.self) { try UnixTime(milliseconds: value, checking: "expiresDate") }
            #expect(error?.code == .malformedPayload)
            #expect(error?.message.hasPrefix("expiresDate is \(value) ms since 1970, outside 0001-01-01") == true)
            #expect(error?.message.contains("\(Self.first)...\(Self.last) ms") == true)
        }
    }

    @Test(arguments: [
        (Int64(0), true), (1, true), (-1, true), (-62_135_596_800, true), (253_402_300_799, true),
        (-62_135_596_801, false), (253_402_300_800, false), (Int64.max, false), (Int64.min, false),
        (Int64.max / 1000, false), (Int64.max / 1000 + 1, false), (Int64.min / 1000 - 1, false),
    ])
    func seconds(value: Int64, accepted: Bool) {
        let checked = try? UnixTime(seconds: value, checking: "created")
        #expect(checked?.milliseconds == (accepted ? value * 1000 : nil))
        if !accepted {
            let error = #expect(throws: DomainError.self) { try UnixTime(seconds: value, checking: "created") }
            #expect(error?.message.hasPrefix("created is \(value) s since 1970, outside") == true)
        }
    }

    @Test func anAbsentFieldStaysAbsent() throws {
        #expect(try UnixTime.checked(milliseconds: nil, field: "expiresDate") == nil)
        #expect(try UnixTime.checked(seconds: nil, field: "ended_at") == nil)
        #expect(try UnixTime.checked(seconds: 1, field: "ended_at")?.milliseconds == 1000)
    }

    /// Days added stay inside the range whatever the time and the count; in the middle they are exact.
    @Test(arguments: [
        (Int64(0), 1, Int64(86_400_000)), (0, -1, -86_400_000), (last, 1, last), (first, -1, first),
        (last - 86_400_000, 1, last), (Int64.max, 1, last), (Int64.min, -1, first), (0, Int.max, last),
        (0, Int.min, first), (Int64.max, Int.min, first),
    ] as [(Int64, Int, Int64)])
    func addingDays(milliseconds: Int64, days: Int, expected: Int64) {
        #expect(UnixTime(milliseconds: milliseconds).adding(days: days).milliseconds == expected)
    }

    /// Whole seconds round down, also before 1970 and at Int64's ends.
    @Test(arguments: [
        (Int64(0), Int64(0), Int64(0)), (999, 0, 999), (-1, -1, 999), (-1000, -1, 0), (-1001, -2, 999),
        (Int64.max, 9_223_372_036_854_775, 807), (Int64.min, -9_223_372_036_854_776, 192),
    ])
    func secondsAndMilliseconds(value: Int64, seconds: Int64, milliseconds: Int64) {
        #expect(UnixTime(milliseconds: value).secondsAndMilliseconds == (seconds, milliseconds))
        #expect(UnixTime(milliseconds: value).seconds == seconds)
    }

    @Test func theExtremesAreFormattedWithoutATrap() {
        #expect(UnixTime(milliseconds: Self.last).rfc3339 == "9999-12-31T23:59:59Z")
        #expect(UnixTime(milliseconds: -1).rfc3339 == "1969-12-31T23:59:59Z")
        #expect(!UnixTime(milliseconds: Int64.min).rfc3339.isEmpty && !UnixTime(milliseconds: Int64.max).rfc3339.isEmpty)
    }
}
