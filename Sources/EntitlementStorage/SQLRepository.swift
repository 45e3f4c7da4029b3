public import EntitlementDomain
public import Metrics

/// A database the shared queries run on: how it hands out a connection for reads and runs a write transaction.
protocol SQLDatabase: Sendable {
    /// Runs `body` on a connection for reads; with `consistent`, all its queries see one snapshot of the database.
    func read<T>(consistent: Bool, _ body: (any SQLExecutor) throws(StorageError) -> T) throws(StorageError) -> T
    /// Whether a customer's snapshot (``SQLExecutor/snapshot(tenantID:appUserID:)``) is one statement, which sees one
    /// state of the database by itself: then no transaction (two more round trips) is wrapped around it.
    var snapshotIsOneStatement: Bool { get }
    /// ``CustomerRepository/writeGroup(_:)``: the bodies in one write transaction, each in a savepoint of its own;
    /// `alone` (one body, ``CustomerRepository/write(_:)``), it waits for locks up to the lock timeout.
    func writeGroup(_ bodies: [(any StorageTransaction) throws -> Void], alone: Bool) throws -> [(any Error)?]
    /// ``CustomerRepository/holdsWorkLock(tenantID:name:)``.
    func holdsWorkLock(tenantID: String, name: String) throws(StorageError) -> Bool
    /// ``CustomerRepository/checkReachable()``.
    func checkReachable() throws(StorageError)
    /// ``CustomerRepository/clearDeletedBytes()``.
    func clearDeletedBytes() throws(StorageError)
}

/// ``CustomerRepository`` on a SQL database: every read and write is the shared queries (``StorageQueries``), so
/// ``SQLiteRepository`` and ``PostgresRepository`` differ only in how they reach their database.
public class SQLRepository: CustomerRepository, @unchecked Sendable {
    let database: any SQLDatabase
    /// Every write transaction, retries included, from its start to its commit or rollback.
    public let transactionDurations = Histogram(
        "entitlementd_storage_transaction_seconds", help: "Write transactions, from begin to commit or rollback.",
        buckets: .fine)

    init(database: any SQLDatabase) {
        self.database = database
    }

    public func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        try database.read(consistent: !database.snapshotIsOneStatement) { (db) throws(StorageError) in
            try db.snapshot(tenantID: tenantID, appUserID: appUserID)
        }
    }

    public func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        try database.read(consistent: !database.snapshotIsOneStatement) { (db) throws(StorageError) in
            try db.snapshot(tenantID: tenantID, customerID: customerID)
        }
    }

    public func appUserIDs(tenantID: String, customerID: Int64) throws(StorageError) -> [AppUserIDRecord] {
        try read { (db) throws(StorageError) in try db.appUserIDs(tenantID: tenantID, customerID: customerID) }
    }

    public func mergedCustomers(tenantID: String, into customerID: Int64) throws(StorageError) -> [CustomerRecord] {
        try read { (db) throws(StorageError) in try db.mergedCustomers(tenantID: tenantID, into: customerID) }
    }

    public func redemptionCodes(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [RedemptionCodeRecord]
    {
        try read { (db) throws(StorageError) in
            try db.redemptionCodes(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
        }
    }

    public func redemptionCodes(tenantID: String, usedBy appUserIDs: [String]) throws(StorageError)
        -> [RedemptionCodeRecord]
    {
        try read { (db) throws(StorageError) in try db.redemptionCodes(tenantID: tenantID, usedBy: appUserIDs) }
    }

    public func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        try read { (db) throws(StorageError) in
            try db.purchaseReferences(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
        }
    }

    public func existingErasureKey(tenantID: String) throws(StorageError) -> [UInt8]? {
        try read { (db) throws(StorageError) in try db.existingErasureKey(tenantID: tenantID) }
    }

    public func erasure(tenantID: String, subject: String) throws(StorageError) -> String? {
        try read { (db) throws(StorageError) in try db.erasure(tenantID: tenantID, subject: subject) }
    }

    public func auditEvents(tenantID: String, beforeID: Int64?, limit: Int) throws(StorageError) -> [AuditEvent] {
        try read { (db) throws(StorageError) in try db.auditEvents(tenantID: tenantID, beforeID: beforeID, limit: limit) }
    }

    public func attributes(tenantID: String, customerID: Int64) throws(StorageError) -> [CustomerAttribute] {
        try read { (db) throws(StorageError) in try db.attributes(tenantID: tenantID, customerID: customerID) }
    }

    public func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime)
        throws(StorageError) -> Int
    {
        try read { (db) throws(StorageError) in
            try db.offerSignatureCount(tenantID: tenantID, customerID: customerID, offerID: offerID, since: since)
        }
    }

    public func offerSignatures(tenantID: String, customerID: Int64, limit: Int) throws(StorageError)
        -> [OfferSignatureRecord]
    {
        try read { (db) throws(StorageError) in try db.offerSignatures(tenantID: tenantID, customerID: customerID, limit: limit) }
    }

    public func offerTotals() throws(StorageError) -> [OfferTotal] {
        try read { (db) throws(StorageError) in try db.offerTotals() }
    }

    public func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord? {
        try read { (db) throws(StorageError) in try db.grant(tenantID: tenantID, grantID: grantID) }
    }

    public func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        try read { (db) throws(StorageError) in
            try db.purchase(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
        }
    }

    public func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        try read { (db) throws(StorageError) in
            try db.events(tenantID: tenantID, customerID: customerID, beforeVersion: beforeVersion, limit: limit)
        }
    }

    public func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) throws(StorageError)
        -> [EventRecord]
    {
        try read { (db) throws(StorageError) in
            try db.events(tenantID: tenantID, customerID: customerID, afterVersion: afterVersion, limit: limit)
        }
    }

    public func customersDue(at time: UnixTime, limit: Int) throws(StorageError)
        -> [(tenantID: String, customerID: Int64)]
    {
        try read { (db) throws(StorageError) in try db.customersDue(at: time, limit: limit) }
    }

    public func nextChangeAt() throws(StorageError) -> UnixTime? {
        try read { (db) throws(StorageError) in try db.nextChangeAt() }
    }

    public func acknowledgementsDue(at time: UnixTime, limit: Int) throws(StorageError) -> [StorePurchase] {
        try read { (db) throws(StorageError) in try db.acknowledgementsDue(at: time, limit: limit) }
    }

    public func nextAcknowledgementDue() throws(StorageError) -> UnixTime? {
        try read { (db) throws(StorageError) in try db.nextAcknowledgementDue() }
    }

    public func renewalExtensionCount(
        tenantID: String, originalTransactionID: String, since: UnixTime, excluding requestIdentifier: String
    ) throws(StorageError) -> Int {
        try read { (db) throws(StorageError) in
            try db.renewalExtensionCount(
                tenantID: tenantID, originalTransactionID: originalTransactionID, since: since,
                excluding: requestIdentifier)
        }
    }

    public func pollCursor(tenantID: String, name: String) throws(StorageError) -> Int64? {
        try read { (db) throws(StorageError) in try db.pollCursor(tenantID: tenantID, name: name) }
    }

    public func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        try read { (db) throws(StorageError) in
            try db.purchaseReferences(tenantID: tenantID, store: store, referenceID: referenceID)
        }
    }

    public func customerMatches(tenantID: String, id: String, limit: Int) throws(StorageError) -> [CustomerMatch] {
        try read { (db) throws(StorageError) in try db.customerMatches(tenantID: tenantID, id: id, limit: limit) }
    }

    public func isNotificationProcessed(tenantID: String, notificationID: String) throws(StorageError) -> Bool {
        try read { (db) throws(StorageError) in
            try db.isNotificationProcessed(tenantID: tenantID, notificationID: notificationID)
        }
    }

    public func nextWebhookAttemptAt(at time: UnixTime) throws(StorageError) -> UnixTime? {
        try read { (db) throws(StorageError) in try db.nextWebhookAttemptAt(at: time) }
    }

    public func webhookBacklog() throws(StorageError) -> (pending: Int64, oldestCreatedAt: UnixTime?) {
        try read { (db) throws(StorageError) in try db.webhookBacklog() }
    }

    public func webhookDeliveries(_ filter: WebhookDeliveryFilter, limit: Int) throws(StorageError) -> [WebhookDelivery] {
        try read { (db) throws(StorageError) in try db.webhookDeliveries(filter, limit: limit) }
    }

    public func disabledWebhookEndpoints() throws(StorageError) -> [DisabledWebhookEndpoint] {
        try read { (db) throws(StorageError) in try db.disabledWebhookEndpoints() }
    }

    public func customers(tenantID: String, matching query: CustomerListQuery) throws(StorageError)
        -> [ListedCustomerRecord]
    {
        try database.read(consistent: true) { (db) throws(StorageError) in
            try db.customers(tenantID: tenantID, matching: query)
        }
    }

    public func subscriberCounts(tenantID: String, at time: UnixTime) throws(StorageError) -> SubscriberCounts {
        try database.read(consistent: true) { (db) throws(StorageError) in
            try db.subscriberCounts(tenantID: tenantID, at: time)
        }
    }

    public func revenueTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [RevenueTotal] {
        try database.read(consistent: true) { (db) throws(StorageError) in try db.revenueTotals(query) }
    }

    public func subscriptionTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [SubscriptionTotal] {
        try database.read(consistent: true) { (db) throws(StorageError) in try db.subscriptionTotals(query) }
    }

    public func subscriptionEventTotals(
        _ query: RevenueTotalsQuery, kind: SubscriptionEvent.Kind, periods: [ClosedRange<Int64>]
    ) throws(StorageError) -> [SubscriptionEventTotal] {
        try database.read(consistent: true) { (db) throws(StorageError) in
            try db.subscriptionEventTotals(query, kind: kind, periods: periods)
        }
    }

    public func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [LedgerEntry]
    {
        try database.read(consistent: true) { (db) throws(StorageError) in
            try db.ledgerEntries(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
        }
    }

    public func ledgerRows(_ query: LedgerRowsQuery) throws(StorageError) -> [LedgerRow] {
        try database.read(consistent: true) { (db) throws(StorageError) in try db.ledgerRows(query) }
    }

    public func billingObservations(tenantID: String, environment: PurchaseEnvironment, due: ClosedRange<UnixTime>)
        throws(StorageError) -> [(observation: BillingObservation, appUserID: String)]
    {
        try database.read(consistent: true) { (db) throws(StorageError) in
            try db.billingObservations(tenantID: tenantID, environment: environment, due: due)
        }
    }

    public func write<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result {
        try withoutActuallyEscaping(body) { body in
            var result: Result?
            let bodies: [(any StorageTransaction) throws -> Void] = [{ transaction in result = try body(transaction) }]
            let failures = try timed { () throws in try database.writeGroup(bodies, alone: true) }
            if let failure = failures[0] { throw failure }
            return result!
        }
    }

    public func writeGroup(_ bodies: [(any StorageTransaction) throws -> Void]) throws -> [(any Error)?] {
        try timed { () throws in try database.writeGroup(bodies, alone: false) }
    }

    private func timed<T>(_ transaction: () throws -> T) rethrows -> T {
        let started = ContinuousClock.now
        defer { transactionDurations.observe(started.duration(to: .now)) }
        return try transaction()
    }

    /// The database's own metrics (the transaction histogram; the subclass adds its connections or files).
    public var metricsSources: [any MetricsSource] { [transactionDurations] }

    public func holdsWorkLock(tenantID: String, name: String) throws(StorageError) -> Bool {
        try database.holdsWorkLock(tenantID: tenantID, name: name)
    }

    public func checkReachable() throws(StorageError) {
        try database.checkReachable()
    }

    public func clearDeletedBytes() throws(StorageError) {
        try database.clearDeletedBytes()
    }

    private func read<T>(_ body: (any SQLExecutor) throws(StorageError) -> T) throws(StorageError) -> T {
        try database.read(consistent: false, body)
    }
}
