import CivilCalendar
import FileAccess

extension ExchangeRates {
    /// The longest rates file read: a million rows of `YYYY-MM-DD,CCC,1234567.123456789`.
    public static let maximumFileBytes = 40 << 20

    /// The table a CSV file holds: the header `date,currency,rate`, then a row per rate, such as
    /// `2026-11-30,EUR,1.0583` (on 2026-11-30 one euro bought 1.0583 of the reporting currency). Blank lines are
    /// skipped and CRLF line ends accepted; an error names the file and the line.
    public static func read(file path: String, reportingCurrency: String) throws(TenantRuleError) -> ExchangeRates {
        if FileSystem.kind(of: path) == .other {
            throw TenantRuleError(.invalidExchangeRates, "cannot read \"\(path)\": it is not a regular file")
        }
        let bytes: [UInt8]
        switch FileSystem.readFile(path) {
        case .failure(let error): throw TenantRuleError(.invalidExchangeRates, "cannot read \"\(path)\": \(error.reason)")
        case .success(let contents): bytes = contents
        }
        guard bytes.count <= maximumFileBytes else {
            throw TenantRuleError(
                .invalidExchangeRates, "\"\(path)\" is larger than \(maximumFileBytes >> 20) MiB, more than a rates file needs")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw TenantRuleError(.invalidExchangeRates, "\"\(path)\" is not UTF-8 text")
        }
        var rates: [(currency: String, rate: DatedRate)] = []
        var listed: Set<String> = []
        var headerSeen = false
        // "\r\n" is one Character to Swift.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, line) in lines.enumerated() {
            if line.isEmpty { continue }
            func refuse(_ message: String) -> TenantRuleError {
                TenantRuleError(.invalidExchangeRates, "\"\(path)\" line \(index + 1): \(message)")
            }
            guard headerSeen else {
                guard line == "date,currency,rate" else {
                    throw refuse("expected the header \"date,currency,rate\"")
                }
                headerSeen = true
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 3 else { throw refuse("expected three fields: date,currency,rate") }
            guard let day = CivilCalendar.days(fromDateText: fields[0]) else {
                throw refuse("\(String(fields[0].prefix(24)).debugDescription) is not a date of the calendar (YYYY-MM-DD)")
            }
            let currency = String(fields[1])
            let rate: ExchangeRate
            do {
                try checkCurrency(currency, .invalidExchangeRates)
                rate = try ExchangeRate(text: fields[2])
            } catch {
                throw refuse(error.message)
            }
            guard currency != reportingCurrency else {
                throw refuse("a rate for \(currency), the reporting currency itself (always 1)")
            }
            guard listed.insert("\(fields[0]) \(currency)").inserted else {
                throw refuse("a second rate for \(currency) on \(fields[0])")
            }
            guard rates.count < maximumRates else { throw refuse("more than \(maximumRates) rates") }
            rates.append((currency, DatedRate(day: day, rate: rate)))
        }
        guard headerSeen else { throw TenantRuleError(.invalidExchangeRates, "\"\(path)\" is empty: expected the header \"date,currency,rate\"") }
        return try ExchangeRates(reportingCurrency: reportingCurrency, rates: rates)
    }
}
