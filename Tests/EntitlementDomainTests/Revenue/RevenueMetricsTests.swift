import CivilCalendar
import Testing

@testable import EntitlementDomain

/// Metric series from daily totals: which movements each metric counts, periods cut at the range's ends, one series
/// per group and currency, entitlements each a group of their own.
@Suite struct RevenueMetricsTests {
    /// Reads totals from ledger rows, as the in-memory repository does.
    struct Ledger: RevenueReads {
        var entries: [LedgerEntry]
        var observations: [BillingObservation] = []
        func revenueTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [RevenueTotal] {
            try RevenueTotal.totals(of: entries, matching: query)
        }

        func subscriptionTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [SubscriptionTotal] {
            try SubscriptionTotal.totals(of: entries, observations: observations, matching: query)
        }

        func subscriptionEventTotals(
            _ query: RevenueTotalsQuery, kind: SubscriptionEvent.Kind, periods: [ClosedRange<Int64>]
        ) throws(StorageError) -> [SubscriptionEventTotal] {
            try SubscriptionEventTotal.totals(of: entries, kind: kind, matching: query, periods: periods)
        }

        func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) -> [LedgerEntry] {
            entries.filter { $0.store == store && $0.originalTransactionID == originalTransactionID }
        }

        func billingObservations(tenantID: String, environment: PurchaseEnvironment, due: ClosedRange<UnixTime>)
            -> [(observation: BillingObservation, appUserID: String)]
        {
            // One subscription at most in these tests: all of its observations when any is due in the range.
            observations.contains { due.contains($0.dueAt) } ? observations.map { ($0, "") } : []
        }

        func ledgerRows(_ query: LedgerRowsQuery) throws(StorageError) -> [LedgerRow] {
            let eventRows = query.eventRows(in: entries)
            return entries.filter { entry in
                entry.isSelected(by: query, eventRows: eventRows) && query.after.map { query.orders($0, before: LedgerRowKey(entry)) } ?? true
            }
                .sorted { query.orders(LedgerRowKey($0), before: LedgerRowKey($1)) }.prefix(query.limit).map { LedgerRow(entry: $0, appUserID: "") }
        }
    }

    /// 2026-03-01, a Sunday.
    static let march1 = CivilCalendar.days(fromYear: 2026, month: 3, day: 1)

    static func entry(
        _ kind: MovementKind, day: Int64, amount: Int64, currency: String = "USD", product: String = "monthly",
        entitlements: [String] = ["pro"], store: Store = .appStore, id: Int
    ) -> LedgerEntry {
        LedgerEntry(
            tenantID: "t", store: store, transactionID: "\(id)", kind: kind, originalTransactionID: "o\(id)",
            customerID: nil, productID: product, entitlementIDs: entitlements, environment: .production, country: "US",
            offer: kind == .trialStart ? .freeTrial : .none,
            periodStart: UnixTime(milliseconds: day * Milliseconds.perDay), periodEnd: nil,
            amount: PurchasePrice(milliunits: amount, currency: currency), proceedsMilliunits: amount * 7 / 10,
            occurredAt: UnixTime(milliseconds: day * Milliseconds.perDay + 3_600_000))
    }

    static let ledger = Ledger(entries: [
        entry(.trialStart, day: march1, amount: 0, id: 1),
        entry(.purchase, day: march1, amount: 9_990, id: 2),
        entry(.trialConversion, day: march1 + 1, amount: 9_990, id: 3),
        entry(.renewal, day: march1 + 8, amount: 9_990, currency: "EUR", id: 4),
        entry(.oneTime, day: march1 + 8, amount: 29_990, product: "lifetime", entitlements: ["pro", "plus"], id: 5),
        entry(.refund, day: march1 + 9, amount: -9_990, id: 6),
        entry(.chargeback, day: march1 + 31, amount: -29_990, product: "lifetime", entitlements: ["pro", "plus"], id: 7),
        entry(.refundReversal, day: march1 + 40, amount: 9_990, id: 8),
        entry(.productChange, day: march1 + 40, amount: 4_000, store: .playStore, id: 9),
    ])

    func series(
        _ metric: RevenueMetric, _ days: ClosedRange<Int64>, _ interval: MetricInterval = .day,
        groupBy: [RevenueDimension] = [], filter: [RevenueDimension: String] = [:]
    ) throws -> [MetricSeries] {
        try series(metric, from: days.lowerBound, to: days.upperBound, interval, groupBy: groupBy, filter: filter)
    }

    func series(
        _ metric: RevenueMetric, from first: Int64, to last: Int64, _ interval: MetricInterval = .day,
        groupBy: [RevenueDimension] = [], filter: [RevenueDimension: String] = [:]
    ) throws -> [MetricSeries] {
        try RevenueMetrics(repository: Self.ledger).series(
            MetricQuery(
                metric: metric, tenantID: "t", environment: .production, firstDay: first, lastDay: last,
                interval: interval, groupBy: groupBy, filter: filter))
    }

    @Test func eachMetricCountsItsMovements() throws {
        let month = Self.march1...(Self.march1 + 40)
        func total(_ metric: RevenueMetric, currency: String = "USD") throws -> Int64 {
            try series(metric, month, .month).first { $0.currency == currency }?.points.map(\.value).reduce(0, +) ?? 0
        }
        #expect(try total(.revenue) == 9_990 + 9_990 + 29_990 + 4_000 && total(.revenue, currency: "EUR") == 9_990)
        #expect(try total(.refunds) == -9_990 - 29_990 + 9_990)
        #expect(try total(.netRevenue) == 9_990 + 9_990 + 29_990 + 4_000 - 29_990)
        #expect(try total(.proceeds) == (9_990 * 2 + 29_990 + 4_000 - 9_990 - 29_990 + 9_990) * 7 / 10)
        #expect(try total(.newSubscriptions, currency: "") == 2 && total(.trialStarts, currency: "") == 1)
        #expect(try total(.trialConversions, currency: "") == 1 && total(.renewals, currency: "") == 1)
        let rate = try #require(try series(.refundRate, month, .month).first)
        // Refunds and chargebacks less a reversal, over the paid payments (the trial start is none).
        #expect(rate.currency == "" && rate.points.map(\.value).reduce(0, +) == 1)
        #expect(rate.points.map(\.denominator).reduce(0, +) == 5)
    }

    /// Days without a rate are listed once each, ascending, in whatever order their amounts came.
    @Test func missingRateDaysAreListedOnceInOrder() throws {
        let rates = try ExchangeRates(reportingCurrency: "USD", rates: [])
        var conversion = PointConversion()
        for (day, currency) in [(5, "EUR"), (2, "EUR"), (5, "GBP"), (9, "EUR"), (0, "GBP"), (2, "EUR")] {
            try conversion.add(1_000, on: Int64(day), currency: currency, rates: rates)
        }
        #expect(conversion.missingDays == [0, 2, 5, 9])
        #expect(conversion.value == nil)
    }

    /// EUR amounts in USD: each day's at its rate (the latest of the week before), a day without one reported and
    /// its period left unconverted; USD as it is; rates shown once each.
    @Test func amountsConvertAtEachDaysRateAndAMissingRateIsReported() throws {
        let rates = try ExchangeRates(
            reportingCurrency: "USD",
            rates: [("EUR", DatedRate(day: Self.march1 + 5, rate: try ExchangeRate(text: "1.1")))])
        func converted(_ metric: RevenueMetric, _ days: ClosedRange<Int64>, _ interval: MetricInterval) throws
            -> [String: [PointConversion?]]
        {
            var query = MetricQuery(
                metric: metric, tenantID: "t", environment: .production, firstDay: days.lowerBound,
                lastDay: days.upperBound, interval: interval)
            query.exchangeRates = rates
            return Dictionary(
                uniqueKeysWithValues: try RevenueMetrics(repository: Self.ledger).series(query).map {
                    ($0.currency, $0.points.map(\.conversion))
                })
        }
        let revenue = try converted(.revenue, Self.march1...(Self.march1 + 14), .week)
        // The EUR renewal on day 8, at day 5's 1.1; the week of day 8 holds it.
        let euro = try #require(revenue["EUR"]?[2])
        let used = DatedRate(day: Self.march1 + 5, rate: try ExchangeRate(text: "1.1"))
        #expect(euro.value == 10_989 && euro.rates == [used])
        #expect(revenue["EUR"]?[0]?.value == 0 && revenue["EUR"]?[0]?.rates == [], "nothing to convert")
        #expect(revenue["USD"]?[0]?.value == 9_990 && revenue["USD"]?[0]?.rates.first?.rate == .one)
        let usdLate = try #require(try converted(.netRevenue, (Self.march1 + 38)...(Self.march1 + 41), .month)["USD"]?[0])
        #expect(usdLate.value == 9_990 + 4_000 && usdLate.missingDays == [])
        let renewalLater = try converted(.revenue, (Self.march1 + 8)...(Self.march1 + 8), .day)
        #expect(renewalLater["EUR"]?[0]?.value == 10_989)
        let tooLate = try ExchangeRates(
            reportingCurrency: "USD",
            rates: [("EUR", DatedRate(day: Self.march1, rate: try ExchangeRate(text: "1.1")))])
        var query = MetricQuery(
            metric: .revenue, tenantID: "t", environment: .production, firstDay: Self.march1, lastDay: Self.march1 + 9,
            interval: .month)
        query.exchangeRates = tooLate
        let missing = try #require(try RevenueMetrics(repository: Self.ledger).series(query).first { $0.currency == "EUR" })
        #expect(missing.points[0].conversion?.value == nil && missing.points[0].conversion?.missingDays == [Self.march1 + 8])
        // Counts are never converted.
        query.metric = .renewals
        #expect(try RevenueMetrics(repository: Self.ledger).series(query).allSatisfy { $0.points.allSatisfy { $0.conversion == nil } })
    }

    @Test func periodsAreDaysWeeksOrMonthsCutAtTheRangesEnds() throws {
        let days = try #require(try series(.revenue, Self.march1...(Self.march1 + 2)).first { $0.currency == "USD" })
        #expect(days.points.map(\.firstDay) == [Self.march1, Self.march1 + 1, Self.march1 + 2])
        #expect(days.points.map(\.value) == [9_990, 9_990, 0])
        // March 1st is a Sunday: the first week is that one day, then Monday to Sunday.
        let weeks = try #require(try series(.revenue, Self.march1...(Self.march1 + 15), .week).first { $0.currency == "USD" })
        #expect(weeks.points.map(\.firstDay) == [Self.march1, Self.march1 + 1, Self.march1 + 8, Self.march1 + 15])
        #expect(weeks.points.map(\.value) == [9_990, 9_990, 29_990, 0])
        let months = try #require(try series(.revenue, (Self.march1 + 10)...(Self.march1 + 45), .month).first)
        #expect(months.points.map(\.firstDay) == [Self.march1 + 10, CivilCalendar.days(fromYear: 2026, month: 4, day: 1)])
        #expect(try series(.revenue, (Self.march1 + 100)...(Self.march1 + 120)).isEmpty, "nothing moved: no series")
    }

    @Test func eachEntitlementIsAGroupAndFiltersNarrow() throws {
        let byEntitlement = try series(.revenue, Self.march1...(Self.march1 + 40), .month, groupBy: [.entitlements])
        let usd = byEntitlement.filter { $0.currency == "USD" }
        #expect(usd.map { $0.group[.entitlements] } == ["plus", "pro"])
        let sums: [Int64] = usd.map { $0.points.map(\.value).reduce(0, +) }
        let proTotal: Int64 = 9_990 * 2 + 29_990 + 4_000
        #expect(sums == [29_990, proTotal])
        let play = try series(.revenue, Self.march1...(Self.march1 + 40), .month, filter: [.store: "play_store"])
        #expect(play.map(\.currency) == ["USD"] && play[0].points.map(\.value).reduce(0, +) == 4_000)
        let plus = try series(.netRevenue, Self.march1...(Self.march1 + 40), .month, groupBy: [.product], filter: [.entitlements: "plus"])
        #expect(plus.map { $0.group[.product] } == ["lifetime"] && plus[0].points.map(\.value) == [29_990, -29_990])
    }

    @Test func aRangeMustBeOneAndNotTooLong() throws {
        #expect(throws: DomainError.self) { try series(.revenue, from: 10, to: 9) }
        #expect(throws: DomainError.self) { try series(.revenue, 0...MetricQuery.maximumDays) }
        #expect(throws: DomainError.self) { try series(.revenue, 0...1, groupBy: [.store, .store]) }
        #expect(throws: DomainError.self) { try series(.revenue, 0...1, filter: [.product: "a\u{0}b"]) }
        let long = String(repeating: "p", count: 257)
        #expect(throws: DomainError.self) { try series(.revenue, 0...1, filter: [.product: long]) }
        #expect(try series(.revenue, 0...(MetricQuery.maximumDays - 1)).isEmpty)
    }

    @Test func thePointsRowsAreWhatItCountsAPageAtATime() throws {
        let metrics = RevenueMetrics(repository: Self.ledger)
        let month = MetricQuery(
            metric: .refundRate, tenantID: "t", environment: .production, firstDay: Self.march1,
            lastDay: Self.march1 + 40)
        var ids: [String] = []
        var token = ""
        repeat {
            let page = try metrics.rows(month, group: [:], currency: nil, pageSize: 2, pageToken: token)
            #expect(page.rows.count <= 2)
            ids += page.rows.map(\.entry.transactionID)
            token = page.nextPageToken
        } while !token.isEmpty
        // Every row but the trial start, in time order.
        #expect(ids == ["2", "3", "4", "5", "6", "7", "8", "9"])
        let plus = try metrics.rows(
            MetricQuery(metric: .netRevenue, tenantID: "t", environment: .production, firstDay: Self.march1,
                lastDay: Self.march1 + 40), group: [.entitlements: "plus"], currency: "USD", pageSize: 0, pageToken: "")
        #expect(plus.rows.map(\.entry.transactionID) == ["5", "7"] && plus.nextPageToken.isEmpty)
        // A token is the query's: another point's, or bytes it did not issue, are refused.
        let first = try metrics.rows(month, group: [:], currency: nil, pageSize: 1, pageToken: "")
        var other = month
        other.lastDay -= 1
        #expect(throws: DomainError.self) { try metrics.rows(other, group: [:], currency: nil, pageSize: 1, pageToken: first.nextPageToken) }
        #expect(throws: DomainError.self) { try metrics.rows(month, group: [:], currency: nil, pageSize: 1, pageToken: "AQID") }
        #expect(throws: DomainError.self) { try metrics.rows(month, group: [:], currency: nil, pageSize: 1001, pageToken: "") }
        #expect(throws: DomainError.self) {
            try metrics.rows(
                MetricQuery(metric: .revenue, tenantID: "t", environment: .production, firstDay: 0, lastDay: 1,
                    filter: [.store: "stripe"]), group: [.store: "app_store"], currency: nil, pageSize: 1, pageToken: "")
        }
    }

    @Test func aStateIsReadAtEachPeriodsLastDay() throws {
        let start = Self.march1
        func paid(_ kind: MovementKind, id: Int, from: Int64, days: Int64, amount: Int64) -> LedgerEntry {
            var entry = Self.entry(kind, day: from, amount: amount, id: id)
            entry.originalTransactionID = "sub"
            entry.periodStart = UnixTime(milliseconds: from * Milliseconds.perDay)
            entry.periodEnd = UnixTime(milliseconds: (from + days) * Milliseconds.perDay)
            return entry
        }
        let ledger = Ledger(entries: [
            paid(.trialStart, id: 1, from: start, days: 7, amount: 0),
            paid(.trialConversion, id: 2, from: start + 7, days: 30, amount: 9_990),
            paid(.productChange, id: 3, from: start + 20, days: 365, amount: 119_880),
        ])
        func values(_ metric: RevenueMetric, _ interval: MetricInterval) throws -> [Int64] {
            try RevenueMetrics(repository: ledger).series(
                MetricQuery(metric: metric, tenantID: "t", environment: .production, firstDay: start - 1,
                    lastDay: start + 40, interval: interval)
            ).first?.points.map(\.value) ?? []
        }
        // Weeks end on Sundays: March 1st (the trial's first day), then days 7, 14, 21, 28 and 35; the range on 40.
        #expect(try values(.activeTrials, .week) == [1, 0, 0, 0, 0, 0, 0])
        #expect(try values(.activeSubscriptions, .week) == [0, 1, 1, 1, 1, 1, 1])
        // A month's worth of the monthly plan, then of the yearly one (119.88 / 12).
        #expect(try values(.mrr, .week) == [0, 9_990, 9_990, 9_990, 9_990, 9_990, 9_990])
        // February's last day, March 31st and the range's last day.
        #expect(try values(.mrr, .month) == [0, 9_990, 9_990])
    }
}
