/// A tenant's reporting currency and its table of dated exchange rates (the tenants file's `reporting_currency`,
/// read with it and so reloaded with it; never fetched): metrics convert each day's amount at that day's rate, and
/// say which rates they used and which days had none.
public struct ExchangeRates: Sendable, Hashable {
    /// How many days a rate serves after its date when no later one is listed (a weekend, a bank holiday): a rate
    /// older than this is missing, never stretched further.
    public static let servedDays: Int64 = 7
    /// The most rows a table holds (decades of daily rates for every currency).
    public static let maximumRates = 1_000_000

    /// ISO 4217, three capital letters.
    public let reportingCurrency: String
    /// Each currency's rates, by day ascending.
    private let rates: [String: [DatedRate]]

    /// `rates` (in any order); a currency and day listed twice, or a rate for the reporting currency itself, is an
    /// error naming the row.
    public init(reportingCurrency: String, rates: [(currency: String, rate: DatedRate)]) throws(TenantRuleError) {
        try Self.checkCurrency(reportingCurrency, .invalidValue)
        guard rates.count <= Self.maximumRates else {
            throw TenantRuleError(.invalidExchangeRates, "more than \(Self.maximumRates) exchange rates; keep the days metrics read")
        }
        var byCurrency: [String: [DatedRate]] = [:]
        for (currency, rate) in rates {
            try Self.checkCurrency(currency, .invalidExchangeRates)
            guard currency != reportingCurrency else {
                throw TenantRuleError(.invalidExchangeRates, "a rate for \(currency), the reporting currency itself (always 1)")
            }
            byCurrency[currency, default: []].append(rate)
        }
        for (currency, list) in byCurrency {
            let sorted = list.sorted { $0.day < $1.day }
            for index in sorted.indices.dropFirst() where sorted[index].day == sorted[index - 1].day {
                throw TenantRuleError(.invalidExchangeRates, "two rates for \(currency) on the same day")
            }
            byCurrency[currency] = sorted
        }
        self.reportingCurrency = reportingCurrency
        self.rates = byCurrency
    }

    /// The rate that converts `currency` on UTC day `day`: 1 for the reporting currency, else the latest dated on
    /// or before the day and at most ``servedDays`` before it; nil when there is none.
    public func rate(of currency: String, on day: Int64) -> DatedRate? {
        if currency == reportingCurrency { return DatedRate(day: day, rate: .one) }
        guard let list = rates[currency] else { return nil }
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].day <= day { low = middle + 1 } else { high = middle }
        }
        guard low > 0, day - list[low - 1].day < Self.servedDays else { return nil }
        return list[low - 1]
    }

    static func checkCurrency(_ code: String, _ error: TenantRuleError.Code) throws(TenantRuleError) {
        guard code.utf8.count == 3, code.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else {
            throw TenantRuleError(error, "\(code.prefix(16).debugDescription) is not an ISO 4217 currency code (three capital letters)")
        }
    }
}

/// A rate as the table lists it: the day it is dated and its value.
public struct DatedRate: Sendable, Hashable {
    public var day: Int64
    public var rate: ExchangeRate

    public init(day: Int64, rate: ExchangeRate) {
        self.day = day
        self.rate = rate
    }
}

/// How many units of the reporting currency one unit of another buys, exact to nine decimals.
public struct ExchangeRate: Sendable, Hashable {
    static let scale: Int64 = 1_000_000_000
    public static let one = ExchangeRate(billionths: scale)

    /// The rate times 10⁹, positive.
    public let billionths: Int64

    private init(billionths: Int64) { self.billionths = billionths }

    /// A decimal of at most seven whole digits and nine decimals (`1.0583`, `151.2`), above zero.
    public init(text: some StringProtocol) throws(TenantRuleError) {
        let text = Substring(text)
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction: Substring = parts.count > 1 ? parts[1] : ""
        let digits: (Substring) -> Bool = { $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        guard (1...7).contains(whole.count), digits(whole), parts.count == 1 || (1...9).contains(fraction.count),
            digits(fraction)
        else {
            throw TenantRuleError(
                .invalidExchangeRates,
                "\(String(text.prefix(24)).debugDescription) is not a rate: a decimal such as 1.0583 (at most 7 digits before the point and 9 after)")
        }
        let value = (Int64(whole) ?? 0) * Self.scale + (Int64(fraction + String(repeating: "0", count: 9 - fraction.count)) ?? 0)
        guard value > 0 else { throw TenantRuleError(.invalidExchangeRates, "a rate of 0: every currency buys some of another") }
        billionths = value
    }

    /// The rate as a decimal, without trailing zeros (`1.0583`).
    public var text: String {
        let fraction = String(billionths % Self.scale)
        let padded = String(repeating: "0", count: 9 - fraction.count) + fraction
        let trimmed = padded.reversed().drop { $0 == "0" }.reversed()
        return "\(billionths / Self.scale)" + (trimmed.isEmpty ? "" : "." + String(trimmed))
    }

    /// `milliunits` of a currency in thousandths of the reporting currency, rounded half away from zero; nil when
    /// that does not fit in 64 bits.
    public func converting(_ milliunits: Int64) -> Int64? {
        Self.rounded(exactly(milliunits))
    }

    /// `milliunits` converted and not rounded: thousandths of the reporting currency times 10⁹.
    func exactly(_ milliunits: Int64) -> Int128 {
        Int128(milliunits) * Int128(billionths)
    }

    /// Thousandths times 10⁹ as thousandths, rounded half away from zero; nil when they do not fit in 64 bits.
    static func rounded(_ billionths: Int128) -> Int64? {
        let half = Int128(scale / 2)
        return Int64(exactly: (billionths + (billionths < 0 ? -half : half)) / Int128(scale))
    }
}
