import EntitlementDomain
import Foundation
import Testing

@testable import EntitlementStorage

@Suite("Store purchases and processed notifications")
struct StoredPurchaseTests {
    private func count(_ database: TemporaryDatabase, _ table: String) throws -> Int64 {
        try database.scalar("SELECT COUNT(*) FROM \(table)") ?? -1
    }

    @Test func everyFieldRoundTrips() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { try $0.customer("t", "alice") }
        var full = makePurchase("2000000001", tenant: "t", customer: alice.id, transactionID: "2000000009")
        full.entitlementIDs = ["pro", "", "extra storage"]
        full.revokedAt = time(4_000)
        full.revocationReason = "1"
        full.ownership = .familyShared
        full.willRenew = false
        full.renewal = .grace(until: time(6_000))
        full.accessFrom = time(500)
        full.appAccountToken = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
        full.offerType = "1"
        full.environment = .xcode
        full.renewalProductID = "com.example.basic.monthly"
        full.supersededBy = "newer-token"
        full.origin = .notification
        var bare = makePurchase("2000000002", tenant: "t", customer: nil, entitlements: [], expiresAt: nil)
        bare.originalPurchaseAt = nil
        bare.productType = "Consumable"
        bare.renewal = .paused(resumesAt: time(7_000))
        var oneEmpty = makePurchase("2000000003", tenant: "t", customer: nil, entitlements: [""])
        oneEmpty.store = .stripe
        oneEmpty.renewal = .held(billingRetry: true)

        try repository.write { transaction throws in
            for record in [full, bare, oneEmpty] { try transaction.savePurchase(record) }
        }
        for record in [full, bare, oneEmpty] {
            #expect(
                try repository.purchase(
                    tenantID: "t", store: record.store, originalTransactionID: record.originalTransactionID) == record)
            try repository.write { transaction throws in
                #expect(
                    try transaction.purchase(
                        tenantID: "t", store: record.store, originalTransactionID: record.originalTransactionID)
                        == record)
            }
        }
        #expect(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "missing") == nil)
        #expect(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "2000000003") == nil)  // web
    }

    @Test func saveInsertsThenReplacesEveryField() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { try $0.customer("t", "alice") }
        let first = makePurchase("1", tenant: "t", customer: alice.id, expiresAt: 5_000, signedAt: 3_000)
        var older = makePurchase("1", tenant: "t", customer: nil, transactionID: "0", expiresAt: 2_000, signedAt: 1_000)
        older.isUpgraded = true
        older.renewalStateAsOf = time(500)
        func stored() throws -> StorePurchase? {
            try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "1")
        }

        try repository.write { try $0.savePurchase(first) }
        #expect(try stored() == first)
        // Storage keeps what it is given, even older data and no owner: which version is current is the domain's
        // decision.
        try repository.write { try $0.savePurchase(older) }
        #expect(try stored() == older)
        #expect(try count(database, "transactions") == 1)
        #expect(try repository.snapshot(tenantID: "t", customerID: alice.id)?.purchases == [])
    }

    @Test func tenantsAndStoresAreIsolated() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (a, b) = try repository.write { transaction throws in
            (try transaction.customer("t1", "alice"), try transaction.customer("t2", "alice"))
        }
        let inT1 = makePurchase("1", tenant: "t1", customer: a.id, product: "one", signedAt: 5_000)
        let inT2 = makePurchase("1", tenant: "t2", customer: b.id, product: "two", signedAt: 1_000)
        let playInT1 = makePurchase(
            "1", tenant: "t1", customer: a.id, store: .playStore, product: "play",
            signedAt: 1_000)
        // The same original transaction ID in another tenant or store is another purchase.
        try repository.write { transaction throws in
            for record in [inT1, inT2, playInT1] { try transaction.savePurchase(record) }
        }
        #expect(try repository.purchase(tenantID: "t1", store: .appStore, originalTransactionID: "1") == inT1)
        #expect(try repository.purchase(tenantID: "t2", store: .appStore, originalTransactionID: "1") == inT2)
        #expect(try repository.purchase(tenantID: "t1", store: .playStore, originalTransactionID: "1") == playInT1)
        #expect(try repository.snapshot(tenantID: "t1", appUserID: "alice")?.purchases == [inT1, playInT1])
        #expect(try repository.snapshot(tenantID: "t2", appUserID: "alice")?.purchases == [inT2])

        // A purchase can never point at another tenant's customer.
        expectStorageError(.conflict) {
            try repository.write { try $0.savePurchase(makePurchase("9", tenant: "t2", customer: a.id)) }
        }
        expectStorageError(.conflict) {
            try repository.write { transaction throws in
                try transaction.setPurchaseOwner(
                    tenantID: "t2", store: .appStore, originalTransactionID: "1", customerID: a.id)
            }
        }
        #expect(try repository.purchase(tenantID: "t2", store: .appStore, originalTransactionID: "9") == nil)
        #expect(try repository.purchase(tenantID: "t2", store: .appStore, originalTransactionID: "1")?.customerID == b.id)
    }

    @Test func unownedPurchasesAreFoundByTokenAndAttached() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { try $0.customer("t", "alice") }
        try repository.write { transaction throws in
            try transaction.savePurchase(makePurchase("1", tenant: "t", customer: nil, appAccountToken: "tok"))
            try transaction.savePurchase(makePurchase("2", tenant: "t", customer: alice.id, appAccountToken: "tok"))
            try transaction.savePurchase(makePurchase("3", tenant: "t", customer: nil, appAccountToken: "other"))
            try transaction.savePurchase(makePurchase("4", tenant: "t", customer: nil))
            try transaction.savePurchase(makePurchase("5", tenant: "u", customer: nil, appAccountToken: "tok"))
            try transaction.savePurchase(makePurchase("6", tenant: "t", customer: nil, appAccountToken: "tok"))
        }
        func unowned(_ tenant: String, _ token: String) throws -> [String] {
            try repository.write { transaction throws in
                try transaction.unownedPurchases(tenantID: tenant, appAccountToken: token).map(\.originalTransactionID)
            }
        }
        #expect(try unowned("t", "tok") == ["1", "6"])
        #expect(try unowned("t", "other") == ["3"])
        #expect(try unowned("u", "tok") == ["5"])
        #expect(try unowned("t", "").isEmpty)  // no token is not a match for every tokenless purchase
        #expect(try unowned("t", "nope").isEmpty)
        #expect(try repository.snapshot(tenantID: "t", customerID: alice.id)?.purchases.map(\.originalTransactionID) == ["2"])

        try repository.write { transaction throws in
            try transaction.setPurchaseOwner(tenantID: "t", store: .appStore, originalTransactionID: "6", customerID: alice.id)
            try transaction.setPurchaseOwner(tenantID: "t", store: .appStore, originalTransactionID: "1", customerID: alice.id)
        }
        #expect(try unowned("t", "tok").isEmpty)
        // Oldest first (insertion order), whatever order they were attached in.
        #expect(
            try repository.snapshot(tenantID: "t", customerID: alice.id)?.purchases.map(\.originalTransactionID)
                == ["1", "2", "6"])
        let attached = try #require(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "6"))
        #expect(attached == makePurchase("6", tenant: "t", customer: alice.id, appAccountToken: "tok"))

        // Clearing the owner makes it unowned again; an unknown purchase is a conflict.
        try repository.write { transaction throws in
            try transaction.setPurchaseOwner(tenantID: "t", store: .appStore, originalTransactionID: "6", customerID: nil)
        }
        #expect(try unowned("t", "tok") == ["6"])
        expectStorageError(.conflict) {
            try repository.write { transaction throws in
                try transaction.setPurchaseOwner(
                    tenantID: "t", store: .appStore, originalTransactionID: "missing", customerID: alice.id)
            }
        }
        expectStorageError(.conflict) {
            try repository.write { transaction throws in
                try transaction.setPurchaseOwner(tenantID: "t", store: .appStore, originalTransactionID: "6", customerID: 999)
            }
        }
    }

    @Test func mergeMovesPurchases() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (anon, alice, bob) = try repository.write { transaction throws in
            let anon = try transaction.customer("t", "$anon:1", anonymous: true)
            let alice = try transaction.customer("t", "alice")
            let bob = try transaction.customer("t", "bob")
            try transaction.savePurchase(makePurchase("a1", tenant: "t", customer: alice.id))
            try transaction.savePurchase(makePurchase("n1", tenant: "t", customer: anon.id))
            try transaction.savePurchase(makePurchase("n2", tenant: "t", customer: anon.id, product: "lifetime"))
            try transaction.savePurchase(makePurchase("b1", tenant: "t", customer: bob.id))
            try transaction.savePurchase(makePurchase("u1", tenant: "t", customer: nil))
            return (anon, alice, bob)
        }
        try repository.write { try $0.merge(tenantID: "t", from: anon.id, into: alice.id) }
        let merged = try #require(try repository.snapshot(tenantID: "t", appUserID: "$anon:1"))
        #expect(merged.customer.id == alice.id)
        #expect(merged.purchases.map(\.originalTransactionID) == ["a1", "n1", "n2"])
        #expect(merged.purchases.allSatisfy { $0.customerID == alice.id })
        #expect(try repository.snapshot(tenantID: "t", customerID: anon.id)?.purchases == [])
        #expect(try repository.snapshot(tenantID: "t", customerID: bob.id)?.purchases.map(\.originalTransactionID) == ["b1"])
        #expect(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "u1")?.customerID == nil)
    }

    @Test func snapshotsInsideAndOutsideAWriteIncludePurchases() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let record = try repository.write { transaction throws -> StorePurchase in
            let alice = try transaction.customer("t", "alice")
            try transaction.insertGrant(makeGrant("g-1", tenant: "t", customer: alice.id))
            let record = makePurchase("1", tenant: "t", customer: alice.id)
            try transaction.savePurchase(record)
            // The write's own snapshot sees the uncommitted row.
            #expect(try transaction.snapshot(tenantID: "t", appUserID: "alice")?.purchases == [record])
            #expect(try transaction.snapshot(tenantID: "t", customerID: alice.id)?.purchases == [record])
            return record
        }
        let byID = try #require(try repository.snapshot(tenantID: "t", appUserID: "alice"))
        #expect(byID.purchases == [record])
        #expect(byID.grants.map(\.grantID) == ["g-1"])
        #expect(try repository.snapshot(tenantID: "t", customerID: byID.customer.id) == byID)
        // The default keeps older callers compiling and means "no purchases".
        #expect(CustomerSnapshot(customer: byID.customer, aliases: [], grants: []).purchases.isEmpty)
    }

    @Test func aNotificationIsProcessedOncePerTenant() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        func mark(_ tenant: String, _ id: String, at: Int64 = 1_000) throws -> Bool {
            try repository.write { try $0.markNotificationProcessed(tenantID: tenant, notificationID: id, at: time(at)) }
        }
        #expect(try !repository.isNotificationProcessed(tenantID: "t", notificationID: "n-1"))
        #expect(try mark("t", "n-1"))
        #expect(try repository.isNotificationProcessed(tenantID: "t", notificationID: "n-1"))
        #expect(try !repository.isNotificationProcessed(tenantID: "u", notificationID: "n-1"))
        #expect(try !mark("t", "n-1", at: 2_000))
        #expect(try mark("u", "n-1"))
        #expect(try mark("t", "n-2"))
        // Twice inside one write: the second sees the first.
        #expect(try repository.write { transaction throws in
            [
                try transaction.markNotificationProcessed(tenantID: "t", notificationID: "n-3", at: time(1)),
                try transaction.markNotificationProcessed(tenantID: "t", notificationID: "n-3", at: time(2)),
            ]
        } == [true, false])
        #expect(try count(database, "processed_notifications") == 4)
        // The first receipt time is kept.
        let receivedAt = try database.scalar(
            "SELECT received_at FROM processed_notifications WHERE tenant_id = 't' AND notification_id = 'n-1'")
        #expect(receivedAt == 1_000)
    }

    /// A round that ended before the one recorded (an instance frozen mid-poll that resumed after another took the
    /// poll over) moves no cursor back.
    @Test func aPollCursorOnlyMovesForward() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        func set(_ name: String, _ position: Int64) throws {
            try repository.write { try $0.setPollCursor(tenantID: "t", name: name, position: position) }
        }
        try set("voided", 2_000)
        try set("voided", 1_000)
        #expect(try repository.pollCursor(tenantID: "t", name: "voided") == 2_000)
        try set("voided", 3_000)
        #expect(try repository.pollCursor(tenantID: "t", name: "voided") == 3_000)
        try set("history", 500)
        #expect(try repository.pollCursor(tenantID: "t", name: "history") == 500)
        #expect(try repository.pollCursor(tenantID: "u", name: "voided") == nil)
    }

    @Test func aThrownErrorRollsBackPurchasesAndNotifications() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { transaction throws in
            let alice = try transaction.customer("t", "alice")
            try transaction.savePurchase(makePurchase("old", tenant: "t", customer: nil, signedAt: 1_000))
            return alice
        }
        let before = try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "old")
        #expect(throws: Boom.self) {
            try repository.write { transaction throws in
                #expect(try transaction.markNotificationProcessed(tenantID: "t", notificationID: "n-1", at: time(1)))
                try transaction.savePurchase(makePurchase("new", tenant: "t", customer: alice.id))
                try transaction.savePurchase(makePurchase("old", tenant: "t", customer: nil, signedAt: 9_000))
                try transaction.setPurchaseOwner(
                    tenantID: "t", store: .appStore, originalTransactionID: "old", customerID: alice.id)
                throw Boom()
            }
        }
        #expect(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "new") == nil)
        #expect(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "old") == before)
        #expect(try repository.snapshot(tenantID: "t", customerID: alice.id)?.purchases == [])
        #expect(try count(database, "transactions") == 1)
        #expect(try count(database, "processed_notifications") == 0)
        // The notification was not recorded, so its redelivery is processed.
        #expect(try repository.write { try $0.markNotificationProcessed(tenantID: "t", notificationID: "n-1", at: time(2)) })
    }
}
