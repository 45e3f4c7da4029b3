public import EntitlementDomain
import Foundation
import Synchronization

/// The repository protocols' second implementation, beside SQL: every row in memory, for domain tests that need no
/// database. It keeps the rules the domain relies on (insertion order, upserts, the event version rule, the
/// schema's keys) and SQLite's one-instance rules (every work lock held, leases released on restart). A write works
/// on a copy of the rows and commits it when the write returns, so a write that throws leaves nothing behind; a
/// group's body that throws has its own writes undone, as a savepoint would. Writes run one at a time; reads see
/// the last commit and never wait for a write.
public final class InMemoryRepository: CustomerRepository, Sendable {
    private let committed = Mutex(InMemoryTables())
    private let writer = NSLock()
    private let commitCount = Atomic<Int>(0)

    public init() {}

    /// How many writes (a group counts once) have committed.
    public var commits: Int { commitCount.load(ordering: .sequentiallyConsistent) }
    /// The revenue ledger committed, in the order recorded.
    public var ledger: [LedgerEntry] { committed.withLock { $0.ledger } }

    func read<T: Sendable>(_ body: (borrowing InMemoryTables) -> T) -> T {
        committed.withLock { body($0) }
    }

    // MARK: Writes

    public func write<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result {
        try transact { try body($0) }
    }

    public func writeGroup(_ bodies: [(any StorageTransaction) throws -> Void]) throws -> [(any Error)?] {
        try transact { transaction in
            bodies.map { body in
                let savepoint = transaction.tables
                do {
                    try body(transaction)
                    return nil
                } catch {
                    transaction.tables = savepoint
                    return error
                }
            }
        }
    }

    private func transact<Result>(_ body: (InMemoryTransaction) throws -> Result) throws -> Result {
        writer.lock()
        defer { writer.unlock() }
        let transaction = InMemoryTransaction(tables: committed.withLock { $0 })
        let result = try body(transaction)
        let tables = transaction.tables
        committed.withLock { $0 = tables }
        commitCount.add(1, ordering: .sequentiallyConsistent)
        return result
    }

    public func checkReachable() throws(StorageError) {}

    /// Background work another instance holds, as `tenantID/name`.
    private let workHeldElsewhere = Mutex<Set<String>>([])

    /// Says which background work another instance holds now (for tests of work passing between instances).
    public func holdElsewhere(_ work: Set<String>) {
        workHeldElsewhere.withLock { $0 = work }
    }

    /// Only this process uses the rows: all background work is its own, but what a test says another instance holds.
    public func holdsWorkLock(tenantID: String, name: String) throws(StorageError) -> Bool {
        !workHeldElsewhere.withLock { $0.contains(tenantID + "/" + name) }
    }

    // MARK: Reads

    public func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        read { $0.snapshot(tenantID: tenantID, appUserID: appUserID) }
    }

    public func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        read { $0.snapshot(tenantID: tenantID, customerID: customerID) }
    }

    public func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        read { $0.events(tenantID: tenantID, customerID: customerID, beforeVersion: beforeVersion, limit: limit) }
    }

    public func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        read { $0.events(tenantID: tenantID, customerID: customerID, afterVersion: afterVersion, limit: limit) }
    }

    public func customersDue(at time: UnixTime, limit: Int) throws(StorageError)
        -> [(tenantID: String, customerID: Int64)]
    {
        committed.withLock { $0.customersDue(at: time, limit: limit) }
    }

    public func nextChangeAt() throws(StorageError) -> UnixTime? {
        read { $0.nextChangeAt() }
    }

    public func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord? {
        read { $0.grant(tenantID: tenantID, grantID: grantID) }
    }

    public func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        read { $0.purchase(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID) }
    }

    public func pollCursor(tenantID: String, name: String) throws(StorageError) -> Int64? {
        read { $0.pollCursor(tenantID: tenantID, name: name) }
    }

    public func renewalExtensionCount(
        tenantID: String, originalTransactionID: String, since: UnixTime, excluding requestIdentifier: String
    ) throws(StorageError) -> Int {
        read {
            $0.renewalExtensionCount(
                tenantID: tenantID, originalTransactionID: originalTransactionID, since: since,
                excluding: requestIdentifier)
        }
    }

    public func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        read { $0.purchaseReferences(tenantID: tenantID, store: store, referenceID: referenceID) }
    }

    public func isNotificationProcessed(tenantID: String, notificationID: String) throws(StorageError) -> Bool {
        read { $0.isNotificationProcessed(tenantID: tenantID, notificationID: notificationID) }
    }

    public func acknowledgementsDue(at time: UnixTime, limit: Int) throws(StorageError) -> [StorePurchase] {
        read { $0.acknowledgementsDue(at: time, limit: limit) }
    }

    public func nextAcknowledgementDue() throws(StorageError) -> UnixTime? {
        read { $0.nextAcknowledgementDue() }
    }

    public func customerMatches(tenantID: String, id: String, limit: Int) throws(StorageError) -> [CustomerMatch] {
        read { $0.customerMatches(tenantID: tenantID, id: id, limit: limit) }
    }

    public func customers(tenantID: String, matching query: CustomerListQuery) throws(StorageError)
        -> [ListedCustomerRecord]
    {
        read { $0.customers(tenantID: tenantID, matching: query) }
    }

    public func subscriberCounts(tenantID: String, at time: UnixTime) throws(StorageError) -> SubscriberCounts {
        read { $0.subscriberCounts(tenantID: tenantID, at: time) }
    }

    public func revenueTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [RevenueTotal] {
        try RevenueTotal.totals(of: ledger, matching: query)
    }

    public func subscriptionTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [SubscriptionTotal] {
        try SubscriptionTotal.totals(
            of: ledger, observations: committed.withLock { $0.billingObservations }, matching: query)
    }

    public func subscriptionEventTotals(
        _ query: RevenueTotalsQuery, kind: SubscriptionEvent.Kind, periods: [ClosedRange<Int64>]
    ) throws(StorageError) -> [SubscriptionEventTotal] {
        try SubscriptionEventTotal.totals(of: ledger, kind: kind, matching: query, periods: periods)
    }

    public func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [LedgerEntry]
    {
        ledger.filter {
            $0.tenantID == tenantID && $0.store == store && $0.originalTransactionID == originalTransactionID
        }
    }

    public func ledgerRows(_ query: LedgerRowsQuery) throws(StorageError) -> [LedgerRow] {
        read { tables in
            let eventRows = query.eventRows(in: tables.ledger)
            let rows = tables.ledger.filter { entry in
                entry.isSelected(by: query, eventRows: eventRows) && query.after.map { query.orders($0, before: LedgerRowKey(entry)) } ?? true
            }.sorted { query.orders(LedgerRowKey($0), before: LedgerRowKey($1)) }
            return rows.prefix(query.limit).map { entry in
                LedgerRow(
                    entry: entry,
                    appUserID: entry.customerID.flatMap { tables.customers[$0]?.record.appUserID } ?? "")
            }
        }
    }

    public func billingObservations(tenantID: String, environment: PurchaseEnvironment, due: ClosedRange<UnixTime>)
        throws(StorageError) -> [(observation: BillingObservation, appUserID: String)]
    {
        read { tables in
            func subscription(_ observation: BillingObservation) -> [String] {
                [observation.payment.store.ledgerName, observation.payment.originalTransactionID]
            }
            let all = tables.billingObservations.filter {
                $0.payment.tenantID == tenantID && $0.payment.environment == environment
            }
            let due = Set(all.filter { due.contains($0.dueAt) }.map(subscription))
            return all.filter { due.contains(subscription($0)) }.map { observation in
                (observation, observation.payment.customerID.flatMap { tables.customers[$0]?.record.appUserID } ?? "")
            }
        }
    }

    public func nextWebhookAttemptAt(at time: UnixTime) throws(StorageError) -> UnixTime? {
        read { $0.nextWebhookAttemptAt(at: time) }
    }

    public func webhookBacklog() throws(StorageError) -> (pending: Int64, oldestCreatedAt: UnixTime?) {
        committed.withLock { $0.webhookBacklog() }
    }

    public func webhookDeliveries(_ filter: WebhookDeliveryFilter, limit: Int) throws(StorageError) -> [WebhookDelivery] {
        read { $0.webhookDeliveries(filter, limit: limit) }
    }

    public func disabledWebhookEndpoints() throws(StorageError) -> [DisabledWebhookEndpoint] {
        read { $0.disabledWebhookEndpoints() }
    }
}
