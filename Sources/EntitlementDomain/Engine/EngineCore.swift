import RequestTracing

/// What every subject of the engine shares: the repository, the clock, the cache, the write queue and the open
/// streams, and the one way a change is written, recorded as an event and published.
///
/// Every write records one event per changed customer with the next version, the cause and a reason, in the same
/// transaction as the change; after the commit the cache and the streams learn it, in commit order.
final class EngineCore: Sendable {
    let repository: any CustomerRepository
    let clock: any DomainClock
    let cache = CustomerCache()
    let writes: WriteQueue
    let hub: StatusHub
    /// Set once by ``ExpiryScheduler``; told about every new `nextChangeAt`.
    let timeChanges = ChangeListener<UnixTime>()
    /// Set once by the webhook dispatcher; told when a commit wrote outbox rows.
    let outboxChanges = ChangeListener<Void>()
    /// Told of every committed change (for the one log line per state change).
    let observeChange: @Sendable (_ tenantID: String, _ update: StatusUpdate) -> Void
    /// A tenant's webhook endpoints as configured now: every event one of them wants is put in the outbox in the
    /// event's own transaction.
    let webhookEndpoints: @Sendable (_ tenantID: String) -> [WebhookEndpoint]
    /// A tenant's commission rates as configured now, for the proceeds of the ledger entries written.
    let commissions: @Sendable (_ tenantID: String) -> Commissions

    init(
        repository: any CustomerRepository, clock: any DomainClock, hub: StatusHub, maxWriteGroup: Int, writeLanes: Int,
        webhookEndpoints: @escaping @Sendable (_ tenantID: String) -> [WebhookEndpoint],
        commissions: @escaping @Sendable (_ tenantID: String) -> Commissions,
        observeChange: @escaping @Sendable (_ tenantID: String, _ update: StatusUpdate) -> Void
    ) {
        self.repository = repository
        self.clock = clock
        self.writes = WriteQueue(repository: repository, clock: clock, maximumGroupSize: maxWriteGroup, lanes: writeLanes)
        self.hub = hub
        self.webhookEndpoints = webhookEndpoints
        self.commissions = commissions
        self.observeChange = observeChange
    }

    /// The clock's reading. Read here, on the clock's owner, so that callers do not copy the clock's existential
    /// (on the SyncStatus path, twice a call).
    func now() -> UnixTime { clock.now() }

    /// The customer `appUserID` resolves to, as this transaction holds it (locked), created (with its creation event)
    /// when there is none.
    func customer(
        _ transaction: any StorageTransaction, tenantID: String, appUserID: String, creator: String, at now: UnixTime,
        committed: inout [CommittedChange]
    ) throws(StorageError) -> CustomerSnapshot {
        if let existing = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID) {
            return existing
        }
        let created = try transaction.createCustomer(
            tenantID: tenantID, appUserID: appUserID, isAnonymous: AppUserID.isAnonymous(appUserID), at: now)
        let change = try recordCreation(transaction, of: created, reason: "Created by \(creator).", at: now)
        committed.append(change)
        return change.snapshot
    }

    /// Appends the `created` event of a customer this transaction just created: what ``recordChange`` would read
    /// back is known (no aliases, grants, purchases or events), so it is not read.
    func recordCreation(
        _ transaction: any StorageTransaction, of created: CustomerRecord, reason: String, at now: UnixTime
    ) throws(StorageError) -> CommittedChange {
        try record(
            CustomerSnapshot(customer: created, aliases: [], grants: [], purchases: []), latest: nil, transaction,
            cause: .created, reason: reason, related: "", reference: "", subject: .none, at: now)
    }

    /// When a write that read the clock at `now` records a change after `latest`: `now`, or `latest`'s time if that is
    /// later. A write reads the clock before it waits for the customer's lock, so another writer (another instance,
    /// another lane) may have committed a change stamped later meanwhile; computed as of before it, the status would
    /// leave out what that change started (a grant from its own `now`), and events' times would go back.
    static func changeTime(_ now: UnixTime, after latest: EventRecord?) -> UnixTime {
        max(now, latest?.occurredAt ?? now)
    }

    /// Appends the event for a change just made to `customerID`, comparing with the last recorded status.
    func recordChange(
        _ transaction: any StorageTransaction, tenantID: String, customerID: Int64, cause: EventCause, reason: String,
        related: String = "", reference: String = "", subject: EventSubject = .none, at now: UnixTime
    ) throws(StorageError) -> CommittedChange {
        guard let before = try transaction.snapshot(tenantID: tenantID, customerID: customerID) else {
            throw .conflict("customer \(customerID) vanished inside its own transaction")
        }
        let latest = try transaction.latestEvent(tenantID: tenantID, customerID: customerID)
        return try record(
            before, latest: latest, transaction, cause: cause, reason: reason, related: related, reference: reference,
            subject: subject, at: now)
    }

    /// ``recordChange`` for a write that knows the customer as changed: read in this transaction (so locked), with
    /// what the write added since. Only the latest event is read.
    func recordChange(
        _ transaction: any StorageTransaction, of changed: CustomerSnapshot, cause: EventCause, reason: String,
        reference: String, subject: EventSubject, at now: UnixTime
    ) throws(StorageError) -> CommittedChange {
        let latest = try transaction.latestEvent(tenantID: changed.customer.tenantID, customerID: changed.customer.id)
        return try record(
            changed, latest: latest, transaction, cause: cause, reason: reason, related: "", reference: reference,
            subject: subject, at: now)
    }

    /// ``recordChange`` for a change time alone made (an expiry, a start), by a write that has already read the
    /// customer and its latest event in this transaction and computed `status` at ``changeTime(_:after:)`` to learn
    /// that something changed: neither is read, nor the status computed, twice.
    func recordTimeChange(
        _ transaction: any StorageTransaction, of customer: CustomerSnapshot, latest: EventRecord?,
        status: ComputedStatus, reason: String, at now: UnixTime
    ) throws(StorageError) -> CommittedChange {
        try append(
            customer, latest: latest, status: status, at: Self.changeTime(now, after: latest), transaction,
            cause: .expiry, reason: reason, related: "", reference: "", subject: .none)
    }

    /// ``recordChange`` once the customer (`before`, as changed) and its latest event are known.
    private func record(
        _ before: CustomerSnapshot, latest: EventRecord?, _ transaction: any StorageTransaction, cause: EventCause,
        reason: String, related: String, reference: String, subject: EventSubject, at now: UnixTime
    ) throws(StorageError) -> CommittedChange {
        let at = Self.changeTime(now, after: latest)
        return try append(
            before, latest: latest, status: StatusCalculator.status(of: before.candidates, at: at), at: at, transaction,
            cause: cause, reason: reason, related: related, reference: reference, subject: subject)
    }

    /// Appends the event of `before`'s change to `status` at `at` (its active entitlements and webhooks with it).
    private func append(
        _ before: CustomerSnapshot, latest: EventRecord?, status: ComputedStatus, at: UnixTime,
        _ transaction: any StorageTransaction, cause: EventCause, reason: String, related: String, reference: String,
        subject: EventSubject
    ) throws(StorageError) -> CommittedChange {
        let tenantID = before.customer.tenantID
        let customerID = before.customer.id
        let recorded = latest.map { ComputedStatus(storedBytes: $0.status) }
        let change = StatusCalculator.change(from: recorded, to: status) ?? .customerInfoChanged
        let event = EventRecord(
            tenantID: tenantID, customerID: customerID, version: before.customer.version + 1, cause: cause,
            change: change, reason: reason, occurredAt: at, status: status.storedBytes,
            relatedAppUserID: related, referenceID: reference, keyName: ActingKey.name ?? "")
        try transaction.appendEvent(event, nextChangeAt: status.nextChangeAt)
        // Active entitlements are only written beside an event: before the first one there are none to replace.
        if latest != nil || !status.entitlements.isEmpty {
            try transaction.replaceActiveEntitlements(tenantID: tenantID, customerID: customerID, with: status.entitlements)
        }
        let queued = try enqueueWebhooks(
            CustomerEventMessage.Event(record: event, status: status, customer: before, subject: subject), in: transaction)
        var after = before
        after.customer.version = event.version
        after.customer.nextChangeAt = status.nextChangeAt
        let state = CustomerState(
            customerID: customerID, appUserID: after.customer.appUserID, version: event.version, status: status)
        return CommittedChange(
            tenantID: tenantID, snapshot: after, update: StatusUpdate(kind: .changed(change), state: state, reason: reason, cause: cause),
            queuedWebhooks: queued)
    }

    /// Runs `body` in a database transaction on the write queue (sharing its commit with the writes queued beside it),
    /// then refreshes the cache and notifies streams.
    ///
    /// Publishing happens on the write queue too, right after the commit: changes reach the cache and the streams
    /// in the order they were committed (a write that waited for a lock held elsewhere publishes from the thread that
    /// ran it alone; one customer's versions still commit in order, and the cache and streams keep the newest).
    /// - Parameter key: names the customer written (tenant and app user ID, or the store purchase), so that its
    ///   writes on this instance take one lane and keep their order; nil for writes about no one customer.
    func write<Value: Sendable>(
        orderedBy key: String?,
        _ body: @escaping @Sendable (any StorageTransaction, UnixTime) throws -> (Value, [CommittedChange])
    ) async throws(DomainError) -> Value {
        let origin = ContinuousClock.now
        // The queue runs the body on its own thread: the call's request ID goes along, for the lines it logs and the
        // webhooks it queues, and so does its key's name, for the events it records.
        let requestID = RequestID.current
        let keyName = ActingKey.name
        let output = WriteOutput<(Value, [CommittedChange])>()
        let outcome: Result<Value, DomainError> = await withCheckedContinuation { continuation in
            writes.submit(
                GroupedWrite(
                    perform: { transaction, now in
                        try RequestID.$taskValue.withValue(requestID) {
                            try ActingKey.$name.withValue(keyName) { output.value = try body(transaction, now) }
                        }
                    },
                    complete: { failure, now in
                        if let failure { return continuation.resume(returning: .failure(failure)) }
                        let (value, committed) = output.value!
                        RequestID.$taskValue.withValue(requestID) { self.publish(committed, now: now, origin: origin) }
                        continuation.resume(returning: .success(value))
                    }), orderedBy: key)
        }
        return try outcome.get()
    }

    /// Erased customers leave this instance: the cache forgets them (under `appUserIDs`, or wherever they are when the
    /// IDs are not known here) and their open streams end with `NOT_FOUND`.
    func forgetErased(tenantID: String, customerIDs: [Int64], appUserIDs: [String]?) {
        cache.remove(tenantID: tenantID, customerIDs: customerIDs, appUserIDs: appUserIDs)
        hub.end(
            tenantID: tenantID, customerIDs: customerIDs,
            with: .notFound(CustomerPrivacy.deletedMessage))
    }

    private func publish(_ committed: [CommittedChange], now: UnixTime, origin: ContinuousClock.Instant) {
        if committed.contains(where: \.queuedWebhooks) { outboxChanges.notify(()) }
        for change in committed {
            var update = change.update
            update.origin = origin
            observeChange(change.tenantID, update)
            // The customer a merge emptied owns no ID any more: its streams get the survivor's snapshot below.
            guard change.mergedInto == nil else { continue }
            cache.store(CachedCustomer(snapshot: change.snapshot, now: now), tenantID: change.tenantID)
            hub.publish(tenantID: change.tenantID, customerID: change.snapshot.customer.id, update)
            if let next = change.snapshot.customer.nextChangeAt { timeChanges.notify(next) }
        }
        for change in committed {
            guard let into = change.mergedInto,
                let survivor = committed.last(where: { $0.snapshot.customer.id == into })
            else { continue }
            let snapshot = StatusUpdate(kind: .snapshot, state: survivor.update.state, reason: survivor.update.reason)
            hub.move(tenantID: change.tenantID, from: change.snapshot.customer.id, to: into, snapshot: snapshot)
        }
    }
}

/// A change committed to one customer: what the cache and the open streams learn after the commit.
struct CommittedChange: Sendable {
    var tenantID: String
    var snapshot: CustomerSnapshot
    var update: StatusUpdate
    /// Set on the customer a merge emptied: its streams follow the survivor, and it owns no app user ID now.
    var mergedInto: Int64?
    /// The change put messages in the webhook outbox.
    var queuedWebhooks = false
}
