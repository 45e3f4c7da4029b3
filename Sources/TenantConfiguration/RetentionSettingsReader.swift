import EntitlementDomain

/// A tenant's `retention` object (see ``RetentionSettings`` for the format).
extension TenantConfigReader {
    static let retentionFields = ["event_days", "webhook_days", "failed_webhook_days", "spent_code_days", "_comment"]

    func retentionSettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> RetentionSettings {
        let members = try object(node, path: path, allowed: Self.retentionFields, what: "\"retention\"")
        func days(_ key: String) throws(TenantConfigError) -> Int? {
            try optionalNumber(key, of: members, at: path, absent: nil) { value, text throws(TenantRuleError) in
                try RetentionSettings.checkDays(value, written: text)
            }
        }
        let defaults = RetentionSettings.defaults
        return RetentionSettings(
            eventDays: try days("event_days") ?? defaults.eventDays,
            webhookDays: try days("webhook_days") ?? defaults.webhookDays,
            failedWebhookDays: try days("failed_webhook_days") ?? defaults.failedWebhookDays,
            spentCodeDays: try days("spent_code_days") ?? defaults.spentCodeDays)
    }
}
