import BoundedText
import RequestTracing

/// The customer model: reads from the cache, writes through the store in one transaction each, and tells open
/// streams about every committed change.
///
/// Every write records one event per changed customer with the next version, the cause and a reason, in the same
/// transaction as the change. Reads never create anything.
public final class CustomerEngine: Sendable {
    public let hub: StatusHub
    let store: any CustomerRepository
    let clock: any DomainClock
    let cache = CustomerCache()
    let writes: WriteQueue
    /// Set once by ``ExpiryScheduler``; told about every new `nextChangeAt`.
    let timeChanges = ChangeListener<UnixTime>()
    /// Set once by the webhook dispatcher; told when a commit wrote outbox rows.
    let outboxChanges = ChangeListener<Void>()
    /// How far back a stream may resume from the event log before it gets a fresh snapshot instead.
    public let replayLimit: Int
    /// Names this instance in logs.
    public let instanceID: String
    /// Listing, counting and finding the tenant's customers.
    public let subscriberQueries: SubscriberQueries
    /// Told of every committed change (for the one log line per state change).
    let observeChange: @Sendable (_ tenantID: String, _ update: StatusUpdate) -> Void
    /// A tenant's webhook endpoints as configured now: every event one of them wants is put in the outbox in the
    /// event's own transaction.
    let webhookEndpoints: @Sendable (_ tenantID: String) -> [WebhookEndpoint]

    public init(
        store: any CustomerRepository, clock: any DomainClock = SystemClock(), hub: StatusHub = StatusHub(),
        replayLimit: Int = 1000, maxWriteGroup: Int = WriteQueueDefaults.maximumGroupSize,
        instanceID: String = CustomerEngine.defaultInstanceID(),
        webhookEndpoints: @escaping @Sendable (_ tenantID: String) -> [WebhookEndpoint] = { _ in [] },
        observeChange: @escaping @Sendable (_ tenantID: String, _ update: StatusUpdate) -> Void = { _, _ in }
    ) {
        self.store = store
        self.clock = clock
        self.writes = WriteQueue(store: store, clock: clock, maximumGroupSize: maxWriteGroup)
        self.hub = hub
        self.replayLimit = replayLimit
        self.instanceID = instanceID
        self.webhookEndpoints = webhookEndpoints
        self.observeChange = observeChange
        self.subscriberQueries = SubscriberQueries(store: store, clock: clock)
    }

    /// The engine's clock reading, for `server_time` in responses.
    public func now() -> UnixTime { clock.now() }

    // MARK: Reads

    /// The state of an app user ID (canonical or alias); an unknown ID is INACTIVE at version 0.
    public func state(tenantID: String, appUserID: String) throws(DomainError) -> CustomerState {
        try memoizedState(tenantID: tenantID, appUserID: appUserID).state
    }

    /// ``state(tenantID:appUserID:)`` and, while that state is the cached one, a memo for what the caller derives
    /// from it (SyncStatus keeps its encoded answer there).
    public func memoizedState(tenantID: String, appUserID: String) throws(DomainError)
        -> (state: CustomerState, memo: StateMemo?)
    {
        let now = clock.now()
        if let cached = cache.entry(tenantID: tenantID, appUserID: appUserID) { return cached.memoizedState(at: now) }
        guard let snapshot = try read({ () throws(StorageError) in try store.snapshot(tenantID: tenantID, appUserID: appUserID) }) else {
            return (.unknown(appUserID), nil)
        }
        let entry = CachedCustomer(snapshot: snapshot, now: now)
        cache.storeIfAbsent(entry, tenantID: tenantID)
        return entry.memoizedState(at: now)
    }

    /// Everything about a customer for GetCustomer; `NOT_FOUND` for an unknown ID.
    public func details(tenantID: String, appUserID: String) throws(DomainError) -> CustomerDetails {
        guard let snapshot = try read({ () throws(StorageError) in try store.snapshot(tenantID: tenantID, appUserID: appUserID) }) else {
            throw .notFound("No customer has app_user_id \(appUserID.quotedForMessage).")
        }
        let now = clock.now()
        let entry = CachedCustomer(snapshot: snapshot, now: now)
        return CustomerDetails(
            state: entry.state(at: now), aliases: snapshot.aliases, grants: snapshot.grants,
            transactions: snapshot.transactions)
    }

    /// A page of a customer's events, newest first. `pageToken` is the `nextPageToken` of the previous page.
    public func events(tenantID: String, appUserID: String, pageSize: Int, pageToken: String) throws(DomainError)
        -> EventPage
    {
        // The contract: 0 or less means the default.
        let limit = pageSize <= 0 ? EventPage.defaultSize : min(pageSize, EventPage.maximumSize)
        let before = try EventPage.version(fromToken: pageToken)
        guard let snapshot = try read({ () throws(StorageError) in try store.snapshot(tenantID: tenantID, appUserID: appUserID) }) else {
            throw .notFound("No customer has app_user_id \(appUserID.quotedForMessage).")
        }
        let customerID = snapshot.customer.id
        let records = try read { () throws(StorageError) in
            try store.events(tenantID: tenantID, customerID: customerID, beforeVersion: before, limit: limit + 1)
        }
        let page = Array(records.prefix(limit))
        let next = records.count > limit ? page.last.map { EventPage.token(beforeVersion: $0.version) } ?? "" : ""
        return EventPage(events: page.map(RecordedEvent.init), nextPageToken: next)
    }

    /// The updates after `afterVersion`, oldest first, for a resuming stream; nil when they are no longer kept (or
    /// the version is not one this customer had), so the stream starts from a snapshot instead.
    public func replay(tenantID: String, customerID: Int64, afterVersion: UInt64, current: CustomerState) throws(DomainError)
        -> [StatusUpdate]?
    {
        guard afterVersion <= current.version, current.version - afterVersion <= UInt64(replayLimit) else { return nil }
        guard afterVersion < current.version else { return [] }
        let records = try read { () throws(StorageError) in
            try store.events(tenantID: tenantID, customerID: customerID, afterVersion: afterVersion, limit: replayLimit)
        }
        guard records.first?.version == afterVersion + 1 else { return nil }
        return records.map { record in
            StatusUpdate(
                kind: .changed(record.change),
                state: CustomerState(
                    customerID: customerID, appUserID: current.appUserID, version: record.version,
                    status: ComputedStatus(storedBytes: record.status)),
                reason: record.reason, cause: record.cause, computedAt: record.occurredAt)
        }
    }

    // MARK: Writes

    /// Identify: resolves, creates, adopts or merges as ``IdentityRules`` decides.
    public func identify(tenantID: String, appUserID: String, anonymousID: String?) async throws(DomainError)
        -> IdentifyOutcome
    {
        let appUserID = try AppUserID.validate(appUserID)
        let anonymousID = try anonymousID.map { id throws(DomainError) in try AppUserID.validate(id, field: "anonymous_id") }
        let outcome = try await write { transaction, now throws -> (IdentifyOutcome, [Committed]) in
            let existing = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID)
            let anonymous = try anonymousID.flatMap { id throws(StorageError) in
                try transaction.snapshot(tenantID: tenantID, appUserID: id)
            }
            let decision = try IdentityRules.plan(
                appUserID: appUserID, anonymousID: anonymousID, appUserCustomer: existing?.customer,
                anonymousCustomer: anonymous?.customer, anonymousHasHistory: anonymous.map(IdentityRules.hasHistory) ?? false)
            var committed: [Committed] = []
            let survivor: CustomerSnapshot
            switch decision.plan {
            case .existing:
                survivor = existing!
            case .create:
                let created = try transaction.createCustomer(
                    tenantID: tenantID, appUserID: appUserID, isAnonymous: AppUserID.isAnonymous(appUserID), at: now)
                let change = try self.recordChange(
                    transaction, tenantID: tenantID, customerID: created.id, cause: .created,
                    reason: "Identify created the customer.", at: now)
                committed.append(change)
                survivor = change.snapshot
            case .adoptAnonymous(let customerID):
                try transaction.setCanonicalID(
                    tenantID: tenantID, customerID: customerID, appUserID: appUserID, isAnonymous: false)
                let change = try self.recordChange(
                    transaction, tenantID: tenantID, customerID: customerID, cause: .merged,
                    reason: "Identified as '\(appUserID)'; the anonymous ID stays as an alias.",
                    related: anonymousID ?? "", at: now)
                committed.append(change)
                survivor = change.snapshot
            case .mergeAnonymous(let from, let into):
                let absorbed = anonymous!.customer.appUserID
                try transaction.merge(tenantID: tenantID, from: from, into: into)
                var emptied = try self.recordChange(
                    transaction, tenantID: tenantID, customerID: from, cause: .transferredOut,
                    reason: "Merged into '\(appUserID)' by Identify.", related: appUserID,
                    subject: EventSubject(isMergedAway: true), at: now)
                emptied.mergedInto = into
                committed.append(emptied)
                let change = try self.recordChange(
                    transaction, tenantID: tenantID, customerID: into, cause: .merged,
                    reason: "Anonymous customer '\(absorbed)' merged in by Identify.", related: absorbed, at: now)
                committed.append(change)
                survivor = change.snapshot
            }
            let state = CachedCustomer(snapshot: survivor, now: now).state(at: now)
            // Remember the token handed out, so a store notification carrying it finds this customer (also for
            // customers created before tokens existed: they get theirs here).
            let token = AppAccountToken.derive(tenantID: tenantID, appUserID: state.appUserID)
            try transaction.recordAppAccountToken(tenantID: tenantID, appUserID: state.appUserID, token: token)
            return (
                IdentifyOutcome(
                    state: state, created: decision.created, merged: decision.merged, appAccountToken: token),
                committed
            )
        }
        return outcome
    }

    /// Grants an entitlement; a retry with the same idempotency key returns the first grant.
    public func grant(tenant: Tenant, _ request: GrantRequest) async throws(DomainError) -> GrantOutcome {
        let appUserID = try AppUserID.validate(request.appUserID)
        try request.validate(for: tenant)
        let tenantID = tenant.id
        return try await write { transaction, now throws -> (GrantOutcome, [Committed]) in
            if let key = request.idempotencyKey, let earlier = try transaction.grant(tenantID: tenantID, idempotencyKey: key) {
                let owner = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID)
                guard let owner, owner.customer.id == earlier.customerID, earlier.entitlementID == request.entitlementID
                else {
                    throw DomainError.wrongState(
                        "idempotency_key \(key.quotedForMessage) was already used for a different grant (\(earlier.grantID)).")
                }
                return (GrantOutcome(grant: earlier, appUserID: owner.customer.appUserID), [])
            }
            var committed: [Committed] = []
            let customer = try self.customer(
                transaction, tenantID: tenantID, appUserID: appUserID, creator: "GrantEntitlement", at: now,
                committed: &committed)
            let grant = GrantRecord(
                grantID: GrantID.make(), tenantID: tenantID, customerID: customer.id,
                entitlementID: request.entitlementID, startsAt: now, expiresAt: try request.expiry(from: now),
                revokedAt: nil, reason: request.reason, revocationReason: "", idempotencyKey: request.idempotencyKey)
            try transaction.insertGrant(grant)
            let reason = request.reason.isEmpty ? "Granted '\(grant.entitlementID)'." : request.reason
            let change = try self.recordChange(
                transaction, tenantID: tenantID, customerID: customer.id, cause: .grant, reason: reason,
                reference: grant.grantID, subject: EventSubject(grant: grant), at: now)
            committed.append(change)
            return (GrantOutcome(grant: grant, appUserID: change.snapshot.customer.appUserID), committed)
        }
    }

    /// Revokes a grant now; revoking a revoked grant returns it unchanged.
    public func revoke(tenantID: String, grantID: String, reason: String) async throws(DomainError) -> GrantOutcome {
        guard !grantID.isEmpty else { throw .invalidRequest("grant_id is required.") }
        guard grantID.utf8.count <= GrantID.maxBytes else {
            throw .invalidRequest(
                "grant_id \(grantID.quotedForMessage) is not a grant ID: they are at most \(GrantID.maxBytes) bytes.")
        }
        guard reason.utf8.count <= 1024 else { throw .invalidRequest("reason must be at most 1024 bytes.") }
        return try await write { transaction, now throws -> (GrantOutcome, [Committed]) in
            guard var grant = try transaction.grant(tenantID: tenantID, grantID: grantID),
                let owner = try transaction.snapshot(tenantID: tenantID, customerID: grant.customerID)
            else {
                throw DomainError.notFound("No grant has grant_id \(grantID.quotedForMessage).")
            }
            guard grant.revokedAt == nil else { return (GrantOutcome(grant: grant, appUserID: owner.customer.appUserID), []) }
            grant.revokedAt = now
            grant.revocationReason = reason
            try transaction.updateGrant(grant)
            let change = try self.recordChange(
                transaction, tenantID: tenantID, customerID: grant.customerID, cause: .revoke,
                reason: reason.isEmpty ? "Revoked grant of '\(grant.entitlementID)'." : reason,
                reference: grant.grantID, subject: EventSubject(grant: grant), at: now)
            return (GrantOutcome(grant: grant, appUserID: owner.customer.appUserID), [change])
        }
    }

    /// Records the status changes that time alone has caused (expiries, starts) for every customer now due.
    /// Returns when the next one is due.
    @discardableResult
    public func applyTimeChanges() async throws(DomainError) -> UnixTime? {
        let now = clock.now()
        let due = try read { () throws(StorageError) in try store.customersDue(at: now, limit: 500) }
        for (tenantID, customerID) in due {
            try await write { transaction, now throws -> (Void, [Committed]) in
                guard let snapshot = try transaction.snapshot(tenantID: tenantID, customerID: customerID) else {
                    return ((), [])
                }
                let status = StatusCalculator.status(of: snapshot.candidates, at: now)
                let recorded = try transaction.latestEvent(tenantID: tenantID, customerID: customerID)
                    .map { ComputedStatus(storedBytes: $0.status) }
                guard StatusCalculator.change(from: recorded, to: status) != nil else {
                    try transaction.setNextChangeAt(tenantID: tenantID, customerID: customerID, at: status.nextChangeAt)
                    return ((), [])
                }
                let change = try self.recordChange(
                    transaction, tenantID: tenantID, customerID: customerID, cause: .expiry,
                    reason: Self.describeTimeChange(from: recorded, to: status), at: now)
                return ((), [change])
            }
        }
        return try read { () throws(StorageError) in try store.nextChangeAt() }
    }

    // MARK: Internals

    /// A change committed to one customer: what the cache and the open streams learn after the commit.
    struct Committed: Sendable {
        var tenantID: String
        var snapshot: CustomerSnapshot
        var update: StatusUpdate
        /// Set on the customer a merge emptied: its streams follow the survivor, and it owns no app user ID now.
        var mergedInto: Int64?
        /// The change put messages in the webhook outbox.
        var queuedWebhooks = false
    }

    /// The customer `appUserID` resolves to, created (with its creation event) when there is none.
    func customer(
        _ transaction: any StorageTransaction, tenantID: String, appUserID: String, creator: String, at now: UnixTime,
        committed: inout [Committed]
    ) throws(StorageError) -> CustomerRecord {
        if let existing = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID) {
            return existing.customer
        }
        let created = try transaction.createCustomer(
            tenantID: tenantID, appUserID: appUserID, isAnonymous: AppUserID.isAnonymous(appUserID), at: now)
        committed.append(
            try recordChange(
                transaction, tenantID: tenantID, customerID: created.id, cause: .created,
                reason: "Created by \(creator).", at: now))
        return created
    }

    /// Appends the event for a change just made to `customerID`, comparing with the last recorded status.
    func recordChange(
        _ transaction: any StorageTransaction, tenantID: String, customerID: Int64, cause: EventCause, reason: String,
        related: String = "", reference: String = "", subject: EventSubject = .none, at now: UnixTime
    ) throws(StorageError) -> Committed {
        guard let before = try transaction.snapshot(tenantID: tenantID, customerID: customerID) else {
            throw .conflict("customer \(customerID) vanished inside its own transaction")
        }
        let status = StatusCalculator.status(of: before.candidates, at: now)
        let recorded = try transaction.latestEvent(tenantID: tenantID, customerID: customerID)
            .map { ComputedStatus(storedBytes: $0.status) }
        let change = StatusCalculator.change(from: recorded, to: status) ?? .customerInfoChanged
        let event = EventRecord(
            tenantID: tenantID, customerID: customerID, version: before.customer.version + 1, cause: cause,
            change: change, reason: reason, occurredAt: now, status: status.storedBytes,
            relatedAppUserID: related, referenceID: reference, keyName: ActingKey.name ?? "")
        try transaction.appendEvent(event, nextChangeAt: status.nextChangeAt)
        try transaction.replaceActiveEntitlements(tenantID: tenantID, customerID: customerID, with: status.entitlements)
        let queued = try enqueueWebhooks(
            CustomerEventMessage.Event(record: event, status: status, customer: before, subject: subject), in: transaction)
        var after = before
        after.customer.version = event.version
        after.customer.nextChangeAt = status.nextChangeAt
        let state = CustomerState(
            customerID: customerID, appUserID: after.customer.appUserID, version: event.version, status: status)
        return Committed(
            tenantID: tenantID, snapshot: after, update: StatusUpdate(kind: .changed(change), state: state, reason: reason, cause: cause),
            queuedWebhooks: queued)
    }

    /// Runs `body` in a store transaction on the write queue (sharing its commit with the writes queued beside it),
    /// then refreshes the cache and notifies streams.
    ///
    /// Publishing happens on the write queue too, right after the commit: changes reach the cache and the streams
    /// in the order they were committed.
    func write<Value: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction, UnixTime) throws -> (Value, [Committed])
    ) async throws(DomainError) -> Value {
        let origin = ContinuousClock.now
        // The queue runs the body on its own thread: the call's request ID goes along, for the lines it logs and the
        // webhooks it queues, and so does its key's name, for the events it records.
        let requestID = RequestID.current
        let keyName = ActingKey.name
        let output = WriteOutput<(Value, [Committed])>()
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
                    }))
        }
        return try outcome.get()
    }

    private func publish(_ committed: [Committed], now: UnixTime, origin: ContinuousClock.Instant) {
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

    func read<Value>(_ body: () throws(StorageError) -> Value) throws(DomainError) -> Value {
        try DomainError.reading(body)
    }

    private static func describeTimeChange(from old: ComputedStatus?, to new: ComputedStatus) -> String {
        let before = old?.activeIDs ?? []
        let lost = before.subtracting(new.activeIDs).sorted()
        let gained = new.activeIDs.subtracting(before).sorted()
        var parts: [String] = []
        if !lost.isEmpty { parts.append("expired: \(lost.joined(separator: ", "))") }
        if !gained.isEmpty { parts.append("started: \(gained.joined(separator: ", "))") }
        return parts.isEmpty ? "Entitlement details changed with time." : parts.joined(separator: "; ")
    }
}

extension DomainError {
    /// Storage failures as the caller sees them: a retry may help for `unavailable`, nothing else is the caller's fault.
    init(_ error: StorageError) {
        switch error.code {
        case .unavailable: self = .storageUnavailable("The database is unavailable: \(error.message)")
        case .conflict: self = .storageFailed("A storage conflict occurred: \(error.message)")
        case .corrupt: self = .storageFailed("The database is damaged: \(error.message)")
        }
    }

    /// `body`'s answer, or its storage failure as the caller sees it.
    static func reading<Value>(_ body: () throws(StorageError) -> Value) throws(DomainError) -> Value {
        do {
            return try body()
        } catch {
            throw DomainError(error)
        }
    }
}
