import CivilCalendar
public import EntitlementDomain
import GooglePlay
import GooglePlayAPI
import OutboundHTTP
public import RPCCore
import Synchronization

/// The safety net for missed notifications: every tenant's voided purchases, listed from Google every
/// `voided_purchases_poll_minutes` since the last poll (Google keeps 30 days), and every one the server holds
/// revoked at once. A purchase revoked already, or never seen, changes nothing.
public final class VoidedPurchasesPoller: Sendable {
    static let cursorName = "play_voided_purchases"

    private let engine: CustomerEngine
    private let tenants: TenantRegistry
    private let purchases: PlayStorePurchases
    private let log: Logger
    private let loop = WakeableLoop()
    /// When each tenant was last polled.
    private let periods = TenantPeriods()
    /// The poll is one instance's work.
    private let holding: WorkHolding
    /// The failure each tenant's poll last explained at info level (see ``report(_:of:)``), so that it is said once.
    private let explained = Mutex<[String: String]>([:])

    public init(engine: CustomerEngine, tenants: TenantRegistry, purchases: PlayStorePurchases, log: Logger) {
        self.engine = engine
        self.tenants = tenants
        self.purchases = purchases
        self.log = log
        holding = WorkHolding("play_voided_purchases", engine: engine, log: log)
    }

    public func start() { loop.start { [self] in await pollDue() } }

    public func stop() async { await loop.stop() }

    /// Polls every tenant whose period has passed; returns how long until the next one is due.
    func pollDue() async -> Duration {
        let now = engine.now().milliseconds
        return await periods.runDue(
            of: tenants.directory.tenants, now: now, every: { $0.playStore?.voidedPurchasesPollMinutes },
            holding: holding
        ) { tenant in await poll(tenant) }
    }

    /// One poll of one tenant; failures are logged and the next period tries again from the same cursor. Each page is
    /// read only while this instance still holds the poll, and the cursor only moves forward, so a holder frozen
    /// mid-poll that resumes after another took over reads no more and moves nothing back (a revocation is applied
    /// once per voided purchase anyway).
    func poll(_ tenant: Tenant) async {
        // Google refuses an endTime in its future: stay a little behind, in case our clock runs ahead of Google's.
        let now = engine.now().milliseconds - 5_000
        var unanswered = false
        do throws(DomainError) {
            let api = try purchases.api(for: tenant)
            let cursor = try engine.purchases.pollCursor(tenantID: tenant.id, name: Self.cursorName)
            // Each poll starts a little before the last one ended: Google may list a void a moment after it happened.
            let since = max(cursor ?? 0, now - VoidedPurchasePages.window) - VoidedPurchasePages.listingDelay
            var pages = VoidedPurchasePages(api: api, from: since, to: now, now: now, tenantID: tenant.id, log: log)
            var revoked = 0
            while true {
                guard holding.holds(tenantID: tenant.id) else { return }
                let page: [VoidedPurchase]?
                do throws(GooglePlayAPIError) {
                    page = try await pages.next()
                } catch {
                    unanswered = error.code == .unavailable && error.status == 0
                    throw PlayStorePurchases.domainError(error)
                }
                guard let page else { break }
                for voided in page {
                    if try await revoke(voided, tenant: tenant) { revoked += 1 }
                }
            }
            try await engine.purchases.setPollCursor(tenantID: tenant.id, name: Self.cursorName, position: now)
            log.info("play voided purchases polled", ["tenant": tenant.id, "revoked": String(revoked)])
            explained.withLock { $0[tenant.id] = nil }
        } catch {
            report(error, of: tenant, unanswered: unanswered)
        }
    }

    /// A failed poll is a warning, unless it comes from a local setup rather than breakage: the example's placeholder
    /// service-account key, or a local stand-in for Google (an `api_base_url` on this machine) that is not running
    /// (`unanswered`: nothing answered a request). That is said once, at info level, with what it means and what to
    /// do; again only after a poll succeeded.
    private func report(_ error: DomainError, of tenant: Tenant, unanswered: Bool) {
        guard let settings = tenant.playStore else { return }
        let meaning: String
        if ServiceAccountKey.isPlaceholder(contentsOf: settings.serviceAccountKeyPath) {
            meaning = "the tenant's service-account key is a placeholder, so no Google Play call can succeed until the "
                + "real key is in its place"
        } else if unanswered, OutboundURL(settings.apiBaseURL)?.isLoopback == true {
            meaning = "the tenant's Google Play API is a local stand-in that does not answer: start it "
                + "(Scripts/fake-google --demo for the demo tenant) to use Google Play"
        } else {
            log.warning("play voided purchases poll failed", ["tenant": tenant.id, "error": error.message])
            return
        }
        let isNew = explained.withLock { $0.updateValue(error.message, forKey: tenant.id) != error.message }
        if isNew {
            log.info("play voided purchases poll not possible yet: \(meaning)", ["tenant": tenant.id, "error": error.message])
        } else {
            log.debug("play voided purchases poll not possible yet: \(meaning)", ["tenant": tenant.id, "error": error.message])
        }
    }

    /// Revokes what one voided purchase took back; whether anything changed.
    private func revoke(_ voided: VoidedPurchase, tenant: Tenant) async throws(DomainError) -> Bool {
        guard let token = voided.purchaseToken, !token.isEmpty,
            let stored = try engine.purchases.purchase(tenantID: tenant.id, store: .playStore, originalTransactionID: token)
        else { return false }
        let voidedAt = try VoidedPurchasePages.voidedAt(voided) ?? engine.now()
        guard let record = PlayStoreInterpretation.revoking(
            stored, orderID: voided.orderId, voidedAt: voidedAt, reason: voided.reasonName)
        else { return false }
        let outcome = try await engine.purchases.applyStoreNotification(
            tenantID: tenant.id, notificationID: "play-voided:\(token):\(voided.orderId ?? "")", purchase: record,
            reason: "Voided in Google Play (\(voided.reasonName)), found by the voided-purchases poll.", cause: .storeAPI)
        if case .applied(_, let changed) = outcome { return changed }
        return false
    }
}
