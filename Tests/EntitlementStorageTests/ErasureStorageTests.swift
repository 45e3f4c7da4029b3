import EntitlementDomain
import Foundation
import Testing
import TestSupport

@testable import EntitlementStorage

/// An erasure on each database: what goes, what stays pseudonymised, other customers' history scrubbed; and on SQLite,
/// no byte of what went left in the database file or its write-ahead log.
@Suite("Erasure")
struct ErasureStorageTests {
    static let marker = "zq-marker-7731"

    /// A customer whose every record carries the marker, a customer whose history names it, and the erasure of the
    /// first.
    static func erase(in repository: SQLRepository, accounting: Bool = false) throws -> (ErasureCounts, Int64) {
        let marker = Self.marker
        return try repository.write { transaction throws in
            let gone = try transaction.customer("t", "\(marker)-user")
            let other = try transaction.customer("t", "other")
            try transaction.setAttribute(
                tenantID: "t", customerID: gone.id, CustomerAttribute(key: "$email", value: "\(marker)@example.com", updatedAt: time(1)))
            var grant = makeGrant("gr_1", tenant: "t", customer: gone.id)
            grant.reason = "\(marker) reason"
            try transaction.insertGrant(grant)
            var event = makeEvent(tenant: "t", customer: gone.id, version: 1)
            event.reason = "\(marker) did something"
            try transaction.appendEvent(event, nextChangeAt: nil)
            var mention = makeEvent(tenant: "t", customer: other.id, version: 1, cause: .transferredIn)
            (mention.reason, mention.relatedAppUserID) = ("Moved from '\(marker)-user'.", "\(marker)-user")
            try transaction.appendEvent(mention, nextChangeAt: nil)
            try transaction.savePurchase(
                makePurchase("1000", tenant: "t", customer: gone.id, appAccountToken: "\(marker)-token"))
            try transaction.savePurchaseReference(
                PurchaseReference(store: .appStore, referenceID: "ref-1", originalTransactionID: "1000", appUserID: "\(marker)-user"),
                tenantID: "t", at: time(1))
            for customerID in [gone.id, other.id] {
                _ = try transaction.insertWebhookDelivery(
                    WebhookDelivery(
                        tenantID: "t", endpointID: "e", customerID: customerID, appUserID: "x",
                        relatedAppUserID: customerID == other.id ? "\(marker)-user" : "", version: 1, messageID: "m",
                        type: "customer.grant", body: Array("{\"about\":\"\(marker)\"}".utf8), createdAt: time(1),
                        nextAttemptAt: nil))
            }
            let erasure = CustomerErasure(
                tenantID: "t", customerIDs: [gone.id], appUserIDs: ["\(marker)-user"],
                appAccountTokens: ["\(marker)-token"], subjects: ["erased_abc"], tombstone: "erased_abc",
                erasesAccountingRecords: accounting, erasedAt: time(2))
            return (try transaction.erase(erasure), other.id)
        }
    }

    @Test func anErasureKeepsThePurchasesWithATombstoneAndScrubsOtherHistory() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (counts, other) = try Self.erase(in: repository)
        #expect(counts == ErasureCounts(events: 1, purchasesKept: 1, purchasesDeleted: 0, webhookDeliveries: 2))
        #expect(try repository.snapshot(tenantID: "t", appUserID: "\(Self.marker)-user") == nil)
        let kept = try #require(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "1000"))
        #expect(kept.customerID == nil && kept.appAccountToken.isEmpty)
        #expect(try repository.purchaseReferences(tenantID: "t", store: .appStore, originalTransactionID: "1000").map(\.appUserID) == [""])
        let mention = try #require(try repository.events(tenantID: "t", customerID: other, beforeVersion: nil, limit: 1).first)
        #expect(mention.relatedAppUserID.isEmpty && mention.reason == "Moved from '(erased)'.")
        try repository.write { transaction throws in
            #expect(try transaction.erasure(tenantID: "t", subject: "erased_abc") == "erased_abc")
            #expect(try transaction.erasedOwner(tenantID: "t", store: .appStore, originalTransactionID: "1000") == "erased_abc")
            // Someone owning it again ends the tombstone.
            try transaction.setPurchaseOwner(tenantID: "t", store: .appStore, originalTransactionID: "1000", customerID: other)
            #expect(try transaction.erasedOwner(tenantID: "t", store: .appStore, originalTransactionID: "1000") == nil)
        }
    }

    @Test func theAccountingRecordsGoWhenTheTenantSaysSo() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (counts, _) = try Self.erase(in: repository, accounting: true)
        #expect(counts.purchasesDeleted == 1 && counts.purchasesKept == 0)
        #expect(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "1000") == nil)
        #expect(try repository.purchaseReferences(tenantID: "t", store: .appStore, originalTransactionID: "1000").isEmpty)
    }

    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite's files; PostgreSQL's are VACUUM's business"))
    func noByteOfTheErasedDataStaysInTheFiles() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open(synchronous: .full)
        _ = try Self.erase(in: repository)
        try repository.clearDeletedBytes()
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: database.path + suffix))) ?? Data()
            #expect(bytes.range(of: Data(Self.marker.utf8)) == nil, "\(suffix)")
        }
        #expect(FileManager.default.fileExists(atPath: database.path + "-wal"))
    }
}

extension ErasureStorageTests {
    /// SQLite gives a new row the highest ID + 1: the erased customer's row stays (named by its tombstone), so no
    /// later customer gets its ID, nor the webhook event IDs made from it.
    @Test func anErasedCustomersIDIsNeverGivenToAnother() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let erased = try repository.write { transaction throws in
            let newest = try transaction.customer("t", "newest")
            _ = try transaction.erase(
                CustomerErasure(
                    tenantID: "t", customerIDs: [newest.id], appUserIDs: ["newest"], appAccountTokens: [],
                    subjects: ["erased_abc"], tombstone: "erased_abc", erasesAccountingRecords: false, erasedAt: time(2)))
            return newest
        }
        let next = try repository.write { try $0.customer("t", "newcomer") }
        #expect(next.id > erased.id)
        let husk = try #require(try repository.snapshot(tenantID: "t", customerID: erased.id))
        #expect(husk.customer.appUserID == "erased_abc/\(erased.id)" && husk.aliases.isEmpty)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "newest") == nil)
        #expect(try repository.snapshot(tenantID: "t", appUserID: husk.customer.appUserID) == nil)
    }
}
