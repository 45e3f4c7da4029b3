import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

@testable import EntitlementStorage

/// The ledger's daily totals (`revenue_daily`), kept in the transaction that records each row, read back grouped and
/// filtered: always what the recorded rows themselves add up to (``RevenueTotal/totals(of:matching:)``).
@Suite("The revenue ledger's daily totals")
struct RevenueDailyTests {
    /// A fixed, varied ledger: two tenants, every environment and store, products with one or two entitlements,
    /// currencies, countries, offers and kinds, times on both sides of midnight and before 1970. Fifty purchases,
    /// each in one tenant, store and environment, as a store's purchase is.
    static func entries() -> [LedgerEntry] {
        var generator = SeededRandomNumberGenerator(seed: 40)
        let kinds = MovementKind.allCases
        let purchases = (0..<50).map { _ in
            (
                tenant: ["t", "t", "u"][Int(generator.next() % 3)], store: Store.allCases[Int(generator.next() % 3)],
                environment: [PurchaseEnvironment.production, .production, .sandbox][Int(generator.next() % 3)]
            )
        }
        return (0..<400).map { index in
            func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
            let purchase = purchases[index % 50]
            let kind = pick(kinds)
            let amount = Int64(generator.next() % 20_000) * (kind.direction == .refund ? -1 : 1)
            let offset = Int64(generator.next() % UInt64(12 * Milliseconds.perDay)) - 2 * Milliseconds.perDay
            return LedgerEntry(
                tenantID: purchase.tenant, store: purchase.store, transactionID: "tx-\(index)", kind: kind,
                originalTransactionID: "o-\(index % 50)", customerID: nil, productID: pick(["monthly", "annual", "coins"]),
                entitlementIDs: pick([["pro"], ["pro", "plus"], ["plus_team"], []]),
                environment: purchase.environment, country: pick(["US", "DE", ""]),
                offer: pick(OfferKind.allCases), periodStart: time(offset),
                periodEnd: generator.next() % 4 == 0 ? nil : time(offset + Int64(generator.next() % 40) * Milliseconds.perDay),
                amount: PurchasePrice(milliunits: amount, currency: pick(["USD", "EUR"])),
                taxMilliunits: generator.next() % 3 == 0 ? nil : amount / 7, proceedsMilliunits: amount * 7 / 10,
                occurredAt: time(offset))
        }
    }

    static let queries: [RevenueTotalsQuery] = [
        RevenueTotalsQuery(tenantID: "t", environment: .production, days: -3...12),
        RevenueTotalsQuery(tenantID: "t", environment: .sandbox, days: 0...5, groupBy: [.store, .country]),
        RevenueTotalsQuery(tenantID: "t", environment: .production, days: -1...9, groupBy: Set(RevenueDimension.allCases)),
        RevenueTotalsQuery(
            tenantID: "t", environment: .production, days: -3...12, groupBy: [.product],
            filter: [.entitlements: "pro", .offer: "none"]),
        RevenueTotalsQuery(
            tenantID: "u", environment: .production, days: 2...3, groupBy: [.entitlements],
            filter: [.entitlements: "plus", .store: "app_store"]),
        RevenueTotalsQuery(tenantID: "t", environment: .production, days: 5...5, filter: [.country: "", .product: "coins"]),
        RevenueTotalsQuery(tenantID: "nobody", environment: .production, days: -3...12, groupBy: [.store]),
    ]

    private func sorted(_ totals: [RevenueTotal]) -> [String] {
        totals.map { total in
            let group = RevenueDimension.allCases.map { total.group[$0] ?? "-" }.joined(separator: "|")
            return "\(total.day) \(group) \(total.currency) \(total.kind.name) \(total.movements) "
                + "\(total.amountMilliunits) \(total.taxMilliunits) \(total.proceedsMilliunits)"
        }.sorted()
    }

    @Test func theTotalsAreWhatTheRecordedRowsAddUpTo() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let entries = Self.entries()
        // In several transactions, each row also delivered again (its key taken, nothing added).
        for batch in stride(from: 0, to: entries.count, by: 64) {
            let rows = Array(entries[batch..<min(batch + 64, entries.count)])
            _ = try repository.write { try $0.recordLedgerEntries(rows + rows.prefix(8), at: time(0)) }
        }
        #expect(try database.scalar("SELECT SUM(movements) FROM revenue_daily") == Int64(entries.count))
        for query in Self.queries {
            let expected = try RevenueTotal.totals(of: entries, matching: query)
            #expect(sorted(try repository.revenueTotals(query)) == sorted(expected), "\(query)")
            if query.groupBy.count > 1 { #expect(!expected.isEmpty, "the query selects something: \(query)") }
        }
    }

    /// Migrations 18 and 19 add the totals of the rows recorded before them: the database is taken back to version 17
    /// (its ledger kept), then opened again.
    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite's migrations; PostgreSQL runs the same SQL"))
    func theMigrationAddsUpTheRowsRecordedBefore() throws {
        let database = try TemporaryDatabase()
        let entries = Self.entries()
        do {
            let repository = try database.open()
            _ = try repository.write { try $0.recordLedgerEntries(entries, at: time(0)) }
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
        try raw.execute("DROP TABLE subscription_daily_ungrouped")
        try raw.execute("DROP TABLE revenue_daily_ungrouped")
        try raw.execute("DROP TABLE subscription_events")
        try raw.execute("DROP TABLE subscription_daily")
        try raw.execute("DROP INDEX revenue_ledger_purchase")
        try raw.execute("DROP TABLE revenue_daily")
        try raw.execute("DELETE FROM schema_migrations WHERE version >= 18")
        let repository = try database.open()
        for query in Self.queries {
            #expect(sorted(try repository.revenueTotals(query)) == sorted(try RevenueTotal.totals(of: entries, matching: query)))
            let subscriptions = try repository.subscriptionTotals(query)
            let want = Set(try SubscriptionTotal.totals(of: entries, matching: query))
            #expect(Set(subscriptions) == want, "\(Set(subscriptions).subtracting(want)) vs \(want.subtracting(Set(subscriptions)))")
            if query.tenantID == "t", query.environment == .production { #expect(!subscriptions.isEmpty) }
            try expectEvents(of: entries, in: repository, query)
        }
    }

    private func expectEvents(of entries: [LedgerEntry], in repository: some RevenueReads, _ query: RevenueTotalsQuery)
        throws
    {
        // Days, and periods of three days (the last cut at the range's end).
        let days = query.days.map { $0...$0 }
        let threes = stride(from: query.days.lowerBound, through: query.days.upperBound, by: 3).map {
            $0...min($0 + 2, query.days.upperBound)
        }
        for kind in SubscriptionEvent.Kind.allCases {
            for periods in [days, threes] {
                let got = try repository.subscriptionEventTotals(query, kind: kind, periods: periods)
                let want = try SubscriptionEventTotal.totals(of: entries, kind: kind, matching: query, periods: periods)
                #expect(Set(got) == Set(want), "\(kind) \(query)")
            }
        }
    }

    /// Each row recorded on its own, the subscription's daily changes and events kept as ``StorePurchases`` keeps
    /// them: what is kept (grouped, and ungrouped) is what the whole ledger makes.
    @Test func theSubscriptionsKeptRowByRowAreTheLedgers() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let entries = Self.entries()
        for entry in entries {
            try repository.write { transaction in try Self.record(entry, in: transaction) }
        }
        try expectTotals(of: entries, in: repository)
    }

    /// A group commit sums its writes' changes to the daily totals and adds them at its commit: a write it rolls back
    /// to its savepoint adds nothing, and the writes after it see the ledger without it.
    @Test func aGroupAddsTheTotalsOfTheWritesItKeepsOnly() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let entries = Self.entries()
        var kept: [LedgerEntry] = []
        for batch in stride(from: 0, to: entries.count, by: 64) {
            let group = Array(entries[batch..<min(batch + 64, entries.count)])
            let failures = try repository.writeGroup(
                group.enumerated().map { index, entry in
                    { transaction in
                        try Self.record(entry, in: transaction)
                        if index % 5 == 2 { throw StorageError.conflict("rolled back after its totals") }
                    }
                })
            kept += zip(group, failures).filter { $0.1 == nil }.map(\.0)
        }
        #expect(kept.count < entries.count)
        #expect(try database.scalar("SELECT SUM(movements) FROM revenue_daily") == Int64(kept.count))
        #expect(try database.scalar("SELECT SUM(movements) FROM revenue_daily_ungrouped") == Int64(kept.count))
        for query in Self.queries {
            #expect(sorted(try repository.revenueTotals(query)) == sorted(try RevenueTotal.totals(of: kept, matching: query)))
        }
        try expectTotals(of: kept, in: repository)
    }

    /// Records one ledger row as the engine does: the row, its subscription's daily changes and events.
    private static func record(_ entry: LedgerEntry, in transaction: any StorageTransaction) throws {
        let before = try transaction.ledgerEntries(
            tenantID: entry.tenantID, store: entry.store, originalTransactionID: entry.originalTransactionID)
        let recorded = try transaction.recordLedgerEntries([entry], at: time(0))
        try transaction.addSubscriptionDays(SubscriptionCoverage.changes(before: before, recorded: recorded))
        let changes = SubscriptionEvent.changes(before: before, recorded: recorded)
        try transaction.changeSubscriptionEvents(removing: changes.removed, adding: changes.added)
    }

    /// The subscription totals and events the repository keeps are those of `entries`.
    private func expectTotals(of entries: [LedgerEntry], in repository: some RevenueReads) throws {
        let wide = RevenueTotalsQuery(tenantID: "t", environment: .production, days: -40...60)
        #expect(try !repository.subscriptionEventTotals(wide, kind: .lapse, periods: wide.days.map { $0...$0 }).isEmpty)
        for query in Self.queries + [wide] {
            try expectEvents(of: entries, in: repository, query)
            // A day whose changes cancel out may keep its row, at zero.
            let nonzero: (SubscriptionTotal) -> Bool = { $0.subscriptions != 0 || $0.mrrMilliunits != 0 }
            let want = Set(try SubscriptionTotal.totals(of: entries, matching: query).filter(nonzero))
            let got = Set(try repository.subscriptionTotals(query).filter(nonzero))
            #expect(got == want, "\(query): \(got.subtracting(want).prefix(3)) vs \(want.subtracting(got).prefix(3))")
        }
    }

    @Test func dayNumbersRoundDownAlsoBefore1970() {
        #expect(time(0).utcDay == 0 && time(Milliseconds.perDay - 1).utcDay == 0 && time(Milliseconds.perDay).utcDay == 1)
        #expect(time(-1).utcDay == -1 && time(-Milliseconds.perDay).utcDay == -1 && time(-Milliseconds.perDay - 1).utcDay == -2)
        #expect(time(Int64.min).utcDay < 0 && time(Int64.max).utcDay > 0)
    }
}
