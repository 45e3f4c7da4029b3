public import EntitlementDomain
public import Metrics

/// The domain's metrics: status changes by cause, pushes and how long they took from the call or store event that
/// caused them, how streams started, and store notifications by outcome with their lag. Every label comes from a
/// closed set (no tenant, customer or user labels), so the series count is fixed.
public final class ServiceMetrics: Sendable {
    public let statusChanges: CounterFamily
    public let pushLatency: Histogram
    public let streamMessages: CounterFamily
    public let streamStarts: CounterFamily
    public let storeNotifications: CounterFamily
    public let notificationLag: LabeledHistogram
    /// User tokens judged, by tenant, outcome (`accepted`, `would_refuse` in mode observe, `refused`) and the refusal's
    /// reason (empty when accepted): what a tenant reads before turning `observe` into `required`.
    public let userTokens: LabeledCounter

    /// The stores whose notifications the server takes, as the `store` label names them.
    public enum NotificationSource: String, Sendable, CaseIterable {
        case appStore = "app_store"
        case playStore = "play_store"
        case stripe
    }

    /// How a status stream began: with a snapshot (new, or its `after_version` too old to replay) or from the log.
    public enum StreamStart: String, Sendable, CaseIterable {
        case new
        case resumedFromLog = "resumed_from_log"
        case resumedWithSnapshot = "resumed_with_snapshot"
    }

    /// What a status stream sent.
    public enum StreamMessage: String, Sendable, CaseIterable {
        case snapshot, replayed, live
    }

    private static let changeNames: [(StatusChange, String)] = [
        (.statusChanged, "status_changed"), (.customerInfoChanged, "customer_info_changed"),
    ]

    public init() {
        statusChanges = CounterFamily(
            "entitlementd_status_changes_total",
            help: "Committed customer changes on this instance, by cause and whether active entitlements changed.",
            labels: ["cause", "change"],
            series: EventCause.allCases.flatMap { cause in Self.changeNames.map { [cause.webhookName, $0.1] } })
        pushLatency = Histogram(
            "entitlementd_push_latency_seconds",
            help: "Time from a call or store event arriving to its change being handed to each open stream's connection.",
            buckets: .fine)
        streamMessages = CounterFamily(
            "entitlementd_stream_messages_total", help: "Messages sent on status streams, by kind.",
            labels: ["kind"], series: StreamMessage.allCases.map { [$0.rawValue] })
        streamStarts = CounterFamily(
            "entitlementd_stream_starts_total",
            help: "Status streams begun: new, resumed from the event log, or resumed with a snapshot.",
            labels: ["kind"], series: StreamStart.allCases.map { [$0.rawValue] })
        storeNotifications = CounterFamily(
            "entitlementd_store_notifications_total",
            help: "Store notifications and webhooks received, by store and what was done with them.",
            labels: ["store", "outcome"],
            series: NotificationSource.allCases.flatMap { source in
                NotificationReply.Outcome.allCases.map { [source.rawValue, $0.rawValue] }
            })
        notificationLag = LabeledHistogram(
            "entitlementd_store_notification_lag_seconds",
            help: "Time from the store signing (or sending) a notification to this server committing it, by store.",
            labels: ["store"], buckets: .lag, initial: NotificationSource.allCases.map { [$0.rawValue] })
        userTokens = LabeledCounter(
            "entitlementd_user_tokens_total",
            help: "User tokens judged on app-facing calls, by tenant, outcome and the reason for a refusal.",
            labels: ["tenant", "outcome", "reason"])
    }

    public var sources: [any MetricsSource] {
        [statusChanges, pushLatency, streamMessages, streamStarts, storeNotifications, notificationLag, userTokens]
    }

    public func changeCommitted(_ update: StatusUpdate) {
        guard case .changed(let change) = update.kind, let cause = update.cause,
            let causeIndex = EventCause.allCases.firstIndex(of: cause),
            let changeIndex = Self.changeNames.firstIndex(where: { $0.0 == change })
        else { return }
        statusChanges.increment(causeIndex * Self.changeNames.count + changeIndex)
    }

    public func streamStarted(_ start: StreamStart) {
        streamStarts.increment(StreamStart.allCases.firstIndex(of: start)!)
    }

    /// A message a stream handed to its connection; a live change also records its latency.
    @inline(__always)
    public func streamSent(_ kind: StreamMessage, origin: ContinuousClock.Instant?) {
        streamMessages.increment(StreamMessage.allCases.firstIndex(of: kind)!)
        if kind == .live, let origin { pushLatency.observe(origin.duration(to: .now)) }
    }

    /// A notification endpoint's answer; the lag is recorded for notifications committed now.
    public func notificationAnswered(_ source: NotificationSource, _ reply: NotificationReply, now: UnixTime) {
        let sourceIndex = NotificationSource.allCases.firstIndex(of: source)!
        let outcomeIndex = NotificationReply.Outcome.allCases.firstIndex(of: reply.outcome)!
        storeNotifications.increment(sourceIndex * NotificationReply.Outcome.allCases.count + outcomeIndex)
        guard [.applied, .unchanged, .recorded].contains(reply.outcome), let signedAt = reply.signedAt else { return }
        notificationLag.observe(.milliseconds(max(0, now.milliseconds - signedAt.milliseconds)), source.rawValue)
    }
}
