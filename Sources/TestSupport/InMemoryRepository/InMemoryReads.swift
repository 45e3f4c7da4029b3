import EntitlementDomain

/// The reads, shared by the repository (on the committed rows) and a transaction (on its own copy). Each answers as
/// its SQL query in EntitlementStorage does, ordering included.
extension InMemoryTables {
    // MARK: Customers

    func customer(tenantID: String, customerID: Int64) -> CustomerRecord? {
        customers[customerID].flatMap { $0.record.tenantID == tenantID ? $0.record : nil }
    }

    func resolve(tenantID: String, appUserID: String) -> Int64? {
        appUserIDs[NameKey(tenantID: tenantID, name: appUserID)]?.customerID
    }

    func snapshot(tenantID: String, appUserID: String) -> CustomerSnapshot? {
        resolve(tenantID: tenantID, appUserID: appUserID).flatMap { snapshot(tenantID: tenantID, customerID: $0) }
    }

    func snapshot(tenantID: String, customerID: Int64) -> CustomerSnapshot? {
        guard let customer = customer(tenantID: tenantID, customerID: customerID) else { return nil }
        let aliases = appUserIDs.filter {
            $0.key.tenantID == tenantID && $0.value.customerID == customerID && $0.key.name != customer.appUserID
        }
        .sorted { ($0.value.addedAt, $0.value.sequence) < ($1.value.addedAt, $1.value.sequence) }.map(\.key.name)
        let grants = grants.values.filter { $0.row.tenantID == tenantID && $0.row.customerID == customerID }
            .sorted { $0.sequence < $1.sequence }.map(\.row)
        let purchases = purchases.values.filter { $0.row.tenantID == tenantID && $0.row.customerID == customerID }
            .sorted { $0.sequence < $1.sequence }.map(\.row)
        return CustomerSnapshot(customer: customer, aliases: aliases, grants: grants, purchases: purchases)
    }

    func customerID(tenantID: String, appAccountToken: String) -> Int64? {
        guard !appAccountToken.isEmpty else { return nil }
        return appUserIDs.values.filter { $0.appAccountToken == appAccountToken }
            .filter { customers[$0.customerID]?.record.tenantID == tenantID }
            .min { ($0.addedAt, $0.sequence) < ($1.addedAt, $1.sequence) }?.customerID
    }

    func events(tenantID: String, customerID: Int64, beforeVersion: UInt64?, limit: Int) -> [EventRecord] {
        guard limit > 0 else { return [] }
        let all = events[CustomerKey(tenantID: tenantID, customerID: customerID)] ?? []
        return Array(all.reversed().filter { event in beforeVersion.map { event.version < $0 } ?? true }.prefix(limit))
    }

    func events(tenantID: String, customerID: Int64, afterVersion: UInt64, limit: Int) -> [EventRecord] {
        guard limit > 0, afterVersion < UInt64(Int64.max) else { return [] }
        let all = events[CustomerKey(tenantID: tenantID, customerID: customerID)] ?? []
        return Array(all.filter { $0.version > afterVersion }.prefix(limit))
    }

    func customersDue(at time: UnixTime, limit: Int) -> [(tenantID: String, customerID: Int64)] {
        guard limit > 0 else { return [] }
        return customers.values.map(\.record).compactMap { customer in
            customer.nextChangeAt.flatMap { $0 <= time ? (customer, $0) : nil }
        }
        .sorted { ($0.1, $0.0.id) < ($1.1, $1.0.id) }.prefix(limit).map { ($0.0.tenantID, $0.0.id) }
    }

    func nextChangeAt() -> UnixTime? {
        customers.values.compactMap(\.record.nextChangeAt).min()
    }

    // MARK: Grants

    func grant(tenantID: String, grantID: String) -> GrantRecord? {
        grants[grantID].flatMap { $0.row.tenantID == tenantID ? $0.row : nil }
    }

    func grant(tenantID: String, idempotencyKey: String) -> GrantRecord? {
        grants.values.first { $0.row.tenantID == tenantID && $0.row.idempotencyKey == idempotencyKey }?.row
    }

    // MARK: Purchases

    func purchase(tenantID: String, store: Store, originalTransactionID: String) -> StorePurchase? {
        purchases[StoreKey(tenantID: tenantID, store: store, id: originalTransactionID)]?.row
    }

    func purchase(tenantID: String, store: Store, replacing originalTransactionID: String) -> StorePurchase? {
        guard !originalTransactionID.isEmpty else { return nil }
        return purchases.values.filter {
            $0.row.tenantID == tenantID && $0.row.store == store && $0.row.replaces == originalTransactionID
        }
        .max { $0.sequence < $1.sequence }?.row
    }

    func unownedPurchases(tenantID: String, appAccountToken: String) -> [StorePurchase] {
        guard !appAccountToken.isEmpty else { return [] }
        return purchases.values.filter {
            $0.row.tenantID == tenantID && $0.row.appAccountToken == appAccountToken && $0.row.customerID == nil
        }
        .sorted { $0.sequence < $1.sequence }.map(\.row)
    }

    func acknowledgementsDue(at time: UnixTime, limit: Int) -> [StorePurchase] {
        pendingAcknowledgements.filter { $0.row.acknowledgement.dueAt.map { $0 <= time } ?? false }
            .sorted { ($0.row.acknowledgement.dueAt!, $0.sequence) < ($1.row.acknowledgement.dueAt!, $1.sequence) }
            .prefix(max(limit, 0)).map(\.row)
    }

    func nextAcknowledgementDue() -> UnixTime? {
        pendingAcknowledgements.compactMap(\.row.acknowledgement.dueAt).min()
    }

    private var pendingAcknowledgements: [Sequenced<StorePurchase>] {
        purchases.values.filter { $0.row.acknowledgement.state == .pending }
    }

    func pollCursor(tenantID: String, name: String) -> Int64? {
        pollCursors[NameKey(tenantID: tenantID, name: name)]
    }

    func renewalExtensionCount(
        tenantID: String, originalTransactionID: String, since: UnixTime, excluding requestIdentifier: String
    ) -> Int {
        renewalExtensions.count {
            $0.key.tenantID == tenantID && $0.key.originalTransactionID == originalTransactionID
                && $0.value.extendedAt >= since && $0.key.requestIdentifier != requestIdentifier
        }
    }

    func isNotificationProcessed(tenantID: String, notificationID: String) -> Bool {
        processedNotifications.contains(NameKey(tenantID: tenantID, name: notificationID))
    }

    func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) -> [PurchaseReference] {
        references(tenantID: tenantID, store: store) { $0.originalTransactionID == originalTransactionID }
            .sorted { ($0.1.createdAt, $0.0.referenceID) < ($1.1.createdAt, $1.0.referenceID) }.map(\.0)
    }

    func purchaseReferences(tenantID: String, store: Store, referenceID: String) -> [PurchaseReference] {
        references(tenantID: tenantID, store: store) { $0.referenceID == referenceID }
            .sorted { ($0.1.createdAt, $0.0.originalTransactionID) < ($1.1.createdAt, $1.0.originalTransactionID) }
            .map(\.0)
    }

    private func references(tenantID: String, store: Store, where matches: (ReferenceKey) -> Bool)
        -> [(PurchaseReference, Reference)]
    {
        references.filter { $0.key.tenantID == tenantID && $0.key.store == store && matches($0.key) }.map {
            (
                PurchaseReference(
                    store: store, referenceID: $0.key.referenceID, originalTransactionID: $0.key.originalTransactionID,
                    appUserID: $0.value.appUserID), $0.value
            )
        }
    }
}
