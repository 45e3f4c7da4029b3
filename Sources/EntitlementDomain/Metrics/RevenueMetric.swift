/// A figure read from the revenue ledger's daily totals, per period (README, "Metrics", defines each and says where
/// RevenueCat's differs). Amounts are per currency in thousandths of it; counts and rates add every currency up.
public enum RevenueMetric: Sendable, Hashable, CaseIterable {
    /// What buyers paid: every payment (a first period, renewal, trial conversion, product change, one-time
    /// purchase), dated when paid, before refunds, tax and commission.
    case revenue
    /// What went back: refunds and chargebacks (negative), less the refunds stores took back.
    case refunds
    /// Revenue plus refunds.
    case netRevenue
    /// What the tenant keeps of every movement, refunds' shares given back: the stores' own figures where they
    /// report them, else estimated.
    case proceeds
    /// Subscriptions whose first paid period began: a purchase (no trial) or a trial's conversion.
    case newSubscriptions
    case trialStarts
    case trialConversions
    case renewals
    /// Refunds and chargebacks (less reversals) over the paid payments of the same period, each counted on its own
    /// day.
    case refundRate
    /// Subscriptions in a paid period at the end of the period's last day (``SubscriptionCoverage``).
    case activeSubscriptions
    /// Subscriptions in a free trial at the end of the period's last day.
    case activeTrials
    /// The active paid subscriptions' payments normalised to a month, per currency, at the end of the period's last
    /// day (``CoverageInterval/monthlyMilliunits``).
    case mrr
    /// Subscriptions paid for at the end of the day before the period and not at the end of its last day, over
    /// those paid for at its start (``SubscriptionEvent/isChurn(in:)``).
    case churn
    /// Paid periods that began after a lapse of the same subscription.
    case reactivations
    /// Free trials started in the period followed by a paid period beginning by the trial's end plus
    /// ``SubscriptionEvent/trialConversionDays``, over the trials started in the period.
    case trialConversionRate
    /// Subscriptions in a billing grace period at the end of the period's last day: a renewal failed, the store is
    /// retrying and access goes on (``BillingObservation``). Not in ``activeSubscriptions``.
    case gracePeriodSubscriptions
    /// Subscriptions in billing retry without access at the end of the period's last day.
    case billingRetrySubscriptions
    /// What the subscriptions in a grace period would add to ``mrr`` were they paid: their last payments normalised
    /// to a month, per currency.
    case gracePeriodMRR
    /// The same for the subscriptions in billing retry.
    case billingRetryMRR

    /// Whether the figure is a state at an instant (read from the subscriptions' daily changes) rather than a sum
    /// of the period's movements.
    public var isState: Bool {
        switch self {
        case .activeSubscriptions, .activeTrials, .mrr, .gracePeriodSubscriptions, .billingRetrySubscriptions,
            .gracePeriodMRR, .billingRetryMRR:
            true
        default: false
        }
    }

    /// The subscription events the figure counts (its value); nil for one read from the daily totals alone.
    var eventKind: SubscriptionEvent.Kind? {
        switch self {
        case .churn: .lapse
        case .reactivations: .reactivation
        case .trialConversionRate: .trialConversion
        default: nil
        }
    }

    /// Whether the figure (or its denominator) counts the ledger's movements.
    var countsMovements: Bool { !isState && self != .churn && self != .reactivations }

    /// Which intervals a state figure counts.
    var coverageState: CoverageInterval.State {
        switch self {
        case .activeTrials: .trial
        case .gracePeriodSubscriptions, .gracePeriodMRR: .grace
        case .billingRetrySubscriptions, .billingRetryMRR: .billingRetry
        default: .paid
        }
    }

    /// Whether the figure is an amount of money, kept per currency.
    public var isAmount: Bool {
        switch self {
        case .revenue, .refunds, .netRevenue, .proceeds, .mrr, .gracePeriodMRR, .billingRetryMRR: true
        case .newSubscriptions, .trialStarts, .trialConversions, .renewals, .refundRate, .activeSubscriptions,
            .activeTrials, .churn, .reactivations, .trialConversionRate, .gracePeriodSubscriptions,
            .billingRetrySubscriptions:
            false
        }
    }

    /// The kinds of ledger rows the figure counts (in its value, or a rate's denominator): the rows behind a point.
    public var kinds: Set<MovementKind> {
        switch self {
        case .revenue: Set(MovementKind.allCases.filter { $0.direction == .payment })
        case .refunds: Set(MovementKind.allCases.filter { $0.direction != .payment })
        case .netRevenue, .proceeds: Set(MovementKind.allCases)
        case .newSubscriptions: [.purchase, .trialConversion]
        case .trialStarts: [.trialStart]
        case .trialConversions: [.trialConversion]
        case .renewals: [.renewal]
        case .refundRate: Set(MovementKind.allCases).subtracting([.trialStart])
        case .activeSubscriptions, .mrr, .churn, .reactivations: [.purchase, .renewal, .trialConversion, .productChange]
        case .activeTrials, .trialConversionRate: [.trialStart]
        // The payments the stores are trying to repeat.
        case .gracePeriodSubscriptions, .billingRetrySubscriptions, .gracePeriodMRR, .billingRetryMRR:
            [.purchase, .renewal, .trialConversion, .productChange, .trialStart]
        }
    }

    /// What one day's total of `kind` adds to the figure (its numerator), and to a rate's denominator.
    func contribution(of total: RevenueTotal) -> (value: Int64, denominator: Int64) {
        let kind = total.kind
        switch self {
        case .revenue: return (kind.direction == .payment ? total.amountMilliunits : 0, 0)
        case .refunds: return (kind.direction == .payment ? 0 : total.amountMilliunits, 0)
        case .netRevenue: return (total.amountMilliunits, 0)
        case .proceeds: return (total.proceedsMilliunits, 0)
        case .newSubscriptions: return (kind == .purchase || kind == .trialConversion ? total.movements : 0, 0)
        case .trialStarts: return (kind == .trialStart ? total.movements : 0, 0)
        case .trialConversions: return (kind == .trialConversion ? total.movements : 0, 0)
        case .renewals: return (kind == .renewal ? total.movements : 0, 0)
        case .refundRate:
            switch kind {
            case .refund, .chargeback: return (total.movements, 0)
            case .refundReversal: return (-total.movements, 0)
            case .trialStart: return (0, 0)
            case .purchase, .renewal, .trialConversion, .productChange, .oneTime: return (0, total.movements)
            }
        case .trialConversionRate: return (0, kind == .trialStart ? total.movements : 0)
        case .activeSubscriptions, .activeTrials, .mrr, .churn, .reactivations, .gracePeriodSubscriptions,
            .billingRetrySubscriptions, .gracePeriodMRR, .billingRetryMRR:
            return (0, 0)
        }
    }
}

/// How long each point of a series is: a UTC day, an ISO week (Monday to Sunday) or a calendar month; the first and
/// last points are cut at the range's ends.
public enum MetricInterval: Sendable, Hashable, CaseIterable {
    case day
    case week
    case month
}
