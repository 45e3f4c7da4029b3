import CivilCalendar

/// What a metric series is asked for: one metric of one tenant's environment over UTC days `firstDay` to `lastDay`
/// (both included), a point per interval, a series per group (and per currency, for amounts).
public struct MetricQuery: Sendable, Hashable {
    /// The longest range a series covers: ten years of days.
    public static let maximumDays: Int64 = 3_660

    public var metric: RevenueMetric
    public var tenantID: String
    public var environment: PurchaseEnvironment
    public var firstDay: Int64
    public var lastDay: Int64
    public var interval: MetricInterval
    /// ``RevenueDimension/entitlements`` groups by each entitlement (a movement of a product with two counts in
    /// both groups).
    public var groupBy: [RevenueDimension]
    /// ``RevenueDimension/entitlements``: movements of products giving this entitlement.
    public var filter: [RevenueDimension: String]
    /// Amounts also in the reporting currency, at these rates; nil: only as the stores reported them.
    public var exchangeRates: ExchangeRates?

    public init(
        metric: RevenueMetric, tenantID: String, environment: PurchaseEnvironment, firstDay: Int64, lastDay: Int64,
        interval: MetricInterval = .day, groupBy: [RevenueDimension] = [], filter: [RevenueDimension: String] = [:]
    ) {
        self.metric = metric
        self.tenantID = tenantID
        self.environment = environment
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.interval = interval
        self.groupBy = groupBy
        self.filter = filter
        self.exchangeRates = nil
    }
}

/// One series: the group's values (by dimension), the currency (empty for counts and rates) and a point per period,
/// zeros included.
public struct MetricSeries: Sendable, Hashable {
    public var group: [RevenueDimension: String]
    public var currency: String
    public var points: [MetricPoint]
}

public struct MetricPoint: Sendable, Hashable {
    /// The UTC day the period starts on (the range's first day for the first point).
    public var firstDay: Int64
    /// The figure: thousandths of the currency, or a count; a rate's numerator.
    public var value: Int64
    /// A rate's denominator (0 for other metrics).
    public var denominator: Int64
    /// An amount in the reporting currency, when asked for (``MetricQuery/exchangeRates``).
    public var conversion: PointConversion?

    public init(firstDay: Int64, value: Int64, denominator: Int64) {
        self.firstDay = firstDay
        self.value = value
        self.denominator = denominator
    }
}

/// A point's amount in the reporting currency: each day's amount at that day's rate (a state at its last day's),
/// added up exactly, then rounded once, half away from zero.
public struct PointConversion: Sendable, Hashable {
    /// Thousandths of the reporting currency; nil when a day with an amount had no rate.
    public private(set) var value: Int64? = 0
    /// The exact sum: thousandths times 10⁹.
    private var exact: Int128 = 0
    /// Each rate used, once, in the order first used.
    public var rates: [DatedRate] = []
    /// The days with an amount and no rate, ascending.
    public var missingDays: [Int64] = []

    public init() {}

    mutating func add(_ milliunits: Int64, on day: Int64, currency: String, rates table: ExchangeRates)
        throws(DomainError)
    {
        guard milliunits != 0 else { return }
        guard let dated = table.rate(of: currency, on: day) else {
            let index = missingDays.firstIndex { $0 >= day } ?? missingDays.endIndex
            if index == missingDays.endIndex || missingDays[index] != day { missingDays.insert(day, at: index) }
            value = nil
            return
        }
        if !rates.contains(dated) { rates.append(dated) }
        let (sum, overflow) = exact.addingReportingOverflow(dated.rate.exactly(milliunits))
        exact = sum
        guard value != nil else { return }
        guard !overflow, let rounded = ExchangeRate.rounded(exact) else {
            throw .internalError("A converted amount does not fit in 64 bits.")
        }
        value = rounded
    }
}

extension MetricInterval {
    /// The first day of the period `day` is in.
    func start(of day: Int64) -> Int64 {
        switch self {
        case .day: return day
        case .week:
            // 1970-01-01 was a Thursday: Monday is three days before.
            let (_, remainder) = (day + 3).quotientAndRemainder(dividingBy: 7)
            return day - (remainder < 0 ? remainder + 7 : remainder)
        case .month:
            let date = CivilCalendar.date(fromDays: day)
            return CivilCalendar.days(fromYear: date.year, month: date.month, day: 1)
        }
    }

    /// The first day of the period after the one starting on `start`.
    func next(after start: Int64) -> Int64 {
        switch self {
        case .day: return start + 1
        case .week: return start + 7
        case .month:
            let date = CivilCalendar.date(fromDays: start)
            return date.month == 12
                ? CivilCalendar.days(fromYear: date.year + 1, month: 1, day: 1)
                : CivilCalendar.days(fromYear: date.year, month: date.month + 1, day: 1)
        }
    }
}
