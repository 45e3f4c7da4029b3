import GooglePlay
import Testing

/// Google's two spellings of an instant.
@Suite struct GooglePlayTimeTests {
    @Test func rfc3339TimesAreReadWithAnyFractionAndOffset() {
        #expect(GooglePlayTime.milliseconds(rfc3339: "2026-06-15T08:45:45Z") == 1_781_513_145_000)
        #expect(GooglePlayTime.milliseconds(rfc3339: "2026-06-15T08:45:45.6Z") == 1_781_513_145_600)
        #expect(GooglePlayTime.milliseconds(rfc3339: "2026-06-15T08:45:45.678999999Z") == 1_781_513_145_678)
        #expect(GooglePlayTime.milliseconds(rfc3339: "2026-06-15T10:45:45.678+02:00") == 1_781_513_145_678)
        #expect(GooglePlayTime.milliseconds(rfc3339: "1970-01-01T00:00:00Z") == 0)
    }

    @Test func anythingElseIsNoTime() {
        for text in [nil, "", "2026-06-15", "2026-06-15 08:45:45Z", "2026-06-15T08:45:45", "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z", "2026-06-15T08:45:45.Z", "1781513145678"]
        {
            #expect(GooglePlayTime.milliseconds(rfc3339: text) == nil, "\(text ?? "nil")")
        }
    }

    @Test func decimalMillisecondsAreDigitsOnly() {
        #expect(GooglePlayTime.milliseconds(decimal: "1781512345678") == 1_781_512_345_678)
        #expect(GooglePlayTime.milliseconds(decimal: "0") == 0)
        #expect(GooglePlayTime.milliseconds(decimal: "9223372036854775807") == Int64.max)
        for text in [nil, "", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "9223372036854775808", "12345678901234567890"] {
            #expect(GooglePlayTime.milliseconds(decimal: text) == nil, "\(text ?? "nil")")
        }
    }
}
