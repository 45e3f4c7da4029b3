import EntitlementDomain
import Foundation

/// The writes of one ``InMemoryRepository`` write: on a copy of the committed rows, which the repository keeps only
/// when the write returns. Each write checks what the SQL schema's keys and the SQL statements check (a duplicate
/// key, a customer of another tenant, a row that is not there) and fails with `.conflict` as they do.
final class InMemoryTransaction: StorageTransaction {
    var tables: InMemoryTables

    init(tables: InMemoryTables) {
        self.tables = tables
    }

    private func requireCustomer(tenantID: String, _ customerID: Int64, _ purpose: String) throws(StorageError) {
        guard tables.customer(tenantID: tenantID, customerID: customerID) != nil else {
            throw .conflict("no customer \(customerID) in tenant \(tenantID) \(purpose)")
        }
    }

    // MARK: Customers

    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        tables.snapshot(tenantID: tenantID, appUserID: appUserID)
    }

    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        tables.snapshot(tenantID: tenantID, customerID: customerID)
    }

    func createCustomer(tenantID: String, appUserID: String, isAnonymous: Bool, at time: UnixTime) throws(StorageError)
        -> CustomerRecord
    {
        try requireUnused(tenantID: tenantID, appUserID: appUserID)
        tables.lastCustomerID += 1
        let record = CustomerRecord(
            id: tables.lastCustomerID, tenantID: tenantID, appUserID: appUserID, isAnonymous: isAnonymous, version: 0,
            createdAt: time, nextChangeAt: nil)
        tables.customers[record.id] = InMemoryTables.Customer(record: record, changedAt: time)
        addAppUserID(tenantID: tenantID, appUserID: appUserID, customerID: record.id, at: time)
        return record
    }

    /// `appUserID` neither resolves nor is a husk's canonical ID (the customers table's unique key).
    private func requireUnused(tenantID: String, appUserID: String) throws(StorageError) {
        if let existing = tables.resolve(tenantID: tenantID, appUserID: appUserID) {
            throw .conflict("app user ID \(appUserID) already resolves to customer \(existing)")
        }
        if tables.customers.values.contains(where: { $0.record.tenantID == tenantID && $0.record.appUserID == appUserID }) {
            throw .conflict("app user ID \(appUserID) is the canonical ID of a merged-away customer")
        }
    }

    private func addAppUserID(tenantID: String, appUserID: String, customerID: Int64, at time: UnixTime) {
        tables.appUserIDs[InMemoryTables.NameKey(tenantID: tenantID, name: appUserID)] = InMemoryTables.AppUserID(
            customerID: customerID, addedAt: time, sequence: tables.nextSequence(), appAccountToken: nil)
    }

    func merge(tenantID: String, from: Int64, into: Int64) throws(StorageError) {
        guard from != into else { throw .conflict("cannot merge customer \(from) into itself") }
        guard let source = tables.customer(tenantID: tenantID, customerID: from) else {
            throw .conflict("no customer \(from) in tenant \(tenantID) to merge from")
        }
        guard let target = tables.customer(tenantID: tenantID, customerID: into) else {
            throw .conflict("no customer \(into) in tenant \(tenantID) to merge into")
        }
        for (key, id) in tables.appUserIDs where key.tenantID == tenantID && id.customerID == from {
            tables.appUserIDs[key]?.customerID = into
        }
        for (key, grant) in tables.grants where grant.row.tenantID == tenantID && grant.row.customerID == from {
            tables.grants[key]?.row.customerID = into
        }
        for (key, purchase) in tables.purchases where purchase.row.tenantID == tenantID && purchase.row.customerID == from {
            tables.purchases[key]?.row.customerID = into
        }
        tables.mergeAttributes(tenantID: tenantID, from: from, into: into)
        let moved = tables.offerSignatures.removeValue(forKey: InMemoryTables.CustomerKey(tenantID: tenantID, customerID: from)) ?? []
        tables.offerSignatures[InMemoryTables.CustomerKey(tenantID: tenantID, customerID: into), default: []] += moved.map {
            var record = $0
            record.customerID = into
            return record
        }
        // As in SQL: anonymous only while both were; the husk no longer changes by time.
        tables.customers[into]?.record.isAnonymous = target.isAnonymous && source.isAnonymous
        tables.customers[into]?.record.nextChangeAt = [source.nextChangeAt, target.nextChangeAt].compactMap { $0 }.min()
        tables.customers[from]?.record.nextChangeAt = nil
    }

    func setCanonicalID(tenantID: String, customerID: Int64, appUserID: String, isAnonymous: Bool)
        throws(StorageError)
    {
        try requireCustomer(tenantID: tenantID, customerID, "")
        if tables.resolve(tenantID: tenantID, appUserID: appUserID) != customerID {
            try requireUnused(tenantID: tenantID, appUserID: appUserID)
            addAppUserID(tenantID: tenantID, appUserID: appUserID, customerID: customerID, at: Self.wallClock())
        }
        tables.customers[customerID]?.record.appUserID = appUserID
        tables.customers[customerID]?.record.isAnonymous = isAnonymous
    }

    /// The time SQL's bookkeeping columns take when the protocol passes none (an ID made canonical).
    private static func wallClock() -> UnixTime {
        UnixTime(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
    }

    func appendEvent(_ event: EventRecord, nextChangeAt: UnixTime?) throws(StorageError) {
        guard let current = tables.customer(tenantID: event.tenantID, customerID: event.customerID)?.version else {
            throw .conflict("no customer \(event.customerID) in tenant \(event.tenantID) for an event")
        }
        guard current < UInt64(Int64.max), event.version == current + 1 else {
            throw .conflict(
                "event version \(event.version) for customer \(event.customerID) is not the next after \(current)")
        }
        tables.events[InMemoryTables.CustomerKey(tenantID: event.tenantID, customerID: event.customerID), default: []]
            .append(event)
        tables.customers[event.customerID]?.record.version = event.version
        tables.customers[event.customerID]?.record.nextChangeAt = nextChangeAt
        tables.customers[event.customerID]?.changedAt = event.occurredAt
    }

    func replaceActiveEntitlements(tenantID: String, customerID: Int64, with entitlements: [ActiveEntitlementValue])
        throws(StorageError)
    {
        if !entitlements.isEmpty { try requireCustomer(tenantID: tenantID, customerID, "for entitlements") }
        tables.activeEntitlements[InMemoryTables.CustomerKey(tenantID: tenantID, customerID: customerID)] =
            entitlements.isEmpty ? nil : entitlements
    }

    func latestEvent(tenantID: String, customerID: Int64) throws(StorageError) -> EventRecord? {
        tables.events[InMemoryTables.CustomerKey(tenantID: tenantID, customerID: customerID)]?.last
    }

    func setNextChangeAt(tenantID: String, customerID: Int64, at time: UnixTime?) throws(StorageError) {
        try requireCustomer(tenantID: tenantID, customerID, "to reschedule")
        tables.customers[customerID]?.record.nextChangeAt = time
    }

    @discardableResult
    func recordAppAccountToken(tenantID: String, appUserID: String, token: String) throws(StorageError) -> Bool {
        guard !token.isEmpty else { return false }
        let key = InMemoryTables.NameKey(tenantID: tenantID, name: appUserID)
        guard let id = tables.appUserIDs[key] else {
            throw .conflict("app user ID \(appUserID) is not in tenant \(tenantID)")
        }
        guard id.appAccountToken == nil else { return false }
        tables.appUserIDs[key]?.appAccountToken = token
        return true
    }

    func customerID(tenantID: String, appAccountToken: String) throws(StorageError) -> Int64? {
        tables.customerID(tenantID: tenantID, appAccountToken: appAccountToken)
    }

    // MARK: Grants

    func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord? {
        tables.grant(tenantID: tenantID, grantID: grantID)
    }

    func grant(tenantID: String, idempotencyKey: String) throws(StorageError) -> GrantRecord? {
        tables.grant(tenantID: tenantID, idempotencyKey: idempotencyKey)
    }

    func insertGrant(_ grant: GrantRecord) throws(StorageError) {
        try requireCustomer(tenantID: grant.tenantID, grant.customerID, "for a grant")
        guard tables.grants[grant.grantID] == nil else { throw .conflict("grant \(grant.grantID) exists") }
        if let key = grant.idempotencyKey, tables.grant(tenantID: grant.tenantID, idempotencyKey: key) != nil {
            throw .conflict("a grant with idempotency key \(key) exists in tenant \(grant.tenantID)")
        }
        tables.grants[grant.grantID] = InMemoryTables.Sequenced(row: grant, sequence: tables.nextSequence())
    }

    func updateGrant(_ grant: GrantRecord) throws(StorageError) {
        guard tables.grant(tenantID: grant.tenantID, grantID: grant.grantID) != nil else {
            throw .conflict("no grant \(grant.grantID) in tenant \(grant.tenantID) to update")
        }
        try requireCustomer(tenantID: grant.tenantID, grant.customerID, "for a grant")
        tables.grants[grant.grantID]?.row = grant
    }

    // MARK: Redemption codes

    func insertRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError) {
        let key = InMemoryTables.NameKey(tenantID: code.tenantID, name: code.codeHash)
        guard tables.redemptionCodes[key] == nil else { throw .conflict("redemption code exists") }
        tables.redemptionCodes[key] = code
    }

    func redemptionCode(tenantID: String, codeHash: String) throws(StorageError) -> RedemptionCodeRecord? {
        tables.redemptionCodes[InMemoryTables.NameKey(tenantID: tenantID, name: codeHash)]
    }

    func updateRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError) {
        let key = InMemoryTables.NameKey(tenantID: code.tenantID, name: code.codeHash)
        guard tables.redemptionCodes[key] != nil else {
            throw .conflict("no redemption code \(code.codeHash.prefix(8))… in tenant \(code.tenantID)")
        }
        tables.redemptionCodes[key]?.usedAt = code.usedAt
        tables.redemptionCodes[key]?.usedBy = code.usedBy
        tables.redemptionCodes[key]?.replacedAt = code.replacedAt
    }

    func replaceOpenRedemptionCodes(tenantID: String, store: Store, originalTransactionID: String, at time: UnixTime)
        throws(StorageError)
    {
        for (key, code) in tables.redemptionCodes
        where key.tenantID == tenantID && code.store == store && code.originalTransactionID == originalTransactionID
            && code.usedAt == nil && code.replacedAt == nil
        {
            tables.redemptionCodes[key]?.replacedAt = time
        }
    }
}
