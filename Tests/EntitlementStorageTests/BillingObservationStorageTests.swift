import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

@testable import EntitlementStorage

/// `billing_observations`: kept once each, read back whole, found by when their renewal was due, and made for the
/// subscriptions retrying when the table is created.
private let day = Milliseconds.perDay

@Suite struct BillingObservationStorageTests {
    /// A subscription paid for days 0 to 30 that went into a grace period to day 46 (as of day 30).
    static func inGrace(_ original: String, customer: Int64?) -> StorePurchase {
        var purchase = makePurchase(original, tenant: "t", customer: customer, expiresAt: 30 * day)
        purchase.purchasedAt = time(0)
        purchase.renewal = .grace(until: time(46 * day))
        purchase.renewalStateAsOf = time(30 * day)
        purchase.price = PurchasePrice(milliunits: 9_990, currency: "EUR")
        purchase.sale = PurchaseSale(kind: .subscriptionRenewal, offer: .promotional, country: "FR")
        return purchase
    }

    @Test func anObservationIsKeptOnceAndReadBackWhole() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let customer = try repository.write { try $0.customer("t", "alice") }
        let grace = try #require(BillingObservation(stored: nil, incoming: Self.inGrace("1000", customer: customer.id)))
        var settled = grace
        settled.billing = .settled
        settled.observedAt = time(33 * day)
        let kept = try repository.write { transaction in
            [
                try transaction.recordBillingObservation(grace), try transaction.recordBillingObservation(grace),
                try transaction.recordBillingObservation(settled),
            ]
        }
        #expect(kept == [true, false, true])
        let stored = try repository.write { transaction in
            try transaction.billingObservations(tenantID: "t", store: .appStore, originalTransactionID: "1000")
        }
        #expect(Set(stored) == [grace, settled])
        #expect(grace.payment.amount.milliunits == 9_990 && grace.payment.offer == .promotional)

        // Found by the due date of any of a subscription's observations, each with its owner's app user ID.
        let due = try repository.billingObservations(
            tenantID: "t", environment: .sandbox, due: time(29 * day)...time(31 * day))
        #expect(Set(due.map(\.observation)) == [grace, settled] && due.allSatisfy { $0.appUserID == "alice" })
        #expect(try repository.billingObservations(tenantID: "t", environment: .sandbox, due: time(31 * day)...time(90 * day)).isEmpty)
        #expect(try repository.billingObservations(tenantID: "t", environment: .production, due: time(0)...time(90 * day)).isEmpty)
    }

    /// Migration 22 observes the subscriptions retrying before it and adds their days: the database is taken back to
    /// version 21 (the purchase kept), then opened again.
    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite's migrations; PostgreSQL runs the same SQL"))
    func theMigrationObservesTheSubscriptionsRetryingThen() throws {
        let database = try TemporaryDatabase()
        do {
            let repository = try database.open()
            try repository.write { transaction in
                let customer = try transaction.customer("t", "alice")
                try transaction.savePurchase(Self.inGrace("1000", customer: customer.id))
                try transaction.savePurchase(makePurchase("2000", tenant: "t", customer: customer.id))
            }
        }
        let raw = try database.rawConnection()
        try raw.execute("DROP TABLE offer_signatures")
        try raw.execute("DROP TABLE offer_totals")
        try raw.execute("ALTER TABLE transactions DROP COLUMN sale_offer_id")
        try raw.execute("DROP TABLE erased_customers")
        try raw.execute("DROP TABLE erasure_keys")
        try raw.execute("ALTER TABLE transactions DROP COLUMN erased_owner")
        for index in ["webhook_deliveries_related", "events_age", "events_related", "redemption_codes_used_by", "purchase_references_buyer"] {
            try raw.execute("DROP INDEX \(index)")
        }
        try raw.execute("ALTER TABLE webhook_deliveries DROP COLUMN related_app_user_id")
        try raw.execute("DROP TABLE audit_log")
        try raw.execute("DROP TABLE customer_attributes")
        try raw.execute("DROP TABLE billing_observations")
        try raw.execute("DELETE FROM schema_migrations WHERE version >= 22")
        let repository = try database.open()
        let found = try repository.billingObservations(tenantID: "t", environment: .sandbox, due: time(0)...time(100 * day))
        try #require(found.count == 1)
        let observation = found[0].observation
        #expect(observation.billing == .grace(until: time(46 * day)))
        #expect(observation.dueAt == time(30 * day) && observation.observedAt == time(30 * day))
        let query = RevenueTotalsQuery(tenantID: "t", environment: .sandbox, days: 0...100)
        let grace = try repository.subscriptionTotals(query).filter { $0.state == .grace }
        #expect(Set(grace.map { "\($0.day) \($0.subscriptions) \($0.mrrMilliunits) \($0.currency)" }) == [
            "30 1 9990 EUR", "46 -1 -9990 EUR",
        ])
        #expect(try repository.subscriptionTotals(query).filter { $0.state == .billingRetry }.count == 2)
    }
}
