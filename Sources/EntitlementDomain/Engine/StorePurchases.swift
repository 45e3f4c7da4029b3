
/// What a Purchase or Restore did.
public struct StorePurchaseOutcome: Sendable, Hashable {
    public var state: CustomerState
    /// Canonical IDs of the customers the purchases were taken from (transfer policy), in order.
    public var transferredFrom: [String]
    /// One per purchase given, in the same order.
    public var purchases: [AppliedStorePurchase]
}

/// What one purchase given to Purchase or Restore did.
public struct AppliedStorePurchase: Sendable, Hashable {
    /// How the purchase relates to what was stored before.
    public enum Outcome: Sendable, Hashable {
        /// Never seen before.
        case new
        /// Newer than what was stored: applied.
        case updated
        /// The data stored already: nothing changed (the owner aside).
        case unchanged
        /// Signed before the data stored for the purchase, which stands (the owner aside).
        case olderThanStored
    }

    public var outcome: Outcome
    /// The purchase, as stored after the call, grants its entitlements now.
    public var grantsAccess: Bool
    /// Canonical ID of the customer the purchase was taken from, if this call moved it.
    public var transferredFrom: String?
    /// This call gave the customer a purchase no customer held: one a store told of before any device did, or an
    /// anonymous web checkout redeemed. Its data may be ``Outcome/unchanged``; its owner is new.
    public var claimed: Bool
}

/// Store purchases: what Purchase and Restore attach to a customer, what store notifications change, and the
/// redemption codes that hand an unowned purchase to its buyer. Data never moves backwards (``PurchaseVersions``).
public final class StorePurchases: Sendable {
    let core: EngineCore
    let repository: any PurchaseReads

    init(core: EngineCore, repository: any PurchaseReads) {
        self.core = core
        self.repository = repository
    }

    /// The stored purchase, owned or not; nil when unknown.
    public func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(DomainError) -> StorePurchase? {
        try DomainError.reading { () throws(StorageError) in
            try repository.purchase(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
        }
    }

    /// Where the periodic poll `name` of a tenant last stopped.
    public func pollCursor(tenantID: String, name: String) throws(DomainError) -> Int64? {
        try DomainError.reading { () throws(StorageError) in try repository.pollCursor(tenantID: tenantID, name: name) }
    }

    public func setPollCursor(tenantID: String, name: String, position: Int64) async throws(DomainError) {
        try await core.write(orderedBy: nil) { transaction, _ throws -> (Void, [CommittedChange]) in
            try transaction.setPollCursor(tenantID: tenantID, name: name, position: position)
            return ((), [])
        }
    }
}

extension StorePurchases {
    /// Attaches verified store purchases to a customer (created if new), applying the transfer policy.
    ///
    /// Data never moves backwards (``PurchaseVersions``): an older token changes nothing but its owner. Presenting
    /// the same data again changes nothing at all (no event, same version).
    /// Each customer whose purchases changed gets one event, in the same transaction.
    public func applyStorePurchases(
        tenantID: String, appUserID: String, purchases: [StorePurchase], cause: EventCause,
        policy: TransferPolicy
    ) async throws(DomainError) -> StorePurchaseOutcome {
        try await applyStorePurchases(
            tenantID: tenantID, appUserID: appUserID, purchases: purchases, cause: cause, policies: { _ in policy })
    }

    /// ``applyStorePurchases(tenantID:appUserID:purchases:cause:policy:)`` with each store's transfer policy.
    public func applyStorePurchases(
        tenantID: String, appUserID: String, purchases: [StorePurchase], cause: EventCause,
        policies: @escaping @Sendable (Store) -> TransferPolicy
    ) async throws(DomainError) -> StorePurchaseOutcome {
        let appUserID = try AppUserID.validate(appUserID)
        return try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> (StorePurchaseOutcome, [CommittedChange]) in
            try self.attach(
                purchases, to: appUserID, tenantID: tenantID, cause: cause, policies: policies, in: transaction,
                at: now)
        }
    }

    /// ``applyStorePurchases(tenantID:appUserID:purchases:cause:policies:)`` inside a caller's transaction.
    func attach(
        _ purchases: [StorePurchase], to appUserID: String, tenantID: String, cause: EventCause,
        policies: (Store) -> TransferPolicy, in transaction: any StorageTransaction, at now: UnixTime
    ) throws -> (StorePurchaseOutcome, [CommittedChange]) {
        var committed: [CommittedChange] = []
        let customer = try self.core.customer(
            transaction, tenantID: tenantID, appUserID: appUserID, creator: "a store purchase", at: now,
            committed: &committed
        ).customer
        var changed = false
        var previousOwners: [Int64] = []
        /// Other customers whose purchases a newer one given here replaced, and that newer purchase.
        var replaced: [(owner: Int64, by: StorePurchase)] = []
        var outcomes: [(outcome: AppliedStorePurchase.Outcome, from: Int64?, claimed: Bool)] = []
        /// What the events report: the first purchase given (before and after), and the first moved from each owner.
        var subject: EventSubject?
        var moved: [Int64: StorePurchase] = [:]
        /// The money the purchases given moved, recorded now.
        var revenue: [LedgerEntry] = []
        // What each purchase is after the call (a token may name the same purchase as an earlier one).
        var latest: [String: StorePurchase] = [:]
        let erasures = try ErasureCheck(tenantID: tenantID, in: transaction)
        for record in purchases {
            let stored = try transaction.purchase(
                tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID)
            var incoming = PurchaseVersions.takingEffect(record, stored: stored, at: now)
            // An erased person's token is not kept for another (the erased ID's own new customer holds it again).
            if try erasures.tombstone(ofToken: incoming.appAccountToken, in: transaction) != nil {
                incoming.appAccountToken = ""
            }
            incoming.customerID = customer.id
            incoming = try self.markedIfReplaced(incoming, in: transaction)
            let merged = PurchaseVersions.merge(stored: stored, incoming: incoming)
            revenue += try self.recordLedgerEntries(of: incoming, stored: stored, in: transaction, at: now)
            try Self.recordBilling(of: merged, stored: stored, in: transaction)
            try Self.linkOfferRedemption(of: incoming, stored: stored, in: transaction, at: now)
            var from: Int64?
            if let stored, let owner = stored.customerID, owner != customer.id {
                // Judged on the newest data: a renewal only the token shows is the owner's access too.
                try Self.checkTransfer(
                    transaction, tenantID: tenantID, from: owner, record: merged, policy: policies(record.store),
                    at: now)
                if !previousOwners.contains(owner) { previousOwners.append(owner) }
                if moved[owner] == nil { moved[owner] = merged }
                from = owner
            }
            if stored.map({ $0.customerID != customer.id || !PurchaseVersions.sameData($0, merged) }) ?? true {
                changed = true
            }
            if merged != stored { try transaction.savePurchase(merged) }
            if let replacement = try self.supersedeReplaced(by: merged, in: transaction) {
                changed = true
                // Given earlier in this call, the purchase this one replaces grants nothing after it.
                latest[Self.purchaseKey(store: merged.store, merged.replaces)]?.supersededBy = merged.originalTransactionID
                if let other = replacement.otherOwner, !replaced.contains(where: { $0.owner == other }) {
                    replaced.append((other, merged))
                }
            }
            latest[Self.purchaseKey(record)] = merged
            if subject == nil { subject = EventSubject(purchase: merged, previousPurchase: stored) }
            let outcome: AppliedStorePurchase.Outcome =
                if let stored {
                    if !PurchaseVersions.supersedes(incoming, stored),
                        !PurchaseVersions.sameTransaction(incoming, stored)
                    {
                        .olderThanStored
                    } else if PurchaseVersions.sameData(stored, merged) {
                        .unchanged
                    } else {
                        .updated
                    }
                } else {
                    .new
                }
            outcomes.append((outcome, from, stored.map { $0.customerID == nil } ?? false))
        }
        var transferredFrom: [String] = []
        var appUserIDs: [Int64: String] = [:]
        for owner in previousOwners {
            guard let previous = try transaction.snapshot(tenantID: tenantID, customerID: owner) else { continue }
            transferredFrom.append(previous.customer.appUserID)
            appUserIDs[owner] = previous.customer.appUserID
            committed.append(
                try self.core.recordChange(
                    transaction, tenantID: tenantID, customerID: owner, cause: .transferredOut,
                    reason: "A store purchase moved to '\(appUserID)'.", related: appUserID,
                    subject: EventSubject(purchase: moved[owner]), at: now))
        }
        for (owner, record) in replaced where !previousOwners.contains(owner) {
            committed += try self.recordReplacements([owner], by: record, cause: cause, in: transaction, at: now)
        }
        if changed {
            let products = Set(purchases.map(\.productID)).sorted().joined(separator: ", ")
            let what =
                switch cause {
                case .restore: "Restored"
                case .redemption: "Redeemed"
                default: "Purchased"
                }
            committed.append(
                try self.core.recordChange(
                    transaction, tenantID: tenantID, customerID: customer.id,
                    cause: previousOwners.isEmpty ? cause : .transferredIn,
                    reason: "\(what) \(products).", related: transferredFrom.first ?? "",
                    reference: purchases.first?.originalTransactionID ?? "",
                    subject: (subject ?? .none).reporting(revenue), at: now))
        }
        // The change just recorded read the customer after every write above; without one, it is read here.
        let recorded = changed ? committed.last?.snapshot : nil
        guard let snapshot = try recorded ?? transaction.snapshot(tenantID: tenantID, customerID: customer.id) else {
            throw DomainError.internalError("customer \(customer.id) vanished inside its own transaction")
        }
        let state = CachedCustomer(snapshot: snapshot, now: now).state(at: now)
        var results: [AppliedStorePurchase] = []
        for (record, applied) in zip(purchases, outcomes) {
            let grants = latest[Self.purchaseKey(record)].map {
                StatusCalculator.status(of: EntitlementCandidate.candidates(of: $0), at: now).isActive
            }
            results.append(
                AppliedStorePurchase(
                    outcome: applied.outcome, grantsAccess: grants ?? false,
                    transferredFrom: applied.from.flatMap { appUserIDs[$0] }, claimed: applied.claimed))
        }
        return (
            StorePurchaseOutcome(state: state, transferredFrom: transferredFrom, purchases: results), committed
        )
    }

    private static func purchaseKey(_ record: StorePurchase) -> String {
        purchaseKey(store: record.store, record.originalTransactionID)
    }

    private static func purchaseKey(store: Store, _ originalTransactionID: String) -> String {
        "\(store)/\(originalTransactionID)"
    }

    /// Refuses a transfer the tenant's policy forbids.
    private static func checkTransfer(
        _ transaction: any StorageTransaction, tenantID: String, from owner: Int64, record: StorePurchase,
        policy: TransferPolicy, at now: UnixTime
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

extension StorePurchases {
    /// Whether the store notification `notificationID` was applied (or acknowledged) before: a redelivery is then
    /// answered without being interpreted again, or its objects fetched again. The write still checks it, in its
    /// transaction, for deliveries that race.
    public func isNotificationProcessed(tenantID: String, notificationID: String) throws(DomainError) -> Bool {
        try DomainError.reading { () throws(StorageError) in
            try repository.isNotificationProcessed(tenantID: tenantID, notificationID: notificationID)
        }
    }

    /// Applies a verified store notification (or what the store's API said when asked), once per notification ID,
    /// in one transaction: the purchase's newest data replaces older data, never the reverse (``PurchaseVersions``),
    /// and its owner, if any, gets one event with `reason`. A purchase nobody owns yet goes to the customer its app
    /// account token names, or the owner of the purchase it replaces, or the first of `ownerHints` that resolves.
    /// A nil `notificationID` applies without deduplication (a poll, an operator's refresh). `references` (other
    /// store IDs naming a purchase, and the buyer they name) are kept in the same transaction, also when there is
    /// no purchase data yet: a buyer named before the purchase arrives owns it when it does. With
    /// `unclaimedCodeValidity`, a purchase first seen with no owner gets a redemption code for the tenant's webhooks
    /// (``enqueueUnclaimedPurchase(_:validityMilliseconds:in:at:)``). An `earlierPayment` of the purchase adds its
    /// money to the revenue ledger and nothing else.
    public func applyStoreNotification(
        tenantID: String, notificationID: String?, purchase record: StorePurchase?, reason: String,
        cause: EventCause = .appStoreNotification, ownerHints: [OwnerHint] = [], references: [PurchaseReference] = [],
        pendingRevocations: [PendingRevocation] = [], earlierPayment: StorePurchase? = nil,
        unclaimedCodeValidity: Int64? = nil
    ) async throws(DomainError) -> StoreNotificationOutcome {
        let (outcome, queuedUnclaimed) = try await core.write(orderedBy: record.map(WriteOrder.purchase(of:))) {
            transaction, now throws -> ((StoreNotificationOutcome, Bool), [CommittedChange]) in
            var queuedUnclaimed = false
            let (outcome, committed) = try self.applyStoreNotification(
                tenantID: tenantID, notificationID: notificationID, record: record, reason: reason, cause: cause,
                ownerHints: ownerHints, references: references, pendingRevocations: pendingRevocations,
                earlierPayment: earlierPayment, unclaimedCodeValidity: unclaimedCodeValidity,
                queuedUnclaimed: &queuedUnclaimed, in: transaction, at: now)
            return ((outcome, queuedUnclaimed), committed)
        }
        // Not a customer's change, so not announced by the commit: wake the dispatcher here.
        if queuedUnclaimed { core.outboxChanges.notify(()) }
        return outcome
    }

    private func applyStoreNotification(
        tenantID: String, notificationID: String?, record: StorePurchase?, reason: String, cause: EventCause,
        ownerHints: [OwnerHint], references: [PurchaseReference], pendingRevocations: [PendingRevocation],
        earlierPayment: StorePurchase?, unclaimedCodeValidity: Int64?, queuedUnclaimed: inout Bool,
        in transaction: any StorageTransaction, at now: UnixTime
    ) throws -> (StoreNotificationOutcome, [CommittedChange]) {
        if let notificationID,
            !(try transaction.markNotificationProcessed(tenantID: tenantID, notificationID: notificationID, at: now))
        {
            return (.duplicate, [])
        }
        // The purchase of an erased owner (kept, or named by an erased app account token) stays with nobody, and the
        // store's data names no erased person again, until a user presents it (Purchase, Restore) under the transfer
        // rules.
        let erasures = try ErasureCheck(tenantID: tenantID, in: transaction)
        let stored = try record.flatMap { (record) throws(StorageError) in
            try transaction.purchase(
                tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID)
        }
        let erasedToken = try record.flatMap { (record) throws(StorageError) in
            try erasures.tombstone(ofToken: record.appAccountToken, in: transaction)
        }
        let tombstone = try record.flatMap { (record) throws(StorageError) -> String? in
            guard stored?.customerID == nil else { return nil }
            return try transaction.erasedOwner(
                tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID)
        } ?? erasedToken.flatMap { stored?.customerID == nil ? $0 : nil }
        for var reference in references {
            let namesErasedOwner = tombstone != nil && reference.originalTransactionID == record?.originalTransactionID
            if try namesErasedOwner || erasures.tombstone(ofAppUserID: reference.appUserID, in: transaction) != nil {
                reference.appUserID = ""
            }
            try transaction.savePurchaseReference(reference, tenantID: tenantID, at: now)
        }
        for revocation in pendingRevocations {
            try transaction.savePendingRevocation(revocation, tenantID: tenantID)
        }
        guard var notified = record else { return (.recorded, []) }
        if let waiting = try self.takePendingRevocation(for: notified, in: transaction) {
            notified.revokedAt = waiting.revokedAt
            notified.revocationReason = waiting.reason
            notified.willRenew = false
        }
        var record = PurchaseVersions.takingEffect(notified, stored: stored, at: now)
        record.customerID = stored?.customerID
        if tombstone != nil || erasedToken != nil { record.appAccountToken = "" }
        var committed: [CommittedChange] = []
        // Nobody owns it yet: the store's data may name its owner.
        var attributed = false
        if record.customerID == nil, tombstone == nil,
            let owner = try self.owner(
                ofUnowned: record, hints: ownerHints, erasures: erasures, in: transaction, at: now,
                committed: &committed)
        {
            record.customerID = owner
            attributed = true
        }
        record = try self.markedIfReplaced(record, in: transaction)
        // An earlier period (its refund, its reversal) or an upgraded-away plan leaves the current one alone.
        let merged = PurchaseVersions.merge(stored: stored, incoming: record)
        var revenue: [LedgerEntry] = []
        if var earlier = earlierPayment {
            earlier.customerID = record.customerID
            revenue += try self.recordLedgerEntries(of: earlier, stored: nil, in: transaction, at: now)
        }
        revenue += try self.recordLedgerEntries(of: record, stored: stored, in: transaction, at: now)
        try Self.recordBilling(of: merged, stored: stored, in: transaction)
        try Self.linkOfferRedemption(of: record, stored: stored, in: transaction, at: now)
        if merged != stored { try transaction.savePurchase(merged) }
        let replacement = try self.supersedeReplaced(by: merged, in: transaction)
        committed += try self.recordReplacements(
            replacement?.otherOwner.map { [$0] } ?? [], by: merged, cause: cause, in: transaction, at: now)
        guard let owner = merged.customerID,
            let snapshot = try transaction.snapshot(tenantID: tenantID, customerID: owner)
        else {
            if stored == nil, merged.customerID == nil, let unclaimedCodeValidity {
                queuedUnclaimed = try self.core.enqueueUnclaimedPurchase(
                    merged, validityMilliseconds: unclaimedCodeValidity, in: transaction, at: now)
            }
            return (.recorded, committed)
        }
        guard attributed || replacement != nil || (stored.map({ !PurchaseVersions.sameData($0, merged) }) ?? true)
        else {
            return (.applied(appUserID: snapshot.customer.appUserID, changed: false), committed)
        }
        // A purchase first attributed to its owner is, to the owner, a new purchase.
        let subject = EventSubject(purchase: merged, previousPurchase: attributed ? nil : stored, revenue: revenue)
        committed.append(
            try self.core.recordChange(
                transaction, tenantID: tenantID, customerID: owner, cause: cause, reason: reason,
                reference: record.originalTransactionID, subject: subject, at: now))
        return (.applied(appUserID: snapshot.customer.appUserID, changed: true), committed)
    }
}

extension StorePurchases {
    /// The earliest revocation waiting for a payment that names `record` (its own IDs, or a reference to it), used
    /// up; nil when none waits or `record` is revoked already.
    fileprivate func takePendingRevocation(for record: StorePurchase, in transaction: any StorageTransaction)
        throws(StorageError) -> PendingRevocation?
    {
        guard record.revokedAt == nil, record.store == .stripe else { return nil }
        let references = try transaction.purchaseReferences(
            tenantID: record.tenantID, store: record.store, originalTransactionID: record.originalTransactionID)
        let ids = [record.originalTransactionID, record.transactionID] + references.map(\.referenceID)
        return try transaction.takePendingRevocations(tenantID: record.tenantID, store: record.store, referenceIDs: ids)
            .first
    }
}

extension StorePurchases {
    /// Records the revenue ledger's entries for a verified version of a purchase, with the tenant's commission rates
    /// now; returns those recorded now (not before), which the change's webhooks report.
    func recordLedgerEntries(
        of incoming: StorePurchase, stored: StorePurchase?, in transaction: any StorageTransaction, at now: UnixTime
    ) throws(StorageError) -> [LedgerEntry] {
        let commission = core.commissions(incoming.tenantID)[incoming.store]
        let recorded = try transaction.recordLedgerEntries(
            RevenueLedger.entries(for: incoming, stored: stored, commission: commission), at: now)
        // A subscription's periods, trials and refunds change when it was active: its daily totals and events follow.
        if recorded.contains(where: { $0.kind != .oneTime }) {
            let all = try transaction.ledgerEntries(
                tenantID: incoming.tenantID, store: incoming.store, originalTransactionID: incoming.originalTransactionID)
            let keys = Set(recorded.map(LedgerRowKey.init))
            let old = SubscriptionRows(all.filter { !keys.contains(LedgerRowKey($0)) })
            let new = SubscriptionRows(old.entries + recorded)
            try transaction.addSubscriptionDays(SubscriptionCoverage.changes(from: old, to: new))
            let events = SubscriptionEvent.changes(from: old, to: new)
            if !events.removed.isEmpty || !events.added.isEmpty {
                try transaction.changeSubscriptionEvents(removing: events.removed, adding: events.added)
            }
        }
        return recorded
    }

    /// Links an App Store transaction bought under a promotional offer to the signature the server made for it: the
    /// customer's newest unredeemed one of that offer and product made before the purchase, once. The offer's later
    /// periods (renewals still under it) redeem nothing new; a renewal that starts it (a retention offer a subscriber
    /// took, applied at the next renewal) does.
    static func linkOfferRedemption(
        of incoming: StorePurchase, stored: StorePurchase?, in transaction: any StorageTransaction, at now: UnixTime
    ) throws(StorageError) {
        guard incoming.store == .appStore, let sale = incoming.sale, sale.offer == .promotional, !sale.offerID.isEmpty,
            let customerID = incoming.customerID
        else { return }
        // A stored sale without an identifier was kept before identifiers were (schema 27): the same offer, as far as
        // anyone can tell.
        let continued =
            stored?.sale.map { $0.offer == .promotional && ($0.offerID == sale.offerID || $0.offerID.isEmpty) } ?? false
        if continued, sale.kind == .subscriptionRenewal { return }
        // The customer's lock (PostgreSQL): two purchases of one customer linked at once would otherwise both pick its
        // newest signature. A store notification has not taken it yet.
        _ = try transaction.snapshot(tenantID: incoming.tenantID, customerID: customerID)
        _ = try transaction.linkOfferRedemption(
            OfferRedemption(
                tenantID: incoming.tenantID, customerID: customerID, offerID: sale.offerID, productID: incoming.productID,
                transactionID: incoming.transactionID,
                signedNoLaterThan: UnixTime(
                    milliseconds: incoming.purchasedAt.milliseconds + PurchaseAccess.clockSkewAllowanceMilliseconds),
                redeemedAt: now))
    }

    /// Keeps what `merged` (the purchase as it is saved now) says about a failed renewal that `stored` did not, and
    /// moves the subscription's days in a grace period and billing retry in the daily totals accordingly.
    static func recordBilling(of merged: StorePurchase, stored: StorePurchase?, in transaction: any StorageTransaction)
        throws(StorageError)
    {
        guard let observation = BillingObservation(stored: stored, incoming: merged) else { return }
        let before = try transaction.billingObservations(
            tenantID: merged.tenantID, store: merged.store, originalTransactionID: merged.originalTransactionID)
        guard try transaction.recordBillingObservation(observation) else { return }
        try transaction.addSubscriptionDays(
            SubscriptionCoverage.changes(
                from: BillingObservation.intervals(of: before), to: BillingObservation.intervals(of: before + [observation])))
    }
}
