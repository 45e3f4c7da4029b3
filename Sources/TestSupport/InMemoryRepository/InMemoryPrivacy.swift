import Crypto
public import EntitlementDomain
import Foundation

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
    public func existingErasureKey(tenantID: String) throws(StorageError) -> [UInt8]? {
        read { $0.erasureKeys[tenantID] }
    }

    public func erasure(tenantID: String, subject: String) throws(StorageError) -> String? {
        read { $0.erasedSubjects[InMemoryTables.NameKey(tenantID: tenantID, name: subject)] }
    }

    /// Nothing is kept in memory once deleted.
    public func clearDeletedBytes() throws(StorageError) {}

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

/// Erasure in memory, as `Erasure.swift`'s statements do it.
extension InMemoryTransaction {
    func erasureKey(tenantID: String) throws(StorageError) -> [UInt8] {
        if let key = tables.erasureKeys[tenantID] { return key }
        let key = SecureRandom.bytes(ErasureSubject.keyBytes)
        tables.erasureKeys[tenantID] = key
        return key
    }

    func existingErasureKey(tenantID: String) throws(StorageError) -> [UInt8]? {
        tables.erasureKeys[tenantID]
    }

    func erasure(tenantID: String, subject: String) throws(StorageError) -> String? {
        tables.erasedSubjects[InMemoryTables.NameKey(tenantID: tenantID, name: subject)]
    }

    func appUserIDs(tenantID: String, customerID: Int64) throws(StorageError) -> [AppUserIDRecord] {
        tables.appUserIDs(tenantID: tenantID, customerID: customerID)
    }

    func mergedCustomers(tenantID: String, into customerID: Int64) throws(StorageError) -> [CustomerRecord] {
        tables.mergedCustomers(tenantID: tenantID, into: customerID)
    }

    func erasedOwner(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError) -> String? {
        let key = InMemoryTables.StoreKey(tenantID: tenantID, store: store, id: originalTransactionID)
        guard tables.purchases[key]?.row.customerID == nil else { return nil }
        return tables.erasedOwners[key]
    }

    func erase(_ erasure: CustomerErasure) throws(StorageError) -> ErasureCounts {
        let tenantID = erasure.tenantID
        let customers = Set(erasure.customerIDs)
        let ids = Set(erasure.appUserIDs)
        let owned = tables.purchases.filter { $0.key.tenantID == tenantID && $0.value.row.customerID.map(customers.contains) == true }
        var counts = ErasureCounts()
        // Other customers' history: the webhooks naming the person go, the events lose the ID.
        for (key, events) in tables.events where key.tenantID == tenantID {
            for (index, event) in events.enumerated() where ids.contains(event.relatedAppUserID) {
                tables.events[key]![index].reason = event.reason.replacingOccurrences(
                    of: "'\(event.relatedAppUserID)'", with: "'(erased)'")
                tables.events[key]![index].relatedAppUserID = ""
            }
        }
        for (id, row) in tables.deliveries where row.delivery.tenantID == tenantID {
            let about = row.delivery.customerID.map(customers.contains) == true || ids.contains(row.delivery.relatedAppUserID)
            if about {
                tables.deliveries[id] = nil
                counts.webhookDeliveries += 1
            }
        }
        for customerID in customers {
            let key = InMemoryTables.CustomerKey(tenantID: tenantID, customerID: customerID)
            counts.events += tables.events.removeValue(forKey: key)?.count ?? 0
            tables.activeEntitlements[key] = nil
            tables.attributes[key] = nil
            tables.offerSignatures[key] = nil
        }
        tables.grants = tables.grants.filter { !($0.value.row.tenantID == tenantID && customers.contains($0.value.row.customerID)) }
        let ownedIDs = Set(owned.keys.map { "\($0.store)\u{0}\($0.id)" })
        tables.redemptionCodes = tables.redemptionCodes.filter { _, code in
            !(code.tenantID == tenantID && (ids.contains(code.usedBy) || ownedIDs.contains("\(code.store)\u{0}\(code.originalTransactionID)")))
        }
        for (key, reference) in tables.references where key.tenantID == tenantID
            && (ids.contains(reference.appUserID) || ownedIDs.contains("\(key.store)\u{0}\(key.originalTransactionID)"))
        {
            tables.references[key]?.appUserID = ""
        }
        for index in tables.auditLog.indices where tables.auditLog[index].tenantID == tenantID && ids.contains(tables.auditLog[index].subject) {
            tables.auditLog[index].subject = erasure.tombstone
        }
        let tokens = Set(erasure.appAccountTokens)
        for (key, purchase) in tables.purchases where key.tenantID == tenantID && tokens.contains(purchase.row.appAccountToken.lowercased()) {
            tables.purchases[key]?.row.appAccountToken = ""
        }
        func isTheirs(_ customerID: Int64?) -> Bool { customerID.map(customers.contains) == true }
        if erasure.erasesAccountingRecords {
            tables.ledger.removeAll { $0.tenantID == tenantID && isTheirs($0.customerID) }
            tables.billingObservations.removeAll { $0.payment.tenantID == tenantID && isTheirs($0.payment.customerID) }
            for key in owned.keys { tables.purchases[key] = nil }
            tables.references = tables.references.filter { !ownedIDs.contains("\($0.key.store)\u{0}\($0.key.originalTransactionID)") || $0.key.tenantID != tenantID }
            counts.purchasesDeleted = owned.count
        } else {
            for index in tables.ledger.indices where tables.ledger[index].tenantID == tenantID && isTheirs(tables.ledger[index].customerID) {
                tables.ledger[index].customerID = nil
            }
            for index in tables.billingObservations.indices
            where tables.billingObservations[index].payment.tenantID == tenantID
                && isTheirs(tables.billingObservations[index].payment.customerID)
            {
                tables.billingObservations[index].payment.customerID = nil
            }
            for key in owned.keys {
                tables.purchases[key]?.row.customerID = nil
                tables.purchases[key]?.row.appAccountToken = ""
                tables.erasedOwners[key] = erasure.tombstone
            }
            counts.purchasesKept = owned.count
        }
        tables.appUserIDs = tables.appUserIDs.filter { !customers.contains($0.value.customerID) }
        for customerID in customers {
            tables.customers[customerID]?.record.appUserID = "\(erasure.tombstone)/\(customerID)"
            tables.customers[customerID]?.record.isAnonymous = true
            tables.customers[customerID]?.record.nextChangeAt = nil
            tables.customers[customerID]?.changedAt = erasure.erasedAt
        }
        for subject in erasure.subjects {
            tables.erasedSubjects[InMemoryTables.NameKey(tenantID: tenantID, name: subject)] = erasure.tombstone
        }
        return counts
    }
}

/// Retention in memory, as `Retention.swift`'s statements do it.
extension InMemoryTransaction {
    func compactEvents(tenantID: String, before: UnixTime, after: EventPosition?, limit: Int) throws(StorageError)
        -> (removed: Int, scanned: EventPosition?)
    {
        let scanned = tables.events.filter { $0.key.tenantID == tenantID }.flatMap { key, events in
            events.map { EventPosition(occurredAt: $0.occurredAt, customerID: key.customerID, version: $0.version) }
        }.filter { position in position.occurredAt < before && after.map { $0 < position } ?? true }.sorted().prefix(limit)
        var removed = 0
        for position in scanned where position.version > 1 {
            let key = InMemoryTables.CustomerKey(tenantID: tenantID, customerID: position.customerID)
            let replaced = position.version - 1
            guard tables.events[key]?.contains(where: { $0.version == replaced }) == true else { continue }
            tables.events[key]?.removeAll { $0.version == replaced }
            removed += 1
        }
        return (removed, scanned.count == limit ? scanned.last : nil)
    }

    func pruneWebhookDeliveries(tenantID: String, states: [WebhookDelivery.State], before time: UnixTime, limit: Int)
        throws(StorageError) -> Int
    {
        let old = tables.deliveries.values.map(\.delivery)
            .filter { $0.tenantID == tenantID && states.contains($0.state) && $0.createdAt < time }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.prefix(limit)
        for delivery in old { tables.deliveries[delivery.id] = nil }
        return old.count
    }

    func forgetRedemptionCodes(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int {
        let going = tables.redemptionCodes.filter { _, code in
            code.tenantID == tenantID
                && ((code.usedAt.map { $0 < before } ?? false) || (code.replacedAt.map { $0 < before } ?? false)
                    || code.expiresAt < before)
        }.keys.prefix(limit)
        for key in going { tables.redemptionCodes[key] = nil }
        return going.count
    }
}
