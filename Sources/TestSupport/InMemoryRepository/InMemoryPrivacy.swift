public import EntitlementDomain

/// The export's reads and the audit log in memory, as their SQL in EntitlementStorage answers.
extension InMemoryTables {
    func appUserIDs(tenantID: String, customerID: Int64) -> [AppUserIDRecord] {
        appUserIDs.filter { $0.key.tenantID == tenantID && $0.value.customerID == customerID }
            .sorted { ($0.value.addedAt, $0.value.sequence) < ($1.value.addedAt, $1.value.sequence) }
            .map { AppUserIDRecord(appUserID: $0.key.name, addedAt: $0.value.addedAt, appAccountToken: $0.value.appAccountToken) }
    }

    func mergedCustomers(tenantID: String, into customerID: Int64) -> [CustomerRecord] {
        customers.values.map(\.record).filter { record in
            record.tenantID == tenantID && record.id != customerID
                && resolve(tenantID: tenantID, appUserID: record.appUserID) == customerID
        }.sorted { $0.id < $1.id }
    }

    func redemptionCodes(tenantID: String, where matches: (RedemptionCodeRecord) -> Bool) -> [RedemptionCodeRecord] {
        redemptionCodes.values.filter { $0.tenantID == tenantID && matches($0) }
            .sorted { ($0.createdAt, $0.codeHash) < ($1.createdAt, $1.codeHash) }
    }
}

extension InMemoryTransaction {
    func appendAuditEvent(_ event: AuditEvent) throws(StorageError) -> Int64 {
        var stored = event
        stored.id = Int64(tables.auditLog.count + 1)
        tables.auditLog.append(stored)
        return stored.id
    }
}

extension InMemoryRepository {
    public func appUserIDs(tenantID: String, customerID: Int64) throws(StorageError) -> [AppUserIDRecord] {
        read { $0.appUserIDs(tenantID: tenantID, customerID: customerID) }
    }

    public func mergedCustomers(tenantID: String, into customerID: Int64) throws(StorageError) -> [CustomerRecord] {
        read { $0.mergedCustomers(tenantID: tenantID, into: customerID) }
    }

    public func redemptionCodes(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [RedemptionCodeRecord]
    {
        read { $0.redemptionCodes(tenantID: tenantID) { $0.store == store && $0.originalTransactionID == originalTransactionID } }
    }

    public func redemptionCodes(tenantID: String, usedBy appUserIDs: [String]) throws(StorageError)
        -> [RedemptionCodeRecord]
    {
        read { $0.redemptionCodes(tenantID: tenantID) { appUserIDs.contains($0.usedBy) } }
    }

    public func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        read { $0.purchaseReferences(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID) }
    }

    public func auditEvents(tenantID: String, beforeID: Int64?, limit: Int) throws(StorageError) -> [AuditEvent] {
        read { tables in
            Array(tables.auditLog.reversed().filter { $0.tenantID == tenantID && $0.id < beforeID ?? .max }.prefix(limit))
        }
    }
}
