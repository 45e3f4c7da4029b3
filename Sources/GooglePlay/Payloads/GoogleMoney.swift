public import Encodings

/// `google.type.Money` as Google's JSON carries it: whole units (an int64, so a decimal string, though a number is
/// taken too), nanos (billionths, with the units' sign) and an ISO 4217 code.
public struct GoogleMoney: Sendable, Hashable {
    public var currencyCode: String?
    public var units: Int64?
    public var nanos: Int64?

    public init(currencyCode: String? = nil, units: Int64? = nil, nanos: Int64? = nil) {
        self.currencyCode = currencyCode
        self.units = units
        self.nanos = nanos
    }

    /// The amount in thousandths of the currency, finer digits dropped (toward zero); nil when the nanos are out of
    /// range or of the other sign, or the amount does not fit.
    public var milliunits: Int64? {
        let nanos = nanos ?? 0
        let units = units ?? 0
        guard nanos > -1_000_000_000, nanos < 1_000_000_000,
            units == 0 || nanos == 0 || (units < 0) == (nanos < 0)
        else { return nil }
        let (thousands, overflow) = units.multipliedReportingOverflow(by: 1000)
        let (total, carry) = thousands.addingReportingOverflow(nanos / 1_000_000)
        return overflow || carry ? nil : total
    }
}

extension GoogleMoney: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { reader, key throws(JSONReadError) in
            switch key.text {
            case "currencyCode": currencyCode = try reader.readOptional { reader throws(JSONReadError) in try reader.readString() }
            case "units": units = try reader.readOptional { reader throws(JSONReadError) in try reader.readProtoInt64() }
            case "nanos": nanos = try reader.readOptional { reader throws(JSONReadError) in try reader.readInt64() }
            default: try reader.skipValue()
            }
        }
    }
}
