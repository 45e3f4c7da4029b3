import CivilCalendar
import EntitlementDomain
import EntitlementStorage
import Foundation
import Metrics
import Testing
import TestSupport

/// A ``CustomerEngine`` over a fresh ``InMemoryRepository`` and a ``ManualClock``, with one tenant declaring `pro` and
/// `plus`. With `ENTITLEMENTD_TEST_DOMAIN_DATABASE=sql` over a fresh SQL database instead (``TestDatabase``'s), to check
/// that the in-memory repository answers as SQL does.
final class EngineHarness: Sendable {
    static let tenantID = "acme"
    static let onSQL = ProcessInfo.processInfo.environment["ENTITLEMENTD_TEST_DOMAIN_DATABASE"] == "sql"
    let directory: URL
    let repository: any CustomerRepository
    let databasePath: String
    let clock: ManualClock
    let engine: CustomerEngine
    let tenant: Tenant
    let otherTenant: Tenant

    init(
        replayLimit: Int = 1000, hub: StatusHub = StatusHub(), writeLanes: Int = 1,
        observeChange: @escaping @Sendable (_ tenantID: String, _ update: StatusUpdate) -> Void = { _, _ in },
        webhookEndpoints: @escaping @Sendable (_ tenantID: String) -> [WebhookEndpoint] = { _ in [] }
    ) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("entitlement-engine-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("entitlements.sqlite").path
        repository = Self.onSQL ? try TestDatabase.repository(sqlitePath: databasePath) : InMemoryRepository()
        clock = ManualClock(milliseconds: 1_700_000_000_000)
        engine = CustomerEngine(
            repository: repository, clock: clock, hub: hub, replayLimit: replayLimit, writeLanes: writeLanes,
            webhookEndpoints: webhookEndpoints, observeChange: observeChange)
        func key() -> String { APIKey.hashString(APIKey.generate(.publicKey))! }
        tenant = try Tenant(id: Self.tenantID, publicKeyHashes: [key()], entitlements: ["pro", "plus"])
        otherTenant = try Tenant(id: "globex", publicKeyHashes: [key()], entitlements: ["pro", "plus"])
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    var tenantID: String { tenant.id }
    /// Whether other instances may share the database (their leases stand): only PostgreSQL's.
    var isShared: Bool { Self.onSQL && TestDatabase.isPostgres }
    /// Write transactions so far (a group commit counts once).
    var commits: Int {
        if let memory = repository as? InMemoryRepository { return memory.commits }
        return Int((repository as? SQLRepository)?.transactionDurations.count ?? 0)
    }
    var now: UnixTime { clock.now() }

    @discardableResult
    func identify(_ appUserID: String, anonymousID: String? = nil) async throws -> IdentifyOutcome {
        try await engine.customers.identify(tenantID: tenantID, appUserID: appUserID, anonymousID: anonymousID)
    }

    @discardableResult
    func grant(
        _ appUserID: String, _ entitlementID: String = "pro", durationMilliseconds: Int64? = nil,
        idempotencyKey: String? = nil, in tenant: Tenant? = nil
    ) async throws -> GrantOutcome {
        try await engine.grants.grant(
            tenant: tenant ?? self.tenant,
            GrantRequest(
                appUserID: appUserID, entitlementID: entitlementID, expiresAt: nil,
                durationMilliseconds: durationMilliseconds, reason: "", idempotencyKey: idempotencyKey))
    }

    func state(_ appUserID: String) async throws -> CustomerState {
        try await engine.customers.state(tenantID: tenantID, appUserID: appUserID)
    }

    /// Every event of the customer `appUserID` resolves to, newest first.
    func events(_ appUserID: String) throws -> [RecordedEvent] {
        try engine.customers.events(tenantID: tenantID, appUserID: appUserID, pageSize: 500, pageToken: "").events
    }

    /// Every event of a customer by its database ID (also for a merged-away husk that no app user ID resolves to).
    func eventRecords(customerID: Int64) throws -> [EventRecord] {
        try repository.events(tenantID: tenantID, customerID: customerID, beforeVersion: nil, limit: 500)
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// `body`'s result, or ``TimedOut`` after `seconds` (so a missing update fails the test instead of hanging it).
func within<T: Sendable>(
    _ seconds: Double = 5, _ what: String = "an update", _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

extension StatusSubscription {
    /// The next update, failing after `seconds`.
    func next(within seconds: Double) async throws -> StatusUpdate {
        let update = try await within(seconds, "a status update") { await self.next() }
        guard let update else { throw TimedOut(what: "a status update (the subscription ended)") }
        return update
    }
}

extension EngineHarness {
    /// A second engine over the same rows, as after a restart (nothing cached, everything read back).
    func reopened() throws -> CustomerEngine {
        CustomerEngine(
            repository: repository is InMemoryRepository
                ? repository : try TestDatabase.repository(sqlitePath: databasePath),
            clock: clock)
    }

    /// A Google Play subscription as ``PlayStoreInterpretation`` leaves it: `token` is the purchase, `order` its current
    /// order, fetched now, giving `entitlements` for `expiresIn` milliseconds from now.
    func playPurchase(
        _ token: String, order: String? = nil, product: String = "premium", entitlements: [String] = ["pro"],
        expiresIn: Int64 = 30 * Milliseconds.perDay, replaces: String = "", appAccountToken: String = "",
        revokedAt: UnixTime? = nil, acknowledgement: PurchaseAcknowledgement = .notRequired, origin: PurchaseOrigin = .storeAPI
    ) -> StorePurchase {
        let now = self.now
        return StorePurchase(
            tenantID: tenantID, store: .playStore, originalTransactionID: token, transactionID: order ?? "GPA.\(token)",
            customerID: nil, productID: product, productType: "subscription", entitlementIDs: entitlements,
            environment: .production, purchasedAt: UnixTime(milliseconds: now.milliseconds - Milliseconds.perDay),
            originalPurchaseAt: nil, expiresAt: UnixTime(milliseconds: now.milliseconds + expiresIn), revokedAt: revokedAt,
            revocationReason: revokedAt == nil ? "" : "VOIDED", ownership: .purchased, willRenew: revokedAt == nil,
             appAccountToken: appAccountToken,
            offerType: "", signedAt: now, updatedAt: now, renewalStateAsOf: now, origin: origin, replaces: replaces,
            acknowledgement: acknowledgement)
    }

    /// Purchase (or Restore) by `appUserID`.
    @discardableResult
    func purchase(_ appUserID: String, _ records: [StorePurchase], cause: EventCause = .purchase) async throws
        -> StorePurchaseOutcome
    {
        try await engine.purchases.applyStorePurchases(
            tenantID: tenantID, appUserID: appUserID, purchases: records, cause: cause, policy: .transfer)
    }

    /// A Play notification (or a poll, with no ID) carrying `record`.
    @discardableResult
    func notify(
        _ record: StorePurchase?, id: String? = UUID().uuidString, reason: String = "SUBSCRIPTION_RENEWED",
        cause: EventCause = .playStoreNotification, hints: [OwnerHint] = []
    ) async throws -> StoreNotificationOutcome {
        try await engine.purchases.applyStoreNotification(
            tenantID: tenantID, notificationID: id, purchase: record, reason: reason, cause: cause, ownerHints: hints)
    }

    /// The stored purchase, owned or not.
    func stored(_ token: String, store: Store = .playStore) throws -> StorePurchase? {
        try engine.purchases.purchase(tenantID: tenantID, store: store, originalTransactionID: token)
    }
}
