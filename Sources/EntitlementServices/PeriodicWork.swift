import CivilCalendar
import EntitlementDomain
import RPCCore
import Synchronization

/// Background work that one instance of those sharing the database does, whichever it is (a store poll, the Play
/// acknowledgements): whether this instance holds it, asked of the database (a round trip) before each piece of the
/// work, so a holder that was frozen and lost it stops there. Taking it and losing it are logged.
final class WorkHolding: Sendable {
    /// How soon an instance that does not hold the work asks again. Added to the database's bound on a silent holder
    /// (PostgreSQL: ten seconds; a killed holder's session ends at once), the longest the work waits for another
    /// instance to take it over.
    static let retryInterval = Duration.seconds(5)

    let name: String
    private let engine: CustomerEngine
    private let log: Logger
    /// The tenants (`""`: work across tenants) whose work this instance held when last asked.
    private let held = Mutex<Set<String>>([])

    init(_ name: String, engine: CustomerEngine, log: Logger) {
        self.name = name
        self.engine = engine
        self.log = log
    }

    /// Whether this instance holds the work of `tenantID` now; false when another does or the database could not say
    /// (logged).
    func holds(tenantID: String = "") -> Bool {
        let holds: Bool
        do throws(DomainError) {
            holds = try engine.holdsWork(tenantID: tenantID, name: name)
        } catch {
            log.error("claiming background work failed", ["work": name, "tenant": tenantID, "error": error.message])
            holds = false
        }
        let changed = held.withLock { holds ? $0.insert(tenantID).inserted : $0.remove(tenantID) != nil }
        if changed {
            log.info(holds ? "background work taken on" : "background work no longer held", ["work": name, "tenant": tenantID])
        }
        return holds
    }
}

/// When each tenant's periodic work last ran here (in memory: after a restart every tenant's runs once at start).
final class TenantPeriods: Sendable {
    private let lastRun = Mutex<[String: Int64]>([:])

    /// Runs `work` for each of `tenants` whose period, every `minutes` (nil or 0: never), has passed at `now`
    /// (milliseconds since 1970) and whose work this instance holds; returns how long until the next is due. The
    /// instance that takes the work over from another runs it at once, as at its start.
    func runDue(
        of tenants: [Tenant], now: Int64, every minutes: (Tenant) -> Int?, holding: WorkHolding,
        _ work: (Tenant) async -> Void
    ) async -> Duration {
        var next = Milliseconds.perHour
        for tenant in tenants {
            guard let minutes = minutes(tenant), minutes > 0 else { continue }
            let period = Int64(minutes) * Milliseconds.perMinute
            if let last = lastRun.withLock({ $0[tenant.id] }), now - last < period {
                next = min(next, last + period - now)
                continue
            }
            // One instance of those sharing the database does each period's work; the others ask again shortly.
            guard holding.holds(tenantID: tenant.id) else {
                next = min(next, WorkHolding.retryInterval.milliseconds)
                continue
            }
            lastRun.withLock { $0[tenant.id] = now }
            await work(tenant)
            next = min(next, period)
        }
        return .milliseconds(max(1000, next))
    }
}
