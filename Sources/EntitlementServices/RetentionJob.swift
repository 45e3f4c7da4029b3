import CivilCalendar
public import EntitlementDomain
public import RPCCore

/// Applies every tenant's ``RetentionSettings`` every hour, and when this instance starts or takes the work over, on
/// one instance of those sharing the database; a pass stops between batches once another holds the work.
public final class RetentionJob: Sendable {
    static let period = Duration.seconds(Seconds.perHour)

    private let engine: CustomerEngine
    private let tenants: TenantRegistry
    private let log: Logger
    private let loop = WakeableLoop()
    private let holding: WorkHolding

    public init(engine: CustomerEngine, tenants: TenantRegistry, log: Logger) {
        self.engine = engine
        self.tenants = tenants
        self.log = log
        holding = WorkHolding("retention", engine: engine, log: log)
    }

    public func start() { loop.start { [self] in await run() } }

    public func stop() async { await loop.stop() }

    /// One run over every tenant, when this instance holds the work; returns how long until the next.
    func run() async -> Duration {
        guard holding.holds() else { return WorkHolding.retryInterval }
        var removed = 0
        for tenant in tenants.directory.tenants {
            removed += await apply(tenant)
        }
        guard removed > 0 else { return Self.period }
        do throws(DomainError) {
            try engine.privacy.clearRemovedBytes()
        } catch {
            // The rows are gone; their bytes stay in SQLite's files until the next checkpoint clears them.
            log.warning("clearing what retention deleted from the files failed", ["error": error.message])
        }
        return Self.period
    }

    /// One tenant's pass; how many rows it removed. A failure is logged, and the next run removes what this one left.
    private func apply(_ tenant: Tenant) async -> Int {
        do throws(DomainError) {
            let counts = try await engine.privacy.applyRetention(tenantID: tenant.id, settings: tenant.retention) {
                holding.holds()
            }
            if counts.total > 0 {
                log.info(
                    "retention applied",
                    [
                        "tenant": tenant.id, "events": String(counts.events),
                        "webhook_deliveries": String(counts.webhookDeliveries),
                        "redemption_codes": String(counts.redemptionCodes),
                    ])
            }
            return counts.total
        } catch {
            log.warning("retention failed; the next run tries again", ["tenant": tenant.id, "error": error.message])
            return 0
        }
    }
}
