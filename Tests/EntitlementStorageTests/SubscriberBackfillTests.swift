import Testing
import TestSupport

@testable import EntitlementDomain
@testable import EntitlementStorage

/// Migration 9 on a database that already has customers: `customer_entitlements` and `changed_at` come from each
/// customer's latest event, so listings and counts are right from the first start of the new build.
@Suite("Subscriber index backfill", .enabled(if: !TestDatabase.isPostgres, "SQLite's migration 9"))
struct SubscriberBackfillTests {
    @Test func fillsEntitlementsAndChangedAtFromTheLatestEvents() throws {
        let database = try TemporaryDatabase()
        let pro = ActiveEntitlementValue(
            id: "pro", source: .appStore, productID: "monthly", expiresAt: time(20_000), willRenew: true,
            inGracePeriod: false, inBillingRetry: true, referenceID: "tx-1")
        do {
            let raw = try database.rawConnection()
            try Migrations.apply(Array(Migrations.all.prefix(while: { $0.version <= 7 })), on: raw, now: time(0))
            let older = ComputedStatus(entitlements: [], nextChangeAt: nil).storedBytes
            let latest = ComputedStatus(entitlements: [pro], nextChangeAt: time(20_000)).storedBytes
            try raw.execute(
                """
                INSERT INTO customers (id, tenant_id, app_user_id, is_anonymous, version, created_at, next_change_at)
                    VALUES (7, 't', 'alice', 0, 2, 1000, 20000), (8, 't', 'bob', 0, 0, 3000, NULL);
                INSERT INTO app_user_ids (tenant_id, app_user_id, customer_id, added_at)
                    VALUES ('t', 'alice', 7, 1000), ('t', 'bob', 8, 3000);
                """)
            for (version, status) in [(1, older), (2, latest)] {
                try raw.run(
                    """
                    INSERT INTO events (tenant_id, customer_id, version, cause, change, reason, occurred_at, status,
                        related_app_user_id, reference_id) VALUES ('t', 7, ?, 3, 2, '', ?, ?, '', '')
                    """,
                    [.integer(Int64(version)), .integer(1_000 + Int64(version) * 1_000), .blob(status)])
            }
        }
        let repository = try database.open()
        let listed = try repository.customers(
            tenantID: "t",
            matching: CustomerListQuery(filter: CustomerFilter(), afterCustomerID: nil, limit: 10, now: time(10_000)))
        #expect(listed.map(\.appUserID) == ["alice", "bob"])
        #expect(listed[0].entitlements == [pro])
        #expect(listed[0].changedAt == time(3_000))
        // Without events, a customer last changed when it was created.
        #expect(listed[1].changedAt == time(3_000) && listed[1].entitlements.isEmpty)
        #expect(
            try repository.subscriberCounts(tenantID: "t", at: time(10_000))
                == SubscriberCounts(
                    activeCustomers: 1, perEntitlement: ["pro": 1], perProduct: ["monthly": 1], perSource: [.appStore: 1]))
    }
}
