import EntitlementDomain
import Testing

@testable import EntitlementStorage

/// The revenue ledger's rows, in the documented schema an analyst queries, and the sale a purchase row keeps.
@Suite("The revenue ledger")
struct RevenueLedgerStorageTests {
    private func entry(_ kind: MovementKind, amount: Int64, transactionID: String = "1001") -> LedgerEntry {
        LedgerEntry(
            tenantID: "t", store: .appStore, transactionID: transactionID, kind: kind, originalTransactionID: "1000",
            customerID: nil, productID: "monthly", entitlementIDs: ["pro", "plus"], environment: .production,
            country: "US", offer: .freeTrial, periodStart: time(1_000), periodEnd: nil,
            amount: PurchasePrice(milliunits: amount, currency: "USD"), proceedsMilliunits: amount / 2,
            occurredAt: time(2_000))
    }

    @Test func aPurchasesSaleRoundTrips() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        var sold = makePurchase("1", tenant: "t", customer: nil)
        sold.price = PurchasePrice(milliunits: 9_990, currency: "EUR")
        sold.sale = PurchaseSale(kind: .subscriptionRenewal, offer: .winBack, country: "FR", refundedMilliunits: 4_995)
        var oneTime = makePurchase("2", tenant: "t", customer: nil)
        oneTime.sale = PurchaseSale(kind: .oneTime, offer: .none, country: "")
        let unsold = makePurchase("3", tenant: "t", customer: nil)
        // Google's order: the period paid for, its tax and the developer's revenue.
        var ordered = makePurchase("4", tenant: "t", customer: nil)
        ordered.price = PurchasePrice(milliunits: 11_990, currency: "EUR")
        ordered.sale = PurchaseSale(
            kind: .subscriptionRenewal, offer: .introductory, country: "DE", periodStart: time(123_456),
            taxMilliunits: 1_914, reportedProceedsMilliunits: 8_565)
        try repository.write { transaction throws in
            for record in [sold, oneTime, unsold, ordered] { try transaction.savePurchase(record) }
        }
        for record in [sold, oneTime, unsold, ordered] {
            #expect(
                try repository.purchase(tenantID: "t", store: .appStore, originalTransactionID: record.originalTransactionID)
                    == record)
        }
    }

    @Test func eachMovementIsOneRowInWordsAnAnalystReads() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let entries = [
            entry(.trialStart, amount: 0, transactionID: "1000"), entry(.trialConversion, amount: 9_990),
            entry(.refund, amount: -9_990), entry(.refundReversal, amount: 9_990),
        ]
        #expect(try repository.write { try $0.recordLedgerEntries(entries, at: time(5_000)) } == entries)
        // Delivered again, and again classified otherwise (a key is the transaction and the money's direction).
        var again = entries
        again[1].kind = .renewal
        again[1].amount.milliunits = 1
        #expect(try repository.write { try $0.recordLedgerEntries(again, at: time(6_000)) }.isEmpty, "none is new")
        #expect(try database.scalar("SELECT COUNT(*) FROM revenue_ledger") == 4)
        #expect(try database.scalar("SELECT SUM(amount_milliunits) FROM revenue_ledger") == 9_990)
        #expect(try database.scalar("SELECT SUM(proceeds_milliunits) FROM revenue_ledger") == 4_995)
        #expect(try database.scalar("SELECT COUNT(*) FROM revenue_ledger WHERE tax_milliunits IS NULL") == 4)
        var taxed = entry(.renewal, amount: 11_990, transactionID: "1002")
        taxed.taxMilliunits = 1_914
        #expect(try repository.write { try $0.recordLedgerEntries(again + [taxed], at: time(7_000)) } == [taxed])
        #expect(try database.scalar("SELECT tax_milliunits FROM revenue_ledger WHERE transaction_id = '1002'") == 1_914)
        #expect(
            try database.scalar(
                """
                SELECT COUNT(*) FROM revenue_ledger WHERE tenant_id = 't' AND store = 'app_store'
                AND original_transaction_id = '1000' AND customer_id IS NULL AND product_id = 'monthly'
                AND entitlement_ids = 'pro plus' AND environment = 'Production' AND country = 'US'
                AND offer_kind = 'free_trial' AND period_start = 1000 AND period_end IS NULL AND currency = 'USD'
                AND occurred_at = 2000 AND recorded_at = 5000
                """) == 4)
        let kinds = [
            ("1000", "trial_start", "payment"), ("1001", "trial_conversion", "payment"), ("1001", "refund", "refund"),
            ("1001", "refund_reversal", "refund_reversal"),
        ]
        for (transactionID, kind, direction) in kinds {
            #expect(
                try database.scalar(
                    """
                    SELECT COUNT(*) FROM revenue_ledger
                    WHERE transaction_id = '\(transactionID)' AND kind = '\(kind)' AND direction = '\(direction)'
                    """) == 1, "\(kind)")
        }
    }

    /// Pinned: the words are the documented schema, whatever the enums' order.
    @Test func theLedgersWordsArePinned() {
        #expect(MovementKind.allCases.map(\.name) == [
            "purchase", "renewal", "trial_start", "trial_conversion", "product_change", "one_time", "refund",
            "chargeback", "refund_reversal",
        ])
        #expect(OfferKind.allCases.map(\.name) == [
            "none", "free_trial", "introductory", "promotional", "offer_code", "win_back",
        ])
        #expect(SaleKind.allCases.map(\.name) == ["one_time", "subscription_purchase", "subscription_renewal"])
        #expect(Store.allCases.map(\.ledgerName) == ["app_store", "play_store", "stripe"])
        #expect(MovementDirection.allCases.map(\.name) == ["payment", "refund", "refund_reversal"])
    }
}
