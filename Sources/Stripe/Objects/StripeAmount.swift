/// Stripe's amounts are integers in a currency's smallest unit: cents for most, the unit itself for zero-decimal
/// currencies (JPY, KRW, ...), thousandths for the three-decimal ones (BHD, KWD, ...), as Stripe's "Supported
/// currencies" lists them.
public enum StripeAmount {
    static let zeroDecimal: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
    ]
    static let threeDecimal: Set<String> = ["BHD", "JOD", "KWD", "OMR", "TND"]

    /// `amount` in thousandths of the currency's unit; nil when it would not fit.
    public static func milliunits(_ amount: Int64, currency: String) -> Int64? {
        let code = currency.uppercased()
        let factor: Int64 = zeroDecimal.contains(code) ? 1000 : threeDecimal.contains(code) ? 1 : 10
        let (value, overflow) = amount.multipliedReportingOverflow(by: factor)
        return overflow ? nil : value
    }
}
