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

    /// Removes what the tenant's ``RetentionSettings`` no longer keep at this moment: events but each customer's
    /// newest, delivered and failed webhook deliveries, used, replaced and expired redemption codes; each batch in its
    /// own write, ordered with the others. `proceed` is asked before each batch (false stops the pass: this instance
    /// no longer holds the work). On SQLite the deleted bytes are then cleared from the files.
    public func applyRetention(
        tenantID: String, settings: RetentionSettings, batch: Int = retentionBatch, proceed: () -> Bool
    ) async throws(DomainError) -> RetentionCounts {
        let now = core.now().milliseconds
        @Sendable func cutoff(_ days: Int) -> UnixTime { UnixTime(milliseconds: now - Int64(days) * Milliseconds.perDay) }
        var counts = RetentionCounts()
        defer { if counts.total > 0 { try? core.repository.clearDeletedBytes() } }

        if let days = settings.eventDays {
            var position: EventPosition?
            repeat {
                guard proceed() else { return counts }
                let after = position
                let (removed, scanned) = try await core.write(orderedBy: nil) { transaction, _ throws in
                    (try transaction.compactEvents(tenantID: tenantID, before: cutoff(days), after: after, limit: batch), [])
                }
                counts.events += removed
                position = scanned
            } while position != nil
        }
        let deliveries: [([WebhookDelivery.State], Int)] = [
            ([.delivered, .notice], settings.webhookDays), ([.failed], settings.failedWebhookDays),
        ]
        for (states, days) in deliveries {
            var removed = batch
            while removed == batch {
                guard proceed() else { return counts }
                removed = try await core.write(orderedBy: nil) { transaction, _ throws in
                    (try transaction.pruneWebhookDeliveries(tenantID: tenantID, states: states, before: cutoff(days), limit: batch), [])
                }
                counts.webhookDeliveries += removed
            }
        }
        var removed = batch
        while removed == batch {
            guard proceed() else { return counts }
            removed = try await core.write(orderedBy: nil) { transaction, _ throws in
                (try transaction.forgetRedemptionCodes(tenantID: tenantID, before: cutoff(settings.redemptionCodeDays), limit: batch), [])
            }
            counts.redemptionCodes += removed
        }
        return counts
    }
}
