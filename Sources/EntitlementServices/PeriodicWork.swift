import EntitlementDomain
import RPCCore

/// Work a tenant needs once per period whichever instance does it (a store poll): the lease on it for this
/// period, or false (another instance has it, or the database could not say, which is logged).
func claimPeriodicWork(
    _ name: String, of tenant: Tenant, period milliseconds: Int64, engine: CustomerEngine, log: Logger
) async -> Bool {
    do throws(DomainError) {
        // A little under the period, so this instance's next run finds its own lease over and claims it afresh.
        return try await engine.claimWork(tenantID: tenant.id, name: name, for: .milliseconds(milliseconds - 1000))
    } catch {
        log.error("claiming background work failed", ["work": name, "tenant": tenant.id, "error": error.message])
        return false
    }
}
