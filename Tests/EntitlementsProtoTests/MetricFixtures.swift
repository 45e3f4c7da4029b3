import EntitlementsProto
import ProtobufWire

/// AdminService's metric messages, built exactly as `Resources/roundtrip.py` builds them.
extension Fixtures {
    static let metrics: [Fixture] = [
        Fixture("GetMetricsRequest") { metricsRequest($0, unknownEnums: false) },
        Fixture("GetMetricsRequest#unknownEnums") { metricsRequest($0, unknownEnums: true) },
        Fixture("GetMetricsResponse") { u in
            unk(GetMetricsResponse(
                metric: .netRevenue, series: [metricSeries(u), unk(MetricSeries(), u)], reportingCurrency: "USD"), u)
        },
        Fixture("MetricFilter") { metricFilter($0) },
        Fixture("MetricSeries") { metricSeries($0) },
        Fixture("MetricGroupValue") { metricGroup($0) },
        Fixture("MetricPoint") { metricPoint($0, 1) },
        Fixture("MetricPoint#converted") { metricPoint($0, 0) },
        Fixture("MetricExchangeRate") { metricRate($0) },
        Fixture("ListMetricRowsRequest") { u in
            var request = ListMetricRowsRequest()
            request.metric = .refunds
            request.startDate = "2026-03-01"
            request.endDate = "2026-03-31"
            request.group = [metricGroup(u)]
            request.filter = metricFilter(u)
            request.environment = .production
            request.currency = "EUR"
            request.pageSize = 50
            request.pageToken = "tok"
            return unk(request, u)
        },
        Fixture("ListMetricRowsResponse") { u in
            unk(ListMetricRowsResponse(rows: [ledgerRow(u, taxed: true), ledgerRow(u, taxed: false)], nextPageToken: "next"), u)
        },
        Fixture("LedgerRow") { ledgerRow($0, taxed: true) },
        Fixture("LedgerRow#noTax") { ledgerRow($0, taxed: false) },
        .empty(GetMetricsRequest.self), .empty(GetMetricsResponse.self), .empty(MetricFilter.self),
        .empty(MetricSeries.self), .empty(MetricGroupValue.self), .empty(MetricPoint.self),
        .empty(MetricExchangeRate.self),
        .empty(ListMetricRowsRequest.self), .empty(ListMetricRowsResponse.self), .empty(LedgerRow.self),
    ]

    static func ledgerRow(_ u: Bool, taxed: Bool) -> LedgerRow {
        var row = LedgerRow()
        row.kind = "refund"
        row.direction = "refund"
        row.store = "app_store"
        row.transactionID = "2000000000000001"
        row.originalTransactionID = "2000000000000000"
        row.appUserID = "ユーザー✓"
        row.productID = "monthly"
        row.entitlementIDs = ["pro", "plus"]
        row.environment = .sandbox
        row.country = "FR"
        row.offerKind = "introductory"
        row.amountMilliunits = -4990
        row.currency = "EUR"
        row.taxMilliunits = taxed ? 0 : nil
        row.proceedsMilliunits = -3493
        row.periodStart = ts(1_700_000_000, 0, u)
        row.periodEnd = ts(1_702_592_000, 0, u)
        row.occurredAt = ts(1_701_000_000, 5_000_000, u)
        return unk(row, u)
    }

    static func metricFilter(_ u: Bool) -> MetricFilter {
        var filter = MetricFilter()
        filter.store = "play_store"
        filter.productID = "premium"
        filter.entitlementID = "pro"
        filter.country = "DE"
        filter.offerKind = "free_trial"
        return unk(filter, u)
    }

    static func metricsRequest(_ u: Bool, unknownEnums: Bool) -> GetMetricsRequest {
        var request = GetMetricsRequest()
        request.metric = unknownEnums ? Metric(rawValue: 99) : .refundRate
        request.startDate = "2026-01-01"
        request.endDate = "2026-12-31"
        request.interval = unknownEnums ? MetricInterval(rawValue: 99) : .month
        request.groupBy = [.entitlement, unknownEnums ? MetricDimension(rawValue: 99) : .offerKind]
        request.filter = metricFilter(u)
        request.environment = .sandbox
        request.inReportingCurrency = true
        return unk(request, u)
    }

    static func metricGroup(_ u: Bool) -> MetricGroupValue {
        unk(MetricGroupValue(dimension: .country, value: "ユーザー✓"), u)
    }

    static func metricRate(_ u: Bool) -> MetricExchangeRate {
        unk(MetricExchangeRate(date: "2026-01-02", rate: "1.0583"), u)
    }

    static func metricPoint(_ u: Bool, _ i: Int64) -> MetricPoint {
        var point = MetricPoint(startDate: "2026-0\(i + 1)-01", value: i == 0 ? Int64.max : Int64.min, denominator: i)
        if i == 0 {
            point.convertedValue = 0
        } else {
            point.missingRateDates = ["2026-02-07", "2026-02-08"]
        }
        point.rates = [metricRate(u)]
        return unk(point, u)
    }

    static func metricSeries(_ u: Bool) -> MetricSeries {
        unk(MetricSeries(group: [metricGroup(u)], currency: "EUR", points: [metricPoint(u, 0), metricPoint(u, 1)]), u)
    }
}
