import EntitlementClient
import EntitlementsProto
import ProtobufWire

/// `metrics METRIC --from DATE --to DATE [...]`: AdminService/GetMetrics as a table, CSV or JSON (a secret key; a
/// read-only one may).
extension Entctl {
    func metrics() async throws -> Int32 {
        try arguments.check(
            positionals: ["METRIC"],
            options: [
                "--from", "--to", "--interval", "--group-by", "--store", "--product", "--entitlement", "--country",
                "--offer-kind", "--environment", "--in-reporting-currency", "--csv",
            ])
        var request = GetMetricsRequest()
        request.metric = try Self.metricNamed(Metric.self, arguments.positionals[0], option: "METRIC")
        guard let from = arguments.value("--from"), let to = arguments.value("--to") else {
            throw UsageError(description: "metrics needs --from YYYY-MM-DD and --to YYYY-MM-DD (UTC dates, both included)")
        }
        request.startDate = from
        request.endDate = to
        if let text = arguments.value("--interval") {
            request.interval = try Self.metricNamed(MetricInterval.self, text, option: "--interval")
        }
        request.groupBy = try arguments.values("--group-by").map { (text) throws(UsageError) in
            try Self.metricNamed(MetricDimension.self, text, option: "--group-by")
        }
        var filter = MetricFilter()
        filter.store = arguments.value("--store") ?? ""
        filter.productID = arguments.value("--product") ?? ""
        filter.entitlementID = arguments.value("--entitlement") ?? ""
        filter.country = arguments.value("--country") ?? ""
        filter.offerKind = arguments.value("--offer-kind") ?? ""
        request.filter = filter
        if let text = arguments.value("--environment") {
            request.environment = try Self.metricNamed(StoreEnvironment.self, text, option: "--environment")
        }
        request.inReportingCurrency = arguments.flag("--in-reporting-currency")
        let response = try await connect(.secretKey).metrics(request)
        if arguments.flag("--csv") {
            Output.lines(MetricTable.csv(response, groupBy: request.groupBy))
        } else {
            printer.print(response, human: MetricTable.lines(response, groupBy: request.groupBy))
        }
        return 0
    }

    /// The value whose proto name is `text` (any case, `-` for `_`; not the UNSPECIFIED one).
    private static func metricNamed<Value: NamedProtoEnum>(_ type: Value.Type, _ text: String, option: String)
        throws(UsageError) -> Value
    {
        let offered = Value.names.dropFirst()
        let name = String(text.uppercased().map { $0 == "-" ? "_" : $0 })
        guard let index = offered.firstIndex(of: name) else {
            throw UsageError(description: "invalid \(option) '\(text)': expected \(offered.joined(separator: ", "))")
        }
        return Value(rawValue: Int32(index))
    }
}

/// A metric's series as lines: one per point, the group's values and the currency before the value.
enum MetricTable {
    static func lines(_ response: GetMetricsResponse, groupBy: [MetricDimension]) -> [String] {
        guard !response.series.isEmpty else { return ["nothing moved in this range"] }
        return zip(rows(response), points(response)).map { row, point in
            (row.prefix(row.count - 2) + [value(row[row.count - 2], denominator: row[row.count - 1], of: response)]
                + converted(point, of: response))
                .filter { !$0.isEmpty }.joined(separator: "  ")
        }
    }

    /// `= 12.345 USD at 1.0583 (2026-11-30)`, or the days without a rate; nothing when not converted.
    private static func converted(_ point: MetricPoint, of response: GetMetricsResponse) -> [String] {
        guard !response.reportingCurrency.isEmpty, !point.rates.isEmpty || !point.missingRateDates.isEmpty else {
            return []
        }
        let rates = point.rates.map { "\($0.rate) (\($0.date))" }.joined(separator: ", ")
        guard let value = point.convertedValue else {
            return ["= ? \(response.reportingCurrency): no rate for \(point.missingRateDates.joined(separator: ", "))"]
        }
        return ["= \(amount(String(value), of: response)) \(response.reportingCurrency) at \(rates)"]
    }

    /// `start_date,<dimension>...,currency,value,denominator`; amounts in the currency's units with three decimals.
    /// With `--in-reporting-currency`, also `converted_value,rates,missing_rate_dates` (rates as `DATE=RATE`
    /// and dates separated by spaces; the value empty when a day had no rate).
    static func csv(_ response: GetMetricsResponse, groupBy: [MetricDimension]) -> [String] {
        let converting = !response.reportingCurrency.isEmpty
        let header = ["start_date"] + groupBy.map { $0.name.lowercased() } + ["currency", "value", "denominator"]
            + (converting ? ["converted_value", "rates", "missing_rate_dates"] : [])
        return [header.joined(separator: ",")]
            + zip(rows(response), points(response)).map { row, point in
                var fields = row
                fields[fields.count - 2] = amount(row[row.count - 2], of: response)
                if converting {
                    fields += [
                        point.convertedValue.map { amount(String($0), of: response) } ?? "",
                        point.rates.map { "\($0.date)=\($0.rate)" }.joined(separator: " "),
                        point.missingRateDates.joined(separator: " "),
                    ]
                }
                return fields.map(quoted).joined(separator: ",")
            }
    }

    private static func points(_ response: GetMetricsResponse) -> [MetricPoint] {
        response.series.flatMap(\.points)
    }

    /// Each point's start date, group values, currency, value and denominator, as text.
    private static func rows(_ response: GetMetricsResponse) -> [[String]] {
        response.series.flatMap { series in
            series.points.map { point in
                [point.startDate] + series.group.map(\.value) + [series.currency, String(point.value),
                    String(point.denominator)]
            }
        }
    }

    private static func value(_ value: String, denominator: String, of response: GetMetricsResponse) -> String {
        let rates: [Metric] = [.refundRate, .churn, .trialConversionRate]
        guard rates.contains(response.metric) else { return amount(value, of: response) }
        guard let numerator = Double(value), let total = Double(denominator), total > 0 else {
            return "\(value)/\(denominator)"
        }
        let percent = (numerator / total * 1000).rounded() / 10
        return "\(value)/\(denominator) (\(percent)%)"
    }

    /// Thousandths as units with three decimals (`-9.990`), for amount metrics; counts as they are.
    private static func amount(_ value: String, of response: GetMetricsResponse) -> String {
        let amounts: [Metric] = [.revenue, .refunds, .netRevenue, .proceeds, .mrr, .gracePeriodMRR, .billingRetryMRR]
        guard amounts.contains(response.metric), let milliunits = Int64(value) else { return value }
        let whole = milliunits.magnitude / 1000
        let fraction = String(milliunits.magnitude % 1000)
        return (milliunits < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// RFC 4180: a field with a comma, quote or line break in quotes, its quotes doubled.
    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.flatMap { $0 == "\"" ? "\"\"" : String($0) } + "\""
    }
}
