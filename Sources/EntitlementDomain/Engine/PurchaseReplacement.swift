/// Who may own a purchase nobody owns yet, besides the app account token it carries: what the store says about the
/// user, in the order the services layer learned it.
public enum OwnerHint: Sendable, Hashable {
    /// The customer who owns this other stored purchase of the same store (Google's `outOfAppPurchaseContext`
    /// names the expired purchase a re-subscription continues).
    case ownerOf(originalTransactionID: String)
    /// The customer Identify handed this app account token to (the previous purchase's
    /// `obfuscatedExternalAccountId`).
    case appAccountToken(String)
    /// The customer this app user ID resolves to (the buyer a web checkout names). An identified ID nobody has yet
    /// gets a new customer; an anonymous one nobody has resolves to nobody, and the purchase waits for a
    /// redemption code.
    case appUserID(String)
}

extension StorePurchases {
    /// `record` marked superseded when a stored purchase already names it as the one it replaces (the newer token
    /// arrived first).
    func markedIfReplaced(_ record: StorePurchase, in transaction: any StorageTransaction) throws(StorageError)
        -> StorePurchase
    {
        guard record.supersededBy.isEmpty,
            let replacer = try transaction.purchase(
                tenantID: record.tenantID, store: record.store, replacing: record.originalTransactionID),
            replacer.originalTransactionID != record.originalTransactionID
        else { return record }
        var marked = record
        marked.supersededBy = replacer.originalTransactionID
        return marked
    }

    /// What marking a replaced purchase did.
    struct Replacement {
        /// The replaced purchase's owner, when that is not the new purchase's: it gets its own event.
        var otherOwner: Int64?
    }

    /// Marks the stored purchase `record` replaces as superseded by it (it stops granting at once, even while the
    /// store still shows it active); nil when there was nothing to mark.
    func supersedeReplaced(by record: StorePurchase, in transaction: any StorageTransaction) throws(StorageError)
        -> Replacement?
    {
        guard !record.replaces.isEmpty, record.replaces != record.originalTransactionID,
            var old = try transaction.purchase(
                tenantID: record.tenantID, store: record.store, originalTransactionID: record.replaces),
            old.supersededBy != record.originalTransactionID
        else { return nil }
        old.supersededBy = record.originalTransactionID
        try transaction.savePurchase(old)
        return Replacement(otherOwner: old.customerID.flatMap { $0 == record.customerID ? nil : $0 })
    }

    /// One event for each customer who lost a purchase to a newer one owned by someone else.
    func recordReplacements(
        _ owners: [Int64], by record: StorePurchase, cause: EventCause, in transaction: any StorageTransaction,
        at now: UnixTime
    ) throws(StorageError) -> [CommittedChange] {
        var committed: [CommittedChange] = []
        for owner in owners {
            committed.append(
                try self.core.recordChange(
                    transaction, tenantID: record.tenantID, customerID: owner, cause: cause,
                    reason: "Replaced by a newer purchase of the subscription.", reference: record.originalTransactionID,
                    subject: EventSubject(purchase: record), at: now))
        }
        return committed
    }

    /// The owner of a purchase nobody owns yet: the customer its app account token was handed to, the owner of the
    /// purchase it replaces, the hints in order, then the buyers its stored references name; nil when none resolves.
    func owner(
        ofUnowned record: StorePurchase, hints: [OwnerHint], erasures: ErasureCheck, in transaction: any StorageTransaction,
        at now: UnixTime, committed: inout [CommittedChange]
    ) throws(StorageError) -> Int64? {
        func byToken(_ token: String) throws(StorageError) -> Int64? {
            guard !token.isEmpty else { return nil }
            return try transaction.customerID(tenantID: record.tenantID, appAccountToken: AppAccountToken.normalize(token))
        }
        func ownerOf(_ id: String) throws(StorageError) -> Int64? {
            guard !id.isEmpty, id != record.originalTransactionID else { return nil }
            return try transaction.purchase(tenantID: record.tenantID, store: record.store, originalTransactionID: id)?
                .customerID
        }
        func byAppUserID(_ id: String) throws(StorageError) -> Int64? {
            guard (try? AppUserID.validate(id)) != nil else { return nil }
            if let existing = try transaction.snapshot(tenantID: record.tenantID, appUserID: id) {
                return existing.customer.id
            }
            // An erased person is not brought back by store data that still names them.
            guard !AppUserID.isAnonymous(id), try erasures.tombstone(ofAppUserID: id, in: transaction) == nil else { return nil }
            return try self.core.customer(
                transaction, tenantID: record.tenantID, appUserID: id, creator: "a web purchase naming it", at: now,
                committed: &committed
            ).customer.id
        }
        if let owner = try byToken(record.appAccountToken) { return owner }
        if let owner = try ownerOf(record.replaces) { return owner }
        let named = try transaction.purchaseReferences(
            tenantID: record.tenantID, store: record.store, originalTransactionID: record.originalTransactionID
        ).map(\.appUserID).filter { !$0.isEmpty }
        for hint in hints + named.map(OwnerHint.appUserID) {
            switch hint {
            case .ownerOf(let id): if let owner = try ownerOf(id) { return owner }
            case .appAccountToken(let token): if let owner = try byToken(token) { return owner }
            case .appUserID(let id): if let owner = try byAppUserID(id) { return owner }
            }
        }
        return nil
    }
}
