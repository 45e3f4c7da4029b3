/// Where customers, grants and events live. Narrow on purpose: SQLite for one instance, PostgreSQL for many.
///
/// Everything is keyed by tenant; no method ever returns another tenant's rows. Reads never wait on writes (SQLite:
/// WAL mode, separate read connections; PostgreSQL: MVCC). Writes run in ``write(_:)``'s transaction: all or
/// nothing, durable when it returns.
public protocol CustomerRepository: Sendable {
    /// The customer an app user ID (canonical or alias) resolves to, with its aliases and grants; nil when unknown.
    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot?
    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot?
    func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord?
    /// The store transaction with this original transaction ID in the tenant, owned or not; nil when unknown.
    func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    /// Events newest first, below `beforeVersion` when given.
    func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) throws(StorageError) -> [EventRecord]
    /// Events oldest first, above `afterVersion`, for resuming a stream.
    func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) throws(StorageError) -> [EventRecord]
    /// Customers whose status changes by time at or before `time`, soonest first.
    func customersDue(at time: UnixTime, limit: Int) throws(StorageError) -> [(tenantID: String, customerID: Int64)]
    /// The soonest `nextChangeAt` of any customer, for the expiry scheduler's timer.
    func nextChangeAt() throws(StorageError) -> UnixTime?
    /// Purchases whose store acknowledgement is pending and due at or before `time`, soonest first, any tenant.
    func acknowledgementsDue(at time: UnixTime, limit: Int) throws(StorageError) -> [StorePurchase]
    /// The soonest due time of a pending acknowledgement, for the acknowledger's timer.
    func nextAcknowledgementDue() throws(StorageError) -> UnixTime?
    /// Where a periodic store poll (`name`) of a tenant last stopped; nil before the first.
    func pollCursor(tenantID: String, name: String) throws(StorageError) -> Int64?
    /// The App Store renewal-date extensions of a subscription made at or after `since`, other than the one
    /// `requestIdentifier` names.
    func renewalExtensionCount(
        tenantID: String, originalTransactionID: String, since: UnixTime, excluding requestIdentifier: String
    ) throws(StorageError) -> Int
    /// The references with this reference ID (``PurchaseReference``), oldest first.
    func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    /// What `id` names in the tenant (``CustomerMatch``): app user IDs and aliases, then purchases by original
    /// transaction ID, by latest transaction ID and by store reference; at most `limit`.
    func customerMatches(tenantID: String, id: String, limit: Int) throws(StorageError) -> [CustomerMatch]
    /// Whether a store notification was recorded as processed (``StorageTransaction/markNotificationProcessed``).
    func isNotificationProcessed(tenantID: String, notificationID: String) throws(StorageError) -> Bool
    /// One page of the tenant's customers matching `query.filter`, in customer ID order (merged-away husks left out).
    func customers(tenantID: String, matching query: CustomerListQuery) throws(StorageError) -> [ListedCustomerRecord]
    /// Distinct customers with an entitlement active at `time`, counted by the database from its indexes.
    func subscriberCounts(tenantID: String, at time: UnixTime) throws(StorageError) -> SubscriberCounts

    // MARK: Webhook outbox

    /// When the soonest pending delivery not leased at `time` (to an attempt in progress) is due; nil when none is.
    func nextWebhookAttemptAt(at time: UnixTime) throws(StorageError) -> UnixTime?
    /// Pending deliveries, every tenant's: how many, and when the oldest was created (for the outbox metrics).
    func webhookBacklog() throws(StorageError) -> (pending: Int64, oldestCreatedAt: UnixTime?)
    /// Deliveries matching `filter`, newest first.
    func webhookDeliveries(_ filter: WebhookDeliveryFilter, limit: Int) throws(StorageError) -> [WebhookDelivery]
    /// The endpoints a 410 turned off, every tenant's.
    func disabledWebhookEndpoints() throws(StorageError) -> [DisabledWebhookEndpoint]

    /// Whether this process holds (now, or from an earlier call) the right to do background work `name` of
    /// `tenantID` (`""`: across tenants), so that instances sharing a database do it once. Always true for a store
    /// only this process uses (SQLite); on PostgreSQL a session lock that ends with the process or its connection,
    /// so a dead holder frees the work at once.
    /// Fails unless the database answers a query now on a connection made for the purpose (not one already open):
    /// readiness, for `/readyz`.
    func checkReachable() throws(StorageError)
    func holdsWorkLock(tenantID: String, name: String) throws(StorageError) -> Bool

    /// Runs `body` in one write transaction; commits durably when it returns, rolls back when it throws.
    /// Writes to one customer are serialized: SQLite runs one transaction at a time; PostgreSQL locks each customer
    /// row the transaction reads until it ends, and may run `body` again after losing a race to another writer, so
    /// `body` must not act outside the transaction.
    func write<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result

    /// Group commit: runs `bodies` in order in one write transaction, each inside a savepoint of its own, and commits
    /// them together, durably, before it returns. A body that throws has its own writes undone and its error at its
    /// index of the answer (nil for the others, which commit); throws only when the commit itself fails, and then
    /// nothing was committed. Later bodies see what earlier ones wrote. Like ``write(_:)``'s, a body may run again.
    func writeGroup(_ bodies: [(any StorageTransaction) throws -> Void]) throws -> [(any Error)?]
}

/// The writes (and the reads a write needs) inside one transaction.
public protocol StorageTransaction {
    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot?
    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot?
    /// Creates a customer at version 0 with `appUserID` as its canonical ID.
    func createCustomer(tenantID: String, appUserID: String, isAnonymous: Bool, at: UnixTime) throws(StorageError)
        -> CustomerRecord
    /// Moves every app user ID, grant and store transaction of customer `from` to customer `to`; `from` stays as an
    /// empty husk with its own events, so its history remains readable.
    func merge(tenantID: String, from: Int64, into: Int64) throws(StorageError)
    /// Makes `appUserID` the canonical ID of the customer (adding it if it does not resolve yet; the old canonical
    /// ID stays as an alias) and sets `isAnonymous`. Fails with `.conflict` if `appUserID` resolves to another
    /// customer. Identify uses it when an anonymous customer logs in with a brand-new identified ID.
    func setCanonicalID(tenantID: String, customerID: Int64, appUserID: String, isAnonymous: Bool)
        throws(StorageError)
    func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord?
    func grant(tenantID: String, idempotencyKey: String) throws(StorageError) -> GrantRecord?
    func insertGrant(_ grant: GrantRecord) throws(StorageError)
    func updateGrant(_ grant: GrantRecord) throws(StorageError)
    /// Appends an event and sets the customer's version to `event.version` and its `nextChangeAt`.
    /// Fails with `.conflict` unless `event.version` is the customer's version + 1.
    func appendEvent(_ event: EventRecord, nextChangeAt: UnixTime?) throws(StorageError)
    /// Replaces the queryable copy of the customer's entitlements (what listings and counts read) with the status
    /// just recorded in its event.
    func replaceActiveEntitlements(tenantID: String, customerID: Int64, with entitlements: [ActiveEntitlementValue])
        throws(StorageError)
    /// The customer's newest event (its current version's), nil when it has none.
    func latestEvent(tenantID: String, customerID: Int64) throws(StorageError) -> EventRecord?
    /// Moves the customer's `nextChangeAt` without an event (time passed but the status did not change).
    /// Fails with `.conflict` when the customer is not in the tenant.
    func setNextChangeAt(tenantID: String, customerID: Int64, at: UnixTime?) throws(StorageError)

    // MARK: Store transactions and notifications

    func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    /// Inserts `record`, or replaces the stored record with the same (tenant, store, original transaction ID), every
    /// field, `customerID` included. (Whether it is newer is the caller's decision.) Fails with `.conflict` when
    /// `customerID` is not in the tenant.
    func savePurchase(_ record: StorePurchase) throws(StorageError)
    /// Sets (or, with nil, clears) the owner of a stored transaction, whatever its `signedAt`. Fails with `.conflict`
    /// when the transaction is unknown or the customer is not in the tenant.
    func setPurchaseOwner(tenantID: String, store: Store, originalTransactionID: String, customerID: Int64?)
        throws(StorageError)
    /// Transactions nobody owns yet that carry `appAccountToken`, oldest first; empty for an empty token.
    func unownedPurchases(tenantID: String, appAccountToken: String) throws(StorageError) -> [StorePurchase]
    /// Records `token` as the app account token of `appUserID` (which must resolve in the tenant) unless it already
    /// has one; returns whether it wrote. Identify calls it with the token it hands out.
    @discardableResult
    func recordAppAccountToken(tenantID: String, appUserID: String, token: String) throws(StorageError) -> Bool
    /// The customer the app user ID that was given `token` resolves to now (following aliases and merges); nil when
    /// no ID of the tenant has that token.
    func customerID(tenantID: String, appAccountToken: String) throws(StorageError) -> Int64?
    /// Records a store notification as processed; false (and nothing written) when it already was.
    func markNotificationProcessed(tenantID: String, notificationID: String, at: UnixTime) throws(StorageError) -> Bool
    /// The stored purchase that names `originalTransactionID` as the one it replaces (``StorePurchase/replaces``);
    /// nil when none does.
    func purchase(tenantID: String, store: Store, replacing originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    func setPollCursor(tenantID: String, name: String, position: Int64) throws(StorageError)
    /// Records an App Store renewal-date extension (once per request identifier).
    func saveRenewalExtension(
        tenantID: String, originalTransactionID: String, requestIdentifier: String, days: Int, at: UnixTime
    ) throws(StorageError)

    // MARK: Purchase references and redemption codes

    /// Keeps `reference` (once per tenant, store, reference ID and purchase); a buyer it names is added to a row kept
    /// without one, never replaces one.
    func savePurchaseReference(_ reference: PurchaseReference, tenantID: String, at: UnixTime) throws(StorageError)
    /// The references naming the purchase, oldest first.
    func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
    /// The references with this reference ID, oldest first.
    func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    /// Keeps a revocation waiting for its purchase; an earlier one for the same reference stands.
    func savePendingRevocation(_ revocation: PendingRevocation, tenantID: String) throws(StorageError)
    /// Removes and returns the revocations waiting for any of `referenceIDs`.
    func takePendingRevocations(tenantID: String, store: Store, referenceIDs: [String]) throws(StorageError)
        -> [PendingRevocation]
    func insertRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError)
    func redemptionCode(tenantID: String, codeHash: String) throws(StorageError) -> RedemptionCodeRecord?
    /// Records a code's use or replacement (its `usedAt`, `usedBy`, `replacedAt`).
    func updateRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError)
    /// Marks every code of the purchase that is neither used nor replaced as replaced at `at`.
    func replaceOpenRedemptionCodes(tenantID: String, store: Store, originalTransactionID: String, at: UnixTime)
        throws(StorageError)

    // MARK: Webhook outbox

    /// Stores a new delivery and returns its ID.
    func insertWebhookDelivery(_ delivery: WebhookDelivery) throws(StorageError) -> Int64
    /// Pending deliveries due at `time` and not leased, soonest first, each the oldest pending one of its customer
    /// to its endpoint (a later event waits for an earlier one), leaving out `excludedEndpoints`' deliveries. On a
    /// shared database the rows stay locked until the transaction ends, and rows another instance is claiming are
    /// passed over, so each delivery is claimed by one instance.
    func dueWebhookDeliveries(at time: UnixTime, limit: Int, excludedEndpoints: [WebhookEndpointKey])
        throws(StorageError) -> [WebhookDelivery]
    /// Leases deliveries to attempts starting now: not due again before `until` unless their attempt is recorded.
    func leaseWebhookDeliveries(ids: [Int64], until: UnixTime) throws(StorageError)
    /// Ends every lease (a restart: the attempts they stood for are gone) where this instance is the only one;
    /// on a shared database leases run out on their own.
    func releaseWebhookLeases() throws(StorageError)
    /// Writes an attempt's result and ends the delivery's lease; counts the attempt unless `countsAttempt` is false.
    func saveWebhookAttempt(_ attempt: WebhookAttemptRecord, countsAttempt: Bool) throws(StorageError)
    /// Marks every pending delivery to the endpoint failed with `error`; returns how many.
    func failPendingWebhookDeliveries(tenantID: String, endpointID: String, error: String, at: UnixTime)
        throws(StorageError) -> Int
    /// Makes the deliveries matching `filter` pending again, due at `at`, their attempts counted from zero; returns
    /// how many, and their endpoints. Notices are never matched.
    func requeueWebhookDeliveries(_ filter: WebhookDeliveryFilter, at: UnixTime) throws(StorageError)
        -> (count: Int, endpointIDs: Set<String>)
    /// Returns false (and changes nothing) when the endpoint was disabled already.
    func disableWebhookEndpoint(_ endpoint: DisabledWebhookEndpoint) throws(StorageError) -> Bool
    func enableWebhookEndpoint(tenantID: String, endpointID: String) throws(StorageError)
    /// Deletes up to `limit` deliveries in `states` made before `before`, oldest first; returns how many.
    func pruneWebhookDeliveries(states: [WebhookDelivery.State], before: UnixTime, limit: Int) throws(StorageError) -> Int
}

/// A storage failure. `conflict` is a broken invariant (a version race, a duplicate key); `unavailable` means the
/// database could not do its job (disk full, I/O error, locked past the timeout) and a retry may succeed.
public struct StorageError: Error, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case conflict, unavailable, corrupt
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func conflict(_ message: String) -> StorageError { StorageError(code: .conflict, message: message) }
    public static func unavailable(_ message: String) -> StorageError { StorageError(code: .unavailable, message: message) }
    public static func corrupt(_ message: String) -> StorageError { StorageError(code: .corrupt, message: message) }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
