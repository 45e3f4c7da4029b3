import BoundedText
import Encodings
import RequestTracing

/// A customer's personal data as a whole: exported or erased on request, each in the tenant's audit log with the key
/// that asked.
public final class CustomerPrivacy: Sendable {
    let core: EngineCore
    let repository: any CustomerRepository

    init(core: EngineCore, repository: any CustomerRepository) {
        self.core = core
        self.repository = repository
    }

    /// Everything stored about the customer `appUserID` names (``CustomerExport``), once the export is in the audit
    /// log; `NOT_FOUND` for an unknown ID.
    public func export(tenantID: String, appUserID: String) async throws(DomainError) -> CustomerExport {
        let appUserID = try AppUserID.validate(appUserID)
        let notFound = DomainError.notFound("No customer has app_user_id \(appUserID.quotedForMessage).")
        // Audited in the write that finds the customer, ordered with its other writes: a customer erased meanwhile
        // is neither exported nor named in the log.
        let canonical = try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> (String, [CommittedChange]) in
            guard let found = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID) else { throw notFound }
            try transaction.appendAuditEvent(
                AuditEvent(
                    tenantID: tenantID, occurredAt: now, action: .customerExported, keyName: ActingKey.name ?? "",
                    requestID: RequestID.current ?? "", subject: found.customer.appUserID))
            return (found.customer.appUserID, [])
        }
        guard let snapshot = try read({ () throws(StorageError) in try repository.snapshot(tenantID: tenantID, appUserID: canonical) })
        else { throw notFound }
        let customer = snapshot.customer
        let now = core.now()
        let merged = try read { () throws(StorageError) in try repository.mergedCustomers(tenantID: tenantID, into: customer.id) }
        let ids = try read { () throws(StorageError) in try repository.appUserIDs(tenantID: tenantID, customerID: customer.id) }
        let attributes = try read { () throws(StorageError) in
            try repository.attributes(tenantID: tenantID, customerID: customer.id)
        }
        var purchases: [JSONValue] = []
        var codes: Set<String> = []
        for purchase in snapshot.purchases {
            purchases.append(try self.purchase(purchase, tenantID: tenantID, codes: &codes))
        }
        let used = try read { () throws(StorageError) in
            try repository.redemptionCodes(tenantID: tenantID, usedBy: ids.map(\.appUserID))
        }.filter { codes.insert($0.codeHash).inserted }
        let offerSignatures = try read { () throws(StorageError) in
            try repository.offerSignatures(tenantID: tenantID, customerID: customer.id, limit: Int.max)
        }
        let head: JSONValue = .object([
            ("format", .string("entitlementd.customer_export")),
            ("format_version", .number(String(CustomerExport.formatVersion))),
            ("exported_at", CustomerJSON.time(now)),
            ("tenant", .string(tenantID)),
            ("app_user_id", .string(customer.appUserID)),
            ("customer", Self.customer(customer, ids: ids, merged: merged)),
            ("status", CustomerJSON.status(CachedCustomer(snapshot: snapshot, now: now).state(at: now).status)),
            ("attributes", .array(attributes.sorted { $0.key < $1.key }.map(Self.attribute))),
            ("purchases", .array(purchases)),
            ("grants", .array(snapshot.grants.map(Self.grant))),
            ("redemption_codes_used", .array(used.map(Self.redemptionCode))),
            ("offer_signatures", .array(offerSignatures.map(Self.offerSignature))),
        ])
        return CustomerExport(repository: repository, tenantID: tenantID, customers: [customer] + merged, head: head)
    }

    /// Erases the customer `appUserID` names and everything that identifies them (``CustomerErasure``), once
    /// `confirmation` repeats `appUserID`: the customers merged into it too, every ID, attribute, grant, event and
    /// webhook delivery; the purchases stay for the tenant's accounts with no owner but a tombstone, or go with
    /// `privacy.erase_accounting_records`. Their open streams end with `NOT_FOUND`, the cache forgets them, a
    /// `customer.deleted` webhook is queued and the audit log records the erasure by the ID's keyed hash. Returns
    /// once the database files no longer hold the deleted bytes (SQLite). An ID erased before answers again (and
    /// clears the files again) without changing anything; `NOT_FOUND` for one never known.
    /// - Parameter noticeWait: how long to wait for the first attempt of the `customer.deleted` webhooks, after which
    ///   a delivered one is deleted (one still pending keeps the ID until it is sent).
    public func delete(tenant: Tenant, appUserID: String, confirmation: String, noticeWait: Duration = .seconds(5))
        async throws(DomainError) -> ErasureOutcome
    {
        let appUserID = try AppUserID.validate(appUserID)
        guard confirmation == appUserID else {
            throw .invalidRequest(
                "confirm_app_user_id must repeat app_user_id exactly: an erasure cannot be undone.")
        }
        let tenantID = tenant.id
        let policy = tenant.privacy
        let (outcome, gone, notices) = try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> ((ErasureOutcome, CustomerErasure?, [Int64]), [CommittedChange]) in
            let key = try transaction.erasureKey(tenantID: tenantID)
            guard let snapshot = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID) else {
                guard
                    let tombstone = try transaction.erasure(
                        tenantID: tenantID, subject: ErasureSubject.hash(key: key, appUserID: appUserID))
                else {
                    throw DomainError.notFound("No customer has app_user_id \(appUserID.quotedForMessage).")
                }
                return ((ErasureOutcome(tombstone: tombstone, counts: nil), nil, []), [])
            }
            let customer = snapshot.customer
            let merged = try transaction.mergedCustomers(tenantID: tenantID, into: customer.id)
            let ids = try transaction.appUserIDs(tenantID: tenantID, customerID: customer.id)
            let names = Array(Set(ids.map(\.appUserID) + merged.map(\.appUserID) + [customer.appUserID]))
            let tombstone = ErasureSubject.hash(key: key, appUserID: customer.appUserID)
            let tokens = ids.compactMap(\.appAccountToken)
            let erasure = CustomerErasure(
                tenantID: tenantID, customerIDs: [customer.id] + merged.map(\.id), appUserIDs: names,
                appAccountTokens: tokens,
                subjects: (names + tokens).map { ErasureSubject.hash(key: key, appUserID: $0) }, tombstone: tombstone,
                erasesAccountingRecords: policy.erasesAccountingRecords, erasedAt: now)
            let counts = try transaction.erase(erasure)
            try transaction.appendAuditEvent(
                AuditEvent(
                    tenantID: tenantID, occurredAt: now, action: .customerDeleted, keyName: ActingKey.name ?? "",
                    requestID: RequestID.current ?? "", subject: tombstone))
            let notices = try self.core.enqueueCustomerDeleted(
                tenantID: tenantID, appUserID: customer.appUserID, tombstone: tombstone, in: transaction, at: now)
            return ((ErasureOutcome(tombstone: tombstone, counts: counts), erasure, notices), [])
        }
        if let gone {
            core.forgetErased(tenantID: tenantID, customerIDs: gone.customerIDs, appUserIDs: gone.appUserIDs)
        }
        if !notices.isEmpty {
            core.outboxChanges.notify(())
            await waitForAttempts(of: notices, tenantID: tenantID, upTo: noticeWait)
        }
        try clearRemovedBytes()
        return outcome
    }

    /// What the streams of an erased customer end with, and status reads of an erased ID answer (`NOT_FOUND`): the
    /// API's contract, on which the SDKs log out rather than identify the ID again.
    public static let deletedMessage =
        "customer deleted: the customer was erased (DeleteCustomer); continue as a new user."

    /// The error for a status read of an app user ID no customer has: ``deletedMessage`` when the ID was erased,
    /// else `otherwise`.
    public func unknownCustomer(tenantID: String, appUserID: String, otherwise: DomainError) -> DomainError {
        guard let key = try? repository.existingErasureKey(tenantID: tenantID),
            (try? repository.erasure(tenantID: tenantID, subject: ErasureSubject.hash(key: key, appUserID: appUserID))) != nil
        else { return otherwise }
        return .notFound(Self.deletedMessage)
    }

    /// Returns once each delivery was attempted (delivered ones are gone from the outbox), or after `limit`.
    private func waitForAttempts(of deliveries: [Int64], tenantID: String, upTo limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        var waiting = deliveries
        while !waiting.isEmpty, ContinuousClock.now < deadline {
            waiting = waiting.filter { id in
                let found = try? repository.webhookDeliveries(
                    WebhookDeliveryFilter(tenantID: tenantID, deliveryID: id), limit: 1)
                return found.map { $0.first.map { $0.attempts == 0 } ?? false } ?? true
            }
            if !waiting.isEmpty { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }

    /// The tenant's audit log, newest first. `pageToken` is the `nextPageToken` of the previous page.
    public func auditLog(tenantID: String, pageSize: Int, pageToken: String) throws(DomainError) -> AuditPage {
        let limit = pageSize <= 0 ? EventPage.defaultSize : min(pageSize, EventPage.maximumSize)
        let before: Int64?
        if pageToken.isEmpty {
            before = nil
        } else {
            guard let id = Int64(pageToken), id > 0 else {
                throw .invalidRequest("page_token \(pageToken.quotedForMessage) is not one a previous page returned.")
            }
            before = id
        }
        let events = try read { () throws(StorageError) in
            try repository.auditEvents(tenantID: tenantID, beforeID: before, limit: limit + 1)
        }
        let page = Array(events.prefix(limit))
        return AuditPage(events: page, nextPageToken: events.count > limit ? page.last.map { String($0.id) } ?? "" : "")
    }

    private func read<T>(_ body: () throws(StorageError) -> T) throws(DomainError) -> T {
        try DomainError.reading(body)
    }

    /// The purchase as the webhooks show it, with what else names it: its app account token, the store's other IDs
    /// for it, its revenue ledger rows and the redemption codes issued for it (their hashes added to `codes`).
    private func purchase(_ purchase: StorePurchase, tenantID: String, codes: inout Set<String>) throws(DomainError)
        -> JSONValue
    {
        let (store, id) = (purchase.store, purchase.originalTransactionID)
        let references = try read { () throws(StorageError) in
            try repository.purchaseReferences(tenantID: tenantID, store: store, originalTransactionID: id)
        }
        let ledger = try read { () throws(StorageError) in
            try repository.ledgerEntries(tenantID: tenantID, store: store, originalTransactionID: id)
        }
        let issued = try read { () throws(StorageError) in
            try repository.redemptionCodes(tenantID: tenantID, store: store, originalTransactionID: id)
        }
        codes.formUnion(issued.map(\.codeHash))
        guard case .object(var members) = CustomerJSON.purchase(purchase) else { return CustomerJSON.purchase(purchase) }
        members += [
            ("original_purchase_at", CustomerJSON.time(purchase.originalPurchaseAt)),
            ("app_account_token", .string(purchase.appAccountToken)),
            ("store_references", .array(references.map { .string($0.referenceID) })),
            ("revenue", .array(ledger.map(CustomerJSON.revenue))),
            ("redemption_codes", .array(issued.map(Self.redemptionCode))),
        ]
        return .object(members)
    }

    private static func customer(_ customer: CustomerRecord, ids: [AppUserIDRecord], merged: [CustomerRecord])
        -> JSONValue
    {
        .object([
            ("app_user_id", .string(customer.appUserID)),
            ("anonymous", .bool(customer.isAnonymous)),
            ("created_at", CustomerJSON.time(customer.createdAt)),
            ("version", .number(String(customer.version))),
            (
                "app_user_ids",
                .array(
                    ids.map { id in
                        .object([
                            ("app_user_id", .string(id.appUserID)),
                            ("added_at", CustomerJSON.time(id.addedAt)),
                            ("app_account_token", id.appAccountToken.map(JSONValue.string) ?? .null),
                        ])
                    })
            ),
            (
                "merged_customers",
                .array(
                    merged.map { husk in
                        .object([
                            ("app_user_id", .string(husk.appUserID)),
                            ("created_at", CustomerJSON.time(husk.createdAt)),
                            ("version", .number(String(husk.version))),
                        ])
                    })
            ),
        ])
    }

    private static func attribute(_ attribute: CustomerAttribute) -> JSONValue {
        .object([
            ("key", .string(attribute.key)), ("value", .string(attribute.value)),
            ("updated_at", CustomerJSON.time(attribute.updatedAt)),
        ])
    }

    private static func grant(_ grant: GrantRecord) -> JSONValue {
        guard case .object(var members) = CustomerJSON.grant(grant) else { return CustomerJSON.grant(grant) }
        members += [("reason", .string(grant.reason)), ("revocation_reason", .string(grant.revocationReason))]
        return .object(members)
    }

    private static func offerSignature(_ signature: OfferSignatureRecord) -> JSONValue {
        .object([
            ("offer_id", .string(signature.offerID)), ("product_id", .string(signature.productID)),
            ("nonce", .string(signature.nonce)), ("signed_at", CustomerJSON.time(signature.signedAt)),
            ("redeemed_transaction_id", .string(signature.redeemedTransactionID)),
            ("redeemed_at", CustomerJSON.time(signature.redeemedAt)),
        ])
    }

    /// A code by what it did, never by its hash (the code itself is not kept).
    private static func redemptionCode(_ code: RedemptionCodeRecord) -> JSONValue {
        .object([
            ("store", .string(code.store.webhookName)),
            ("original_transaction_id", .string(code.originalTransactionID)),
            ("created_at", CustomerJSON.time(code.createdAt)),
            ("expires_at", CustomerJSON.time(code.expiresAt)),
            ("used_at", CustomerJSON.time(code.usedAt)),
            ("used_by", .string(code.usedBy)),
            ("replaced_at", CustomerJSON.time(code.replacedAt)),
        ])
    }
}
