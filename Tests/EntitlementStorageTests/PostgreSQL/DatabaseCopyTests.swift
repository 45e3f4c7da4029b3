import EntitlementDomain
import Foundation
import Testing
import TestSupport

@testable import EntitlementStorage

/// `migrate-store`: a populated SQLite database copied into PostgreSQL reads back the same through the repository.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, "ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL"))
struct DatabaseCopyTests {
    /// Two tenants with merged customers, aliases, grants, events, purchases, notifications, cursors, extensions,
    /// references, queued webhooks and the subscriber index; returns every app user ID.
    static func populate(_ repository: SQLRepository) throws -> [(tenant: String, user: String)] {
        var users: [(String, String)] = []
        for tenant in ["acme", "globex"] {
            try repository.write { transaction throws in
                for index in 0..<30 {
                    let user = "\(tenant)-user-\(index)"
                    let customer = try transaction.customer(tenant, user, anonymous: index % 5 == 0)
                    users.append((tenant, user))
                    try transaction.insertGrant(makeGrant("\(tenant)-g-\(index)", tenant: tenant, customer: customer.id))
                    try transaction.appendEvent(
                        makeEvent(tenant: tenant, customer: customer.id, version: 1, status: [0x08, UInt8(index), 0xFF]),
                        nextChangeAt: index % 3 == 0 ? time(9_000) : nil)
                    var purchase = makePurchase("\(tenant)-otx-\(index)", tenant: tenant, customer: customer.id)
                    if index % 4 == 0 {
                        purchase.renewal = .grace(until: time(9_000))
                        purchase.price = PurchasePrice(milliunits: 4_990, currency: "USD")
                        _ = try transaction.recordBillingObservation(
                            try #require(BillingObservation(stored: nil, incoming: purchase)))
                    }
                    try transaction.savePurchase(purchase)
                    try transaction.replaceActiveEntitlements(
                        tenantID: tenant, customerID: customer.id,
                        with: [
                            ActiveEntitlementValue(
                                id: "pro", source: .appStore, productID: "monthly", expiresAt: time(5_000), willRenew: true,
                                inGracePeriod: index % 7 == 0, inBillingRetry: false, referenceID: "\(tenant)-otx-\(index)"),
                        ])
                    _ = try transaction.insertWebhookDelivery(
                        WebhookDelivery(
                            tenantID: tenant, endpointID: "backend", customerID: customer.id, appUserID: user, version: 1,
                            messageID: "msg_\(tenant)\(index)", type: "customer.status_changed", body: Array("{\"i\":\(index)}".utf8),
                            createdAt: time(1_000), nextAttemptAt: time(2_000)))
                }
                _ = try transaction.markNotificationProcessed(tenantID: tenant, notificationID: "n-1", at: time(1_000))
                try transaction.setPollCursor(tenantID: tenant, name: "voided", position: 42)
                try transaction.saveRenewalExtension(
                    tenantID: tenant, originalTransactionID: "\(tenant)-otx-1", requestIdentifier: "r-1", days: 7, at: time(1_500))
                try transaction.savePurchaseReference(
                    PurchaseReference(
                        store: .stripe, referenceID: "cs_\(tenant)", originalTransactionID: "\(tenant)-otx-2", appUserID: ""),
                    tenantID: tenant, at: time(1_000))
                // An alias, and a merge that leaves a husk.
                let first = try #require(try transaction.snapshot(tenantID: tenant, appUserID: "\(tenant)-user-1"))
                try transaction.setCanonicalID(
                    tenantID: tenant, customerID: first.customer.id, appUserID: "\(tenant)-renamed", isAnonymous: false)
                let second = try #require(try transaction.snapshot(tenantID: tenant, appUserID: "\(tenant)-user-2"))
                try transaction.merge(tenantID: tenant, from: second.customer.id, into: first.customer.id)
            }
        }
        return users + [("acme", "acme-renamed"), ("globex", "globex-renamed")]
    }

    @Test func aPopulatedDatabaseReadsTheSameFromItsPostgreSQLCopy() throws {
        let database = try TemporaryDatabase()
        let sqlite = try SQLiteRepository(path: database.path)
        let users = try Self.populate(sqlite)
        let conninfo = try TestDatabase.postgresDatabase(for: database.path + ".copy")

        let report = try DatabaseCopy.copy(sqlitePath: database.path, postgresConninfo: conninfo)
        #expect(report.mismatches == [])
        #expect(Dictionary(uniqueKeysWithValues: report.rows.map { ($0.table, $0.count) })["customers"] == 60)
        #expect(report.tenants.keys.sorted() == ["acme", "globex"])
        #expect(report.tenants["acme"]?["webhook_deliveries"]?.target.rows == 30)
        // The copied tables have their statistics: PostgreSQL plans with them from the first statement.
        let analysed = try PostgresConnection(conninfo: conninfo).query(
            "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND last_analyze IS NOT NULL "
                + "AND relname IN ($1, $2)",
            ["customers", "transactions"]).rows.map { $0[0] ?? "" }.sorted()
        #expect(analysed == ["customers", "transactions"])

        let postgres = try PostgresRepository(conninfo: conninfo)
        for (tenant, user) in users {
            let before = try sqlite.snapshot(tenantID: tenant, appUserID: user)
            #expect(try postgres.snapshot(tenantID: tenant, appUserID: user) == before, "\(tenant) \(user)")
            let id = try #require(before?.customer.id)
            #expect(
                try postgres.events(tenantID: tenant, customerID: id, beforeVersion: nil, limit: 10)
                    == (try sqlite.events(tenantID: tenant, customerID: id, beforeVersion: nil, limit: 10)))
        }
        for tenant in ["acme", "globex"] {
            #expect(
                try postgres.subscriberCounts(tenantID: tenant, at: time(2_000))
                    == (try sqlite.subscriberCounts(tenantID: tenant, at: time(2_000))))
            let filter = WebhookDeliveryFilter(tenantID: tenant)
            #expect(try postgres.webhookDeliveries(filter, limit: 100) == (try sqlite.webhookDeliveries(filter, limit: 100)))
            #expect(try postgres.pollCursor(tenantID: tenant, name: "voided") == 42)
            #expect(try postgres.isNotificationProcessed(tenantID: tenant, notificationID: "n-1"))
        }
        #expect(try postgres.customersDue(at: time(9_000), limit: 100).count == 20)
        // New rows continue after the copied IDs.
        let created = try postgres.write { try $0.customer("acme", "after-the-copy") }
        #expect(created.id > 60)
    }

    @Test func aTargetThatHoldsDataIsRefusedAndKeptAsItWas() throws {
        let database = try TemporaryDatabase()
        _ = try Self.populate(try SQLiteRepository(path: database.path))
        let conninfo = try TestDatabase.postgresDatabase(for: database.path + ".busy")
        let postgres = try PostgresRepository(conninfo: conninfo)
        _ = try postgres.write { try $0.customer("acme", "already-here") }

        let error = #expect(throws: StorageError.self) {
            try DatabaseCopy.copy(sqlitePath: database.path, postgresConninfo: conninfo)
        }
        #expect(error?.message.contains("customers holds 1 rows") == true)
        #expect(try postgres.snapshot(tenantID: "acme", appUserID: "acme-user-3") == nil)
        #expect(try postgres.snapshot(tenantID: "acme", appUserID: "already-here") != nil)
    }

    @Test func aMissingSourceIsRefusedWithoutCreatingIt() throws {
        let database = try TemporaryDatabase()
        let error = #expect(throws: StorageError.self) {
            try DatabaseCopy.copy(sqlitePath: database.path, postgresConninfo: "host=/nonexistent")
        }
        #expect(error?.message.contains("no SQLite database") == true)
        #expect(!FileManager.default.fileExists(atPath: database.path))
    }
}
