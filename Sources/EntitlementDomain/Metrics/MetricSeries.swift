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
