import EntitlementDomain
import Foundation
import TenantConfiguration
import TestSupport
import Testing

/// The `retention` object of a tenant configuration (``RetentionSettings``).
@Suite struct TenantRetentionConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!

    /// A document whose line 4 is `"retention": <retention>`.
    static func document(_ retention: String) -> String {
        "{\n\"tenants\": [\n{\n\"retention\": \(retention),\n\"id\": \"demo\",\n\"public_keys\": [\"\(publicHash)\"]\n}\n]\n}\n"
    }

    static func retention(_ retention: String) throws -> RetentionSettings {
        let directory = try TenantConfigLoader.parse(Array(document(retention).utf8), file: "tenants.json", directory: "/")
        return try #require(directory.tenant(id: "demo")).retention
    }

    @Test func absentMeansTheDefaults() throws {
        let text = "{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}"
        let directory = try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: "/")
        let read = try #require(directory.tenant(id: "a")).retention
        #expect(read == .defaults)
        #expect(read == RetentionSettings(eventDays: nil, webhookDays: 7, failedWebhookDays: 30, spentCodeDays: 30))
        #expect(try Self.retention("{}") == .defaults)
    }

    @Test func eachPeriodGivenReplacesItsDefaultOnly() throws {
        #expect(try Self.retention("{\"event_days\": 365, \"_comment\": \"a year\"}")
            == RetentionSettings(eventDays: 365, webhookDays: 7, failedWebhookDays: 30, spentCodeDays: 30))
        #expect(try Self.retention(
            "{\"event_days\": 1, \"webhook_days\": 3650, \"failed_webhook_days\": 90, \"spent_code_days\": 2}")
            == RetentionSettings(eventDays: 1, webhookDays: 3650, failedWebhookDays: 90, spentCodeDays: 2))
    }

    @Test(arguments: [
        ("{\"event_days\": 0}", "tenants[0].retention.event_days", "from 1 to 3650, found 0"),
        ("{\"webhook_days\": 3651}", "tenants[0].retention.webhook_days", "found 3651"),
        ("{\"failed_webhook_days\": 1.5}", "tenants[0].retention.failed_webhook_days", "whole number of days"),
        ("{\"spent_code_days\": \"30\"}", "tenants[0].retention.spent_code_days", "expected a number"),
        ("{\"event_days\": 99999999999999999999}", "tenants[0].retention.event_days", "whole number of days"),
        ("{\"events_days\": 30}", "tenants[0].retention.events_days", "events_days"),
        ("[]", "tenants[0].retention", "object"),
    ])
    func aBadValueIsRefusedWhereItIs(retention: String, path: String, message: String) {
        let error = #expect(throws: TenantConfigError.self) {
            try TenantConfigLoader.parse(Array(Self.document(retention).utf8), file: "tenants.json", directory: "/")
        }
        #expect(error?.path == path, "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    /// The README's example, as written, and the example tenants file's.
    @Test func theReadmesExampleLoads() throws {
        let readme = String(decoding: try RepositoryFiles.data("README.md"), as: UTF8.self)
        let section = try #require(readme.range(of: "## Retention\n")).upperBound
        let start = try #require(readme.range(of: "```json\n", range: section..<readme.endIndex)).upperBound
        let end = try #require(readme.range(of: "```", range: start..<readme.endIndex)).lowerBound
        let member = readme[start..<end].trimmingCharacters(in: .whitespacesAndNewlines)
        let prefix = "\"retention\": "
        #expect(member.hasPrefix(prefix))
        let read = try Self.retention(String(member.dropFirst(prefix.count)))
        #expect(read == RetentionSettings(eventDays: 730, webhookDays: 7, failedWebhookDays: 30, spentCodeDays: 30))
    }

    @Test func aTenantBuiltInCodeIsCheckedTheSameWay() {
        let error = #expect(throws: TenantRuleError.self) {
            try Tenant(
                id: "a", publicKeyHashes: [Self.publicHash],
                retention: RetentionSettings(eventDays: 0, webhookDays: 7, failedWebhookDays: 30, spentCodeDays: 30))
        }
        #expect(error?.description.contains("tenant.retention.event_days") == true, "\(String(describing: error))")
    }
}
