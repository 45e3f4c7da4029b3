import CivilCalendar
import EntitlementDomain
import Foundation
import TenantConfiguration
import TestSupport
import Testing

/// The `reporting_currency` object of a tenant configuration and the exchange rates file it names
/// (``ExchangeRates``).
@Suite struct TenantReportingCurrencyConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!

    /// A directory holding `rates.csv`, removed with the value.
    final class RatesFile {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rates-\(UUID().uuidString)")
        var path: String { directory.appendingPathComponent("rates.csv").path }

        init(_ text: String) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static func rates(_ reporting: String, directory: String = "/") throws(TenantConfigError) -> ExchangeRates? {
        let text = "{\"tenants\": [{\"id\": \"demo\", \"public_keys\": [\"\(publicHash)\"], \"reporting_currency\": \(reporting)}]}"
        return try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: directory)
            .tenant(id: "demo")?.exchangeRates
    }

    static func day(_ text: String) -> Int64 { CivilCalendar.days(fromDateText: text)! }

    @Test func theFileRelativeToTheTenantsFileGivesEachDayTheLatestRateOfTheWeekBefore() throws {
        let file = try RatesFile("date,currency,rate\r\n2026-11-27,EUR,1.0562\r\n\r\n2026-11-30,EUR,1.0583\n2026-11-30,JPY,0.006655\n")
        let rates = try #require(
            try Self.rates(
                "{\"_comment\": \"ECB\", \"currency\": \"USD\", \"exchange_rates_file\": \"rates.csv\"}",
                directory: file.directory.path))
        #expect(rates.reportingCurrency == "USD")
        #expect(rates.rate(of: "EUR", on: Self.day("2026-11-29"))?.rate.text == "1.0562", "Friday's, on Sunday")
        #expect(rates.rate(of: "EUR", on: Self.day("2026-11-30"))?.day == Self.day("2026-11-30"))
        #expect(rates.rate(of: "EUR", on: Self.day("2026-12-06"))?.rate.text == "1.0583", "six days on")
        #expect(rates.rate(of: "EUR", on: Self.day("2026-12-07")) == nil, "a week on: missing, never stretched")
        #expect(rates.rate(of: "EUR", on: Self.day("2026-11-26")) == nil, "before the first")
        #expect(rates.rate(of: "GBP", on: Self.day("2026-11-30")) == nil)
        #expect(rates.rate(of: "USD", on: 0)?.rate == .one)
        #expect(rates.rate(of: "JPY", on: Self.day("2026-11-30"))?.rate.converting(1_500_000) == 9_983, "9982.5 away from zero")
        let withoutFile = try #require(try Self.rates("{\"currency\": \"EUR\"}"))
        #expect(withoutFile.rate(of: "USD", on: 0) == nil, "no file: no rates")
    }

    /// The README's example, as written: its `reporting_currency` member, and its rates file in the directory.
    @Test func theReadmesExampleLoads() throws {
        let readme = String(decoding: try RepositoryFiles.data("README.md"), as: UTF8.self)
        let section = try #require(readme.range(of: "**Reporting currency.**")).upperBound
        func block(_ language: String) throws -> String {
            let start = try #require(readme.range(of: "```\(language)\n", range: section..<readme.endIndex)).upperBound
            return String(readme[start..<(try #require(readme.range(of: "```", range: start..<readme.endIndex)).lowerBound)])
        }
        let member = try block("json").trimmingCharacters(in: .whitespacesAndNewlines)
        let file = try RatesFile(try block("csv"))
        try FileManager.default.moveItem(atPath: file.path, toPath: file.directory.appendingPathComponent("exchange-rates.csv").path)
        let prefix = "\"reporting_currency\": "
        #expect(member.hasPrefix(prefix))
        let rates = try #require(try Self.rates(String(member.dropFirst(prefix.count)), directory: file.directory.path))
        #expect(rates.rate(of: "EUR", on: Self.day("2026-11-30"))?.rate.text == "1.0583")
    }

    @Test(arguments: [
        ("date,currency\n", "line 1: expected the header"),
        ("date,currency,rate\n2026-02-30,EUR,1\n", "line 2: \"2026-02-30\" is not a date"),
        ("date,currency,rate\n2026-11-30,eur,1\n", "line 2: \"eur\" is not an ISO 4217"),
        ("date,currency,rate\n2026-11-30,EUR,1.0\n2026-11-30,EUR,1.1\n", "line 3: a second rate for EUR on 2026-11-30"),
        ("date,currency,rate\n2026-11-30,USD,1\n", "line 2: a rate for USD, the reporting currency"),
        ("date,currency,rate\n2026-11-30,EUR,0.000\n", "line 2: a rate of 0"),
        ("date,currency,rate\n2026-11-30,EUR,-1\n", "line 2: \"-1\" is not a rate"),
        ("date,currency,rate\n2026-11-30,EUR,1.0000000001\n", "line 2: \"1.0000000001\" is not a rate"),
        ("date,currency,rate\n2026-11-30,EUR,1,2\n", "line 2: expected three fields"),
        ("", "is empty"),
    ])
    func aBadRowIsRefusedWithItsLine(text: String, message: String) throws {
        let file = try RatesFile(text)
        let error = #expect(throws: TenantConfigError.self) {
            try Self.rates("{\"currency\": \"USD\", \"exchange_rates_file\": \"\(file.path)\"}")
        }
        #expect(error?.code == .invalidExchangeRates, "\(String(describing: error))")
        #expect(error?.path == "tenants[0].reporting_currency.exchange_rates_file", "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    @Test func aMissingFileOrBadCurrencyIsRefused() {
        let missing = #expect(throws: TenantConfigError.self) {
            try Self.rates("{\"currency\": \"USD\", \"exchange_rates_file\": \"/nonexistent/rates.csv\"}")
        }
        #expect(missing?.code == .invalidExchangeRates)
        let currency = #expect(throws: TenantConfigError.self) { try Self.rates("{\"currency\": \"usd\"}") }
        #expect(currency?.code == .invalidValue && currency?.path == "tenants[0].reporting_currency.currency")
        let field = #expect(throws: TenantConfigError.self) { try Self.rates("{\"currency\": \"USD\", \"rates\": 1}") }
        #expect(field?.code == .unknownField)
    }
}
