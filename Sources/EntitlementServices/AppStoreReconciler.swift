public import AppStoreServerAPI
import BoundedText
import CivilCalendar
public import EntitlementDomain
public import RPCCore

/// What one reconciliation found in one environment's notification history.
public struct AppStoreReconciliationReport: Sendable, Hashable {
    public var environment: AppStoreAPIEnvironment
    /// The window read, milliseconds since 1970 (Apple's `startDate`, `endDate`).
    public var startDate: Int64
    public var endDate: Int64
    public var pages = 0
    public var found = 0
    /// Changed a customer's purchases.
    public var applied = 0
    /// Applied, nothing newer than what was stored.
    public var unchanged = 0
    /// Recorded; nobody owns the purchase yet.
    public var unowned = 0
    /// Applied before (delivered by Apple, or an earlier reconciliation).
    public var alreadyProcessed = 0
    public var rejected = 0
    /// The first rejections' reasons.
    public var rejections: [String] = []

    /// Something was missing and is now applied or recorded.
    public var recovered: Int { applied + unchanged + unowned }
}

/// The safety net for missed App Store notifications: Apple's notification history (Get Notification History)
/// replayed through the same verification and the same once-per-`notificationUUID` rule as a delivered notification,
/// so one applied before changes nothing. At startup and every `reconcile_minutes`, each tenant with
/// `app_store.server_api` reads, per environment it accepts, the notifications Apple failed to deliver (or is still
/// retrying) since the end of the last run (an hour's overlap; the first run as far back as Apple keeps them);
/// `ReconcileAppStore` reads any window, all notifications or one customer's.
public final class AppStoreReconciler: Sendable {
    /// How far back Apple keeps notification history.
    static let retention: [AppStoreAPIEnvironment: Int64] = [
        .production: 180 * Milliseconds.perDay, .sandbox: 30 * Milliseconds.perDay,
    ]
    /// Apple documents no maximum span; listings of 30 days keep each pagination token's life short.
    static let maxWindow = 30 * Milliseconds.perDay
    /// A notification Apple is still retrying may be signed a while before the last run ended.
    static let overlap = Milliseconds.perHour
    static let maxRejectionsReported = 10
    static let maxPagesPerListing = 100_000

    private let engine: CustomerEngine
    private let tenants: TenantRegistry
    private let notifications: AppStoreNotifications
    private let apis: AppStoreServerAPIs
    private let log: Logger
    private let loop = WakeableLoop()
    /// When each tenant was last reconciled on schedule.
    private let periods = TenantPeriods()
    /// The scheduled reconciliation is one instance's work.
    private let holding: WorkHolding

    public init(
        engine: CustomerEngine, tenants: TenantRegistry, notifications: AppStoreNotifications, apis: AppStoreServerAPIs,
        log: Logger
    ) {
        self.engine = engine
        self.tenants = tenants
        self.notifications = notifications
        self.apis = apis
        self.log = log
        holding = WorkHolding("app_store_reconcile", engine: engine, log: log)
    }

    public func start() { loop.start { [self] in await reconcileDue() } }

    public func stop() async { await loop.stop() }

    static func cursorName(_ environment: AppStoreAPIEnvironment) -> String {
        "app_store_notification_history_" + environment.rawValue
    }

    /// Reconciles every tenant whose period has passed; returns how long until the next one is due.
    func reconcileDue() async -> Duration {
        let now = engine.now().milliseconds
        return await periods.runDue(
            of: tenants.directory.tenants, now: now, every: { $0.appStore?.serverAPI?.reconcileMinutes },
            holding: holding
        ) { tenant in await reconcileMissed(tenant) }
    }

    /// The scheduled run for one tenant: failed deliveries since the last run, per environment; a failure is logged
    /// and the next run starts from the same place. Each page is read only while this instance still holds the work,
    /// and the cursor only moves forward, so a holder frozen mid-run that resumes after another took over reads no
    /// more and moves nothing back (what it applied is applied once per notificationUUID anyway).
    func reconcileMissed(_ tenant: Tenant) async {
        do throws(DomainError) {
            let settings = try AppStorePurchases.settings(of: tenant)
            let (_, environments) = try apis.client(for: tenant, settings: settings, use: .reconciliation)
            for environment in environments {
                let cursor = try engine.purchases.pollCursor(tenantID: tenant.id, name: Self.cursorName(environment))
                let report = try await reconcile(
                    tenant, environment: environment, start: cursor.map { $0 - Self.overlap }, end: nil,
                    transactionID: nil, onlyFailures: true, holding: holding)
                try await engine.purchases.setPollCursor(
                    tenantID: tenant.id, name: Self.cursorName(environment), position: report.endDate)
            }
        } catch {
            log.warning("app store reconciliation failed", ["tenant": tenant.id, "error": error.message])
        }
    }

    /// `ReconcileAppStore`: every environment the tenant accepts, over `start`...`end` (nil: as far back as Apple
    /// keeps; now), for each of `transactionIDs` (any of a customer's; empty: every notification).
    public func reconcile(
        tenantID: String, start: Int64?, end: Int64?, transactionIDs: [String], onlyFailures: Bool
    ) async throws(DomainError) -> [AppStoreReconciliationReport] {
        guard let tenant = tenants.directory.tenant(id: tenantID) else {
            throw .notFound("No tenant \(tenantID.quotedForMessage).")
        }
        let settings = try AppStorePurchases.settings(of: tenant)
        let (_, environments) = try apis.client(for: tenant, settings: settings, use: .reconciliation)
        var reports: [AppStoreReconciliationReport] = []
        for environment in environments {
            var combined: AppStoreReconciliationReport?
            for transactionID in transactionIDs.isEmpty ? [nil] : transactionIDs.map(Optional.some) {
                let report = try await reconcile(
                    tenant, environment: environment, start: start, end: end, transactionID: transactionID,
                    onlyFailures: onlyFailures, holding: nil)
                combined = combined.map { $0.adding(report) } ?? report
            }
            if let combined { reports.append(combined) }
        }
        return reports
    }

    /// One environment's window, listed in spans of at most ``maxWindow``, oldest first, each notification applied
    /// as it is read. Our failures (the database, Apple unreachable) end the run; a notification that fails
    /// verification is counted and skipped. With `holding` (the scheduled run), each page is read only while this
    /// instance holds that work.
    private func reconcile(
        _ tenant: Tenant, environment: AppStoreAPIEnvironment, start: Int64?, end: Int64?, transactionID: String?,
        onlyFailures: Bool, holding: WorkHolding?
    ) async throws(DomainError) -> AppStoreReconciliationReport {
        let settings = try AppStorePurchases.settings(of: tenant)
        let (client, _) = try apis.client(for: tenant, settings: settings, use: .reconciliation)
        let now = engine.now().milliseconds
        // A minute inside Apple's retention, so the request is never refused as too old.
        let earliest = now - (Self.retention[environment] ?? Self.maxWindow) + Milliseconds.perMinute
        let end = min(end ?? now, now)
        let start = min(max(start ?? earliest, earliest), end)
        var report = AppStoreReconciliationReport(environment: environment, startDate: start, endDate: end)
        var windowStart = start
        repeat {
            let query = AppStoreNotificationHistoryQuery(
                startDate: windowStart, endDate: min(windowStart + Self.maxWindow, end), transactionID: transactionID,
                onlyFailures: onlyFailures)
            try await replay(
                query, client: client, environment: environment, tenant: tenant, settings: settings, holding: holding,
                into: &report)
            windowStart = query.endDate
        } while windowStart < end
        if report.found > 0 {
            log.info(
                "app store notification history reconciled",
                ["tenant": tenant.id, "environment": environment.rawValue, "found": String(report.found),
                 "recovered": String(report.recovered), "already_processed": String(report.alreadyProcessed),
                 "rejected": String(report.rejected)])
        }
        return report
    }

    /// Every page of one listing.
    private func replay(
        _ query: AppStoreNotificationHistoryQuery, client: AppStoreServerAPIClient, environment: AppStoreAPIEnvironment,
        tenant: Tenant, settings: AppStoreSettings, holding: WorkHolding?, into report: inout AppStoreReconciliationReport
    ) async throws(DomainError) {
        var token: String?
        var pages = 0
        repeat {
            if let holding, !holding.holds(tenantID: tenant.id) {
                throw .wrongState("This instance no longer holds the reconciliation: another instance took it over.")
            }
            let page: (records: [AppStoreNotificationRecord], next: String?)
            do throws(AppStoreServerAPIError) {
                page = try await client.notificationHistory(query, paginationToken: token, in: environment)
            } catch where error.appleErrorCode == AppleErrorCodes.transactionIDNotFound {
                // A customer this environment does not know has no notifications in it.
                return
            } catch {
                throw DomainError(error)
            }
            pages += 1
            report.pages += 1
            for record in page.records {
                report.found += 1
                try await apply(record.signedPayload, tenant: tenant, settings: settings, into: &report)
            }
            guard pages < Self.maxPagesPerListing else {
                throw .storeUnavailable("Apple's notification history has more than \(Self.maxPagesPerListing) pages for one window.")
            }
            token = page.next
        } while token != nil
    }

    private func apply(
        _ signedPayload: String, tenant: Tenant, settings: AppStoreSettings,
        into report: inout AppStoreReconciliationReport
    ) async throws(DomainError) {
        do throws(DomainError) {
            switch try await notifications.applyRecovered(signedPayload, tenant: tenant, settings: settings) {
            case .duplicate: report.alreadyProcessed += 1
            case .recorded: report.unowned += 1
            case .applied(_, let changed): if changed { report.applied += 1 } else { report.unchanged += 1 }
            }
        } catch where !error.code.mayPassLater {
            report.rejected += 1
            if report.rejections.count < Self.maxRejectionsReported { report.rejections.append(error.message) }
            log.warning(
                "app store notification from history rejected", ["tenant": tenant.id, "error": error.message])
        }
    }
}

extension AppStoreReconciliationReport {
    /// Two listings of one environment (two customers' notifications) as one report.
    func adding(_ other: Self) -> Self {
        var sum = self
        sum.startDate = min(startDate, other.startDate)
        sum.endDate = max(endDate, other.endDate)
        sum.pages += other.pages
        sum.found += other.found
        sum.applied += other.applied
        sum.unchanged += other.unchanged
        sum.unowned += other.unowned
        sum.alreadyProcessed += other.alreadyProcessed
        sum.rejected += other.rejected
        sum.rejections = Array((rejections + other.rejections).prefix(AppStoreReconciler.maxRejectionsReported))
        return sum
    }
}
