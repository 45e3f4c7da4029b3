@testable import EntitlementServices
import Testing

/// When a failed acknowledgement is tried again.
@Suite struct PlayAcknowledgerScheduleTests {
    @Test func delaysDoubleFromTheFirstRetryUpToTheCap() {
        let schedule = PlayAcknowledger.Schedule(firstRetry: .seconds(30), maxDelay: .seconds(300), maxAttempts: 10)
        let delays = (1..<10).map { schedule.delay(afterAttempts: $0) }
        #expect(delays == [30, 60, 120, 240, 300, 300, 300, 300, 300].map { Duration.seconds($0) })
    }

    @Test func thereIsNoDelayAfterTheLastAttempt() {
        let schedule = PlayAcknowledger.Schedule(firstRetry: .seconds(1), maxDelay: .seconds(8), maxAttempts: 3)
        #expect(schedule.delay(afterAttempts: 2) == .seconds(2))
        #expect(schedule.delay(afterAttempts: 3) == nil)
        #expect(schedule.delay(afterAttempts: 4) == nil)
        // At least one attempt, whatever the configuration says.
        let once = PlayAcknowledger.Schedule(maxAttempts: 0)
        #expect(once.maxAttempts == 1 && once.delay(afterAttempts: 1) == nil)
    }

    @Test func theDefaultsKeepTryingForAboutADayAndAHalfInsideGooglesThreeDays() {
        let schedule = PlayAcknowledger.Schedule()
        #expect(schedule.firstRetry == .seconds(30) && schedule.maxDelay == .seconds(3600) && schedule.maxAttempts == 40)
        let delays = (1..<schedule.maxAttempts).compactMap { schedule.delay(afterAttempts: $0) }
        #expect(delays.count == 39)
        let total = delays.reduce(Duration.zero, +)
        #expect(total > .seconds(30 * 3600) && total < .seconds(40 * 3600))
        #expect(total < .seconds(72 * 3600))
    }

    @Test func aDelayIsCountedInWholeMilliseconds() {
        #expect(Duration.seconds(30).milliseconds == 30_000)
        #expect(Duration.milliseconds(1_500).milliseconds == 1_500)
        #expect(Duration.microseconds(1_999).milliseconds == 1)
        #expect(Duration.zero.milliseconds == 0)
    }
}
