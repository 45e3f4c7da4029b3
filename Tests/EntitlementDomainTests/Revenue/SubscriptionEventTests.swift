import CivilCalendar
import EntitlementDomain
import Testing

/// Lapses, reactivations and trial conversions from a subscription's ledger rows, and churn counted from them.
@Suite struct SubscriptionEventTests {
    typealias Row = SubscriptionCoverageTests

    func described(_ events: [SubscriptionEvent]) -> [String] {
        events.map { event in
            switch event.kind {
            case .lapse: "lapse \(event.day) run \(event.runStart) gap \(event.gapStart)..<\(event.gapEnd == SubscriptionEvent.never ? "never" : "\(event.gapEnd)")"
            case .reactivation: "reactivation \(event.day) \(event.entry.transactionID)"
            case .trialConversion: "conversion \(event.day) \(event.entry.transactionID)"
            }
        }.sorted()
    }

    @Test func runsJoinWhereTheyTouchAndEachGapIsPairedWithTheLapsesBeforeIt() {
        let rows = [
            Row.row(.purchase, id: "1", from: 0, days: 10), Row.row(.renewal, id: "2", from: 10, days: 10),
            // Lapsed on day 20, back on 25 until 30, back on 60 until 90.
            Row.row(.renewal, id: "3", from: 25, days: 5), Row.row(.renewal, id: "4", from: 60, days: 30),
        ]
        #expect(
            described(SubscriptionEvent.events(of: rows)) == [
                "lapse 20 run 0 gap 20..<25", "lapse 20 run 0 gap 30..<60", "lapse 30 run 25 gap 30..<60",
                "lapse 90 run 60 gap 90..<never", "reactivation 25 3", "reactivation 60 4",
            ])
    }

    @Test func aTrialConvertsWhenPaidForByItsEndPlusTheWindow() {
        let trial = Row.row(.trialStart, id: "1", from: 0, days: 7)
        #expect(described(SubscriptionEvent.events(of: [trial, Row.row(.trialConversion, id: "2", from: 7)])).contains("conversion 0 1"))
        let late = Row.row(.renewal, id: "2", from: 7 + SubscriptionEvent.trialConversionDays + 1)
        #expect(!described(SubscriptionEvent.events(of: [trial, late])).contains("conversion 0 1"))
        let lastDay = Row.row(.renewal, id: "2", from: 7 + SubscriptionEvent.trialConversionDays)
        #expect(described(SubscriptionEvent.events(of: [trial, lastDay])).contains("conversion 0 1"))
        // A paid period from before the trial is not its conversion; a trial alone is no paid run.
        #expect(described(SubscriptionEvent.events(of: [Row.row(.purchase, id: "0", from: -40), trial])) == [
            "lapse -10 run -40 gap -10..<never"
        ])
    }

    /// Random subscriptions: churn in every period of up to a month, counted from the events, equals the number paid
    /// for at the end of the day before it and not at the end of its last day, from the days themselves.
    @Test func churnFromEventsIsPaidAtTheStartAndNotAtTheEnd() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var rows: [LedgerEntry] = []
            var day = Int64.random(in: 0..<20, using: &generator)
            for index in 0..<Int.random(in: 1..<8, using: &generator) {
                let length = Int64.random(in: 1..<12, using: &generator)
                rows.append(Row.row(index == 0 ? .purchase : .renewal, id: "\(index)", from: day, days: length))
                day += length + [0, 0, 1, 3, 9, 40].randomElement(using: &generator)!
            }
            let paid = Set(SubscriptionCoverage.intervals(of: rows).flatMap { Array($0.days) })
            let events = SubscriptionEvent.events(of: rows)
            for first in Int64(-2)..<day + 2 {
                for length in Int64(1)...SubscriptionEvent.longestPeriodDays {
                    let period = first...(first + length - 1)
                    let churned = paid.contains(first - 1) && !paid.contains(period.upperBound) ? 1 : 0
                    #expect(events.filter { $0.isChurn(in: period) }.count == churned, "\(rows.map(\.periodStart)) \(period)")
                }
            }
            // Reactivations: each paid day after an unpaid one, once the subscription had been paid for.
            let firstPaid = paid.min() ?? 0
            let returns = paid.filter { $0 > firstPaid && !paid.contains($0 - 1) }.sorted()
            #expect(events.filter { $0.kind == .reactivation }.map(\.day).sorted() == returns)
        }
    }
}
