import CivilCalendar
import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// `GetMetrics`: a revenue metric as series, read from the revenue ledger's daily totals; `ListMetricRows`: the
/// ledger rows behind one of its points. Read keys may call both.
extension AdminService {
    func registerMetricMethods(on router: inout RPCRouter) {
        router.registerUnary(Self.method("GetMetrics")) { (request: GetMetricsRequest, context) in
            try await metrics(request, context)
        }
        router.registerUnary(Self.method("ListMetricRows")) { (request: ListMetricRowsRequest, context) in
            try await metricRows(request, context)
        }
    }

    func metricRows(_ request: ListMetricRowsRequest, _ context: ServerContext) async throws -> ListMetricRowsResponse {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            var series = GetMetricsRequest()
            series.metric = request.metric
            series.startDate = request.startDate
            series.endDate = request.endDate
            series.filter = request.filter
            series.environment = request.environment
            let query = try MetricQuery(series, tenantID: tenant.id)
            var group: [RevenueDimension: String] = [:]
            for value in request.group {
                guard let dimension = RevenueDimension.allCases.first(where: { MetricDimension($0) == value.dimension }),
                    group.updateValue(value.value, forKey: dimension) == nil
                else {
                    throw DomainError.invalidRequest(
                        "group names dimension \(value.dimension.rawValue) twice, or one that is not a MetricDimension.")
                }
            }
            let page = try engine.revenueMetrics.rows(
                query, group: group, currency: request.currency.isEmpty ? nil : request.currency,
                pageSize: Int(request.pageSize), pageToken: request.pageToken)
            return ListMetricRowsResponse(rows: page.rows.map(EntitlementsProto.LedgerRow.init), nextPageToken: page.nextPageToken)
        }
    }

    func metrics(_ request: GetMetricsRequest, _ context: ServerContext) async throws -> GetMetricsResponse {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            var query = try MetricQuery(request, tenantID: tenant.id)
            if request.inReportingCurrency {
                guard let rates = tenant.exchangeRates else {
                    throw DomainError.tenantMisconfigured(
                        "The tenant has no reporting currency: add \"reporting_currency\" to its entry in the tenants file.")
                }
                query.exchangeRates = rates
            }
            let series = try engine.revenueMetrics.series(query)
            return GetMetricsResponse(
                metric: request.metric,
                series: series.map { series in
                    EntitlementsProto.MetricSeries(
                        group: query.groupBy.map { dimension in
                            MetricGroupValue(dimension: MetricDimension(dimension), value: series.group[dimension] ?? "")
                        },
                        currency: series.currency,
                        points: series.points.map(EntitlementsProto.MetricPoint.init))
                },
                reportingCurrency: query.exchangeRates?.reportingCurrency ?? "")
        }
    }
}

extension MetricQuery {
    /// The request in domain terms; INVALID_ARGUMENT names the field that is not one.
    init(_ request: GetMetricsRequest, tenantID: String) throws(DomainError) {
        guard let metric = RevenueMetric.allCases.first(where: { Metric($0) == request.metric }) else {
            throw .invalidRequest(
                "metric \(request.metric.rawValue) is not a Metric: use REVENUE, REFUNDS, NET_REVENUE, PROCEEDS, NEW_SUBSCRIPTIONS, TRIAL_STARTS, TRIAL_CONVERSIONS, RENEWALS, REFUND_RATE, ACTIVE_SUBSCRIPTIONS, ACTIVE_TRIALS, MRR, CHURN, REACTIVATIONS, TRIAL_CONVERSION_RATE, GRACE_PERIOD_SUBSCRIPTIONS, BILLING_RETRY_SUBSCRIPTIONS, GRACE_PERIOD_MRR or BILLING_RETRY_MRR.")
        }
        let interval: EntitlementDomain.MetricInterval
        switch request.interval {
        case .unspecified, .day: interval = .day
        case .week: interval = .week
        case .month: interval = .month
        default: throw .invalidRequest("interval \(request.interval.rawValue) is not DAY, WEEK or MONTH.")
        }
        var groupBy: [RevenueDimension] = []
        for dimension in request.groupBy {
            guard let known = RevenueDimension.allCases.first(where: { MetricDimension($0) == dimension }) else {
                throw .invalidRequest(
                    "group_by \(dimension.rawValue) is not a MetricDimension: STORE, PRODUCT, ENTITLEMENT, COUNTRY or OFFER_KIND.")
            }
            groupBy.append(known)
        }
        // The mapping the responses use, read backwards; unset is production.
        let environment =
            request.environment == .unspecified
            ? PurchaseEnvironment.production
            : PurchaseEnvironment.allCases.first { StoreEnvironment($0) == request.environment }
        guard let environment else {
            throw .invalidRequest("environment \(request.environment.rawValue) is not a StoreEnvironment.")
        }
        self.init(
            metric: metric, tenantID: tenantID, environment: environment,
            firstDay: try MetricDate.day(request.startDate, field: "start_date"),
            lastDay: try MetricDate.day(request.endDate, field: "end_date"), interval: interval, groupBy: groupBy,
            filter: try Self.filter(request.filter ?? MetricFilter()))
    }

    /// The set fields of `filter`; a store or offer kind must be one of the ledger's words.
    private static func filter(_ filter: MetricFilter) throws(DomainError) -> [RevenueDimension: String] {
        let stores = EntitlementDomain.Store.allCases.map(\.ledgerName)
        guard filter.store.isEmpty || stores.contains(filter.store) else {
            throw .invalidRequest("filter.store must be \(stores.joined(separator: ", ")) (or empty).")
        }
        let offers = OfferKind.allCases.map(\.name)
        guard filter.offerKind.isEmpty || offers.contains(filter.offerKind) else {
            throw .invalidRequest("filter.offer_kind must be \(offers.joined(separator: ", ")) (or empty).")
        }
        let values: [(RevenueDimension, String)] = [
            (.store, filter.store), (.product, filter.productID), (.entitlements, filter.entitlementID),
            (.country, filter.country), (.offer, filter.offerKind),
        ]
        return Dictionary(uniqueKeysWithValues: values.filter { !$0.1.isEmpty })
    }
}

/// Metric dates: `YYYY-MM-DD` in UTC, as days since 1970-01-01.
enum MetricDate {
    static func day(_ text: String, field: String) throws(DomainError) -> Int64 {
        guard let days = CivilCalendar.days(fromDateText: text) else {
            throw .invalidRequest("\(field) \(text.prefix(40).debugDescription) is not a date of the calendar: YYYY-MM-DD.")
        }
        return days
    }

    static func text(day: Int64) -> String { CivilCalendar.dateText(days: day) }
}

extension EntitlementsProto.LedgerRow {
    init(_ row: EntitlementDomain.LedgerRow) {
        self.init()
        let entry = row.entry
        kind = entry.kind.name
        direction = entry.kind.direction.name
        store = entry.store.ledgerName
        transactionID = entry.transactionID
        originalTransactionID = entry.originalTransactionID
        appUserID = row.appUserID
        productID = entry.productID
        entitlementIDs = entry.entitlementIDs
        environment = StoreEnvironment(entry.environment)
        country = entry.country
        offerKind = entry.offer.name
        amountMilliunits = entry.amount.milliunits
        currency = entry.amount.currency
        taxMilliunits = entry.taxMilliunits
        proceedsMilliunits = entry.proceedsMilliunits
        periodStart = ProtoTimestamp(entry.periodStart)
        periodEnd = entry.periodEnd.map { ProtoTimestamp($0) }
        occurredAt = ProtoTimestamp(entry.occurredAt)
    }
}

extension EntitlementsProto.MetricPoint {
    init(_ point: EntitlementDomain.MetricPoint) {
        self.init(startDate: MetricDate.text(day: point.firstDay), value: point.value, denominator: point.denominator)
        guard let conversion = point.conversion else { return }
        convertedValue = conversion.value
        rates = conversion.rates.map { MetricExchangeRate(date: MetricDate.text(day: $0.day), rate: $0.rate.text) }
        missingRateDates = conversion.missingDays.map(MetricDate.text(day:))
    }
}
