import RPCCore
import TestSupport
import Testing

@Suite struct TimeoutTests {
    // MARK: parse

    @Test(arguments: [
        ("1H", Duration.seconds(3_600)),
        ("1M", .seconds(60)),
        ("1S", .seconds(1)),
        ("1m", .milliseconds(1)),
        ("1u", .microseconds(1)),
        ("1n", .nanoseconds(1)),
        ("0n", .zero),
        ("0S", .zero),
        ("7M", .seconds(420)),
        ("250m", .milliseconds(250)),
        ("00000001n", .nanoseconds(1)),
        ("12345678m", .milliseconds(12_345_678)),
        ("99999999H", .seconds(Int64(99_999_999) * 3_600)),
        ("99999999M", .seconds(Int64(99_999_999) * 60)),
        ("99999999S", .seconds(99_999_999)),
        ("99999999m", .milliseconds(99_999_999)),
        ("99999999u", .microseconds(99_999_999)),
        ("99999999n", .nanoseconds(99_999_999)),
    ])
    func parsesEveryUnitWithOneToEightDigits(header: String, expected: Duration) {
        #expect(GRPCTimeout.parse(header) == expected)
        #expect(GRPCTimeout.parse(header[...]) == expected, "Substring input")
    }

    @Test(arguments: [
        "",
        "S",
        "H",
        "n",
        "1",
        "12345678",
        "123456789S",
        "000000000n",
        "999999999H",
        "-1S",
        "+1S",
        " 1S",
        "1S ",
        "1 S",
        "1s",
        "1h",
        "1N",
        "1x",
        "1.5S",
        "1e3m",
        "0x1S",
        "1SS",
        "S1",
        "1\u{0}S",
        "\u{0661}S",  // ARABIC-INDIC DIGIT ONE
        "\u{FF11}S",  // FULLWIDTH DIGIT ONE
        "1\u{00B5}",  // MICRO SIGN instead of u
        "1é",
    ])
    func rejectsMalformedValues(header: String) {
        #expect(GRPCTimeout.parse(header) == nil)
    }

    // MARK: encode

    @Test(arguments: [
        (Duration.zero, "0n"),
        (.nanoseconds(1), "1n"),
        (Duration(secondsComponent: 0, attosecondsComponent: 1), "1n"),
        (.nanoseconds(1_500), "1500n"),
        (.nanoseconds(99_999_999), "99999999n"),
        (.nanoseconds(100_000_000), "100000u"),
        (.nanoseconds(100_000_001), "100001u"),
        (.seconds(1), "1000000u"),
        (.seconds(100), "100000m"),
        (.nanoseconds(123_456_789_012), "123457m"),
        (.seconds(3_600), "3600000m"),
        (.milliseconds(99_999_999), "99999999m"),
        (.milliseconds(100_000_000), "100000S"),
        (.seconds(99_999_999), "99999999S"),
        (.seconds(100_000_000), "1666667M"),
        (.seconds(Int64(99_999_999) * 60), "99999999M"),
        (.seconds(Int64(99_999_999) * 60 + 1), "1666667H"),
        (.seconds(Int64(99_999_999) * 3_600), "99999999H"),
    ])
    func encodePicksTheFinestUnitAndRoundsUp(duration: Duration, expected: String) {
        #expect(GRPCTimeout.encode(duration) == expected)
    }

    @Test(arguments: [
        Duration.seconds(Int64(99_999_999) * 3_600 + 1),
        .seconds(Int64(1) << 40),
        .seconds(Int64(1) << 50),
    ])
    func encodeClampsBeyondTheLargestExpressibleTimeout(duration: Duration) {
        #expect(GRPCTimeout.encode(duration) == "99999999H")
    }

    /// The durations named in the brief, plus edges of every unit and a seeded random sample across all scales.
    static let roundTripDurations: [Duration] = {
        var durations: [Duration] = [
            .zero, .nanoseconds(1), .nanoseconds(2), .nanoseconds(999), .nanoseconds(1_001),
            .nanoseconds(99_999_999), .nanoseconds(100_000_000), .nanoseconds(100_000_001),
            .microseconds(99_999_999), .microseconds(100_000_000), .microseconds(100_000_001),
            .milliseconds(99_999_999), .milliseconds(100_000_001),
            .seconds(1), .milliseconds(1_500), .seconds(30), .seconds(3_600), .seconds(86_400),
            .seconds(99_999_999), .seconds(100_000_000), .seconds(100_000_001),
            .seconds(Int64(99_999_999) * 60), .seconds(Int64(99_999_999) * 60 + 1),
            .seconds(Int64(99_999_999) * 3_600 - 1), .seconds(Int64(99_999_999) * 3_600),
            Duration(secondsComponent: 0, attosecondsComponent: 1),
            Duration(secondsComponent: 2, attosecondsComponent: 999_999_999_999_999_999),
        ]
        var generator = SeededRandomNumberGenerator(seed: 42)
        for _ in 0..<500 {
            // Below 10^8 s every sub-second part is expressible in n/u/m/S.
            let nanos = Int64.random(in: 0...(Int64(1) << Int.random(in: 1...56, using: &generator)), using: &generator)
            durations.append(.nanoseconds(nanos))
            // Whole seconds up to the largest expressible timeout, through the M and H units.
            let seconds = Int64.random(in: 0...(Int64(99_999_999) * 3_600), using: &generator)
            durations.append(.seconds(seconds))
        }
        return durations
    }()

    @Test func encodeNeverShortensTheDeadlineAndFitsEightDigits() throws {
        let units: [UInt8: Duration] = [
            UInt8(ascii: "n"): .nanoseconds(1), UInt8(ascii: "u"): .microseconds(1),
            UInt8(ascii: "m"): .milliseconds(1), UInt8(ascii: "S"): .seconds(1),
            UInt8(ascii: "M"): .seconds(60), UInt8(ascii: "H"): .seconds(3_600),
        ]
        for duration in Self.roundTripDurations {
            let header = GRPCTimeout.encode(duration)
            let digits = header.utf8.dropLast()
            #expect((1...8).contains(digits.count), "\(duration) -> \(header)")
            let parsed = try #require(GRPCTimeout.parse(header), "\(duration) -> \(header)")
            #expect(parsed >= duration, "\(duration) -> \(header) shortens the deadline")
            // Rounded up by less than one unit of the chosen resolution.
            let unit = try #require(units[header.utf8.last!])
            #expect(parsed - duration < unit, "\(duration) -> \(header) rounds up by a whole unit or more")
        }
    }

    @Test func negativeWholeSecondDurationsEncodeAsZero() {
        #expect(GRPCTimeout.encode(.seconds(-1)) == "0n")
        #expect(GRPCTimeout.encode(.seconds(-3_600)) == "0n")
        #expect(GRPCTimeout.encode(.nanoseconds(-1)) == "0n")
    }

    // MARK: Edges that once broke encode

    /// A deadline that has just passed (remaining = deadline - now < 0, a fraction of a second) must encode as an
    /// already-expired timeout, not as a malformed header the server rejects.
    @Test(
        "encode of a negative sub-second duration gives 0n",
        arguments: [Duration.nanoseconds(-2), .microseconds(-1), .milliseconds(-3), .milliseconds(-500), .nanoseconds(-999_999_999)]
    )
    func negativeSubsecondDurationsEncodeAsZero(duration: Duration) {
        let header = GRPCTimeout.encode(duration)
        #expect(header == "0n", "encode(\(duration)) == \(header)")
        #expect(GRPCTimeout.parse(header) != nil, "encode(\(duration)) == \(header) does not parse")
    }

    /// In the M and H units the sub-second part must count when rounding up, or the deadline shrinks.
    @Test(
        "encode in minutes/hours rounds the sub-second part up",
        arguments: [
            Duration.seconds(100_000_020) + .milliseconds(500),  // 1666667M == 100_000_020 s exactly
            .seconds(Int64(3_600) * 1_666_667) + .nanoseconds(1),  // 100000020M has 9 digits: 1666667H exactly
        ]
    )
    func coarseUnitsRoundFractionalSecondsUp(duration: Duration) throws {
        let header = GRPCTimeout.encode(duration)
        let parsed = try #require(GRPCTimeout.parse(header))
        #expect(parsed >= duration, "encode(\(duration)) == \(header), which is \(parsed)")
    }

    /// 9_223_372_036 s (~292 years) still fits Int64 nanoseconds; rounding it up must not overflow.
    @Test("encode does not trap just below the Int64-nanosecond limit")
    func encodeSurvivesTheInt64NanosecondLimit() async {
        await #expect(processExitsWith: .success) {
            _ = GRPCTimeout.encode(.seconds(9_223_372_036))
        }
    }

    /// A caller meaning "no real deadline" with `.seconds(Int64.max)` must get the largest timeout, not a crash.
    @Test("encode does not trap on .seconds(Int64.max)")
    func encodeSurvivesInt64MaxSeconds() async {
        await #expect(processExitsWith: .success) {
            _ = GRPCTimeout.encode(.seconds(Int64.max))
        }
    }
}
