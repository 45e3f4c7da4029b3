import CivilCalendar

/// Metric series from the revenue ledger's daily totals (``RevenueReads``): one read of the range's totals, grouped
/// as asked, folded into periods. A read of the database, never a write, like the subscriber queries.
public final class RevenueMetrics: Sendable {
    /// The longest dimension value a filter takes (a product ID's limit).
    static let maximumFilterBytes = 256

    let repository: any RevenueReads

    init(repository: any RevenueReads) {
        self.repository = repository
    }

    /// The series `query` asks for, ordered by group values then currency; INVALID_ARGUMENT for a range that is
    /// empty or longer than ``MetricQuery/maximumDays``, a dimension grouped twice, or a filter value no dimension
    /// could have.
    public func series(_ query: MetricQuery) throws(DomainError) -> [MetricSeries] {
        try Self.validate(query)
        if query.metric.isState {
            let starts = Self.periodStarts(query)
            let lastDays = starts.indices.map { Self.lastDay(of: $0, in: starts, query) }
            var values = try stateValues(query, at: lastDays).filter { $0.value.contains { $0.value != 0 } }
            if let rates = query.exchangeRates, query.metric.isAmount {
                for (key, points) in values {
                    values[key] = try points.enumerated().map { (index, point) throws(DomainError) in
                        var point = point
                        point.conversion = PointConversion()
                        try point.conversion?.add(point.value, on: lastDays[index], currency: key.currency, rates: rates)
                        return point
                    }
                }
            }
            return Self.ordered(values)
        }
        let starts = Self.periodStarts(query)
        var series: [SeriesKey: [MetricPoint]] = [:]
        // Each series' amount per day, to convert at the day's rate.
        var daily: [SeriesKey: [Int64: Int64]] = [:]
        func add(_ value: Int64, _ denominator: Int64, day: Int64, group: [RevenueDimension: String], currency: String)
            throws(DomainError)
        {
            let index = Self.period(of: day, in: starts)
            for group in Self.groups(of: group, by: query.groupBy) {
                let key = SeriesKey(group: group, currency: query.metric.isAmount ? currency : "")
                var points = series[key] ?? starts.map { MetricPoint(firstDay: $0, value: 0, denominator: 0) }
                points[index].value = try Self.adding(points[index].value, value)
                points[index].denominator = try Self.adding(points[index].denominator, denominator)
                series[key] = points
                if query.metric.isAmount, query.exchangeRates != nil {
                    daily[key, default: [:]][day] = try Self.adding(daily[key]?[day] ?? 0, value)
                }
            }
        }
        for total in try movementTotals(query) {
            let (value, denominator) = query.metric.contribution(of: total)
            guard value != 0 || denominator != 0 else { continue }
            try add(value, denominator, day: total.day, group: total.group, currency: total.currency)
        }
        if let kind = query.metric.eventKind {
            let periods = starts.indices.map { starts[$0]...Self.lastDay(of: $0, in: starts, query) }
            for total in try eventTotals(query, kind: kind, periods: periods) {
                try add(total.events, 0, day: total.day, group: total.group, currency: "")
            }
        }
        if query.metric == .churn {
            // Churn's denominator: the subscriptions paid for at each period's start.
            var actives = query
            actives.metric = .activeSubscriptions
            let days = starts.map { $0 - 1 }
            for (key, values) in try stateValues(actives, at: days) {
                for (index, value) in values.enumerated() where value.value != 0 {
                    try add(0, value.value, day: starts[index], group: key.group, currency: "")
                }
            }
        }
        if let rates = query.exchangeRates, query.metric.isAmount {
            for (key, days) in daily {
                var points = series[key] ?? []
                for index in points.indices { points[index].conversion = PointConversion() }
                for (day, amount) in days.sorted(by: { $0.key < $1.key }) {
                    try points[Self.period(of: day, in: starts)].conversion?.add(
                        amount, on: day, currency: key.currency, rates: rates)
                }
                series[key] = points
            }
        }
        return Self.ordered(series.map { $0 })
    }

    private func movementTotals(_ query: MetricQuery) throws(DomainError) -> [RevenueTotal] {
        guard query.metric.countsMovements else { return [] }
        return try DomainError.reading { () throws(StorageError) in
            try repository.revenueTotals(
                RevenueTotalsQuery(
                    tenantID: query.tenantID, environment: query.environment, days: query.firstDay...query.lastDay,
                    groupBy: Set(query.groupBy), filter: query.filter))
        }
    }

    private func eventTotals(_ query: MetricQuery, kind: SubscriptionEvent.Kind, periods: [ClosedRange<Int64>])
        throws(DomainError) -> [SubscriptionEventTotal]
    {
        try DomainError.reading { () throws(StorageError) in
            try repository.subscriptionEventTotals(
                RevenueTotalsQuery(
                    tenantID: query.tenantID, environment: query.environment, days: query.firstDay...query.lastDay,
                    groupBy: Set(query.groupBy), filter: query.filter),
                kind: kind, periods: periods)
        }
    }

    /// Each group's state (``RevenueMetric/coverageState``) at the end of each of `days` (ascending, from the day
    /// before the range's first to its last): the running sum of its daily changes, as a point per day.
    private func stateValues(_ query: MetricQuery, at days: [Int64]) throws(DomainError) -> [SeriesKey: [MetricPoint]] {
        let changes = try DomainError.reading { () throws(StorageError) in
            try repository.subscriptionTotals(
                RevenueTotalsQuery(
                    tenantID: query.tenantID, environment: query.environment, days: query.firstDay...query.lastDay,
                    groupBy: Set(query.groupBy), filter: query.filter))
        }
        let state = query.metric.coverageState
        // Each series' change per day of the range, the days before it folded into the day before its first.
        var daily: [SeriesKey: [Int64: Int64]] = [:]
        for total in changes where total.state == state {
            let change = query.metric.isAmount ? total.mrrMilliunits : total.subscriptions
            guard change != 0 else { continue }
            for group in Self.groups(of: total.group, by: query.groupBy) {
                let key = SeriesKey(group: group, currency: query.metric.isAmount ? total.currency : "")
                daily[key, default: [:]][total.day] = try Self.adding(daily[key]?[total.day] ?? 0, change)
            }
        }
        let starts = Self.periodStarts(query)
        var values: [SeriesKey: [MetricPoint]] = [:]
        for (key, changes) in daily {
            var running: Int64 = 0
            var day = query.firstDay - 1
            var points: [MetricPoint] = []
            for (index, until) in days.enumerated() {
                while day <= until {
                    running = try Self.adding(running, changes[day] ?? 0)
                    day += 1
                }
                points.append(MetricPoint(firstDay: starts[index], value: running, denominator: 0))
            }
            values[key] = points
        }
        return values
    }

    /// The last day of the period `index` of the range's.
    private static func lastDay(of index: Int, in starts: [Int64], _ query: MetricQuery) -> Int64 {
         index + 1 < starts.count ? starts[index + 1] - 1 : query.lastDay
    }

    private static func ordered(_ series: some Sequence<(key: SeriesKey, value: [MetricPoint])>) -> [MetricSeries] {
        series.map { MetricSeries(group: $0.key.group, currency: $0.key.currency, points: $0.value) }
            .sorted { order($0).lexicographicallyPrecedes(order($1)) }
    }

    private struct SeriesKey: Hashable {
        var group: [RevenueDimension: String]
        var currency: String
    }

    static func validate(_ query: MetricQuery) throws(DomainError) {
        guard query.firstDay <= query.lastDay else {
            throw .invalidRequest("The range ends before it starts: end_date must be on or after start_date.")
        }
        guard query.lastDay - query.firstDay < MetricQuery.maximumDays else {
            throw .invalidRequest("The range is longer than \(MetricQuery.maximumDays) days; ask for a shorter one.")
        }
        guard Set(query.groupBy).count == query.groupBy.count else {
            throw .invalidRequest("group_by names a dimension twice.")
        }
        for (_, value) in query.filter
        where value.utf8.count > maximumFilterBytes
            || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw .invalidRequest(
                "A filter value is longer than \(maximumFilterBytes) bytes or holds control characters: no store, product, entitlement, country or offer kind does.")
        }
    }

    /// The first day of each period of the range: the range's first day, then each interval's start.
    static func periodStarts(_ query: MetricQuery) -> [Int64] {
        var starts = [query.firstDay]
        var next = query.interval.next(after: query.interval.start(of: query.firstDay))
        while next <= query.lastDay {
            starts.append(next)
            next = query.interval.next(after: next)
        }
        return starts
    }

    /// The index of the period `day` falls in (`starts` ascending, `day` at or after the first).
    static func period(of day: Int64, in starts: [Int64]) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= day { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The groups a total of `group` counts in: one, or one per entitlement when grouped by entitlement (none: the
    /// group "").
    static func groups(of group: [RevenueDimension: String], by dimensions: [RevenueDimension]) -> [[RevenueDimension: String]] {
        let base = group.filter { $0.key != .entitlements }
        guard dimensions.contains(.entitlements) else { return [base] }
        let entitlements = (group[.entitlements] ?? "").split(separator: " ").map(String.init)
        return (entitlements.isEmpty ? [""] : entitlements).map { entitlement in
            var group = base
            group[.entitlements] = entitlement
            return group
        }
    }

    private static func order(_ series: MetricSeries) -> [String] {
        RevenueDimension.allCases.map { series.group[$0] ?? "" } + [series.currency]
    }

    private static func adding(_ a: Int64, _ b: Int64) throws(DomainError) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw .internalError("A metric's value does not fit in 64 bits.") }
        return sum
    }
}

/// A page of the ledger rows behind a metric's point.
public struct LedgerRowPage: Sendable, Hashable {
    public static let defaultSize = 100
    public static let maximumSize = 1000

    public var rows: [LedgerRow]
    /// Empty on the last page.
    public var nextPageToken: String
}

extension RevenueMetrics {
    /// The ledger rows behind the point of `query.metric` for days `query.firstDay` to `query.lastDay` (a point's
    /// period, or any range), in `group` (each grouped dimension's value; an entitlement: rows whose product gave it)
    /// and `currency` (nil: every currency, as counts and rates add them up), in time order (a state's newest first),
    /// a page at a time. A
    /// figure of subscription events lists each event's row: a churned subscription's last payment, a reactivation's
    /// first, a converted trial's start.
    public func rows(
        _ query: MetricQuery, group: [RevenueDimension: String], currency: String?, pageSize: Int, pageToken: String
    ) throws(DomainError) -> LedgerRowPage {
        try Self.validate(query)
        guard (0...LedgerRowPage.maximumSize).contains(pageSize) else {
            throw .invalidRequest(
                "page_size must be 0 (the default, \(LedgerRowPage.defaultSize)) to \(LedgerRowPage.maximumSize); got \(pageSize).")
        }
        var values = query.filter
        for (dimension, value) in group {
            if let filtered = values[dimension], filtered != value {
                throw .invalidRequest("The group's \(dimension) is not the filter's: no row is in both.")
            }
            values[dimension] = value
        }
        try Self.validate(MetricQuery(metric: query.metric, tenantID: query.tenantID, environment: query.environment,
            firstDay: query.firstDay, lastDay: query.lastDay, filter: values))
        let limit = pageSize == 0 ? LedgerRowPage.defaultSize : pageSize
        var read = LedgerRowsQuery(
            tenantID: query.tenantID, environment: query.environment, days: query.firstDay...query.lastDay,
            kinds: query.metric.kinds, values: values, currency: currency, after: nil, limit: limit + 1)
        // A state's rows are the payments (or trials) whose period holds the midnight ending the last day.
        let instant = UnixTime(milliseconds: (query.lastDay + 1) * Milliseconds.perDay)
        if query.metric.isState { read.coveringAt = instant }
        read.eventKind = query.metric.eventKind
        read.after = try LedgerRowToken.key(in: pageToken, query: read)
        let state = query.metric.coverageState
        let retrying = query.metric.isState && (state == .grace || state == .billingRetry)
        let candidates =
            retrying
            ? try retriedPayments(read, state: state, lastDay: query.lastDay)
            : try DomainError.reading { () throws(StorageError) in try repository.ledgerRows(read) }
        let page = Array(candidates.prefix(limit))
        let next =
            candidates.count > limit
            ? page.last.map { LedgerRowToken.make(after: LedgerRowKey($0.entry), query: read) } ?? "" : ""
        guard query.metric.isState, !retrying else { return LedgerRowPage(rows: page, nextPageToken: next) }
        // A period cut short (by the next one, or a refund) no longer holds it: the subscription's rows say.
        var kept: [LedgerRow] = []
        for row in page {
            let entry = row.entry
            let all = try DomainError.reading { () throws(StorageError) in
                try repository.ledgerEntries(
                    tenantID: entry.tenantID, store: entry.store, originalTransactionID: entry.originalTransactionID)
            }
            let covering = SubscriptionCoverage.intervals(of: all).contains { interval in
                interval.entry.transactionID == entry.transactionID && interval.entry.kind == entry.kind
                    && interval.days.contains(query.lastDay)
            }
            if covering { kept.append(row) }
        }
        return LedgerRowPage(rows: kept, nextPageToken: next)
    }

    /// The payments the stores are trying to repeat for the subscriptions in `state` (a grace period or billing
    /// retry) at the end of `lastDay`, as their billing observations' intervals say (the same the daily totals
    /// count), those `read` selects after its place, in its order, at most its limit. Each is the payment as the
    /// subscription stated it (``BillingObservation/payment``).
    private func retriedPayments(_ read: LedgerRowsQuery, state: CoverageInterval.State, lastDay: Int64)
        throws(DomainError) -> [LedgerRow]
    {
        // Only a renewal due in the 60 days up to the instant can still be retried then.
        let instant = (lastDay + 1) * Milliseconds.perDay
        let due =
            UnixTime(milliseconds: instant - BillingObservation.longestRetryDays * Milliseconds.perDay)...UnixTime(
                milliseconds: instant)
        let found = try DomainError.reading { () throws(StorageError) in
            try repository.billingObservations(tenantID: read.tenantID, environment: read.environment, due: due)
        }
        let subscriptions = Dictionary(grouping: found) {
            "\($0.observation.payment.store.ledgerName) \($0.observation.payment.originalTransactionID)"
        }
        var rows: [LedgerRow] = []
        for observations in subscriptions.values {
            for interval in BillingObservation.intervals(of: observations.map(\.observation))
            where interval.state == state && interval.days.contains(lastDay) {
                let owner = observations.first { $0.observation.payment == interval.entry }?.appUserID ?? ""
                rows.append(LedgerRow(entry: interval.entry, appUserID: owner))
            }
        }
        return Array(
            rows.filter { row in
                (read.currency.map { $0 == row.entry.amount.currency } ?? true)
                    && read.values.allSatisfy { row.entry.matches($0.key, $0.value) }
                    && (read.after.map { read.orders($0, before: LedgerRowKey(row.entry)) } ?? true)
            }
            .sorted { read.orders(LedgerRowKey($0.entry), before: LedgerRowKey($1.entry)) }.prefix(read.limit))
    }
}
