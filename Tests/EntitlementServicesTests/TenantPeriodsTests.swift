import CivilCalendar
import EntitlementDomain
@testable import EntitlementServices
import RPCCore
import TestSupport
import Testing

/// The schedule behind the App Store reconciliation and the Play voided-purchases poll: each tenant's work once per
/// period of its own, and how long the loop sleeps until the next is due.
@Suite struct TenantPeriodsTests {
    static let minute = Milliseconds.perMinute
    static let start: Int64 = 1_800_000_000_000

    let repository = InMemoryRepository()
    let holding: WorkHolding
    let tenants: [Tenant]

    init() throws {
        let engine = CustomerEngine(repository: repository, clock: ManualClock())
        holding = WorkHolding("test_work", engine: engine, log: Logger(label: "periods-test", minimumLevel: .error))
        tenants = try ["every-10", "every-25", "never", "zero"].map { id throws in
            try Tenant(id: id, publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!])
        }
    }

    /// One pass at `now` (milliseconds since `start`): the tenants whose work ran, and the wait it asked for.
    func pass(_ periods: TenantPeriods, at now: Int64) async -> (ran: [String], wait: Duration) {
        var ran: [String] = []
        let wait = await periods.runDue(
            of: tenants, now: Self.start + now, every: { ["every-10": 10, "every-25": 25, "zero": 0][$0.id] },
            holding: holding
        ) { tenant in ran.append(tenant.id) }
        return (ran, wait)
    }

    @Test func eachTenantRunsOncePerItsPeriodAndTheWaitIsUntilTheNextDue() async {
        let periods = TenantPeriods()
        let first = await pass(periods, at: 0)
        #expect(first.ran == ["every-10", "every-25"] && first.wait == .milliseconds(10 * Self.minute))
        let early = await pass(periods, at: 4 * Self.minute)
        #expect(early.ran == [] && early.wait == .milliseconds(6 * Self.minute))
        let second = await pass(periods, at: 10 * Self.minute)
        #expect(second.ran == ["every-10"] && second.wait == .milliseconds(10 * Self.minute))
        let third = await pass(periods, at: 25 * Self.minute)
        #expect(third.ran == ["every-10", "every-25"] && third.wait == .milliseconds(10 * Self.minute))
    }

    @Test func theWaitIsASecondAtLeastAndAnHourAtMost() async {
        let periods = TenantPeriods()
        _ = await pass(periods, at: 0)
        let almost = await pass(periods, at: 10 * Self.minute - 10)
        #expect(almost.ran == [] && almost.wait == .seconds(1))
        let none = await TenantPeriods().runDue(of: tenants, now: Self.start, every: { _ in nil }, holding: holding) { _ in
            Issue.record("a tenant without a period ran")
        }
        #expect(none == .milliseconds(Milliseconds.perHour))
    }

    /// Another instance holds one tenant's work: it does not run here, and it is asked for again within the retry
    /// interval; once it passes here, it runs at once (as at start), then once per period.
    @Test func workHeldElsewhereIsAskedForShortlyAndRunsAtOnceWhenItPassesHere() async {
        repository.holdElsewhere(["every-10/test_work"])
        let periods = TenantPeriods()
        let held = await pass(periods, at: 0)
        #expect(held.ran == ["every-25"] && held.wait == WorkHolding.retryInterval)
        let still = await pass(periods, at: 5_000)
        #expect(still.ran == [] && still.wait == WorkHolding.retryInterval)
        repository.holdElsewhere([])
        let passed = await pass(periods, at: 10_000)
        #expect(passed.ran == ["every-10"] && passed.wait == .milliseconds(10 * Self.minute))
    }
}
