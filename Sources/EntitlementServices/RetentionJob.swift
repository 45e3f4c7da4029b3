import CivilCalendar
public import EntitlementDomain
public import RPCCore

/// Applies each tenant's ``RetentionSettings`` every hour (and once when this instance starts or takes the work
/// over), on one instance of those sharing the database; a pass stops between batches once another holds it.
public final class RetentionJob: Sendable {
    static let periodMinutes = 60

    private let engine: CustomerEngine
    private let tenants: TenantRegistry
    private let log: Logger
    private let loop = WakeableLoop()
    private let periods = TenantPeriods()
    private let holding: WorkHolding

    public init(engine: CustomerEngine, tenants: TenantRegistry, log: Logger) {
        self.engine = engine
        self.tenants = tenants
        self.log = log
        holding = WorkHolding("retention", engine: engine, log: log)
    }

    public func start() { loop.start { [self] in await runDue() } }

    public func stop() async { await loop.stop() }

    /// Runs every tenant's pass whose hour has passed; returns how long until the next is due.
    func runDue() async -> Duration {
        await periods.runDue(
            of: tenants.directory.tenants, now: engine.now().milliseconds, every: { _ in Self.periodMinutes },
            holding: holding
        ) { tenant in await apply(tenant) }
    }

    /// One tenant's pass; a failure is logged, and the next hour's pass removes what this one left.
    func apply(_ tenant: Tenant) async {
        do throws(DomainError) {
            let counts = try await engine.privacy.applyRetention(tenantID: tenant.id, settings: tenant.retention) {
                holding.holds(tenantID: tenant.id)
            }
            guard counts.total > 0 else { return }
            log.info(
                "retention applied",
                [
                    "tenant": tenant.id, "events": String(counts.events),
                    "webhook_deliveries": String(counts.webhookDeliveries), "redemption_codes": String(counts.redemptionCodes),
                ])
        } catch {
            log.warning("retention failed; the next pass tries again", ["tenant": tenant.id, "error": error.message])
        }
    }
}
