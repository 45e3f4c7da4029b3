/// A tenant's `retention` configuration: how long what the server keeps about customers beyond their current state
/// stays (README, "Retention"). One job, once across instances, applies it every hour.
///
///     "retention": {                                   // optional
///       "event_days": 365,                             // optional, default none: kept. Events superseded this
///                                                      // long ago go: each customer's newest stays, and the one
///                                                      // in force then (each carries the whole status)
///       "webhook_days": 7,                             // optional, default 7: delivered webhook deliveries (and
///                                                      // notices) made this long ago go, bodies and all
///       "failed_webhook_days": 30,                     // optional, default 30: failed deliveries made this long
///                                                      // ago go
///       "spent_code_days": 30                          // optional, default 30: redemption codes used, replaced or
///                                                      // expired this long ago go
///     }
public struct RetentionSettings: Sendable, Hashable {
    public static let dayRange: ClosedRange<Int> = 1...3650

    /// nil: events are kept.
    public var eventDays: Int?
    public var webhookDays: Int
    public var failedWebhookDays: Int
    public var spentCodeDays: Int

    public static let defaults = RetentionSettings(eventDays: nil, webhookDays: 7, failedWebhookDays: 30, spentCodeDays: 30)

    public init(eventDays: Int?, webhookDays: Int, failedWebhookDays: Int, spentCodeDays: Int) {
        self.eventDays = eventDays
        self.webhookDays = webhookDays
        self.failedWebhookDays = failedWebhookDays
        self.spentCodeDays = spentCodeDays
    }

    /// These settings, each period checked by ``checkDays(_:written:)`` (a tenant built in code).
    package func validated() throws(TenantRuleError) -> RetentionSettings {
        let periods: [(String, Int?)] = [
            ("event_days", eventDays), ("webhook_days", webhookDays), ("failed_webhook_days", failedWebhookDays),
            ("spent_code_days", spentCodeDays),
        ]
        for case (let field, let days?) in periods {
            _ = try TenantRuleError.at(".\(field)") { () throws(TenantRuleError) in try Self.checkDays(days, written: String(days)) }
        }
        return self
    }

    /// A period: a whole number of days in ``dayRange``.
    package static func checkDays(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: dayRange, unit: "days")
    }
}
