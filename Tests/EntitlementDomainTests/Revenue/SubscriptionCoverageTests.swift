import CivilCalendar
import EntitlementDomain
import Testing

/// When a subscription was active, from its ledger rows, and what that changes in the daily totals.
@Suite struct SubscriptionCoverageTests {
    static let day = Milliseconds.perDay

    static func row(
        _ kind: MovementKind, id: String, from start: Int64, days: Int64 = 30, amount: Int64 = 9_990,
        at occurred: Int64? = nil
    ) -> LedgerEntry {
        LedgerEntry(
            tenantID: "t", store: .appStore, transactionID: id, kind: kind, originalTransactionID: "o",
            customerID: nil, productID: "monthly", entitlementIDs: ["pro"], environment: .production, country: "US",
            offer: kind == .trialStart ? .freeTrial : .none, periodStart: UnixTime(milliseconds: start * day),
            periodEnd: UnixTime(milliseconds: (start + days) * day),
            amount: PurchasePrice(milliunits: kind == .trialStart ? 0 : amount, currency: "USD"),
            proceedsMilliunits: 0, occurredAt: UnixTime(milliseconds: (occurred ?? start) * day))
    }

    func spans(_ entries: [LedgerEntry]) -> [String] {
        SubscriptionCoverage.intervals(of: entries).map { "\($0.state.name) \($0.entry.transactionID) \($0.days)" }
    }

    @Test func periodsFollowEachOtherAndEndEarlyWhereTheNextBeginsOrARefund() {
        let trial = Self.row(.trialStart, id: "1", from: 0, days: 7)
        let converted = Self.row(.trialConversion, id: "2", from: 7)
        let renewed = Self.row(.renewal, id: "3", from: 37)
        #expect(spans([renewed, trial, converted]) == ["trial 1 0..<7", "paid 2 7..<37", "paid 3 37..<67"])
        // An upgrade on day 20 ends the period it interrupts.
        let upgrade = Self.row(.productChange, id: "4", from: 20, days: 365, amount: 99_990)
        #expect(spans([trial, converted, upgrade]) == ["trial 1 0..<7", "paid 2 7..<20", "paid 4 20..<385"])
        // Refunded on day 10, half a day in: no longer active at that day's end; taken back, whole again.
        let refund = Self.row(.refund, id: "2", from: 7, amount: -9_990, at: 10)
        var halfDay = refund
        halfDay.occurredAt = UnixTime(milliseconds: 10 * Self.day + Self.day / 2)
        #expect(spans([converted, halfDay]) == ["paid 2 7..<10"])
        #expect(spans([converted, refund, Self.row(.refundReversal, id: "2", from: 7, at: 12)]) == ["paid 2 7..<37"])
        // Begun and ended before one midnight: never active at a day's end.
        var short = Self.row(.purchase, id: "9", from: 0, days: 1)
        short.periodStart = UnixTime(milliseconds: 100)
        short.periodEnd = UnixTime(milliseconds: Self.day - 1)
        #expect(spans([short]) == ["paid 9 0..<0"])
    }

    @Test func mrrIsRevenueCatsNormalisationByThePeriodsLength() {
        func monthly(_ days: Int64, _ amount: Int64 = 12_000) -> Int64 {
            SubscriptionCoverage.intervals(of: [Self.row(.purchase, id: "1", from: 0, days: days, amount: amount)])
                .first?.monthlyMilliunits ?? -1
        }
        #expect(monthly(1) == 360_000 && monthly(3) == 120_000 && monthly(7) == 48_000 && monthly(14) == 24_000)
        #expect(monthly(28) == 12_000 && monthly(31) == 12_000 && monthly(61) == 6_000 && monthly(92) == 4_000)
        #expect(monthly(182) == 2_000 && monthly(365) == 1_000 && monthly(366) == 1_000)
        // Any other length: 28 days' worth.
        #expect(monthly(10) == 12_000 * 28 / 10 && monthly(730) == 12_000 * 28 / 730)
        #expect(monthly(365, 9_999) == 833, "rounded toward zero")
        #expect(SubscriptionCoverage.intervals(of: [Self.row(.trialStart, id: "1", from: 0)]).first?.monthlyMilliunits == 0)
    }

    @Test func recordingARowChangesTheDaysItMoves() {
        let first = Self.row(.purchase, id: "1", from: 0)
        let opened = SubscriptionCoverage.changes(before: [], recorded: [first])
        #expect(Set(opened.map { "\($0.key.day) \($0.subscriptions) \($0.mrrMilliunits)" }) == ["0 1 9990", "30 -1 -9990"])
        // A refund on day 10: from then on one fewer, not from day 30.
        let refunded = SubscriptionCoverage.changes(before: [first], recorded: [Self.row(.refund, id: "1", from: 0, amount: -9_990, at: 10)])
        #expect(Set(refunded.map { "\($0.key.day) \($0.subscriptions)" }) == ["10 -1", "30 1"])
        // The same row again changes nothing.
        #expect(SubscriptionCoverage.changes(before: [first], recorded: []).isEmpty)
    }
}
