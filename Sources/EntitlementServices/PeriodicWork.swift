import CivilCalendar
import EntitlementDomain
import RPCCore
import Synchronization

/// Work a tenant needs done by one instance whichever it is (a store poll): whether this instance holds it, false
/// when another does or the database could not say (logged).
func holdsTenantWork(_ name: String, of tenant: Tenant, engine: CustomerEngine, log: Logger) -> Bool {
    do throws(DomainError) {
        return try engine.holdsWork(tenantID: tenant.id, name: name)
    } catch {
        log.error("claiming background work failed", ["work": name, "tenant": tenant.id, "error": error.message])
        return false
    }
}

/// When each tenant's periodic work last ran here (in memory: after a restart every tenant's runs once at start).
final class TenantPeriods: Sendable {
    private let lastRun = Mutex<[String: Int64]>([:])

    /// Runs `work` for each of `tenants` whose period, every `minutes` (nil or 0: never), has passed at `now`
    /// (milliseconds since 1970) and whose work `name` this instance holds; returns how long until the next is due.
    func runDue(
        _ name: String, of tenants: [Tenant], now: Int64, every minutes: (Tenant) -> Int?, engine: CustomerEngine,
        log: Logger, _ work: (Tenant) async -> Void
    ) async -> Duration {
        var next = Milliseconds.perHour
        for tenant in tenants {
            guard let minutes = minutes(tenant), minutes > 0 else { continue }
            let period = Int64(minutes) * Milliseconds.perMinute
            if let last = lastRun.withLock({ $0[tenant.id] }), now - last < period {
                next = min(next, last + period - now)
                continue
            }
            lastRun.withLock { $0[tenant.id] = now }
            // One instance of those sharing the database does each period's work; the others skip it.
            if holdsTenantWork(name, of: tenant, engine: engine, log: log) { await work(tenant) }
            next = min(next, period)
        }
        return .milliseconds(max(1000, next))
    }
}
