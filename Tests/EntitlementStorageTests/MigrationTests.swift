import EntitlementDomain
import Foundation
import Testing
import TestSupport

@testable import EntitlementStorage

@Suite("Schema migrations", .enabled(if: !TestDatabase.isPostgres, "SQLite's migrations; PostgresMigratorTests has PostgreSQL's"))
struct MigrationTests {
    private func tables(_ connection: SQLiteConnection) throws -> [String] {
        try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
    }

    private func appliedVersions(_ connection: SQLiteConnection) throws -> [Int64] {
        try connection.rows("SELECT version FROM schema_migrations ORDER BY version") { $0.int64(0) }
    }

    @Test func migratesAnEmptyDatabase() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        let raw = try database.rawConnection()
        #expect(
            try tables(raw) == [
                "app_user_ids", "audit_log", "billing_observations", "customer_attributes", "customer_entitlements", "customers", "disabled_webhook_endpoints", "erased_customers", "erasure_keys", "events", "grants",
                "offer_signatures", "offer_totals", "pending_revocations", "poll_cursors", "processed_notifications", "purchase_references",
                "redemption_codes", "renewal_extensions", "revenue_daily", "revenue_daily_ungrouped", "revenue_ledger", "schema_migrations", "subscription_daily",
                "subscription_daily_ungrouped", "subscription_events",
                "transactions",
                "webhook_deliveries",
            ])
        #expect(try appliedVersions(raw) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27])
        #expect(try appliedVersions(raw) == Migrations.all.map(\.version))
        #expect(try raw.row("PRAGMA journal_mode") { $0.string(0) } == "wal")
        let appliedAt = try raw.row("SELECT applied_at FROM schema_migrations") { $0.int64(0) }
        #expect((appliedAt ?? 0) > 1_600_000_000_000)  // wall-clock milliseconds
    }

    @Test func reopeningAppliesNothingTwiceAndKeepsData() throws {
        let database = try TemporaryDatabase()
        do {
            let repository = try database.open()
            _ = try repository.write { try $0.customer("t", "alice") }
        }
        for _ in 0..<3 {
            let repository = try database.open()
            #expect(try repository.snapshot(tenantID: "t", appUserID: "alice")?.customer.appUserID == "alice")
        }
        #expect(try appliedVersions(database.rawConnection()) == Migrations.all.map(\.version))
    }

    @Test func refusesASchemaFromANewerBuild() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        try database.rawConnection().execute("INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)")
        let error = expectStorageError(.corrupt) { try database.open() }
        #expect(error?.message.contains("999") == true)
        #expect(error?.message.contains("version \(Migrations.latestVersion)") == true)
    }

    @Test func pendingMigrationsApplyInOneTransaction() throws {
        let database = try TemporaryDatabase()
        _ = try database.open()
        let raw = try database.rawConnection()
        let shipped = Migrations.all.map(\.version)
        let next = Migrations.latestVersion + 1
        let broken = Migrations.all + [
            Migrations.Migration(version: next, sql: "CREATE TABLE half_done (x INTEGER)"),
            Migrations.Migration(version: next + 1, sql: "CREATE TABLE broken ("),
        ]
        expectStorageError(.unavailable) { try Migrations.apply(broken, on: raw, now: time(0)) }
        #expect(try !tables(raw).contains("half_done"))
        #expect(try appliedVersions(raw) == shipped)
        #expect(raw.isAutocommit)

        // The same list without the broken step applies, and only the new version is added.
        try Migrations.apply(Array(broken.dropLast()), on: raw, now: time(0))
        #expect(try tables(raw).contains("half_done"))
        #expect(try appliedVersions(raw) == shipped + [next])
    }

    @Test func upgradesAVersion1DatabaseKeepingItsRows() throws {
        let database = try TemporaryDatabase()
        do {
            // A database as the build before migration 2 left it.
            let raw = try database.rawConnection()
            try Migrations.apply(Array(Migrations.all.prefix(while: { $0.version <= 1 })), on: raw, now: time(0))
            #expect(try appliedVersions(raw) == [1])
            #expect(try !tables(raw).contains("transactions"))
            try raw.execute(
                """
                INSERT INTO customers (id, tenant_id, app_user_id, is_anonymous, version, created_at, next_change_at)
                    VALUES (7, 't', 'alice', 0, 1, 1000, 9000);
                INSERT INTO app_user_ids (tenant_id, app_user_id, customer_id, added_at) VALUES ('t', 'alice', 7, 1000);
                INSERT INTO grants (grant_id, tenant_id, customer_id, entitlement_id, starts_at, expires_at, revoked_at,
                    reason, revocation_reason, idempotency_key, created_at)
                    VALUES ('g-1', 't', 7, 'pro', 1000, 9000, NULL, 'support', '', NULL, 1000);
                INSERT INTO events (tenant_id, customer_id, version, cause, change, reason, occurred_at, status,
                    related_app_user_id, reference_id) VALUES ('t', 7, 1, 9, 2, 'v1', 1001, x'0801', '', 'g-1');
                """)
        }

        let repository = try database.open()
        #expect(try appliedVersions(database.rawConnection()) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27])
        let alice = try #require(try repository.snapshot(tenantID: "t", appUserID: "alice"))
        #expect(alice.customer.id == 7)
        #expect(alice.customer.version == 1)
        #expect(alice.grants.map(\.grantID) == ["g-1"])
        #expect(alice.purchases.isEmpty)
        #expect(try repository.events(tenantID: "t", customerID: 7, afterVersion: 0, limit: 5).map(\.referenceID) == ["g-1"])
        #expect(try repository.nextChangeAt() == time(9_000))

        // The new tables work against the old rows.
        try repository.write { try $0.savePurchase(makePurchase("1000", tenant: "t", customer: 7)) }
        #expect(try repository.snapshot(tenantID: "t", customerID: 7)?.purchases.map(\.originalTransactionID) == ["1000"])
        // Migration 3: an old ID has no app account token until one is recorded (Identify does), then resolves.
        #expect(try repository.write { try $0.customerID(tenantID: "t", appAccountToken: "tok") } == nil)
        #expect(try repository.write { try $0.recordAppAccountToken(tenantID: "t", appUserID: "alice", token: "tok") })
        #expect(try repository.write { try $0.customerID(tenantID: "t", appAccountToken: "tok") } == 7)
    }

    @Test func upgradesAVersion3DatabaseKeepingItsTransactions() throws {
        let database = try TemporaryDatabase()
        let stored = makePurchase("1000", tenant: "t", customer: nil)
        do {
            // A database as the build before migration 4 left it: purchases without the renewal columns.
            let raw = try database.rawConnection()
            try Migrations.apply(Array(Migrations.all.prefix(while: { $0.version <= 3 })), on: raw, now: time(0))
            let columns = StorageSQL.purchaseColumns.replacingOccurrences(
                of: ", renewal_product_id, is_upgraded, renewal_state_as_of, paused_until, superseded_by, origin" + Self.version6Columns,
                with: "")
            let placeholders = Array(repeating: "?", count: 23).joined(separator: ", ")
            try raw.run(
                "INSERT INTO transactions (\(columns)) VALUES (\(placeholders))",
                [
                    .text("t"), .integer(1), .text("1000"), .text(stored.transactionID), .null, .text(stored.productID),
                    .text(stored.productType), .text("\u{1F}pro"), .text(StorageColumns.environment(stored.environment)),
                    .time(stored.purchasedAt), .time(stored.originalPurchaseAt), .time(stored.expiresAt), .null,
                    .text(""), .text(StorageColumns.ownership(stored.ownership)), .bool(stored.willRenew), .bool(false), .bool(false), .null,
                    .text(""), .text(""), .time(stored.signedAt), .time(stored.updatedAt),
                ])
        }
        let repository = try database.open()
        #expect(try appliedVersions(database.rawConnection()) == Migrations.all.map(\.version))
        // No pending product, not upgraded, and the renewal state as of the newest data the row was written with.
        var expected = stored
        expected.renewalStateAsOf = stored.signedAt
        #expect(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "1000") == expected)
    }

    @Test func upgradesAVersion4DatabaseToTheStoreNeutralPurchaseColumns() throws {
        let database = try TemporaryDatabase()
        let stored = makePurchase("1000", tenant: "t", customer: nil)
        do {
            // Migration 5 adds paused_until, superseded_by and origin: a row from before it reads as a device's
            // purchase, neither paused nor superseded.
            let raw = try database.rawConnection()
            try Migrations.apply(Array(Migrations.all.prefix(while: { $0.version <= 4 })), on: raw, now: time(0))
            let columns = StorageSQL.purchaseColumns.replacingOccurrences(
                of: ", paused_until, superseded_by, origin" + Self.version6Columns, with: "")
            let placeholders = Array(repeating: "?", count: 26).joined(separator: ", ")
            try raw.run(
                "INSERT INTO transactions (\(columns)) VALUES (\(placeholders))",
                [
                    .text("t"), .integer(1), .text("1000"), .text(stored.transactionID), .null, .text(stored.productID),
                    .text(stored.productType), .text("\u{1F}pro"), .text("Sandbox"),
                    .time(stored.purchasedAt), .time(stored.originalPurchaseAt), .time(stored.expiresAt), .null,
                    .text(""), .text("PURCHASED"), .bool(stored.willRenew), .bool(false), .bool(false), .null,
                    .text(""), .text(""), .time(stored.signedAt), .time(stored.updatedAt), .text(""), .bool(false),
                    .time(stored.renewalStateAsOf),
                ])
        }
        let repository = try database.open()
        let read = try #require(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "1000"))
        #expect(read == stored)
        #expect(read.origin == .device && read.renewal == .paid && read.supersededBy.isEmpty)
    }

    /// The columns migration 6 adds to `transactions`, as `StorageSQL.purchaseColumns` lists them.
    static let version6Columns =
        ", replaces, acknowledgement, acknowledgement_attempts, acknowledgement_due_at, acknowledgement_error, suspended"
        + version10Columns
    static let version10Columns = ", price_milliunits, currency" + version14Columns
    static let version14Columns = ", access_from" + version15Columns
    static let version15Columns = ", sale_kind, offer_kind, country, refunded_milliunits" + version17Columns
    static let version17Columns = ", sale_period_start, sale_tax_milliunits, sale_reported_proceeds_milliunits" + version27Columns
    static let version27Columns = ", sale_offer_id"

    @Test func upgradesAVersion5DatabaseToPlayPurchaseColumns() throws {
        let database = try TemporaryDatabase()
        let stored = makePurchase("1000", tenant: "t", customer: nil)
        do {
            // Migration 6 adds replaces, suspended and the acknowledgement schedule: a row from before it replaces
            // nothing, is not suspended and owes no acknowledgement (App Store purchases never do).
            let raw = try database.rawConnection()
            try Migrations.apply(Array(Migrations.all.prefix(while: { $0.version <= 5 })), on: raw, now: time(0))
            let columns = StorageSQL.purchaseColumns.replacingOccurrences(of: Self.version6Columns, with: "")
            let placeholders = Array(repeating: "?", count: 29).joined(separator: ", ")
            try raw.run(
                "INSERT INTO transactions (\(columns)) VALUES (\(placeholders))",
                [
                    .text("t"), .integer(1), .text("1000"), .text(stored.transactionID), .null, .text(stored.productID),
                    .text(stored.productType), .text("\u{1F}pro"), .text("Sandbox"),
                    .time(stored.purchasedAt), .time(stored.originalPurchaseAt), .time(stored.expiresAt), .null,
                    .text(""), .text("PURCHASED"), .bool(stored.willRenew), .bool(false), .bool(false), .null,
                    .text(""), .text(""), .time(stored.signedAt), .time(stored.updatedAt), .text(""), .bool(false),
                    .time(stored.renewalStateAsOf), .null, .text(""), .text("device"),
                ])
        }
        let repository = try database.open()
        let read = try #require(try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: "1000"))
        #expect(read == stored)
        #expect(read.replaces.isEmpty && read.acknowledgement == .notRequired && !read.renewal.isHeld)
        #expect(try repository.acknowledgementsDue(at: time(.max), limit: 10).isEmpty)
        #expect(try repository.pollCursor(tenantID: "t", name: "x") == nil)
    }

    @Test func refusesAFileThatIsNotADatabase() throws {
        let database = try TemporaryDatabase()
        let garbage = [UInt8](repeating: 0x5A, count: 4096)
        #expect(FileManager.default.createFile(atPath: database.path, contents: Data(garbage)))
        expectStorageError(.corrupt) { try database.open() }
    }
}

