import CivilCalendar

/// What happened to a subscription on a day, as its paid intervals (``SubscriptionCoverage``) and trials say: churn,
/// reactivations and trial conversions count these (README, "Metrics").
///
/// A subscription's paid days form runs: its paid intervals' days, joined where they touch. A run's end is a lapse
/// (the subscription is not paid for at the end of that day), a run after an earlier one a reactivation.
public struct SubscriptionEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// A paid run ended: the subscription churns in a period that holds this day, began with the run active and
        /// ends in the gap this event names.
        case lapse
        /// A paid run began after an earlier run of the same subscription.
        case reactivation
        /// A free trial was followed by a paid period beginning by the trial's end plus ``trialConversionWindow``.
        case trialConversion
    }

    /// How long after a trial's end a first payment still counts as its conversion: Apple's longest billing grace
    /// period for monthly and longer subscriptions; Google's grace periods are shorter.
    public static let trialConversionDays: Int64 = 16
    /// The longest period a point of a series covers (a calendar month): a lapse is paired with the gaps that
    /// follow it within this many days, since only those can hold the end of a period that also holds the lapse.
    public static let longestPeriodDays: Int64 = 31
    /// A gap's end when the subscription has not been paid for again.
    public static let never = Int64.max

    public var kind: Kind
    /// A lapse: the first day of the gap after its run; a reactivation: the first day of its run; a trial
    /// conversion: the day the trial started (its ledger row's day, as trial starts count it).
    public var day: Int64
    /// The row the event counts with (its dimensions) and is listed as: a lapse's run's last payment, a
    /// reactivation's first payment, a trial conversion's trial start.
    public var entry: LedgerEntry
    /// A lapse: the first day of its run (0 otherwise).
    public var runStart: Int64 = 0
    /// A lapse: a gap in payments (its own, or a later one within ``longestPeriodDays``), `gapStart..<gapEnd`.
    public var gapStart: Int64 = 0
    public var gapEnd: Int64 = 0

    /// Whether the event is a churn in the period of UTC days `period`: the subscription was paid for at the end of
    /// the day before it and is not at the end of its last day.
    public func isChurn(in period: ClosedRange<Int64>) -> Bool {
        kind == .lapse && Self.churns(day: day, runStart: runStart, gapStart: gapStart, gapEnd: gapEnd, in: period)
    }

    /// Whether a lapse on `day` of a run from `runStart`, paired with the gap `gapStart..<gapEnd`, is a churn in
    /// `period`: the run held the day before the period, and the gap holds its last day. (The databases count
    /// churns with the same conditions in SQL: `SubscriptionEvents.swift`.)
    static func churns(day: Int64, runStart: Int64, gapStart: Int64, gapEnd: Int64, in period: ClosedRange<Int64>)
        -> Bool
    {
        period.contains(day) && runStart < period.lowerBound && gapStart <= period.upperBound
            && gapEnd > period.upperBound
    }

    /// Whether a series counts the event in `period`: a lapse when it is a churn there, another event on its day.
    public func counts(in period: ClosedRange<Int64>) -> Bool {
        kind == .lapse ? isChurn(in: period) : period.contains(day)
    }
}

extension SubscriptionEvent {
    /// The events of one subscription's ledger rows (all of them, any order).
    public static func events(of entries: [LedgerEntry]) -> [SubscriptionEvent] {
        events(of: SubscriptionRows(entries))
    }

    static func events(of rows: SubscriptionRows) -> [SubscriptionEvent] {
        lapsesAndReactivations(of: rows.intervals) + trialConversions(of: rows.entries)
    }

    /// The events that recording `recorded` (new rows of one subscription) takes away and adds, given its rows
    /// before them.
    public static func changes(before: [LedgerEntry], recorded: [LedgerEntry])
        -> (removed: [SubscriptionEvent], added: [SubscriptionEvent])
    {
        changes(from: SubscriptionRows(before), to: SubscriptionRows(before + recorded))
    }

    /// The events a subscription's rows changing from `old` to `new` take away and add. A subscription has a few
    /// events, so they are compared in place rather than hashed.
    public static func changes(from old: SubscriptionRows, to new: SubscriptionRows)
        -> (removed: [SubscriptionEvent], added: [SubscriptionEvent])
    {
        var removed = events(of: old)
        var added: [SubscriptionEvent] = []
        for event in events(of: new) {
            if let index = removed.firstIndex(of: event) { removed.remove(at: index) } else { added.append(event) }
        }
        return (removed, added)
    }

    private struct Run {
        var days: Range<Int64>
        var first: LedgerEntry
        var last: LedgerEntry
    }

    private static func lapsesAndReactivations(of intervals: [CoverageInterval]) -> [SubscriptionEvent] {
        var runs: [Run] = []
        // ``SubscriptionCoverage/intervals(of:)`` lists intervals by their start.
        for interval in intervals where interval.state == .paid && !interval.days.isEmpty {
            let days = interval.days
            if var run = runs.last, days.lowerBound <= run.days.upperBound {
                if days.upperBound >= run.days.upperBound {
                    run.days = run.days.lowerBound..<days.upperBound
                    run.last = interval.entry
                }
                runs[runs.count - 1] = run
            } else {
                runs.append(Run(days: days, first: interval.entry, last: interval.entry))
            }
        }
        var events: [SubscriptionEvent] = []
        for (index, run) in runs.enumerated() {
            if index > 0 {
                events.append(SubscriptionEvent(kind: .reactivation, day: run.days.lowerBound, entry: run.first))
            }
            // Each gap from this run's end on that a period holding both could end in.
            for later in index..<runs.count {
                let gapStart = runs[later].days.upperBound
                guard gapStart - run.days.upperBound < longestPeriodDays else { break }
                let gapEnd = later + 1 < runs.count ? runs[later + 1].days.lowerBound : never
                events.append(
                    SubscriptionEvent(
                        kind: .lapse, day: run.days.upperBound, entry: run.last, runStart: run.days.lowerBound,
                        gapStart: gapStart, gapEnd: gapEnd))
            }
        }
        return events
    }

    private static func trialConversions(of entries: [LedgerEntry]) -> [SubscriptionEvent] {
        let payments = entries.filter { entry in
            entry.periodEnd != nil
                && [.purchase, .renewal, .trialConversion, .productChange].contains(entry.kind)
        }
        return entries.compactMap { (trial) -> SubscriptionEvent? in
            guard trial.kind == .trialStart, let trialEnd = trial.periodEnd else { return nil }
            let (deadline, overflow) = trialEnd.milliseconds.addingReportingOverflow(
                trialConversionDays * Milliseconds.perDay)
            let converted = payments.contains { payment in
                payment.periodStart >= trial.periodStart && (overflow || payment.periodStart.milliseconds <= deadline)
            }
            return converted ? SubscriptionEvent(kind: .trialConversion, day: trial.occurredAt.utcDay, entry: trial) : nil
        }
    }
}

extension SubscriptionEvent.Kind {
    /// The word the database keeps.
    public var name: String {
        switch self {
        case .lapse: "lapse"
        case .reactivation: "reactivation"
        case .trialConversion: "trial_conversion"
        }
    }
}
