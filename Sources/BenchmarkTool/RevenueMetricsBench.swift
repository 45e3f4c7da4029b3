import CivilCalendar
import EntitlementDomain
import EntitlementStorage
import Foundation
import TestSupport

/// GetMetrics over a business with a million customers: seeds their subscriptions' ledger rows with the daily totals
/// and events the engine keeps beside them (``SubscriptionCoverage``, ``SubscriptionEvent``: what
/// `StorePurchases.recordLedgerEntries` writes), then times the engine's series, which are what the RPC runs besides
/// mapping.
///
/// Customer `n` of tenant `bench` holds one subscription begun on a day of the last two years: the App Store, Play or
/// Stripe in turn, monthly (four in five) or yearly, in one of five countries and their currencies, three in ten
/// starting with a seven-day free trial (seven in ten of those converting), each period renewed with probability 0.85
/// (one in twenty after a lapse of 3 to 20 days), one payment in thirty refunded. About five ledger rows a customer.
enum RevenueMetricsBench {
    static let tenantID = "bench"
    static let batch = 20_000

    static func repository(_ databasePath: String) throws -> SQLRepository {
        databasePath.hasPrefix("postgres:")
            ? try PostgresRepository(conninfo: String(databasePath.dropFirst("postgres:".count)))
            : try SQLiteRepository(path: databasePath, synchronous: .normal)
    }

    static func seed(databasePath: String, customers: Int) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let repository = try repository(databasePath)
        let today = Int64(Date().timeIntervalSince1970 * 1000) / Milliseconds.perDay
        var generator = SeededRandomNumberGenerator(seed: 40)
        var rows = 0
        for start in stride(from: 0, to: customers, by: batch) {
            try repository.write { transaction in
                for n in start..<min(start + batch, customers) {
                    let created = UnixTime(milliseconds: (today - 730) * Milliseconds.perDay + Int64(n))
                    let customer = try transaction.createCustomer(
                        tenantID: tenantID, appUserID: "bench-payer-\(n)", isAnonymous: false, at: created)
                    let entries = ledger(of: n, customerID: customer.id, today: today, &generator)
                    rows += entries.count
                    _ = try transaction.recordLedgerEntries(entries, at: created)
                    try transaction.addSubscriptionDays(SubscriptionCoverage.changes(before: [], recorded: entries))
                    try transaction.changeSubscriptionEvents(removing: [], adding: SubscriptionEvent.events(of: entries))
                }
            }
        }
        print("seeded \(customers) customers, \(rows) ledger rows in \(AppStoreBench.format(AppStoreBench.seconds(started.duration(to: clock.now)))) s")
    }

    static func ledger(of n: Int, customerID: Int64, today: Int64, _ generator: inout SeededRandomNumberGenerator) -> [LedgerEntry] {
        let store = [Store.appStore, .playStore, .stripe][n % 3]
        let yearly = generator.chance(0.2)
        let (country, currency) = [("US", "USD"), ("DE", "EUR"), ("FR", "EUR"), ("GB", "GBP"), ("JP", "JPY")][
            Int(generator.next() % 5)]
        let periodDays: Int64 = yearly ? 365 : 30
        let price: Int64 = yearly ? 59_990 : 9_990
        let product = yearly ? "pro.yearly" : "pro.monthly"
        var day = today - 730 + Int64(generator.next() % 730)
        var entries: [LedgerEntry] = []
        func row(_ kind: MovementKind, id: Int, from: Int64, days: Int64, amount: Int64, offer: OfferKind = .none)
            -> LedgerEntry
        {
            LedgerEntry(
                tenantID: tenantID, store: store, transactionID: "bench-\(n)-\(id)", kind: kind,
                originalTransactionID: "bench-\(n)", customerID: customerID, productID: product,
                entitlementIDs: ["pro"], environment: .production, country: country, offer: offer,
                periodStart: UnixTime(milliseconds: from * Milliseconds.perDay + 3_600_000),
                periodEnd: days > 0 ? UnixTime(milliseconds: (from + days) * Milliseconds.perDay + 3_600_000) : nil,
                amount: PurchasePrice(milliunits: amount, currency: currency), proceedsMilliunits: amount * 7 / 10,
                occurredAt: UnixTime(milliseconds: from * Milliseconds.perDay + 3_600_000))
        }
        var kind = MovementKind.purchase
        if generator.chance(0.3) {
            entries.append(row(.trialStart, id: 0, from: day, days: 7, amount: 0, offer: .freeTrial))
            day += 7
            guard generator.chance(0.7), day <= today else { return entries }
            kind = .trialConversion
        }
        var id = 1
        while day <= today {
            entries.append(row(kind, id: id, from: day, days: periodDays, amount: price))
            if generator.chance(1.0 / 30), day + 3 <= today {
                entries.append(row(.refund, id: id, from: day + 3, days: 0, amount: -price))
            }
            guard generator.chance(0.85) else { break }
            day += periodDays + (generator.chance(0.05) ? 3 + Int64(generator.next() % 18) : 0)
            kind = .renewal
            id += 1
        }
        return entries
    }

    /// Times the series a dashboard asks for over the last 365 days, `runs` times each.
    static func queries(databasePath: String, runs: Int) throws {
        let engine = CustomerEngine(repository: try repository(databasePath))
        let today = Int64(Date().timeIntervalSince1970 * 1000) / Milliseconds.perDay
        func query(_ metric: RevenueMetric, _ interval: MetricInterval = .day, groupBy: [RevenueDimension] = [])
            -> MetricQuery
        {
            MetricQuery(
                metric: metric, tenantID: tenantID, environment: .production, firstDay: today - 364, lastDay: today,
                interval: interval, groupBy: groupBy)
        }
        let series: [(String, MetricQuery)] = [
            ("MRR, 365 days", query(.mrr)),
            ("MRR, 365 days by country", query(.mrr, groupBy: [.country])),
            ("active subscriptions, 365 days", query(.activeSubscriptions)),
            ("revenue, 365 days", query(.revenue)),
            ("revenue, 365 days by store and country", query(.revenue, groupBy: [.store, .country])),
            ("churn, 12 months", query(.churn, .month)),
            ("churn, 365 days", query(.churn)),
            ("trial conversion rate, 52 weeks", query(.trialConversionRate, .week)),
        ]
        for (name, metricQuery) in series {
            SubscriberQueriesBench.report(name, runs: runs) {
                let answer = try engine.revenueMetrics.series(metricQuery)
                guard answer.contains(where: { $0.points.contains { $0.value != 0 } }) else { fail("\(name): no figures") }
            }
        }
        // A click on a point: the first page of what it counts.
        let points: [(String, MetricQuery)] = [
            ("ListMetricRows, today's MRR in USD", query(.mrr)),
            ("ListMetricRows, churn of the last 30 days", query(.churn)),
            ("ListMetricRows, yesterday's revenue in USD", query(.revenue)),
        ]
        for (name, var pointQuery) in points {
            pointQuery.firstDay = pointQuery.metric == .churn ? today - 29 : today - (pointQuery.metric == .mrr ? 0 : 1)
            pointQuery.lastDay = pointQuery.metric == .revenue ? today - 1 : today
            SubscriberQueriesBench.report(name, runs: runs) {
                let page = try engine.revenueMetrics.rows(
                    pointQuery, group: [:], currency: pointQuery.metric == .churn ? nil : "USD", pageSize: 100,
                    pageToken: "")
                guard !page.rows.isEmpty else { fail("\(name): no rows") }
            }
        }
    }
}

extension SeededRandomNumberGenerator {
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }
}
