import EntitlementDomain
import Testing
import TestSupport

@testable import EntitlementStorage

/// Retention's deletions on each database: events replaced before the cutoff go, each customer's newest stays; old deliveries of the tenant in
/// the states named; old used, replaced and expired codes.
@Suite("Retention")
struct RetentionStorageTests {
    @Test func oldEventsGoButEachCustomersNewestStays() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (busy, quiet) = try repository.write { transaction throws in
            let busy = try transaction.customer("t", "busy")
            let quiet = try transaction.customer("t", "quiet")
            for version in 1...5 { try transaction.appendEvent(makeEvent(tenant: "t", customer: busy.id, version: UInt64(version)), nextChangeAt: nil) }
            try transaction.appendEvent(makeEvent(tenant: "t", customer: quiet.id, version: 1), nextChangeAt: nil)
            return (busy, quiet)
        }
        // Events v1...v5 occurred at 1001...1005 ms, the quiet customer's v1 at 1001: scanned two at a time, in time
        // order, the events replaced before 1_004 ms go (v1 and v2); v3 stays, the status from 1_003 to 1_004.
        let first = try repository.write { try $0.compactEvents(tenantID: "t", before: time(1_004), after: nil, limit: 2) }
        #expect(first.removed == 0 && first.scanned == EventPosition(occurredAt: time(1_001), customerID: quiet.id, version: 1))
        let second = try repository.write { try $0.compactEvents(tenantID: "t", before: time(1_004), after: first.scanned, limit: 2) }
        #expect(second.removed == 2 && second.scanned == EventPosition(occurredAt: time(1_003), customerID: busy.id, version: 3))
        let third = try repository.write { try $0.compactEvents(tenantID: "t", before: time(1_004), after: second.scanned, limit: 2) }
        #expect(third.removed == 0 && third.scanned == nil)
        let elsewhere = try repository.write { try $0.compactEvents(tenantID: "u", before: time(9_999), after: nil, limit: 10) }
        #expect(elsewhere.removed == 0 && elsewhere.scanned == nil)
        #expect(try repository.events(tenantID: "t", customerID: busy.id, beforeVersion: nil, limit: 10).map(\.version) == [5, 4, 3])
        // Each customer's newest stays, however old: the quiet one's only event too.
        let all = try repository.write { try $0.compactEvents(tenantID: "t", before: time(9_999), after: nil, limit: 10) }
        #expect(all.removed == 2 && all.scanned == nil)
        #expect(try repository.events(tenantID: "t", customerID: quiet.id, beforeVersion: nil, limit: 10).count == 1)
        #expect(try repository.events(tenantID: "t", customerID: busy.id, beforeVersion: nil, limit: 10).map(\.version) == [5])
    }

    @Test func aScanOfEventsAtTheSameMomentMovesOn() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let customers = try repository.write { transaction throws in
            try ["a", "b", "c"].map { name throws in
                let customer = try transaction.customer("t", name)
                for version in 1...3 {
                    var event = makeEvent(tenant: "t", customer: customer.id, version: UInt64(version))
                    event.occurredAt = time(1_000)
                    try transaction.appendEvent(event, nextChangeAt: nil)
                }
                return customer
            }
        }
        var position: EventPosition?
        var removed = 0
        var batches = 0
        repeat {
            let after = position
            let batch = try repository.write { try $0.compactEvents(tenantID: "t", before: time(2_000), after: after, limit: 2) }
            removed += batch.removed
            position = batch.scanned
            batches += 1
        } while position != nil && batches < 10
        #expect(removed == 6 && batches == 5)
        for customer in customers {
            #expect(try repository.events(tenantID: "t", customerID: customer.id, beforeVersion: nil, limit: 10).map(\.version) == [3])
        }
    }

    @Test func oldDeliveriesOfTheTenantGoByState() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        try repository.write { transaction throws in
            for (tenant, state, created) in [
                ("t", WebhookDelivery.State.delivered, Int64(1_000)), ("t", .notice, 1_000), ("t", .failed, 1_000),
                ("t", .pending, 1_000), ("t", .delivered, 5_000), ("u", .delivered, 1_000),
            ] {
                _ = try transaction.insertWebhookDelivery(
                    WebhookDelivery(
                        tenantID: tenant, endpointID: "e", customerID: nil, appUserID: "x", version: 1, messageID: "m",
                        type: "customer.grant", body: [0x7b, 0x7d], createdAt: time(created), state: state, nextAttemptAt: nil))
            }
        }
        #expect(try repository.write { try $0.pruneWebhookDeliveries(tenantID: "t", states: [.delivered, .notice], before: time(2_000), limit: 1) } == 1)
        #expect(try repository.write { try $0.pruneWebhookDeliveries(tenantID: "t", states: [.delivered, .notice], before: time(2_000), limit: 10) } == 1)
        #expect(try repository.write { try $0.pruneWebhookDeliveries(tenantID: "t", states: [.failed], before: time(2_000), limit: 10) } == 1)
        let left = try repository.webhookDeliveries(WebhookDeliveryFilter(tenantID: "t"), limit: 10).map(\.state)
        #expect(Set(left) == [.pending, .delivered] && left.count == 2)
        #expect(try repository.webhookDeliveries(WebhookDeliveryFilter(tenantID: "u"), limit: 10).count == 1)
    }

    @Test func usedReplacedAndExpiredCodesGoAfterTheirTime() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        try repository.write { transaction throws in
            for (hash, used, replaced) in [("a", Int64?(1_000), Int64?.none), ("b", nil, 1_000), ("c", nil, nil), ("d", 5_000, nil), ("e", nil, nil)] {
                try transaction.insertRedemptionCode(
                    RedemptionCodeRecord(
                        tenantID: "t", codeHash: hash, store: .stripe, originalTransactionID: "pi_\(hash)", createdAt: time(1),
                        expiresAt: time(hash == "e" ? 1_500 : 9_000), usedAt: used.map(time), usedBy: used == nil ? "" : "someone",
                        replacedAt: replaced.map(time)))
            }
        }
        #expect(try repository.write { try $0.forgetRedemptionCodes(tenantID: "t", before: time(2_000), limit: 10) } == 3)
        let left = try repository.write { transaction throws in
            try ["a", "b", "c", "d", "e"].filter { try transaction.redemptionCode(tenantID: "t", codeHash: $0) != nil }
        }
        #expect(left == ["c", "d"])
    }
}
