public import EntitlementStorage

/// What a Purchase or Restore did.
public struct StorePurchaseOutcome: Sendable, Hashable {
    public var state: CustomerState
    /// Canonical IDs of the customers the purchases were taken from (transfer policy), in order.
    public var transferredFrom: [String]
}

extension CustomerEngine {
    /// Attaches verified store transactions to a customer (created if new), applying the transfer policy.
    ///
    /// Data never moves backwards: per original transaction the newest signed data wins, so an older token changes
    /// nothing but its owner. Presenting the same data again changes nothing at all (no event, same version).
    /// Each customer whose purchases changed gets one event, in the same transaction.
    public func applyStorePurchases(
        tenantID: String, appUserID: String, transactions: [TransactionRecord], cause: EventCause,
        policy: AppStoreTransferPolicy
    ) async throws(DomainError) -> StorePurchaseOutcome {
        let appUserID = try AppUserID.validate(appUserID)
        return try await write { transaction, now throws -> (StorePurchaseOutcome, [Committed]) in
            var committed: [Committed] = []
            let customer = try self.customer(
                transaction, tenantID: tenantID, appUserID: appUserID, creator: "a store purchase", at: now,
                committed: &committed)
            var changed = false
            var previousOwners: [Int64] = []
            for record in transactions {
                let stored = try transaction.transaction(
                    tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID)
                if let owner = stored?.customerID, owner != customer.id {
                    try Self.checkTransfer(
                        transaction, tenantID: tenantID, from: owner, record: stored!, policy: policy, at: now)
                    try transaction.setTransactionOwner(
                        tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID,
                        customerID: customer.id)
                    if !previousOwners.contains(owner) { previousOwners.append(owner) }
                    changed = true
                } else if stored != nil, stored?.customerID == nil {
                    try transaction.setTransactionOwner(
                        tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID,
                        customerID: customer.id)
                    changed = true
                }
                var incoming = record
                incoming.customerID = customer.id
                if let stored { incoming = Self.keepingRenewalState(of: stored, in: incoming) }
                if let stored, Self.sameData(stored, incoming) { continue }
                if try transaction.upsertTransaction(incoming) { changed = true }
            }
            var transferredFrom: [String] = []
            for owner in previousOwners {
                guard let previous = try transaction.snapshot(tenantID: tenantID, customerID: owner) else { continue }
                transferredFrom.append(previous.customer.appUserID)
                committed.append(
                    try self.recordChange(
                        transaction, tenantID: tenantID, customerID: owner, cause: .transferredOut,
                        reason: "A store purchase moved to '\(appUserID)'.", related: appUserID, at: now))
            }
            if changed {
                let products = Set(transactions.map(\.productID)).sorted().joined(separator: ", ")
                let what = cause == .restore ? "Restored" : "Purchased"
                committed.append(
                    try self.recordChange(
                        transaction, tenantID: tenantID, customerID: customer.id,
                        cause: previousOwners.isEmpty ? cause : .transferredIn,
                        reason: "\(what) \(products).", related: transferredFrom.first ?? "",
                        reference: transactions.first?.originalTransactionID ?? "", at: now))
            }
            guard let snapshot = try transaction.snapshot(tenantID: tenantID, customerID: customer.id) else {
                throw DomainError.internalError("customer \(customer.id) vanished inside its own transaction")
            }
            let state = CachedCustomer(snapshot: snapshot, now: now).state(at: now)
            return (StorePurchaseOutcome(state: state, transferredFrom: transferredFrom), committed)
        }
    }

    /// Refuses a transfer the tenant's policy forbids.
    private static func checkTransfer(
        _ transaction: any StoreTransaction, tenantID: String, from owner: Int64, record: TransactionRecord,
        policy: AppStoreTransferPolicy, at now: UnixTime
    ) throws {
        switch policy {
        case .transfer:
            return
        case .keepWithOriginal:
            throw DomainError.alreadyExists(
                "Original transaction \(record.originalTransactionID) belongs to another user of this app; "
                    + "the app's transfer policy keeps purchases with their first owner.")
        case .transferIfNoActive:
            let active = StatusCalculator.status(of: EntitlementCandidate.candidates(of: record), at: now)
            guard !active.isActive else {
                throw DomainError.alreadyExists(
                    "Original transaction \(record.originalTransactionID) is active for another user of this app; "
                        + "the app's transfer policy moves only purchases that give their owner nothing now.")
            }
        }
    }

    /// The same store data presented again: the owner, bookkeeping times and the signature date aside (a
    /// re-signed copy of unchanged data is not a change).
    static func sameData(_ lhs: TransactionRecord, _ rhs: TransactionRecord) -> Bool {
        var left = lhs
        let right = rhs
        left.updatedAt = right.updatedAt
        left.customerID = right.customerID
        left.signedAt = right.signedAt
        return left == right
    }

    /// A transaction from a device carries no renewal info: what the store told us about renewal (auto-renew off,
    /// grace period, billing retry) stands. The intent to renew outlives periods; grace and retry belong to the
    /// period they were reported for.
    static func keepingRenewalState(of stored: TransactionRecord, in incoming: TransactionRecord) -> TransactionRecord {
        var merged = incoming
        merged.willRenew = stored.willRenew && incoming.revokedAt == nil
        if stored.transactionID == incoming.transactionID {
            merged.inGracePeriod = stored.inGracePeriod
            merged.inBillingRetry = stored.inBillingRetry
            merged.gracePeriodExpiresAt = stored.gracePeriodExpiresAt
        }
        return merged
    }
}

/// What applying a store notification did.
public enum StoreNotificationOutcome: Sendable, Hashable {
    /// The notification ID was processed before: nothing changed.
    case duplicate
    /// Recorded; the purchase belongs to nobody yet (it is attached when a user purchases or restores it), or
    /// the notification carried no purchase.
    case recorded
    /// Applied to the owner's purchases (`changed` false when the data was not newer than what was stored).
    case applied(appUserID: String, changed: Bool)
}

extension CustomerEngine {
    /// Applies a verified store notification, once per notification ID, in one transaction: the purchase's newest
    /// data replaces older data (never the reverse) and its owner, if any, gets one event with `reason`.
    public func applyStoreNotification(
        tenantID: String, notificationID: String, transaction record: TransactionRecord?, reason: String
    ) async throws(DomainError) -> StoreNotificationOutcome {
        try await write { transaction, now throws -> (StoreNotificationOutcome, [Committed]) in
            guard try transaction.markNotificationProcessed(tenantID: tenantID, notificationID: notificationID, at: now)
            else { return (.duplicate, []) }
            guard var record else { return (.recorded, []) }
            let stored = try transaction.transaction(
                tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID)
            record.customerID = stored?.customerID
            // Nobody owns it yet: the purchase's appAccountToken, if Identify handed it out, names its owner.
            var attributed = false
            if record.customerID == nil, !record.appAccountToken.isEmpty,
                let owner = try transaction.customerID(
                    tenantID: tenantID, appAccountToken: AppAccountToken.normalize(record.appAccountToken))
            {
                record.customerID = owner
                attributed = true
            }
            // A refund of an earlier period leaves the paid period that followed it alone.
            if let stored, record.revokedAt != nil, record.transactionID != stored.transactionID,
                let refundedEnd = record.expiresAt, refundedEnd <= stored.purchasedAt
            {
                if attributed, let owner = record.customerID {
                    try transaction.setTransactionOwner(
                        tenantID: tenantID, store: stored.store, originalTransactionID: stored.originalTransactionID,
                        customerID: owner)
                    let change = try self.recordChange(
                        transaction, tenantID: tenantID, customerID: owner, cause: .appStoreNotification,
                        reason: reason, reference: record.originalTransactionID, at: now)
                    return (.applied(appUserID: change.snapshot.customer.appUserID, changed: true), [change])
                }
                let owner = try stored.customerID.flatMap { id throws in
                    try transaction.snapshot(tenantID: tenantID, customerID: id)?.customer.appUserID
                }
                return (owner.map { .applied(appUserID: $0, changed: false) } ?? .recorded, [])
            }
            var wrote = try transaction.upsertTransaction(record)
            if !wrote, attributed, let owner = record.customerID {
                // Older data than stored, but the owner is news: attach the stored purchase.
                try transaction.setTransactionOwner(
                    tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID,
                    customerID: owner)
                wrote = true
            }
            guard let owner = record.customerID,
                let snapshot = try transaction.snapshot(tenantID: tenantID, customerID: owner)
            else { return (.recorded, []) }
            guard wrote, attributed || (stored.map({ !Self.sameData($0, record) }) ?? true) else {
                return (.applied(appUserID: snapshot.customer.appUserID, changed: false), [])
            }
            let change = try self.recordChange(
                transaction, tenantID: tenantID, customerID: owner, cause: .appStoreNotification, reason: reason,
                reference: record.originalTransactionID, at: now)
            return (.applied(appUserID: snapshot.customer.appUserID, changed: true), [change])
        }
    }
}
