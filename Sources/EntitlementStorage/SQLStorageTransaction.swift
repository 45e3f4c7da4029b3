import EntitlementDomain
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The writes of one repository `write(_:)` call, on the connection holding its transaction: SQLite's write
/// connection inside `BEGIN IMMEDIATE`, or a PostgreSQL connection inside `BEGIN`, where every customer row read is
/// locked until commit (``SQLExecutor/locksRows``).
///
/// Valid only while `write(_:)`'s body runs: using it afterwards (it escaped the closure) is a programmer error.
final class SQLStorageTransaction<Database: SQLExecutor>: StorageTransaction {
    private let connection: Database
    private var isOpen = true
    /// Every version ``appendEvent(_:nextChangeAt:)`` wrote, in order: what other instances are told at commit.
    /// A group commit drops those of a write it rolls back to its savepoint.
    var appendedVersions: [CommittedVersion] = []
    /// The daily totals' changes, added to the database by ``addDailyTotals()`` just before the commit.
    private var dailyTotals = DailyTotalChanges()

    init(connection: Database) {
        self.connection = connection
    }

    func close() {
        isOpen = false
    }

    /// The write running in a group succeeded: its changes to the daily totals are kept.
    func keepWrite() {
        dailyTotals.keepWrite()
    }

    /// The write running in a group was rolled back to its savepoint.
    func dropWrite() {
        dailyTotals.dropWrite()
    }

    /// Whether a kept write changed a daily total.
    var changesDailyTotals: Bool { !dailyTotals.isEmpty }

    /// Adds the kept writes' changes to the daily totals: the last statements before the commit.
    func addDailyTotals() throws(StorageError) {
        try dailyTotals.write(to: db)
    }

    /// The connection, after checking the transaction has not ended.
    var db: Database {
        precondition(isOpen, "StorageTransaction used after its write(_:) returned")
        return connection
    }

    // MARK: Reads

    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        try db.snapshot(tenantID: tenantID, appUserID: appUserID)
    }

    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        try db.snapshot(tenantID: tenantID, customerID: customerID)
    }

    func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord? {
        try db.grant(tenantID: tenantID, grantID: grantID)
    }

    func grant(tenantID: String, idempotencyKey: String) throws(StorageError) -> GrantRecord? {
        try db.grant(tenantID: tenantID, idempotencyKey: idempotencyKey)
    }

    // MARK: Customers

    func createCustomer(tenantID: String, appUserID: String, isAnonymous: Bool, at time: UnixTime) throws(StorageError)
        -> CustomerRecord
    {
        let db = self.db
        if let existing = try db.resolve(tenantID: tenantID, appUserID: appUserID) {
            throw StorageError.conflict("app user ID \(appUserID) already resolves to customer \(existing)")
        }
        guard
            let id = try db.row(
                """
                INSERT INTO customers (tenant_id, app_user_id, is_anonymous, version, created_at, next_change_at,
                    changed_at)
                VALUES (?, ?, ?, 0, ?, NULL, ?) RETURNING id
                """,
                [.text(tenantID), .text(appUserID), .bool(isAnonymous), .time(time), .time(time)], { $0.int64(0) })
        else {
            throw StorageError.corrupt("inserting customer \(appUserID) returned no ID")
        }
        try addAppUserID(tenantID: tenantID, appUserID: appUserID, customerID: id, at: time)
        return CustomerRecord(
            id: id, tenantID: tenantID, appUserID: appUserID, isAnonymous: isAnonymous, version: 0, createdAt: time,
            nextChangeAt: nil)
    }

    func merge(tenantID: String, from: Int64, into: Int64) throws(StorageError) {
        let db = self.db
        guard from != into else {
            throw StorageError.conflict("cannot merge customer \(from) into itself")
        }
        guard let source = try db.customer(tenantID: tenantID, customerID: from) else {
            throw StorageError.conflict("no customer \(from) in tenant \(tenantID) to merge from")
        }
        guard let target = try db.customer(tenantID: tenantID, customerID: into) else {
            throw StorageError.conflict("no customer \(into) in tenant \(tenantID) to merge into")
        }
        // IDs keep their added_at, so aliases stay in the order they were first seen.
        try db.run(
            "UPDATE app_user_ids SET customer_id = ? WHERE tenant_id = ? AND customer_id = ?",
            [.integer(into), .text(tenantID), .integer(from)])
        try db.run(
            "UPDATE grants SET customer_id = ? WHERE tenant_id = ? AND customer_id = ?",
            [.integer(into), .text(tenantID), .integer(from)])
        try db.run(
            "UPDATE transactions SET customer_id = ? WHERE tenant_id = ? AND customer_id = ?",
            [.integer(into), .text(tenantID), .integer(from)])
        try db.mergeAttributes(tenantID: tenantID, from: from, into: into)
        try db.mergeOfferSignatures(tenantID: tenantID, from: from, into: into)
        // `into` is anonymous only while every ID it now holds is. The husk changes no more by time (it has no
        // grants); `into` wakes the scheduler no later than either did, until its next event sets the exact time.
        let nextChange = [source.nextChangeAt, target.nextChangeAt].compactMap { $0 }.min()
        try db.run(
            "UPDATE customers SET is_anonymous = ?, next_change_at = ? WHERE tenant_id = ? AND id = ?",
            [.bool(target.isAnonymous && source.isAnonymous), .time(nextChange), .text(tenantID), .integer(into)])
        try db.run(
            "UPDATE customers SET next_change_at = NULL WHERE tenant_id = ? AND id = ?",
            [.text(tenantID), .integer(from)])
    }

    func setCanonicalID(tenantID: String, customerID: Int64, appUserID: String, isAnonymous: Bool)
        throws(StorageError)
    {
        let db = self.db
        guard try db.customer(tenantID: tenantID, customerID: customerID) != nil else {
            throw StorageError.conflict("no customer \(customerID) in tenant \(tenantID)")
        }
        switch try db.resolve(tenantID: tenantID, appUserID: appUserID) {
        case .some(customerID):
            break
        case .some(let other):
            throw StorageError.conflict("app user ID \(appUserID) already resolves to customer \(other)")
        case .none:
            try addAppUserID(tenantID: tenantID, appUserID: appUserID, customerID: customerID, at: StorageSQL.now())
        }
        try db.run(
            "UPDATE customers SET app_user_id = ?, is_anonymous = ? WHERE tenant_id = ? AND id = ?",
            [.text(appUserID), .bool(isAnonymous), .text(tenantID), .integer(customerID)])
    }

    private func addAppUserID(tenantID: String, appUserID: String, customerID: Int64, at time: UnixTime)
        throws(StorageError)
    {
        try db.run(
            "INSERT INTO app_user_ids (tenant_id, app_user_id, customer_id, added_at) VALUES (?, ?, ?, ?)",
            [.text(tenantID), .text(appUserID), .integer(customerID), .time(time)])
    }

    // MARK: Attributes

    func attributes(tenantID: String, customerID: Int64) throws(StorageError) -> [CustomerAttribute] {
        try db.attributes(tenantID: tenantID, customerID: customerID)
    }

    func setAttribute(tenantID: String, customerID: Int64, _ attribute: CustomerAttribute) throws(StorageError) {
        try db.setAttribute(tenantID: tenantID, customerID: customerID, attribute)
    }

    func removeAttribute(tenantID: String, customerID: Int64, key: String) throws(StorageError) {
        try db.removeAttribute(tenantID: tenantID, customerID: customerID, key: key)
    }

    // MARK: Offer signatures

    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) throws(StorageError)
        -> Int
    {
        try db.offerSignatureCount(tenantID: tenantID, customerID: customerID, offerID: offerID, since: since)
    }

    func recordOfferSignature(_ record: OfferSignatureRecord) throws(StorageError) {
        try db.recordOfferSignature(record)
    }

    func linkOfferRedemption(_ redemption: OfferRedemption) throws(StorageError) -> Bool {
        try db.linkOfferRedemption(redemption)
    }

    // MARK: Erasure

    func erasureKey(tenantID: String) throws(StorageError) -> [UInt8] {
        try db.erasureKey(tenantID: tenantID)
    }

    func existingErasureKey(tenantID: String) throws(StorageError) -> [UInt8]? {
        try db.existingErasureKey(tenantID: tenantID)
    }

    func erasure(tenantID: String, subject: String) throws(StorageError) -> String? {
        try db.erasure(tenantID: tenantID, subject: subject)
    }

    func appUserIDs(tenantID: String, customerID: Int64) throws(StorageError) -> [AppUserIDRecord] {
        try db.appUserIDs(tenantID: tenantID, customerID: customerID)
    }

    func mergedCustomers(tenantID: String, into customerID: Int64) throws(StorageError) -> [CustomerRecord] {
        try db.mergedCustomers(tenantID: tenantID, into: customerID)
    }

    /// Other instances hear of the erased customers as of a change: finding them gone, they forget them.
    func erase(_ erasure: CustomerErasure) throws(StorageError) -> ErasureCounts {
        let counts = try db.erase(erasure)
        appendedVersions += erasure.customerIDs.map {
            CommittedVersion(tenantID: erasure.tenantID, customerID: $0, version: UInt64(Int64.max))
        }
        return counts
    }

    func erasedOwner(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError) -> String? {
        try db.erasedOwner(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
    }

    // MARK: Retention

    func compactEvents(tenantID: String, before: UnixTime, after: EventPosition?, limit: Int) throws(StorageError)
        -> (removed: Int, scanned: EventPosition?)
    {
        try db.compactEvents(tenantID: tenantID, before: before, after: after, limit: limit)
    }

    func pruneWebhookDeliveries(tenantID: String, states: [WebhookDelivery.State], before: UnixTime, limit: Int)
        throws(StorageError) -> Int
    {
        try db.pruneWebhookDeliveries(tenantID: tenantID, states: states, before: before, limit: limit)
    }

    func forgetRedemptionCodes(tenantID: String, before: UnixTime, limit: Int) throws(StorageError) -> Int {
        try db.forgetRedemptionCodes(tenantID: tenantID, before: before, limit: limit)
    }

    // MARK: Audit log

    func appendAuditEvent(_ event: AuditEvent) throws(StorageError) -> Int64 {
        try db.appendAuditEvent(event)
    }

    // MARK: Grants

    func insertGrant(_ grant: GrantRecord) throws(StorageError) {
        try db.send(
            """
            INSERT INTO grants (grant_id, tenant_id, customer_id, entitlement_id, starts_at, expires_at, revoked_at,
                reason, revocation_reason, idempotency_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(grant.grantID), .text(grant.tenantID), .integer(grant.customerID), .text(grant.entitlementID),
                .time(grant.startsAt), .time(grant.expiresAt), .time(grant.revokedAt), .text(grant.reason),
                .text(grant.revocationReason), .text(grant.idempotencyKey), .time(StorageSQL.now()),
            ])
    }

    func updateGrant(_ grant: GrantRecord) throws(StorageError) {
        let changed = try db.run(
            """
            UPDATE grants SET customer_id = ?, entitlement_id = ?, starts_at = ?, expires_at = ?, revoked_at = ?,
                reason = ?, revocation_reason = ?, idempotency_key = ?
            WHERE tenant_id = ? AND grant_id = ?
            """,
            [
                .integer(grant.customerID), .text(grant.entitlementID), .time(grant.startsAt), .time(grant.expiresAt),
                .time(grant.revokedAt), .text(grant.reason), .text(grant.revocationReason),
                .text(grant.idempotencyKey), .text(grant.tenantID), .text(grant.grantID),
            ])
        guard changed == 1 else {
            throw StorageError.conflict("no grant \(grant.grantID) in tenant \(grant.tenantID) to update")
        }
    }

    // MARK: Events

    func appendEvent(_ event: EventRecord, nextChangeAt: UnixTime?) throws(StorageError) {
        let db = self.db
        guard event.version >= 1, event.version <= UInt64(Int64.max) else {
            throw StorageError.conflict("event version \(event.version) for customer \(event.customerID) is out of range")
        }
        // Bumps the version only from the one before: no other check is needed (a round trip saved per write).
        try db.send(
            """
            UPDATE customers SET version = ?, next_change_at = ?, changed_at = ?
            WHERE tenant_id = ? AND id = ? AND version = ?
            """,
            [
                .integer(Int64(event.version)), .time(nextChangeAt), .time(event.occurredAt), .text(event.tenantID),
                .integer(event.customerID), .integer(Int64(event.version - 1)),
            ],
            unlessOneRow: .conflict(
                "event version \(event.version) for customer \(event.customerID) in tenant \(event.tenantID) is not the "
                    + "next after the customer's"))
        try db.send(
            """
            INSERT INTO events (tenant_id, customer_id, version, cause, change, reason, occurred_at, status,
                related_app_user_id, reference_id, key_name)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(event.tenantID), .integer(event.customerID), .integer(Int64(event.version)),
                .integer(StorageColumns.cause(event.cause)), .integer(StorageColumns.change(event.change)), .text(event.reason),
                .time(event.occurredAt), .blob(event.status), .text(event.relatedAppUserID), .text(event.referenceID),
                .text(event.keyName),
            ])
        appendedVersions.append(
            CommittedVersion(tenantID: event.tenantID, customerID: event.customerID, version: event.version))
    }

    func replaceActiveEntitlements(tenantID: String, customerID: Int64, with entitlements: [ActiveEntitlementValue])
        throws(StorageError)
    {
        try db.replaceActiveEntitlements(tenantID: tenantID, customerID: customerID, with: entitlements)
    }

    func latestEvent(tenantID: String, customerID: Int64) throws(StorageError) -> EventRecord? {
        try db.events(tenantID: tenantID, customerID: customerID, beforeVersion: nil, limit: 1).first
    }

    func setNextChangeAt(tenantID: String, customerID: Int64, at time: UnixTime?) throws(StorageError) {
        let changed = try db.run(
            "UPDATE customers SET next_change_at = ? WHERE tenant_id = ? AND id = ?",
            [.time(time), .text(tenantID), .integer(customerID)])
        guard changed == 1 else {
            throw StorageError.conflict("no customer \(customerID) in tenant \(tenantID) to reschedule")
        }
    }

    // MARK: Store purchases and notifications

    /// Read to decide what to write: on PostgreSQL its key stays locked until commit, stored or not
    /// (``SQLExecutor/lockUntilCommit(_:)``), so a purchase two users claim at once gets one owner.
    func purchase(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        try db.lockUntilCommit("purchase/\(tenantID)/\(StorageColumns.store(store))/\(originalTransactionID)")
        return try db.purchase(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
    }

    func savePurchase(_ record: StorePurchase) throws(StorageError) {
        try db.send(
            StorageSQL.saveTransactionSQL,
            [
                .text(record.tenantID), .integer(StorageColumns.store(record.store)), .text(record.originalTransactionID),
                .text(record.transactionID), .integer(record.customerID), .text(record.productID),
                .text(record.productType), .text(StorageSQL.encodeEntitlementIDs(record.entitlementIDs)),
                .text(StorageColumns.environment(record.environment)), .time(record.purchasedAt), .time(record.originalPurchaseAt),
                .time(record.expiresAt), .time(record.revokedAt), .text(record.revocationReason),
                .text(StorageColumns.ownership(record.ownership)), .bool(record.willRenew),
                .bool(record.renewal.inGracePeriod), .bool(record.renewal.inBillingRetry),
                .time(StorageColumns.graceEnd(record.renewal)), .text(record.appAccountToken),
                .text(record.offerType), .time(record.signedAt), .time(record.updatedAt),
                .text(record.renewalProductID), .bool(record.isUpgraded), .time(record.renewalStateAsOf),
                .time(StorageColumns.pausedUntil(record.renewal)), .text(record.supersededBy),
                .text(StorageColumns.origin(record.origin)),
                .text(record.replaces), .text(StorageColumns.acknowledgement(record.acknowledgement.state)),
                .integer(Int64(record.acknowledgement.attempts)), .time(record.acknowledgement.dueAt),
                .text(record.acknowledgement.lastError), .bool(record.renewal.isHeld),
                .integer(record.price?.milliunits), .text(record.price?.currency ?? ""), .time(record.accessFrom),
                .text(record.sale.map { $0.kind.name }),
                .text(record.sale.map { $0.offer.name } ?? ""), .text(record.sale?.country ?? ""),
                .integer(record.sale?.refundedMilliunits), .time(record.sale?.periodStart),
                .integer(record.sale?.taxMilliunits), .integer(record.sale?.reportedProceedsMilliunits),
                .text(record.sale?.offerID ?? ""),
            ])
    }

    func recordLedgerEntries(_ entries: [LedgerEntry], at time: UnixTime) throws(StorageError) -> [LedgerEntry] {
        var recorded: [LedgerEntry] = []
        for entry in entries {
            let inserted = try db.run(
                StorageSQL.recordLedgerEntrySQL,
                [
                    .text(entry.tenantID), .text(entry.store.ledgerName), .text(entry.transactionID),
                    .text(entry.kind.name),
                    .text(entry.kind.direction.name),
                    .text(entry.originalTransactionID), .integer(entry.customerID), .text(entry.productID),
                    .text(entry.entitlementIDs.joined(separator: " ")),
                    .text(StorageColumns.environment(entry.environment)), .text(entry.country),
                    .text(entry.offer.name), .time(entry.periodStart), .time(entry.periodEnd),
                    .integer(entry.amount.milliunits), .text(entry.amount.currency), .integer(entry.proceedsMilliunits),
                    .time(entry.occurredAt), .time(time), .integer(entry.taxMilliunits),
                ])
            if inserted > 0 {
                RevenueDaily.add(entry, to: &dailyTotals)
                UngroupedDaily.add(entry, to: &dailyTotals)
                recorded.append(entry)
            }
        }
        return recorded
    }

    func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [LedgerEntry]
    {
        try db.ledgerEntries(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
    }

    func addSubscriptionDays(_ changes: [SubscriptionDay]) throws(StorageError) {
        precondition(isOpen, "StorageTransaction used after its write(_:) returned")
        for change in changes { UngroupedDaily.addBoth(change, to: &dailyTotals) }
    }

    func changeSubscriptionEvents(removing removed: [SubscriptionEvent], adding added: [SubscriptionEvent])
        throws(StorageError)
    {
        for event in removed { try db.send(SubscriptionEvents.deleteSQL, SubscriptionEvents.keyBindings(event)) }
        for event in added { try db.send(SubscriptionEvents.insertSQL, SubscriptionEvents.insertBindings(event)) }
    }

    func recordBillingObservation(_ observation: BillingObservation) throws(StorageError) -> Bool {
        try db.run(BillingObservations.insertSQL, BillingObservations.bindings(observation)) > 0
    }

    func billingObservations(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [BillingObservation]
    {
        try db.billingObservations(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
    }

    /// An owner ends the tombstone an erasure left on the purchase.
    func setPurchaseOwner(tenantID: String, store: Store, originalTransactionID: String, customerID: Int64?)
        throws(StorageError)
    {
        let changed = try db.run(
            """
            UPDATE transactions SET customer_id = ?\(customerID == nil ? "" : ", erased_owner = ''")
            WHERE tenant_id = ? AND store = ? AND original_transaction_id = ?
            """,
            [.integer(customerID), .text(tenantID), .integer(StorageColumns.store(store)), .text(originalTransactionID)])
        guard changed == 1 else {
            throw StorageError.conflict(
                "no transaction \(originalTransactionID) (store \(store)) in tenant \(tenantID) to set the owner of")
        }
    }

    func unownedPurchases(tenantID: String, appAccountToken: String) throws(StorageError) -> [StorePurchase] {
        try db.unownedPurchases(tenantID: tenantID, appAccountToken: appAccountToken)
    }

    func purchase(tenantID: String, store: Store, replacing originalTransactionID: String) throws(StorageError)
        -> StorePurchase?
    {
        try db.purchase(tenantID: tenantID, store: store, replacing: originalTransactionID)
    }

    func setPollCursor(tenantID: String, name: String, position: Int64) throws(StorageError) {
        _ = try db.run(
            """
            INSERT INTO poll_cursors (tenant_id, name, position) VALUES (?, ?, ?)
            ON CONFLICT (tenant_id, name) DO UPDATE SET position = excluded.position
            WHERE excluded.position > poll_cursors.position
            """,
            [.text(tenantID), .text(name), .integer(position)])
    }

    func saveRenewalExtension(
        tenantID: String, originalTransactionID: String, requestIdentifier: String, days: Int, at time: UnixTime
    ) throws(StorageError) {
        _ = try db.run(
            """
            INSERT INTO renewal_extensions (tenant_id, original_transaction_id, request_identifier, days, extended_at)
            VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """,
            [.text(tenantID), .text(originalTransactionID), .text(requestIdentifier), .integer(Int64(days)), .time(time)])
    }

    @discardableResult
    func recordAppAccountToken(tenantID: String, appUserID: String, token: String) throws(StorageError) -> Bool {
        let db = self.db
        guard !token.isEmpty else { return false }
        guard try db.resolve(tenantID: tenantID, appUserID: appUserID) != nil else {
            throw StorageError.conflict("app user ID \(appUserID) is not in tenant \(tenantID)")
        }
        let changed = try db.run(
            """
            UPDATE app_user_ids SET app_account_token = ?
            WHERE tenant_id = ? AND app_user_id = ? AND app_account_token IS NULL
            """,
            [.text(token), .text(tenantID), .text(appUserID)])
        return changed == 1
    }

    func customerID(tenantID: String, appAccountToken: String) throws(StorageError) -> Int64? {
        try db.customerID(tenantID: tenantID, appAccountToken: appAccountToken)
    }

    func markNotificationProcessed(tenantID: String, notificationID: String, at time: UnixTime) throws(StorageError)
        -> Bool
    {
        let inserted = try db.run(
            """
            INSERT INTO processed_notifications (tenant_id, notification_id, received_at) VALUES (?, ?, ?)
            ON CONFLICT (tenant_id, notification_id) DO NOTHING
            """,
            [.text(tenantID), .text(notificationID), .time(time)])
        return inserted == 1
    }

    // MARK: Purchase references and redemption codes

    func savePurchaseReference(_ reference: PurchaseReference, tenantID: String, at time: UnixTime) throws(StorageError) {
        try db.send(
            """
            INSERT INTO purchase_references
                (tenant_id, store, reference_id, original_transaction_id, app_user_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (tenant_id, store, reference_id, original_transaction_id) DO UPDATE
                SET app_user_id = excluded.app_user_id WHERE purchase_references.app_user_id = ''
            """,
            [
                .text(tenantID), .integer(StorageColumns.store(reference.store)), .text(reference.referenceID),
                .text(reference.originalTransactionID), .text(reference.appUserID), .time(time),
            ])
    }

    func purchaseReferences(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        try db.purchaseReferences(tenantID: tenantID, store: store, originalTransactionID: originalTransactionID)
    }

    func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(StorageError)
        -> [PurchaseReference]
    {
        try db.purchaseReferences(tenantID: tenantID, store: store, referenceID: referenceID)
    }

    func savePendingRevocation(_ revocation: PendingRevocation, tenantID: String) throws(StorageError) {
        _ = try db.run(
            """
            INSERT INTO pending_revocations (tenant_id, store, reference_id, revoked_at, reason) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (tenant_id, store, reference_id) DO NOTHING
            """,
            [
                .text(tenantID), .integer(StorageColumns.store(revocation.store)), .text(revocation.referenceID),
                .time(revocation.revokedAt), .text(revocation.reason),
            ])
    }

    func takePendingRevocations(tenantID: String, store: Store, referenceIDs: [String]) throws(StorageError)
        -> [PendingRevocation]
    {
        var taken: [PendingRevocation] = []
        for id in Set(referenceIDs) where !id.isEmpty {
            let bindings: [SQLValue] = [.text(tenantID), .integer(StorageColumns.store(store)), .text(id)]
            guard
                let found = try db.row(
                    "SELECT revoked_at, reason FROM pending_revocations WHERE tenant_id = ? AND store = ? AND reference_id = ?",
                    bindings, { PendingRevocation(store: store, referenceID: id, revokedAt: $0.time(0), reason: $0.string(1)) })
            else { continue }
            _ = try db.run("DELETE FROM pending_revocations WHERE tenant_id = ? AND store = ? AND reference_id = ?", bindings)
            taken.append(found)
        }
        return taken.sorted { $0.revokedAt < $1.revokedAt }
    }

    func insertRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError) {
        _ = try db.run(
            """
            INSERT INTO redemption_codes (tenant_id, code_hash, store, original_transaction_id, created_at, expires_at,
                used_at, used_by, replaced_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(code.tenantID), .text(code.codeHash), .integer(StorageColumns.store(code.store)),
                .text(code.originalTransactionID), .time(code.createdAt), .time(code.expiresAt), .time(code.usedAt),
                .text(code.usedBy), .time(code.replacedAt),
            ])
    }

    func redemptionCode(tenantID: String, codeHash: String) throws(StorageError) -> RedemptionCodeRecord? {
        try db.row(
            """
            SELECT store, original_transaction_id, created_at, expires_at, used_at, used_by, replaced_at
            FROM redemption_codes WHERE tenant_id = ? AND code_hash = ?
            """,
            [.text(tenantID), .text(codeHash)]
        ) { (row) throws(StorageError) in
            RedemptionCodeRecord(
                tenantID: tenantID, codeHash: codeHash,
                store: try StorageColumns.decode(row.int64(0), column: "redemption_codes.store", as: StorageColumns.store),
                originalTransactionID: row.string(1), createdAt: row.time(2), expiresAt: row.time(3),
                usedAt: row.optionalTime(4), usedBy: row.string(5), replacedAt: row.optionalTime(6))
        }
    }

    func updateRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError) {
        let changed = try db.run(
            "UPDATE redemption_codes SET used_at = ?, used_by = ?, replaced_at = ? WHERE tenant_id = ? AND code_hash = ?",
            [.time(code.usedAt), .text(code.usedBy), .time(code.replacedAt), .text(code.tenantID), .text(code.codeHash)])
        guard changed == 1 else {
            throw .conflict("no redemption code \(code.codeHash.prefix(8))… in tenant \(code.tenantID)")
        }
    }

    func replaceOpenRedemptionCodes(tenantID: String, store: Store, originalTransactionID: String, at time: UnixTime)
        throws(StorageError)
    {
        _ = try db.run(
            """
            UPDATE redemption_codes SET replaced_at = ?
            WHERE tenant_id = ? AND store = ? AND original_transaction_id = ? AND used_at IS NULL AND replaced_at IS NULL
            """,
            [.time(time), .text(tenantID), .integer(StorageColumns.store(store)), .text(originalTransactionID)])
    }

    // MARK: Webhook outbox

    func insertWebhookDelivery(_ delivery: WebhookDelivery) throws(StorageError) -> Int64 {
        try db.insertWebhookDelivery(delivery)
    }

    func deleteFinishedWebhookDeliveries(tenantID: String, endpointID: String, type: String) throws(StorageError) {
        try db.send(
            "DELETE FROM webhook_deliveries WHERE tenant_id = ? AND endpoint_id = ? AND type = ? AND state <> ?",
            [.text(tenantID), .text(endpointID), .text(type), .integer(StorageColumns.webhookState(.pending))],
            unlessOneRow: nil)
    }

    func deleteWebhookDelivery(tenantID: String, id: Int64) throws(StorageError) {
        try db.send(
            "DELETE FROM webhook_deliveries WHERE tenant_id = ? AND id = ?", [.text(tenantID), .integer(id)],
            unlessOneRow: nil)
    }

    func dueWebhookDeliveries(at time: UnixTime, limit: Int, excludedEndpoints: [WebhookEndpointKey])
        throws(StorageError) -> [WebhookDelivery]
    {
        try db.dueWebhookDeliveries(at: time, limit: limit, excludedEndpoints: excludedEndpoints)
    }

    func leaseWebhookDeliveries(ids: [Int64], until time: UnixTime) throws(StorageError) {
        for id in ids {
            _ = try db.run("UPDATE webhook_deliveries SET leased_until = ? WHERE id = ? AND state = 1", [.time(time), .integer(id)])
        }
    }

    /// Only SQLite's one instance ends every lease: on a shared PostgreSQL another instance's attempts may be in
    /// flight, and a lease left by a dead one runs out on its own.
    func releaseWebhookLeases() throws(StorageError) {
        guard db.dialect == .sqlite else { return }
        _ = try db.run("UPDATE webhook_deliveries SET leased_until = NULL WHERE state = 1 AND leased_until IS NOT NULL", [])
    }

    /// Only a pending delivery takes the result: one pruned, or failed by a 410 meanwhile, keeps what it has.
    func saveWebhookAttempt(_ attempt: WebhookAttemptRecord, countsAttempt: Bool) throws(StorageError) -> Bool {
        try db.run(
            """
            UPDATE webhook_deliveries SET state = ?, attempts = attempts + ?, next_attempt_at = ?, leased_until = NULL,
                last_attempt_at = ?, last_status = ?, last_error = ?, delivered_at = ?
            WHERE id = ? AND tenant_id = ? AND message_id = ? AND state = 1
            """,
            [
                .integer(StorageColumns.webhookState(attempt.state)), .integer(countsAttempt ? 1 : 0),
                .time(attempt.nextAttemptAt), .time(attempt.attemptedAt), .integer(attempt.status.map(Int64.init)),
                .text(attempt.error), .time(attempt.state == .delivered ? attempt.attemptedAt : nil),
                .integer(attempt.deliveryID), .text(attempt.tenantID), .text(attempt.messageID),
            ]) == 1
    }

    func failPendingWebhookDeliveries(tenantID: String, endpointID: String, error: String, at time: UnixTime)
        throws(StorageError) -> Int
    {
        try db.run(
            """
            UPDATE webhook_deliveries SET state = 3, next_attempt_at = NULL, leased_until = NULL, last_error = ?
            WHERE state = 1 AND tenant_id = ? AND endpoint_id = ?
            """,
            [.text(error), .text(tenantID), .text(endpointID)])
    }

    func requeueWebhookDeliveries(_ filter: WebhookDeliveryFilter, at time: UnixTime) throws(StorageError)
        -> (count: Int, endpointIDs: Set<String>)
    {
        try db.requeueWebhookDeliveries(filter, at: time)
    }

    func disableWebhookEndpoint(_ endpoint: DisabledWebhookEndpoint) throws(StorageError) -> Bool {
        try db.run(
            """
            INSERT INTO disabled_webhook_endpoints (tenant_id, endpoint_id, disabled_at, reason) VALUES (?, ?, ?, ?)
            ON CONFLICT (tenant_id, endpoint_id) DO NOTHING
            """,
            [.text(endpoint.tenantID), .text(endpoint.endpointID), .time(endpoint.disabledAt), .text(endpoint.reason)]) == 1
    }

    func enableWebhookEndpoint(tenantID: String, endpointID: String) throws(StorageError) {
        _ = try db.run(
            "DELETE FROM disabled_webhook_endpoints WHERE tenant_id = ? AND endpoint_id = ?",
            [.text(tenantID), .text(endpointID)])
    }
}

extension StorageSQL {
    static let saveTransactionSQL = """
        INSERT INTO transactions (\(purchaseColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
            ?, ?, ?, ?)
        ON CONFLICT (tenant_id, store, original_transaction_id) DO UPDATE SET
            transaction_id = excluded.transaction_id, customer_id = excluded.customer_id,
            product_id = excluded.product_id, product_type = excluded.product_type,
            entitlement_ids = excluded.entitlement_ids, environment = excluded.environment,
            purchased_at = excluded.purchased_at, original_purchase_at = excluded.original_purchase_at,
            expires_at = excluded.expires_at, revoked_at = excluded.revoked_at,
            revocation_reason = excluded.revocation_reason, ownership = excluded.ownership,
            will_renew = excluded.will_renew, in_grace_period = excluded.in_grace_period,
            in_billing_retry = excluded.in_billing_retry, grace_period_expires_at = excluded.grace_period_expires_at,
            app_account_token = excluded.app_account_token, offer_type = excluded.offer_type,
            signed_at = excluded.signed_at, updated_at = excluded.updated_at,
            renewal_product_id = excluded.renewal_product_id, is_upgraded = excluded.is_upgraded,
            renewal_state_as_of = excluded.renewal_state_as_of, paused_until = excluded.paused_until,
            superseded_by = excluded.superseded_by, origin = excluded.origin, replaces = excluded.replaces,
            acknowledgement = excluded.acknowledgement, acknowledgement_attempts = excluded.acknowledgement_attempts,
            acknowledgement_due_at = excluded.acknowledgement_due_at, acknowledgement_error = excluded.acknowledgement_error,
            suspended = excluded.suspended, price_milliunits = excluded.price_milliunits, currency = excluded.currency,
            access_from = excluded.access_from, sale_kind = excluded.sale_kind, offer_kind = excluded.offer_kind,
            country = excluded.country, refunded_milliunits = excluded.refunded_milliunits,
            sale_period_start = excluded.sale_period_start, sale_tax_milliunits = excluded.sale_tax_milliunits,
            sale_reported_proceeds_milliunits = excluded.sale_reported_proceeds_milliunits,
            sale_offer_id = excluded.sale_offer_id,
            erased_owner = CASE WHEN excluded.customer_id IS NULL THEN transactions.erased_owner ELSE '' END
        """

    /// A movement already recorded (a redelivery, a restore) keeps its row.
    static let recordLedgerEntrySQL = """
        INSERT INTO revenue_ledger (
            tenant_id, store, transaction_id, kind, direction, original_transaction_id, customer_id, product_id,
            entitlement_ids, environment, country, offer_kind, period_start, period_end, amount_milliunits, currency,
            proceeds_milliunits, occurred_at, recorded_at, tax_milliunits)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, store, transaction_id, direction) DO NOTHING
        """

    /// Wall-clock time, for bookkeeping columns the protocol passes no time for (grants.created_at, the added_at of
    /// an ID made canonical by `setCanonicalID`).
    static func now() -> UnixTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UnixTime(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
