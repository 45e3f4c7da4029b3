import BoundedText

/// Status and identity: what a customer may unlock now, their history, and who they are (Identify's resolving,
/// adopting and merging). Reads come from the cache; a customer not cached is read once, off the caller's thread
/// (``SnapshotReads``), and cached.
public final class Customers: Sendable {
    let core: EngineCore
    let repository: any CustomerReads & AttributeReads & OfferSignatureReads
    /// How far back a stream may resume from the event log before it gets a fresh snapshot instead.
    public let replayLimit: Int
    private let misses: SnapshotReads

    init(core: EngineCore, repository: any CustomerReads & AttributeReads & OfferSignatureReads, replayLimit: Int, snapshotReads: SnapshotReadLimits) {
        self.core = core
        self.repository = repository
        self.replayLimit = replayLimit
        misses = SnapshotReads(limits: snapshotReads, repository: repository, cache: core.cache, clock: core.clock)
    }

    // MARK: Reads

    /// The state of an app user ID (canonical or alias); an unknown ID is INACTIVE at version 0.
    public func state(tenantID: String, appUserID: String) async throws(DomainError) -> CustomerState {
        try await memoizedState(tenantID: tenantID, appUserID: appUserID).state
    }

    /// ``state(tenantID:appUserID:)`` and, while that state is the cached one, a memo for what the caller derives
    /// from it (SyncStatus keeps its encoded answer there).
    public func memoizedState(tenantID: String, appUserID: String) async throws(DomainError)
        -> (state: CustomerState, memo: StateMemo?)
    {
        if let cached = cachedState(tenantID: tenantID, appUserID: appUserID) { return cached }
        guard let entry = try await misses.entry(tenantID: tenantID, appUserID: appUserID) else {
            return (.unknown(appUserID), nil)
        }
        return entry.memoizedState(at: core.now())
    }

    /// ``memoizedState(tenantID:appUserID:)`` from the cache alone, nil when the customer is not cached: what a
    /// handler on an event-loop thread asks first, since a hit needs neither the database nor a suspension.
    public func cachedState(tenantID: String, appUserID: String) -> (state: CustomerState, memo: StateMemo?)? {
        guard let cached = core.cache.entry(tenantID: tenantID, appUserID: appUserID) else { return nil }
        return cached.memoizedState(at: core.now())
    }

    /// Reads a customer the cache does not hold into it, for callers that then read it with
    /// ``cachedState(tenantID:appUserID:)`` (a status stream, whose every waiting frame stays allocated while it
    /// lives); false for an unknown ID.
    public func load(tenantID: String, appUserID: String) async throws(DomainError) -> Bool {
        try await misses.entry(tenantID: tenantID, appUserID: appUserID) != nil
    }

    /// What the reads of customers the cache did not hold have done, for the metrics.
    public var snapshotReadCounts: SnapshotReadCounts { misses.counts }

    /// Everything about a customer for GetCustomer; `NOT_FOUND` for an unknown ID.
    public func details(tenantID: String, appUserID: String) throws(DomainError) -> CustomerDetails {
        guard let snapshot = try DomainError.reading({ () throws(StorageError) in try repository.snapshot(tenantID: tenantID, appUserID: appUserID) }) else {
            throw .notFound("No customer has app_user_id \(appUserID.quotedForMessage).")
        }
        let attributes = try DomainError.reading { () throws(StorageError) in
            try repository.attributes(tenantID: tenantID, customerID: snapshot.customer.id)
        }
        let offerSignatures = try DomainError.reading { () throws(StorageError) in
            try repository.offerSignatures(tenantID: tenantID, customerID: snapshot.customer.id, limit: Self.shownOfferSignatures)
        }
        let now = core.now()
        let entry = CachedCustomer(snapshot: snapshot, now: now)
        return CustomerDetails(
            state: entry.state(at: now), aliases: snapshot.aliases, grants: snapshot.grants,
            purchases: snapshot.purchases, attributes: attributes.sorted { $0.key < $1.key },
            offerSignatures: offerSignatures)
    }

    /// How many of a customer's offer signatures GetCustomer shows.
    public static let shownOfferSignatures = 50

    /// A page of a customer's events, newest first. `pageToken` is the `nextPageToken` of the previous page.
    public func events(tenantID: String, appUserID: String, pageSize: Int, pageToken: String) throws(DomainError)
        -> EventPage
    {
        // The contract: 0 or less means the default.
        let limit = pageSize <= 0 ? EventPage.defaultSize : min(pageSize, EventPage.maximumSize)
        let before = try EventPage.version(fromToken: pageToken)
        guard let snapshot = try DomainError.reading({ () throws(StorageError) in try repository.snapshot(tenantID: tenantID, appUserID: appUserID) }) else {
            throw .notFound("No customer has app_user_id \(appUserID.quotedForMessage).")
        }
        let customerID = snapshot.customer.id
        let records = try DomainError.reading { () throws(StorageError) in
            try repository.events(tenantID: tenantID, customerID: customerID, beforeVersion: before, limit: limit + 1)
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
        let records = try DomainError.reading { () throws(StorageError) in
            try repository.events(tenantID: tenantID, customerID: customerID, afterVersion: afterVersion, limit: replayLimit)
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
        let outcome = try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> (IdentifyOutcome, [CommittedChange]) in
            let existing = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID)
            let anonymous = try anonymousID.flatMap { id throws(StorageError) in
                try transaction.snapshot(tenantID: tenantID, appUserID: id)
            }
            let decision = try IdentityRules.plan(
                appUserID: appUserID, anonymousID: anonymousID, appUserCustomer: existing?.customer,
                anonymousCustomer: anonymous?.customer, anonymousHasHistory: anonymous.map(IdentityRules.hasHistory) ?? false)
            var committed: [CommittedChange] = []
            let survivor: CustomerSnapshot
            switch decision.plan {
            case .existing:
                survivor = existing!
            case .create:
                let created = try transaction.createCustomer(
                    tenantID: tenantID, appUserID: appUserID, isAnonymous: AppUserID.isAnonymous(appUserID), at: now)
                let change = try self.core.recordCreation(
                    transaction, of: created, reason: "Identify created the customer.", at: now)
                committed.append(change)
                survivor = change.snapshot
            case .adoptAnonymous(let customerID):
                try transaction.setCanonicalID(
                    tenantID: tenantID, customerID: customerID, appUserID: appUserID, isAnonymous: false)
                let change = try self.core.recordChange(
                    transaction, tenantID: tenantID, customerID: customerID, cause: .merged,
                    reason: "Identified as '\(appUserID)'; the anonymous ID stays as an alias.",
                    related: anonymousID ?? "", at: now)
                committed.append(change)
                survivor = change.snapshot
            case .mergeAnonymous(let from, let into):
                let absorbed = anonymous!.customer.appUserID
                try transaction.merge(tenantID: tenantID, from: from, into: into)
                var emptied = try self.core.recordChange(
                    transaction, tenantID: tenantID, customerID: from, cause: .transferredOut,
                    reason: "Merged into '\(appUserID)' by Identify.", related: appUserID,
                    subject: EventSubject(isMergedAway: true), at: now)
                emptied.mergedInto = into
                committed.append(emptied)
                let change = try self.core.recordChange(
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

    /// Records the status changes that time alone has caused (expiries, starts) for every customer now due.
    /// Returns when the next one is due.
    @discardableResult
    public func applyTimeChanges() async throws(DomainError) -> UnixTime? {
        let now = core.now()
        let due = try DomainError.reading { () throws(StorageError) in try repository.customersDue(at: now, limit: 500) }
        // All at once: the write queue commits them in groups, so a thousand subscriptions ending at the same second
        // reach their streams in a few commits' time rather than a thousand (each customer's writes stay in order).
        let failure = await withTaskGroup(of: DomainError?.self) { group in
            for (tenantID, customerID) in due {
                group.addTask {
                    do throws(DomainError) {
                        try await self.applyTimeChange(tenantID: tenantID, customerID: customerID)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            var first: DomainError?
            for await failure in group where first == nil { first = failure }
            return first
        }
        if let failure { throw failure }
        return try DomainError.reading { () throws(StorageError) in try repository.nextChangeAt() }
    }

    private func applyTimeChange(tenantID: String, customerID: Int64) async throws(DomainError) {
        try await core.write(orderedBy: WriteOrder.customer(tenantID, id: customerID)) {
            transaction, now throws -> (Void, [CommittedChange]) in
            guard let snapshot = try transaction.snapshot(tenantID: tenantID, customerID: customerID) else {
                return ((), [])
            }
            let latest = try transaction.latestEvent(tenantID: tenantID, customerID: customerID)
            let status = StatusCalculator.status(of: snapshot.candidates, at: EngineCore.changeTime(now, after: latest))
            let recorded = latest.map { ComputedStatus(storedBytes: $0.status) }
            guard StatusCalculator.change(from: recorded, to: status) != nil else {
                try transaction.setNextChangeAt(tenantID: tenantID, customerID: customerID, at: status.nextChangeAt)
                return ((), [])
            }
            let change = try self.core.recordTimeChange(
                transaction, of: snapshot, latest: latest, status: status,
                reason: Self.describeTimeChange(from: recorded, to: status), at: now)
            return ((), [change])
        }
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
