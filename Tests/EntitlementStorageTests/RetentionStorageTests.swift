import EntitlementDomain
import Testing
import TestSupport

@testable import EntitlementStorage

/// Retention's deletions on each database: old events go but each customer's newest; old used codes go.
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
        // Events v1...v5 occurred at 1001...1005 ms: everything before 1_004 ms would go, but batches of 2.
        let first = try repository.write { try $0.compactEvents(tenantID: "t", before: time(1_004), limit: 2) }
        let second = try repository.write { try $0.compactEvents(tenantID: "t", before: time(1_004), limit: 2) }
        #expect(first == 2 && second == 1)
        #expect(try repository.write { try $0.compactEvents(tenantID: "u", before: time(9_999), limit: 10) } == 0)
        let kept = try repository.events(tenantID: "t", customerID: busy.id, beforeVersion: nil, limit: 10).map(\.version)
        #expect(kept == [5, 4])
        // The quiet customer's one event is its newest: it stays, however old.
        #expect(try repository.write { try $0.compactEvents(tenantID: "t", before: time(9_999), limit: 10) } == 1)
        #expect(try repository.events(tenantID: "t", customerID: quiet.id, beforeVersion: nil, limit: 10).count == 1)
        #expect(try repository.events(tenantID: "t", customerID: busy.id, beforeVersion: nil, limit: 10).map(\.version) == [5])
    }

    @Test func usedAndReplacedCodesGoAfterTheirTime() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        try repository.write { transaction throws in
            for (hash, used, replaced) in [("a", Int64?(1_000), Int64?.none), ("b", nil, 1_000), ("c", nil, nil), ("d", 5_000, nil)] {
                try transaction.insertRedemptionCode(
                    RedemptionCodeRecord(
                        tenantID: "t", codeHash: hash, store: .stripe, originalTransactionID: "pi_\(hash)", createdAt: time(1),
                        expiresAt: time(9_000), usedAt: used.map(time), usedBy: used == nil ? "" : "someone",
                        replacedAt: replaced.map(time)))
            }
        }
        #expect(try repository.write { try $0.forgetRedemptionCodes(tenantID: "t", before: time(2_000), limit: 10) } == 2)
        let left = try repository.write { transaction throws in
            try ["a", "b", "c", "d"].filter { try transaction.redemptionCode(tenantID: "t", codeHash: $0) != nil }
        }
        #expect(left == ["c", "d"])
    }
}
