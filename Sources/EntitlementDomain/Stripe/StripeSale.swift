public import Stripe

/// The money side of a Stripe purchase: a subscription's money is its paid invoices (what each collected, its tax,
/// the period it paid for, why Stripe billed it), a one-time purchase's its Checkout Session's total. Stripe reports
/// no fee in either (its balance transactions do), so the ledger estimates the proceeds.
extension StripeInterpretation {
    /// `record` (the subscription the invoice belongs to, as it is after the invoice) with the invoice's sale, when
    /// the invoice is paid and is the record's current transaction; `record` unchanged otherwise.
    public static func charged(_ record: StorePurchase, by invoice: StripeInvoice) throws(DomainError) -> StorePurchase {
        guard invoice.status == "paid", record.transactionID == invoice.id,
            let price = price(invoice.amountPaid, currency: invoice.currency), price.milliunits >= 0
        else { return record }
        var charged = record
        charged.price = price
        let reason = invoice.billingReason ?? ""
        let isFirst = reason == "subscription_create"
        // A first invoice of nothing is a free trial's; a coupon or promotion code makes any other a promotion.
        let offer: OfferKind =
            isFirst && price.milliunits == 0 ? .freeTrial : (invoice.discounts?.isEmpty == false ? .promotional : .none)
        var sale = PurchaseSale(
            kind: isFirst || reason == "subscription_update" ? .subscriptionPurchase : .subscriptionRenewal,
            offer: offer, country: country(invoice.customerAddress))
        sale.periodStart = try UnixTime.checked(seconds: invoice.periodStart, field: "lines.data[].period.start")
        sale.taxMilliunits = taxMilliunits(invoice.tax, of: price)
        charged.sale = sale
        return charged
    }

    /// The payment a paid invoice that is not `current`'s transaction made (delivered after a later one, or an
    /// earlier period's): `current` as of that invoice, for the revenue ledger only; nil when the invoice is
    /// `current`'s or not paid.
    public static func earlierPayment(_ invoice: StripeInvoice, of current: StorePurchase) throws(DomainError)
        -> StorePurchase?
    {
        guard invoice.status == "paid", current.transactionID != invoice.id else { return nil }
        var payment = current
        payment.transactionID = invoice.id
        payment.sale = nil
        payment.expiresAt = try UnixTime.checked(seconds: invoice.periodEnd, field: "lines.data[].period.end")
        payment.revokedAt = nil
        let charged = try charged(payment, by: invoice)
        return charged.sale == nil ? nil : charged
    }

    /// A one-time Checkout Session's sale, once paid for.
    static func sale(of session: StripeCheckoutSession, price: PurchasePrice?) -> PurchaseSale? {
        guard session.paymentStatus != "unpaid", let price else { return nil }
        var sale = PurchaseSale(
            kind: .oneTime, offer: session.totalDetails?.amountDiscount ?? 0 > 0 ? .promotional : .none,
            country: country(session.customerDetails?.address))
        sale.taxMilliunits = taxMilliunits(session.totalDetails?.amountTax, of: price)
        return sale
    }

    /// `revoked` with what the refund or dispute took back: `amount` of `currency` (Stripe's smallest unit), at most
    /// the price, when it is the price's currency.
    public static func refunding(_ revoked: StorePurchase, amount: Int64?, currency: String?) -> StorePurchase {
        guard let price = revoked.price, let taken = Self.price(amount, currency: currency),
            taken.currency == price.currency, taken.milliunits > 0
        else { return revoked }
        var refunded = revoked
        refunded.sale?.refundedMilliunits = min(taken.milliunits, price.milliunits)
        return refunded
    }

    private static func taxMilliunits(_ tax: Int64?, of price: PurchasePrice) -> Int64? {
        tax.flatMap { StripeAmount.milliunits($0, currency: price.currency) }.map { min(max($0, 0), price.milliunits) }
    }

    private static func country(_ address: StripeAddress?) -> String {
        let code = address?.country ?? ""
        return CountryCode.alpha2(code) ?? code.uppercased()
    }
}
