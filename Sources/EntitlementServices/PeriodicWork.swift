import EntitlementDomain
import RPCCore

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
