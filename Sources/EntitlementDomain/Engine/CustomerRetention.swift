import CivilCalendar

/// What one retention pass removed from a tenant.
public struct RetentionCounts: Sendable, Hashable {
    public var events = 0
    public var webhookDeliveries = 0
    public var redemptionCodes = 0

    public init() {}

    public var total: Int { events + webhookDeliveries + redemptionCodes }
}

extension CustomerPrivacy {
    /// Rows per write transaction: a request waiting behind retention waits for one batch at most.
    public static let retentionBatch = 500
    /// Where the tenant's last whole compaction ended (its cutoff), among the cursors of periodic work: the next pass
    /// scans only the events that aged past a cutoff since, so each event is read once.
    static let compactionCursor = "event_compaction"

    /// Removes what the tenant's ``RetentionSettings`` no longer keep at this moment: events superseded before the
    /// cutoff, delivered and failed webhook deliveries, spent redemption codes; a batch per write. `proceed` is asked
    /// before each batch (false stops the pass: this instance no longer holds the work).
    public func applyRetention(
        tenantID: String, settings: RetentionSettings, batch: Int = retentionBatch, proceed: () -> Bool
    ) async throws(DomainError) -> RetentionCounts {
        precondition(batch > 0, "a retention batch removes at least one row")
        let now = core.now().milliseconds
        @Sendable func cutoff(_ days: Int) -> UnixTime { UnixTime(milliseconds: now - Int64(days) * Milliseconds.perDay) }
        var counts = RetentionCounts()
        if let days = settings.eventDays {
            let finished = try await compactEvents(
                tenantID: tenantID, before: cutoff(days), batch: batch, proceed: proceed, removed: &counts.events)
            guard finished else { return counts }
        }
        let deliveries: [([WebhookDelivery.State], Int)] = [
            ([.delivered, .notice], settings.webhookDays), ([.failed], settings.failedWebhookDays),
        ]
        for (states, days) in deliveries {
            let finished = try await removeInBatches(batch: batch, proceed: proceed, removed: &counts.webhookDeliveries) {
                transaction throws in
                try transaction.pruneWebhookDeliveries(tenantID: tenantID, states: states, before: cutoff(days), limit: batch)
            }
            guard finished else { return counts }
        }
        _ = try await removeInBatches(batch: batch, proceed: proceed, removed: &counts.redemptionCodes) { transaction throws in
            try transaction.forgetRedemptionCodes(tenantID: tenantID, before: cutoff(settings.spentCodeDays), limit: batch)
        }
        return counts
    }

    /// Clears what retention deleted from the database's files (SQLite), once after a run over every tenant: the
    /// checkpoint it takes waits for readers, so not after each.
    public func clearRemovedBytes() throws(DomainError) {
        try DomainError.reading { () throws(StorageError) in try core.repository.clearDeletedBytes() }
    }

    /// Removes the events of the tenant superseded before `before`, from where the last whole compaction ended,
    /// counting them into `removed`; false when `proceed` stopped it (the next pass starts again from there).
    private func compactEvents(tenantID: String, before: UnixTime, batch: Int, proceed: () -> Bool, removed: inout Int)
        async throws(DomainError) -> Bool
    {
        let ended = try DomainError.reading { () throws(StorageError) in
            try core.repository.pollCursor(tenantID: tenantID, name: Self.compactionCursor)
        }
        var position = ended.map { EventPosition.justBefore(UnixTime(milliseconds: $0)) }
        repeat {
            guard proceed() else { return false }
            let after = position
            let (count, scanned) = try await core.write(orderedBy: nil) { transaction, _ throws in
                (try transaction.compactEvents(tenantID: tenantID, before: before, after: after, limit: batch), [])
            }
            removed += count
            position = scanned
        } while position != nil
        try await core.write(orderedBy: nil) { transaction, _ throws -> (Void, [CommittedChange]) in
            try transaction.setPollCursor(tenantID: tenantID, name: Self.compactionCursor, position: before.milliseconds)
            return ((), [])
        }
        return true
    }

    /// Runs `remove` (at most `batch` rows) a write at a time until it removes fewer, counting into `removed`; false
    /// when `proceed` stopped it.
    private func removeInBatches(
        batch: Int, proceed: () -> Bool, removed: inout Int,
        _ remove: @escaping @Sendable (any StorageTransaction) throws -> Int
    ) async throws(DomainError) -> Bool {
        var last = batch
        while last == batch {
            guard proceed() else { return false }
            last = try await core.write(orderedBy: nil) { transaction, _ throws in (try remove(transaction), []) }
            removed += last
        }
        return true
    }
}
