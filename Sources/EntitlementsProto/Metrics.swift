public import ProtobufWire

/// `entitlements.v1.Metric`.
public struct Metric: ProtoEnum {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: 0)
    public static let revenue = Self(rawValue: 1)
    public static let refunds = Self(rawValue: 2)
    public static let netRevenue = Self(rawValue: 3)
    public static let proceeds = Self(rawValue: 4)
    public static let newSubscriptions = Self(rawValue: 5)
    public static let trialStarts = Self(rawValue: 6)
    public static let trialConversions = Self(rawValue: 7)
    public static let renewals = Self(rawValue: 8)
    public static let refundRate = Self(rawValue: 9)
    public static let activeSubscriptions = Self(rawValue: 10)
    public static let activeTrials = Self(rawValue: 11)
    public static let mrr = Self(rawValue: 12)
    public static let churn = Self(rawValue: 13)
    public static let reactivations = Self(rawValue: 14)
    public static let trialConversionRate = Self(rawValue: 15)
    public static let gracePeriodSubscriptions = Self(rawValue: 16)
    public static let billingRetrySubscriptions = Self(rawValue: 17)
    public static let gracePeriodMRR = Self(rawValue: 18)
    public static let billingRetryMRR = Self(rawValue: 19)
}

/// `entitlements.v1.MetricInterval`.
public struct MetricInterval: ProtoEnum {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: 0)
    public static let day = Self(rawValue: 1)
    public static let week = Self(rawValue: 2)
    public static let month = Self(rawValue: 3)
}

/// `entitlements.v1.MetricDimension`.
public struct MetricDimension: ProtoEnum {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: 0)
    public static let store = Self(rawValue: 1)
    public static let product = Self(rawValue: 2)
    public static let entitlement = Self(rawValue: 3)
    public static let country = Self(rawValue: 4)
    public static let offerKind = Self(rawValue: 5)
}

/// `entitlements.v1.MetricFilter`: empty fields filter nothing.
public struct MetricFilter: ProtoMessage {
    public var store = ""
    public var productID = ""
    public var entitlementID = ""
    public var country = ""
    public var offerKind = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: store = try reader.decodeString(tag)
            case 2: productID = try reader.decodeString(tag)
            case 3: entitlementID = try reader.decodeString(tag)
            case 4: country = try reader.decodeString(tag)
            case 5: offerKind = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, store)
        writer.writeString(2, productID)
        writer.writeString(3, entitlementID)
        writer.writeString(4, country)
        writer.writeString(5, offerKind)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.GetMetricsRequest`.
public struct GetMetricsRequest: ProtoMessage {
    public var metric = Metric.unspecified
    /// `YYYY-MM-DD`, UTC, both ends included.
    public var startDate = ""
    public var endDate = ""
    public var interval = MetricInterval.unspecified
    public var groupBy: [MetricDimension] = []
    public var filter: MetricFilter?
    public var environment = StoreEnvironment.unspecified
    /// Amounts also in the tenant's reporting currency.
    public var inReportingCurrency = false
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: metric = try reader.decodeEnum(tag)
            case 2: startDate = try reader.decodeString(tag)
            case 3: endDate = try reader.decodeString(tag)
            case 4: interval = try reader.decodeEnum(tag)
            case 5: try reader.decodeRepeatedEnum(tag, into: &groupBy)
            case 6: filter = try reader.decodeMessage(tag)
            case 7: environment = try reader.decodeEnum(tag)
            case 8: inReportingCurrency = try reader.decodeBool(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, metric)
        writer.writeString(2, startDate)
        writer.writeString(3, endDate)
        writer.writeEnum(4, interval)
        writer.writePackedInt32(5, groupBy.map(\.rawValue))
        writer.writeMessage(6, filter)
        writer.writeEnum(7, environment)
        writer.writeBool(8, inReportingCurrency)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.GetMetricsResponse`.
public struct GetMetricsResponse: ProtoMessage {
    public var metric = Metric.unspecified
    public var series: [MetricSeries] = []
    /// ISO 4217, when amounts were converted.
    public var reportingCurrency = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(metric: Metric, series: [MetricSeries], reportingCurrency: String = "") {
        self.metric = metric
        self.series = series
        self.reportingCurrency = reportingCurrency
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: metric = try reader.decodeEnum(tag)
            case 2: series.append(try reader.decodeMessage(tag))
            case 3: reportingCurrency = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, metric)
        writer.writeRepeatedMessages(2, series)
        writer.writeString(3, reportingCurrency)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.MetricSeries`.
public struct MetricSeries: ProtoMessage {
    public var group: [MetricGroupValue] = []
    /// Empty for counts and rates.
    public var currency = ""
    public var points: [MetricPoint] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(group: [MetricGroupValue], currency: String, points: [MetricPoint]) {
        self.group = group
        self.currency = currency
        self.points = points
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: group.append(try reader.decodeMessage(tag))
            case 2: currency = try reader.decodeString(tag)
            case 3: points.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, group)
        writer.writeString(2, currency)
        writer.writeRepeatedMessages(3, points)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.MetricGroupValue`.
public struct MetricGroupValue: ProtoMessage {
    public var dimension = MetricDimension.unspecified
    public var value = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(dimension: MetricDimension, value: String) {
        self.dimension = dimension
        self.value = value
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: dimension = try reader.decodeEnum(tag)
            case 2: value = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, dimension)
        writer.writeString(2, value)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.MetricPoint`.
public struct MetricPoint: ProtoMessage {
    /// `YYYY-MM-DD`.
    public var startDate = ""
    public var value: Int64 = 0
    public var denominator: Int64 = 0
    /// Thousandths of the reporting currency; nil when not asked for or a day had no rate.
    public var convertedValue: Int64?
    public var rates: [MetricExchangeRate] = []
    /// `YYYY-MM-DD` of each day with an amount and no rate.
    public var missingRateDates: [String] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(startDate: String, value: Int64, denominator: Int64) {
        self.startDate = startDate
        self.value = value
        self.denominator = denominator
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: startDate = try reader.decodeString(tag)
            case 2: value = try reader.decodeInt64(tag)
            case 3: denominator = try reader.decodeInt64(tag)
            case 4: convertedValue = try reader.decodeInt64(tag)
            case 5: rates.append(try reader.decodeMessage(tag))
            case 6: missingRateDates.append(try reader.decodeString(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, startDate)
        writer.writeInt64(2, value)
        writer.writeInt64(3, denominator)
        writer.writeOptionalInt64(4, convertedValue)
        writer.writeRepeatedMessages(5, rates)
        writer.writeRepeatedStrings(6, missingRateDates)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.MetricExchangeRate`.
public struct MetricExchangeRate: ProtoMessage {
    /// `YYYY-MM-DD`: the rate's date in the tenant's table.
    public var date = ""
    /// A decimal: units of the reporting currency one unit of the series' buys.
    public var rate = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(date: String, rate: String) {
        self.date = date
        self.rate = rate
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: date = try reader.decodeString(tag)
            case 2: rate = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, date)
        writer.writeString(2, rate)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListMetricRowsRequest`.
public struct ListMetricRowsRequest: ProtoMessage {
    public var metric = Metric.unspecified
    public var startDate = ""
    public var endDate = ""
    public var group: [MetricGroupValue] = []
    public var filter: MetricFilter?
    public var environment = StoreEnvironment.unspecified
    public var currency = ""
    public var pageSize: Int32 = 0
    public var pageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: metric = try reader.decodeEnum(tag)
            case 2: startDate = try reader.decodeString(tag)
            case 3: endDate = try reader.decodeString(tag)
            case 4: group.append(try reader.decodeMessage(tag))
            case 5: filter = try reader.decodeMessage(tag)
            case 6: environment = try reader.decodeEnum(tag)
            case 7: currency = try reader.decodeString(tag)
            case 8: pageSize = try reader.decodeInt32(tag)
            case 9: pageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, metric)
        writer.writeString(2, startDate)
        writer.writeString(3, endDate)
        writer.writeRepeatedMessages(4, group)
        writer.writeMessage(5, filter)
        writer.writeEnum(6, environment)
        writer.writeString(7, currency)
        writer.writeInt32(8, pageSize)
        writer.writeString(9, pageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ListMetricRowsResponse`.
public struct ListMetricRowsResponse: ProtoMessage {
    public var rows: [LedgerRow] = []
    public var nextPageToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(rows: [LedgerRow], nextPageToken: String) {
        self.rows = rows
        self.nextPageToken = nextPageToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: rows.append(try reader.decodeMessage(tag))
            case 2: nextPageToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, rows)
        writer.writeString(2, nextPageToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.LedgerRow`: one revenue ledger row, in the ledger's words.
public struct LedgerRow: ProtoMessage {
    public var kind = ""
    public var direction = ""
    public var store = ""
    public var transactionID = ""
    public var originalTransactionID = ""
    public var appUserID = ""
    public var productID = ""
    public var entitlementIDs: [String] = []
    public var environment = StoreEnvironment.unspecified
    public var country = ""
    public var offerKind = ""
    public var amountMilliunits: Int64 = 0
    public var currency = ""
    /// Nil when the store reported none.
    public var taxMilliunits: Int64?
    public var proceedsMilliunits: Int64 = 0
    public var periodStart: ProtoTimestamp?
    /// Nil: never expires.
    public var periodEnd: ProtoTimestamp?
    public var occurredAt: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: kind = try reader.decodeString(tag)
            case 2: direction = try reader.decodeString(tag)
            case 3: store = try reader.decodeString(tag)
            case 4: transactionID = try reader.decodeString(tag)
            case 5: originalTransactionID = try reader.decodeString(tag)
            case 6: appUserID = try reader.decodeString(tag)
            case 7: productID = try reader.decodeString(tag)
            case 8: entitlementIDs.append(try reader.decodeString(tag))
            case 9: environment = try reader.decodeEnum(tag)
            case 10: country = try reader.decodeString(tag)
            case 11: offerKind = try reader.decodeString(tag)
            case 12: amountMilliunits = try reader.decodeInt64(tag)
            case 13: currency = try reader.decodeString(tag)
            case 14: taxMilliunits = try reader.decodeInt64(tag)
            case 15: proceedsMilliunits = try reader.decodeInt64(tag)
            case 16: periodStart = try reader.decodeMessage(tag)
            case 17: periodEnd = try reader.decodeMessage(tag)
            case 18: occurredAt = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, kind)
        writer.writeString(2, direction)
        writer.writeString(3, store)
        writer.writeString(4, transactionID)
        writer.writeString(5, originalTransactionID)
        writer.writeString(6, appUserID)
        writer.writeString(7, productID)
        writer.writeRepeatedStrings(8, entitlementIDs)
        writer.writeEnum(9, environment)
        writer.writeString(10, country)
        writer.writeString(11, offerKind)
        writer.writeInt64(12, amountMilliunits)
        writer.writeString(13, currency)
        writer.writeOptionalInt64(14, taxMilliunits)
        writer.writeInt64(15, proceedsMilliunits)
        writer.writeMessage(16, periodStart)
        writer.writeMessage(17, periodEnd)
        writer.writeMessage(18, occurredAt)
        writer.writeRaw(unknownFields)
    }
}
