import EntitlementDomain

/// The rows of an ``InMemoryRepository``: one dictionary per SQL table, keyed as that table's primary key.
/// `sequence` numbers stand for SQLite's rowid (insertion order, kept by an upsert), which the SQL reads order by.
/// A value type, so a transaction works on a copy and commits by replacing the whole (copy-on-write keeps it cheap).
struct InMemoryTables: Sendable {
    struct CustomerKey: Hashable, Sendable {
        var tenantID: String
        var customerID: Int64
    }

    /// A row named by a string within a tenant: an app user ID, a notification ID, a poll, a code hash, an endpoint.
    struct NameKey: Hashable, Sendable {
        var tenantID: String
        var name: String
    }

    /// A row named by an ID within a tenant's store: a purchase, a pending revocation.
    struct LedgerKey: Hashable, Sendable {
        var store: StoreKey
        var direction: MovementDirection
    }

    struct StoreKey: Hashable, Sendable {
        var tenantID: String
        var store: Store
        var id: String
    }

    struct ReferenceKey: Hashable, Sendable {
        var tenantID: String
        var store: Store
        var referenceID: String
        var originalTransactionID: String
    }

    struct ExtensionKey: Hashable, Sendable {
        var tenantID: String
        var originalTransactionID: String
        var requestIdentifier: String
    }

    struct Customer: Sendable {
        var record: CustomerRecord
        /// When its last event was recorded (its creation until then), for "changed since".
        var changedAt: UnixTime
    }

    struct AppUserID: Sendable {
        var customerID: Int64
        var addedAt: UnixTime
        var sequence: Int64
        var appAccountToken: String?
    }

    struct Sequenced<Row: Sendable>: Sendable {
        var row: Row
        var sequence: Int64
    }

    struct Reference: Sendable {
        var appUserID: String
        var createdAt: UnixTime
    }

    struct RenewalExtension: Sendable {
        var days: Int
        var extendedAt: UnixTime
    }

    struct Delivery: Sendable {
        var delivery: WebhookDelivery
        /// Not due again before this unless its attempt is recorded (a column the domain's record does not carry).
        var leasedUntil: UnixTime?
    }

    var lastSequence: Int64 = 0
    var lastCustomerID: Int64 = 0
    var lastDeliveryID: Int64 = 0
    var customers: [Int64: Customer] = [:]
    var appUserIDs: [NameKey: AppUserID] = [:]
    var grants: [String: Sequenced<GrantRecord>] = [:]
    /// Each customer's attributes by key.
    var attributes: [CustomerKey: [String: CustomerAttribute]] = [:]
    /// Each customer's offer signatures in the order made.
    var offerSignatures: [CustomerKey: [OfferSignatureRecord]] = [:]
    /// Signatures and redemptions per tenant and offer.
    var offerTotals: [NameKey: OfferTotal] = [:]
    /// Each customer's events in version order.
    var events: [CustomerKey: [EventRecord]] = [:]
    var activeEntitlements: [CustomerKey: [ActiveEntitlementValue]] = [:]
    var purchases: [StoreKey: Sequenced<StorePurchase>] = [:]
    /// The revenue ledger in the order recorded; `ledgerKeys` are the keys taken.
    var ledger: [LedgerEntry] = []
    var ledgerKeys: Set<LedgerKey> = []
    var billingObservations: [BillingObservation] = []
    var processedNotifications: Set<NameKey> = []
    var pollCursors: [NameKey: Int64] = [:]
    var renewalExtensions: [ExtensionKey: RenewalExtension] = [:]
    var references: [ReferenceKey: Reference] = [:]
    var pendingRevocations: [StoreKey: PendingRevocation] = [:]
    var redemptionCodes: [NameKey: RedemptionCodeRecord] = [:]
    var deliveries: [Int64: Delivery] = [:]
    var disabledEndpoints: [NameKey: DisabledWebhookEndpoint] = [:]
    /// The audit log in the order appended; an event's ID is its position from 1.
    var auditLog: [AuditEvent] = []
    /// Erased IDs' and tokens' hashes to their erasure's tombstone.
    var erasedSubjects: [NameKey: String] = [:]
    var erasureKeys: [String: [UInt8]] = [:]
    /// The tombstones of purchases an erasure left with no owner (`transactions.erased_owner`).
    var erasedOwners: [StoreKey: String] = [:]

    mutating func nextSequence() -> Int64 {
        lastSequence += 1
        return lastSequence
    }
}
