import CivilCalendar
import EntitlementDomain
import Testing

@Suite struct WebhookRetryScheduleTests {
    let now = UnixTime(milliseconds: 1_000_000)

    @Test func theDefaultIsTheStandardWebhooksScheduleOfTenAttemptsOverMoreThanThreeDays() {
        let schedule = WebhookRetrySchedule()
        #expect(schedule.maxAttempts == 10)
        #expect(schedule.delays.reduce(0, +) == 272_105_000)  // 75 h 35 min 5 s
        #expect(schedule.delays.reduce(0, +) > 3 * Milliseconds.perDay)
    }

    @Test func eachFailureWaitsItsDelayWithinTheJitter() throws {
        let schedule = WebhookRetrySchedule(delays: [1000, Milliseconds.perMinute], jitter: 0.1)
        let low = try #require(schedule.nextAttempt(afterAttempts: 1, at: now, retryAfterSeconds: nil, random: 0))
        let high = try #require(schedule.nextAttempt(afterAttempts: 1, at: now, retryAfterSeconds: nil, random: 0.999_999))
        #expect(low.milliseconds - now.milliseconds == 900)
        #expect((1099...1100).contains(high.milliseconds - now.milliseconds))
        let second = try #require(schedule.nextAttempt(afterAttempts: 2, at: now, retryAfterSeconds: nil, random: 0.5))
        #expect(second.milliseconds - now.milliseconds == Milliseconds.perMinute)
    }

    @Test func theAttemptAfterTheLastDelayIsTheLast() {
        let schedule = WebhookRetrySchedule(delays: [1000, 2000])
        #expect(schedule.maxAttempts == 3)
        #expect(schedule.nextAttempt(afterAttempts: 3, at: now, retryAfterSeconds: nil, random: 0.5) == nil)
        #expect(schedule.nextAttempt(afterAttempts: 0, at: now, retryAfterSeconds: nil, random: 0.5) == nil)
    }

    @Test func retryAfterIsNeverUndercutButCapped() throws {
        let schedule = WebhookRetrySchedule(delays: [1000], jitter: 0)
        let later = try #require(schedule.nextAttempt(afterAttempts: 1, at: now, retryAfterSeconds: 30, random: 0.5))
        #expect(later.milliseconds - now.milliseconds == 30_000)
        // Shorter than the schedule: the schedule stands.
        let sooner = try #require(schedule.nextAttempt(afterAttempts: 1, at: now, retryAfterSeconds: 0, random: 0.5))
        #expect(sooner.milliseconds - now.milliseconds == 1000)
        let absurd = try #require(schedule.nextAttempt(afterAttempts: 1, at: now, retryAfterSeconds: .max, random: 0.5))
        #expect(absurd.milliseconds - now.milliseconds == WebhookRetrySchedule.maxRetryAfterMilliseconds)
    }

    @Test(arguments: [
        ("5s,5m,30m,2h,5h,10h,14h,20h,24h", WebhookRetrySchedule.standardDelays),
        ("100ms, 2s ,1d", [100, 2000, 86_400_000]),
        ("0s", [0]),
    ] as [(String, [Int64])])
    func schedulesAreWrittenAsDelaysWithUnits(text: String, delays: [Int64]) {
        #expect(WebhookRetrySchedule(parsing: text)?.delays == delays)
    }

    @Test(arguments: ["", "5", "5x", "s", "-5s", "8d", "1s,,2s", "1.5s", String(repeating: "1s,", count: 30) + "1s"])
    func malformedSchedulesAreRefused(text: String) {
        #expect(WebhookRetrySchedule(parsing: text) == nil)
    }
}
