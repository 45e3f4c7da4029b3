import EntitlementDomain
import FileAccess

/// A tenant's `reporting_currency` object: the currency metrics convert into and the file of dated rates they use
/// (see ``ExchangeRates/read(file:reportingCurrency:)`` for its format), read now, so a reload reads it again.
extension TenantConfigReader {
    static let reportingCurrencyFields = ["currency", "exchange_rates_file", "_comment"]

    func reportingCurrency(_ node: JSONNode, path: String) throws(TenantConfigError) -> ExchangeRates {
        let members = try object(node, path: path, allowed: Self.reportingCurrencyFields, what: "\"reporting_currency\"")
        let currency = try requiredString(
            "currency", of: members, in: node, at: path, "the ISO 4217 code metrics convert into, such as \"USD\""
        ) { text throws(TenantRuleError) in _ = try ExchangeRates(reportingCurrency: text, rates: []) }
        let directory = directory
        return try optionalStringValue(
            "exchange_rates_file", of: members, at: path,
            absent: try rule(node, path) { () throws(TenantRuleError) in
                try ExchangeRates(reportingCurrency: currency, rates: [])
            }
        ) { text throws(TenantRuleError) in
            guard !text.isEmpty else { throw TenantRuleError(.invalidValue, "the exchange rates file path is empty") }
            return try ExchangeRates.read(file: FileSystem.resolve(text, against: directory), reportingCurrency: currency)
        }
    }
}
