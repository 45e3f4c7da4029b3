import CivilCalendar
import EntitlementDomain
import RPCCore
import Testing

@testable import EntitlementServices

@Suite struct RedemptionAttemptsTests {
    private static let start: Int64 = 1_800_000_000_000
    private static let minute = Milliseconds.perMinute

    private func at(_ offset: Int64) -> UnixTime { UnixTime(milliseconds: Self.start + offset) }

    private func caller(_ user: String, _ address: String?, tenant: String = "t") -> RedemptionAttempts.Caller {
        RedemptionAttempts.Caller(tenantID: tenant, appUserID: user, address: address.flatMap { IPAddress($0) })
    }

    private func fail(_ attempts: RedemptionAttempts, _ caller: RedemptionAttempts.Caller, times: Int = 1, at now: UnixTime) {
        for _ in 0..<times { attempts.recordFailure(caller, now: now) }
    }

    @Test func aUserWhoNeverFailedFromAnAddressThatNeverFailedAlwaysPasses() {
        let attempts = RedemptionAttempts()
        // 20,000 failures in the tenant: from 2,000 addresses (IPv4 and IPv6 networks), 10 user IDs each, one of
        // them a user ID that fails from every address. The breaker trips.
        for index in 0..<2000 {
            let address = index % 2 == 0 ? "198.51.\(index / 256).\(index % 256)" : "2001:db8:\(index)::1"
            fail(attempts, caller("everywhere", address), at: at(0))
            for user in 0..<9 { fail(attempts, caller("u\(index)-\(user)", address), at: at(0)) }
        }
        #expect(attempts.refusal(for: caller("fresh", "203.0.113.1"), now: at(0)) == nil)
        #expect(attempts.refusal(for: caller("fresh", "2001:db8:ffff::1"), now: at(0)) == nil)
        #expect(attempts.refusal(for: caller("fresh", nil), now: at(0)) == nil)
        // The failed keys are another matter.
        #expect(attempts.refusal(for: caller("everywhere", "203.0.113.1"), now: at(0)) != nil)
        #expect(attempts.refusal(for: caller("fresh", "198.51.0.0"), now: at(0)) != nil)
    }

    @Test func aUsersWaitDoublesAfterEachFailureUpToTheCap() {
        let attempts = RedemptionAttempts()
        let user = caller("alice", "203.0.113.1")
        // Four failures are free; the fifth makes the next attempt wait a minute.
        fail(attempts, user, times: 4, at: at(0))
        #expect(attempts.refusal(for: user, now: at(0)) == nil)
        fail(attempts, user, at: at(0))
        #expect(attempts.refusal(for: user, now: at(0)) == .user(seconds: 60))
        #expect(attempts.refusal(for: user, now: at(Self.minute - 1)) == .user(seconds: 1))
        #expect(attempts.refusal(for: user, now: at(Self.minute)) == nil)
        // Each further failure (only possible once the wait is over) doubles it: 2, 4, ... 32 minutes, then the hour.
        var now = Self.minute
        for expected: Int64 in [2, 4, 8, 16, 32, 60, 60, 60] {
            fail(attempts, user, at: at(now))
            #expect(attempts.refusal(for: user, now: at(now)) == .user(seconds: expected * 60))
            now += expected * Self.minute
            #expect(attempts.refusal(for: user, now: at(now)) == nil)
        }
        // The same user ID from another address is still that user.
        #expect(attempts.refusal(for: caller("alice", "198.51.100.1"), now: at(now - 1)) == .user(seconds: 1))
    }

    @Test func theWaitArithmeticNeitherOverflowsNorPassesTheCap() {
        let backoff = RedemptionAttempts.Backoff(
            failuresBeforeWaiting: 5, firstWaitMilliseconds: Milliseconds.perMinute, maxWaitMilliseconds: Milliseconds.perHour)
        #expect(backoff.wait(afterFailures: 0, before: 5) == nil)
        #expect(backoff.wait(afterFailures: 4, before: 5) == nil)
        #expect(backoff.wait(afterFailures: 5, before: 5) == Milliseconds.perMinute)
        #expect(backoff.wait(afterFailures: 10, before: 5) == 1_920_000)
        for failures: UInt32 in [11, 66, 67, 68, 1000, .max - 1, .max] {
            #expect(backoff.wait(afterFailures: failures, before: 5) == Milliseconds.perHour)
        }
        // A key without failures never waits, whatever the allowance.
        #expect(backoff.wait(afterFailures: 0, before: 0) == nil)
        #expect(backoff.wait(afterFailures: 0, before: -3) == nil)
        let huge = RedemptionAttempts.Backoff(failuresBeforeWaiting: 1, firstWaitMilliseconds: .max / 2, maxWaitMilliseconds: .max)
        #expect(huge.wait(afterFailures: 1, before: 1) == Int64.max / 2)
        #expect(huge.wait(afterFailures: 2, before: 1) == Int64.max - 1)
        #expect(huge.wait(afterFailures: 3, before: 1) == Int64.max)
    }

    @Test func theAddressLimitCatchesUserIDRotation() {
        let attempts = RedemptionAttempts()
        for index in 0..<20 { fail(attempts, caller("rotated-\(index)", "203.0.113.7"), at: at(0)) }
        // Each user ID failed once; the address twenty times: a new user ID from it waits.
        #expect(attempts.refusal(for: caller("rotated-0", "198.51.100.1"), now: at(0)) == nil)
        #expect(attempts.refusal(for: caller("new", "203.0.113.7"), now: at(0)) == .address(seconds: 60))
        #expect(attempts.refusal(for: caller("new", "203.0.113.8"), now: at(0)) == nil)
        #expect(attempts.refusal(for: caller("new", "::ffff:203.0.113.7"), now: at(0)) == .address(seconds: 60))
        // Addresses count per tenant: the same address is fresh elsewhere.
        #expect(attempts.refusal(for: caller("new", "203.0.113.7", tenant: "other"), now: at(0)) == nil)
    }

    @Test func anIPv6ClientCountsPerSlash64() {
        let attempts = RedemptionAttempts()
        // A client that picks a new address in its own /64 for each attempt.
        for index in 0..<20 { fail(attempts, caller("u\(index)", "2001:db8:1:2::\(index + 1)"), at: at(0)) }
        #expect(attempts.refusal(for: caller("new", "2001:db8:1:2:ffff::9"), now: at(0)) == .address(seconds: 60))
        #expect(attempts.refusal(for: caller("new", "2001:db8:1:3::1"), now: at(0)) == nil)
    }

    @Test func callersWithoutAnIPAddressShareOne() {
        let attempts = RedemptionAttempts()
        for index in 0..<20 { fail(attempts, caller("u\(index)", nil), at: at(0)) }
        #expect(attempts.refusal(for: caller("new", nil), now: at(0)) == .address(seconds: 60))
        #expect(attempts.refusal(for: caller("new", "203.0.113.7"), now: at(0)) == nil)
    }

    @Test func theBreakerMakesEveryKeyThatFailedWaitButNeverAFreshOne() {
        let limits = RedemptionAttempts.Limits(breakerFailures: 50)
        let attempts = RedemptionAttempts(limits: limits)
        fail(attempts, caller("once", "198.51.100.1"), at: at(0))
        #expect(attempts.refusal(for: caller("once", "198.51.100.2"), now: at(0)) == nil)
        // 50 failures in the window, each from its own address and user ID.
        for index in 1..<50 { fail(attempts, caller("u\(index)", "203.0.113.\(index)"), at: at(0)) }
        #expect(attempts.refusal(for: caller("once", "198.51.100.2"), now: at(0)) == .user(seconds: 60))
        #expect(attempts.refusal(for: caller("fresh", "198.51.100.1"), now: at(0)) == .address(seconds: 60))
        #expect(attempts.refusal(for: caller("fresh", "198.51.100.2"), now: at(0)) == nil)
        // Other tenants are not affected.
        fail(attempts, caller("once", "198.51.100.1", tenant: "other"), at: at(0))
        #expect(attempts.refusal(for: caller("once", "198.51.100.1", tenant: "other"), now: at(0)) == nil)
        // It holds into the next window (the two count together) and lifts once they fall below the threshold
        // (`start` is a multiple of the window: at(0) begins one).
        let window = limits.breakerWindowMilliseconds
        #expect(Self.start % window == 0)
        let late = caller("late", "198.51.100.3")
        fail(attempts, late, at: at(window + 10_000))
        #expect(attempts.refusal(for: late, now: at(window + 20_000)) == .user(seconds: 50))
        let later = caller("later", "198.51.100.4")
        fail(attempts, later, at: at(2 * window + 10_000))
        #expect(attempts.refusal(for: later, now: at(2 * window + 20_000)) == nil)
    }

    @Test func failuresAreForgottenADayAfterTheLastOne() {
        let attempts = RedemptionAttempts()
        let user = caller("alice", "203.0.113.1")
        fail(attempts, user, times: 12, at: at(0))
        #expect(attempts.refusal(for: user, now: at(0)) == .user(seconds: Seconds.perHour))
        let day = 24 * 60 * Self.minute
        // Four failures after the day are free again: the count started over.
        fail(attempts, user, times: 4, at: at(day))
        #expect(attempts.refusal(for: user, now: at(day)) == nil)
    }

    @Test func aClockThatSteppedBackNeverLengthensTheWait() {
        let attempts = RedemptionAttempts()
        let user = caller("alice", "203.0.113.1")
        fail(attempts, user, times: 5, at: at(0))
        #expect(attempts.refusal(for: user, now: at(-10 * Self.minute)) == .user(seconds: 60))
        #expect(attempts.refusal(for: user, now: UnixTime(milliseconds: .min)) == .user(seconds: 60))
        #expect(attempts.refusal(for: user, now: UnixTime(milliseconds: .max)) == nil)
        fail(attempts, user, at: UnixTime(milliseconds: .max))
        fail(attempts, user, at: UnixTime(milliseconds: .min))
    }

    @Test func tablesStayBoundedAndARecordOutlivesAGenerationOfOthers() {
        let limits = RedemptionAttempts.Limits(tableGeneration: 8)
        let attempts = RedemptionAttempts(limits: limits)
        let watched = caller("watched", "203.0.113.1")
        fail(attempts, watched, times: 5, at: at(0))
        // Seven other keys failing fill the generation: the watched record moves to the previous one and still counts.
        for index in 0..<7 { fail(attempts, caller("u\(index)", "198.51.100.\(index)"), at: at(0)) }
        #expect(attempts.refusal(for: watched, now: at(0)) == .user(seconds: 60))
        // An attacker rotating both user ID and address: both tables stay at two generations at most.
        for index in 0..<10_000 { fail(attempts, caller("r\(index)", "10.\(index / 65536).\(index / 256 % 256).\(index % 256)"), at: at(0)) }
        #expect(attempts.recordCounts.users <= 16 && attempts.recordCounts.addresses <= 16)
        // The watched record was forgotten after (at least) a generation of other keys: more permissive, never less.
        #expect(attempts.refusal(for: watched, now: at(0)) == nil)
    }

    @Test func theRefusalSaysWhoWaitsAndHowLongInTheDocumentedFormat() {
        #expect(
            RedemptionAttempts.Refusal.user(seconds: 60).message
                == "Too many failed redemption attempts by this app user ID; try again in 60 s.")
        #expect(
            RedemptionAttempts.Refusal.address(seconds: 7).message
                == "Too many failed redemption attempts from this network address; try again in 7 s.")
    }
}
