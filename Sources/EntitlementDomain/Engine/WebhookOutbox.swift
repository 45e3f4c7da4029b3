import BoundedText
import Encodings
import StandardWebhooks

/// What one attempt at a delivery came to, as the dispatcher judged it, to be recorded.
public struct WebhookAttemptResult: Sendable {
    public enum Verdict: Sendable, Hashable {
        case delivered
        /// Failed; tried again at this time.
        case retry(at: UnixTime)
        /// Failed, and it was the schedule's last attempt: the delivery is dead-lettered.
        case exhausted
        /// The endpoint answered 410 Gone: it is disabled, and everything pending for it fails.
        case endpointGone
        /// Not attempted: the endpoint is disabled or no longer configured.
        case undeliverable
    }

    public var delivery: WebhookDelivery
    public var attemptedAt: UnixTime
    public var status: Int?
    public var error: String
    public var verdict: Verdict

    public init(delivery: WebhookDelivery, attemptedAt: UnixTime, status: Int?, error: String, verdict: Verdict) {
        self.delivery = delivery
        self.attemptedAt = attemptedAt
        self.status = status
        self.error = error
        self.verdict = verdict
    }
}

/// A page of the delivery log, newest first.
public struct WebhookDeliveryPage: Sendable, Hashable {
    public static let defaultSize = 50
    public static let maximumSize = 500

    public var deliveries: [WebhookDelivery]
    /// Empty on the last page.
    public var nextPageToken: String
}

/// What a commit puts in the outbox, in its own transaction.
extension EngineCore {
    /// Puts the event in the outbox for every endpoint of its tenant that wants one of its kinds, in the event's
    /// transaction; returns whether it did.
    func enqueueWebhooks(_ event: CustomerEventMessage.Event, in transaction: any StorageTransaction)
        throws(StorageError) -> Bool
    {
        let record = event.record
        let endpoints = webhookEndpoints(record.tenantID)
        guard !endpoints.isEmpty else { return false }
        let kinds = WebhookEventKind.kinds(cause: record.cause, change: record.change, subject: event.subject)
        let wanting = endpoints.filter { !$0.events.isDisjoint(with: kinds) }
        guard !wanting.isEmpty else { return false }
        let eventID = CustomerEventMessage.eventID(
            tenantID: record.tenantID, customerID: record.customerID, version: record.version)
        let body = CustomerEventMessage.body(event, tenantID: record.tenantID, eventID: eventID)
        let type = CustomerEventMessage.type(
            WebhookEventKind.primary(cause: record.cause, change: record.change, subject: event.subject))
        for endpoint in wanting {
            _ = try transaction.insertWebhookDelivery(
                WebhookDelivery(
                    tenantID: record.tenantID, endpointID: endpoint.id, customerID: record.customerID,
                    appUserID: event.customer.customer.appUserID, relatedAppUserID: record.relatedAppUserID,
                    version: record.version,
                    messageID: CustomerEventMessage.messageID(eventID: eventID, endpointID: endpoint.id).text,
                    type: type, body: body, createdAt: record.occurredAt, nextAttemptAt: record.occurredAt))
        }
        return true
    }

    /// For a purchase nobody owns, first seen: when an endpoint of its tenant wants purchases, issues a redemption
    /// code for it and queues a ``UnclaimedPurchaseMessage`` to each such endpoint, in the caller's transaction;
    /// returns whether it did.
    func enqueueUnclaimedPurchase(
        _ purchase: StorePurchase, validityMilliseconds: Int64, in transaction: any StorageTransaction, at now: UnixTime
    ) throws(StorageError) -> Bool {
        let wanting = webhookEndpoints(purchase.tenantID).filter { $0.events.contains(.purchase) }
        guard !wanting.isEmpty else { return false }
        let issued = try StorePurchases.issue(
            RedemptionCodeFormat.make(), for: purchase, validityMilliseconds: validityMilliseconds, in: transaction,
            at: now)
        let references = try transaction.purchaseReferences(
            tenantID: purchase.tenantID, store: purchase.store, originalTransactionID: purchase.originalTransactionID)
        let eventID = UnclaimedPurchaseMessage.eventID(purchase)
        let body = UnclaimedPurchaseMessage.body(
            issued, referenceIDs: references.map(\.referenceID), eventID: eventID, at: now)
        for endpoint in wanting {
            _ = try transaction.insertWebhookDelivery(
                WebhookDelivery(
                    tenantID: purchase.tenantID, endpointID: endpoint.id, customerID: nil, appUserID: "", version: 0,
                    messageID: CustomerEventMessage.messageID(eventID: eventID, endpointID: endpoint.id).text,
                    type: UnclaimedPurchaseMessage.type, body: body, createdAt: now, nextAttemptAt: now))
        }
        return true
    }
}

/// The webhook outbox: what the dispatcher leases, sends and records, and what operators list and redeliver.
public final class WebhookOutbox: Sendable {
    let core: EngineCore
    let repository: any WebhookOutboxReads & CustomerReads

    init(core: EngineCore, repository: any WebhookOutboxReads & CustomerReads) {
        self.core = core
        self.repository = repository
    }

    /// Calls `body` after every commit that put messages in the outbox (the dispatcher's wake-up).
    public func onQueued(_ body: @escaping @Sendable () -> Void) {
        core.outboxChanges.set { body() }
    }

    // MARK: The dispatcher's side

    /// The dispatcher's one transaction per round: writes what finished attempts came to (``record(_:in:at:)``),
    /// then leases the due deliveries `choose` picks from up to `claimLimit` candidates (soonest first, leaving out
    /// `excludedEndpoints`) for `leaseMilliseconds`, and returns them. One durable commit for both, however many.
    public func exchange(
        recording results: [WebhookAttemptResult], claimLimit: Int, excludedEndpoints: [WebhookEndpointKey],
        leaseMilliseconds: Int64, choose: @escaping @Sendable ([WebhookDelivery]) -> [WebhookDelivery]
    ) async throws(DomainError) -> [WebhookDelivery] {
        guard !results.isEmpty || claimLimit > 0 else { return [] }
        let (claimed, removedNotices) = try await core.write(orderedBy: nil) {
            transaction, now throws -> (([WebhookDelivery], Bool), [CommittedChange]) in
            let removedNotices = try Self.record(results, in: transaction, at: now)
            guard claimLimit > 0 else { return (([], removedNotices), []) }
            let due = try transaction.dueWebhookDeliveries(
                at: now, limit: claimLimit, excludedEndpoints: excludedEndpoints)
            let chosen = choose(due)
            guard !chosen.isEmpty else { return (([], removedNotices), []) }
            try transaction.leaseWebhookDeliveries(
                ids: chosen.map(\.id), until: UnixTime(milliseconds: now.milliseconds + leaseMilliseconds))
            return ((chosen, removedNotices), [])
        }
        // An erased customer's notice is gone from the rows; its bytes leave the files too. Should the files be busy,
        // the next erasure or checkpoint clears them.
        if removedNotices { try? core.repository.clearDeletedBytes() }
        return claimed
    }

    /// Ends every lease: the attempts they stood for died with the process that made them (called at start).
    public func releaseLeases() async throws(DomainError) {
        try await core.write(orderedBy: nil) { transaction, _ throws -> (Void, [CommittedChange]) in
            try transaction.releaseWebhookLeases()
            return ((), [])
        }
    }

    /// Writes what the attempts came to: delivered, due again, dead-lettered (with a `webhook.exhausted` notice), or
    /// the endpoint disabled (a `webhook.disabled` notice; its pending deliveries fail). Returns whether an erased
    /// customer's notice was deleted.
    private static func record(_ results: [WebhookAttemptResult], in transaction: any StorageTransaction, at now: UnixTime)
        throws(StorageError) -> Bool
    {
        var removedNotices = false
        for result in results {
            let delivery = result.delivery
            let state: WebhookDelivery.State
            var next: UnixTime?
            switch result.verdict {
            case .delivered: state = .delivered
            case .retry(let at): (state, next) = (.pending, at)
            case .exhausted, .endpointGone, .undeliverable: state = .failed
            }
            // A delivery no longer pending (its customer erased, say) gets no notice that would copy it.
            guard
                try transaction.saveWebhookAttempt(
                    WebhookAttemptRecord(
                        deliveryID: delivery.id, messageID: delivery.messageID, tenantID: delivery.tenantID, attemptedAt: result.attemptedAt,
                        status: result.status, error: result.error, state: state, nextAttemptAt: next),
                    countsAttempt: result.verdict != .undeliverable)
            else { continue }
            switch result.verdict {
            case .exhausted:
                _ = try transaction.insertWebhookDelivery(
                    notice("webhook.exhausted", about: delivery, attempts: delivery.attempts + 1, result: result, at: now))
            case .endpointGone:
                // Attempts in flight together may all meet the 410: one disables, one notice.
                guard
                    try transaction.disableWebhookEndpoint(
                        DisabledWebhookEndpoint(
                            tenantID: delivery.tenantID, endpointID: delivery.endpointID, disabledAt: now,
                            reason: "it answered 410 Gone"))
                else { continue }
                _ = try transaction.failPendingWebhookDeliveries(
                    tenantID: delivery.tenantID, endpointID: delivery.endpointID,
                    error: "not sent: the endpoint was disabled when it answered 410 Gone", at: now)
                try transaction.deleteFinishedWebhookDeliveries(
                    tenantID: delivery.tenantID, endpointID: delivery.endpointID, type: CustomerDeletedMessage.type)
                removedNotices = true
                _ = try transaction.insertWebhookDelivery(
                    notice("webhook.disabled", about: delivery, attempts: delivery.attempts + 1, result: result, at: now))
            case .delivered, .retry, .undeliverable:
                break
            }
            // An erased customer's notice holds the ID it had: once sent (or given up), it is not kept.
            if delivery.type == CustomerDeletedMessage.type, state != .pending {
                try transaction.deleteWebhookDelivery(tenantID: delivery.tenantID, id: delivery.id)
                removedNotices = true
            }
        }
        return removedNotices
    }

    /// When the soonest delivery not leased now is due (one waiting behind an earlier one of its customer included).
    public func nextAttemptAt() throws(DomainError) -> UnixTime? {
        let now = core.now()
        return try DomainError.reading { () throws(StorageError) in try repository.nextWebhookAttemptAt(at: now) }
    }

    public func disabledEndpoints() throws(DomainError) -> [DisabledWebhookEndpoint] {
        try DomainError.reading { () throws(StorageError) in try repository.disabledWebhookEndpoints() }
    }

    // MARK: The operators' side

    /// A page of the tenant's delivery log, newest first, narrowed by `filter` (its `beforeID` comes from
    /// `pageToken`); `appUserID`, when given, narrows to that customer (none when it is unknown).
    public func deliveries(
        _ filter: WebhookDeliveryFilter, appUserID: String?, pageSize: Int, pageToken: String
    ) throws(DomainError) -> WebhookDeliveryPage {
        let limit = pageSize <= 0 ? WebhookDeliveryPage.defaultSize : min(pageSize, WebhookDeliveryPage.maximumSize)
        var filter = filter
        filter.beforeID = try Self.deliveryID(fromPageToken: pageToken)
        if let appUserID {
            guard
                let customer = try DomainError.reading({ () throws(StorageError) in
                    try repository.snapshot(tenantID: filter.tenantID, appUserID: appUserID)
                })
            else { return WebhookDeliveryPage(deliveries: [], nextPageToken: "") }
            filter.customerID = customer.customer.id
        }
        let rows = try DomainError.reading { () throws(StorageError) in try repository.webhookDeliveries(filter, limit: limit + 1) }
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map { "d\($0.id)" } ?? "" : ""
        return WebhookDeliveryPage(deliveries: page, nextPageToken: next)
    }

    /// Makes deliveries pending again, due now, with their original `webhook-id`: the one `filter.deliveryID` names
    /// (whatever its state but a notice's; `notFound` when the tenant has none such), or every failed one `filter`
    /// matches. Endpoints a 410 disabled are enabled again: redelivering to one is the operator's word that it is
    /// back. Returns how many were queued.
    public func redeliver(_ filter: WebhookDeliveryFilter) async throws(DomainError) -> Int {
        var filter = filter
        if filter.deliveryID == nil { filter.state = .failed }
        let matched = filter
        let count = try await core.write(orderedBy: nil) { transaction, now throws -> (Int, [CommittedChange]) in
            let requeued = try transaction.requeueWebhookDeliveries(matched, at: now)
            if let id = matched.deliveryID, requeued.count == 0 {
                throw DomainError.notFound("No webhook delivery has delivery_id \(id).")
            }
            for endpointID in requeued.endpointIDs.sorted() {
                try transaction.enableWebhookEndpoint(tenantID: matched.tenantID, endpointID: endpointID)
            }
            return (requeued.count, [])
        }
        if count > 0 { core.outboxChanges.notify(()) }
        return count
    }

    static func deliveryID(fromPageToken token: String) throws(DomainError) -> Int64? {
        guard !token.isEmpty else { return nil }
        guard token.hasPrefix("d"), token.utf8.count <= 20, let id = Int64(token.dropFirst()), id > 0 else {
            throw .invalidRequest("page_token \(token.quotedForMessage) is not a token this server issued.")
        }
        return id
    }

    /// An entry of the delivery log about `delivery` (never sent), naming it and how its last attempt ended.
    private static func notice(
        _ type: String, about delivery: WebhookDelivery, attempts: Int, result: WebhookAttemptResult, at now: UnixTime
    ) -> WebhookDelivery {
        let body: JSONValue = .object([
            ("type", .string(type)),
            ("timestamp", .string(now.rfc3339)),
            (
                "data",
                .object([
                    ("delivery_id", .number(String(delivery.id))),
                    ("webhook_id", .string(delivery.messageID)),
                    ("endpoint", .string(delivery.endpointID)),
                    ("event_type", .string(delivery.type)),
                    ("attempts", .number(String(attempts))),
                    ("last_status", result.status.map { .number(String($0)) } ?? .null),
                    ("last_error", .string(result.error)),
                ])
            ),
        ])
        return WebhookDelivery(
            tenantID: delivery.tenantID, endpointID: delivery.endpointID, customerID: delivery.customerID,
            appUserID: delivery.appUserID, version: delivery.version, messageID: WebhookMessageID.make().text, type: type, body: Array(body.text.utf8),
            createdAt: now, state: .notice, attempts: 0, nextAttemptAt: nil, lastAttemptAt: result.attemptedAt,
            lastStatus: result.status, lastError: result.error)
    }
}
