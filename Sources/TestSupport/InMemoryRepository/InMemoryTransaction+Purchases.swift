import EntitlementDomain

/// Store purchases, notifications, polls and references inside an in-memory write, as the SQL statements write them.
extension InMemoryTransaction {
    func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        tables.purchase(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
    }

    /// An upsert: a replaced purchase keeps its place in insertion order.
    func savePurchase(_ record: StorePurchase) throws(StorageError) {
        if let owner = record.customerID { try requireOwner(tenantID: record.tenantID, owner) }
        let key = InMemoryTables.StoreKey(tenantID: record.tenantID, store: record.store, id: record.originalTransactionID)
        tables.purchases[key] = InMemoryTables.Sequenced(
            row: record, sequence: tables.purchases[key]?.sequence ?? tables.nextSequence())
        if record.customerID != nil { tables.erasedOwners[key] = nil }
    }

    func recordLedgerEntries(_ entries: [LedgerEntry], at time: UnixTime) throws(StorageError) -> [LedgerEntry] {
        entries.filter { entry in
            let key = InMemoryTables.LedgerKey(
                store: InMemoryTables.StoreKey(tenantID: entry.tenantID, store: entry.store, id: entry.transactionID),
                direction: entry.kind.direction)
            guard tables.ledgerKeys.insert(key).inserted else { return false }
            tables.ledger.append(entry)
            return true
        }
    }

    func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) -> [LedgerEntry] {
        tables.ledger.filter {
            $0.tenantID == tenantID && $0.store == store && $0.originalTransactionID == originalTransactionID
        }
    }

    /// Kept once per key: the subscription, when it was said, the renewal it is about and the billing's word.
    func recordBillingObservation(_ observation: BillingObservation) -> Bool {
        func key(_ o: BillingObservation) -> [String] {
            let p = o.payment
            return [p.tenantID, p.store.ledgerName, p.originalTransactionID, "\(o.observedAt.milliseconds)",
                "\(o.dueAt.milliseconds)", o.billing.name]
        }
        guard !tables.billingObservations.contains(where: { key($0) == key(observation) }) else { return false }
        tables.billingObservations.append(observation)
        return true
    }

    func billingObservations(tenantID: String, store: Store, originalTransactionID: String) -> [BillingObservation] {
        tables.billingObservations.filter {
            $0.payment.tenantID == tenantID && $0.payment.store == store
                && $0.payment.originalTransactionID == originalTransactionID
        }
    }

    /// The in-memory repository reads the totals from the ledger itself (``SubscriptionTotal/totals(of:matching:)``).
    func addSubscriptionDays(_ changes: [SubscriptionDay]) {}

    /// Events too (``SubscriptionEventTotal/totals(of:kind:matching:)``).
    func changeSubscriptionEvents(removing removed: [SubscriptionEvent], adding added: [SubscriptionEvent]) {}

    func setPurchaseOwner(tenantID: String, store: Store, originalTransactionID: String, customerID: Int64?)
        throws(StorageError)
    {
        let key = InMemoryTables.StoreKey(tenantID: tenantID, store: store, id: originalTransactionID)
        guard tables.purchases[key] != nil else {
            throw .conflict(
                "no transaction \(originalTransactionID) (store \(store)) in tenant \(tenantID) to set the owner of")
        }
        if let customerID { try requireOwner(tenantID: tenantID, customerID) }
        tables.purchases[key]?.row.customerID = customerID
        if customerID != nil { tables.erasedOwners[key] = nil }
    }

    private func requireOwner(tenantID: String, _ customerID: Int64) throws(StorageError) {
        guard tables.customer(tenantID: tenantID, customerID: customerID) != nil else {
            throw .conflict("no customer \(customerID) in tenant \(tenantID) to own a purchase")
        }
    }

    func unownedPurchases(tenantID: String, appAccountToken: String) throws(StorageError) -> [StorePurchase] {
        tables.unownedPurchases(tenantID: tenantID, appAccountToken: appAccountToken)
    }

    func markNotificationProcessed(tenantID: String, notificationID: String, at time: UnixTime) throws(StorageError)
        -> Bool
    {
        tables.processedNotifications.insert(InMemoryTables.NameKey(tenantID: tenantID, name: notificationID)).inserted
    }

    func purchase(tenantID: String, store: Store, replacing originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        tables.purchase(tenantID: tenantID, store: store, replacing: originalTransactionID)
    }

    func setPollCursor(tenantID: String, name: String, position: Int64) throws(StorageError) {
        let key = InMemoryTables.NameKey(tenantID: tenantID, name: name)
        tables.pollCursors[key] = max(tables.pollCursors[key] ?? position, position)
    }

    func saveRenewalExtension(
        tenantID: String, originalTransactionID: String, requestIdentifier: String, days: Int, at time: UnixTime
    ) throws(StorageError) {
        let key = InMemoryTables.ExtensionKey(
            tenantID: tenantID, originalTransactionID: originalTransactionID, requestIdentifier: requestIdentifier)
        if tables.renewalExtensions[key] == nil {
            tables.renewalExtensions[key] = InMemoryTables.RenewalExtension(days: days, extendedAt: time)
        }
    }

    func savePurchaseReference(_ reference: PurchaseReference, tenantID: String, at time: UnixTime) throws(StorageError) {
        let key = InMemoryTables.ReferenceKey(
            tenantID: tenantID, store: reference.store, referenceID: reference.referenceID,
            originalTransactionID: reference.originalTransactionID)
        guard let kept = tables.references[key] else {
            tables.references[key] = InMemoryTables.Reference(appUserID: reference.appUserID, createdAt: time)
            return
        }
        if kept.appUserID.isEmpty { tables.references[key]?.appUserID = reference.appUserID }
    }

    func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        tables.purchaseReferences(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
    }

    func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        tables.purchaseReferences(tenantID: tenantID, store: store, referenceID: referenceID)
    }

    func savePendingRevocation(_ revocation: PendingRevocation, tenantID: String) throws(StorageError) {
        let key = InMemoryTables.StoreKey(tenantID: tenantID, store: revocation.store, id: revocation.referenceID)
        if tables.pendingRevocations[key] == nil { tables.pendingRevocations[key] = revocation }
    }

    func takePendingRevocations(tenantID: String, store: Store, referenceIDs: [String]) throws(StorageError)
        -> [PendingRevocation]
    {
        Set(referenceIDs).compactMap {
            tables.pendingRevocations.removeValue(forKey: InMemoryTables.StoreKey(tenantID: tenantID, store: store, id: $0))
        }
        .sorted { $0.revokedAt < $1.revokedAt }
    }
}
